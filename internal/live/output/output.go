// Package output turns the samples of a robot stream into the frames of the live stream
// WebSocket (W3 output): MessageStream envelopes (gzip where it pays) or plain JSON, point
// clouds downsampled on request. Each sample is encoded once per variant and the bytes are
// shared by every client of the stream: encoding per client is what makes relays slow.
package output

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// Format is the frame format a client asked for.
type Format int

const (
	Protobuf Format = iota // binary frames, one MessageStream envelope each
	JSON                   // text frames, the typed message as plain JSON
)

// Limits of JSON output (the contract's): beyond them the socket closes with 1009.
const (
	MaxJSONDecoded = 12 << 20
	MaxJSONEncoded = 16 << 20
)

// DefaultMaxPoints is how many points a downsampled point cloud keeps at most.
const DefaultMaxPoints = 50_000

// minGzip is the smallest payload worth compressing; below it the header costs more.
const minGzip = 1 << 10

const (
	pointCloudType      = "Platform.Messages.sensor_msgs.PointCloud2"
	compressedImageType = "Platform.Messages.sensor_msgs.CompressedImage"
)

// ErrTooLarge is returned for JSON output over the limits (close 1009).
var ErrTooLarge = errors.New("frame too large for JSON output; use format=protobuf")

// Variant is how one client wants its frames.
type Variant struct {
	Format Format
	// Downsample limits point clouds to MaxPoints (withoutDownSampling=false, the default).
	Downsample bool
	MaxPoints  int // 0: DefaultMaxPoints
}

// Feed encodes the samples of one stream. It keeps the encodings of the newest sample only:
// clients are latest-wins, so an older sample is never asked for twice.
type Feed struct {
	stream fleet.Stream

	mu    sync.Mutex
	seq   uint64
	cache map[Variant]*encoding
}

type encoding struct {
	once sync.Once
	data []byte
	err  error
}

// NewFeed returns the feed of one stream.
func NewFeed(stream fleet.Stream) *Feed {
	return &Feed{stream: stream, cache: map[Variant]*encoding{}}
}

// Frame returns the frame of sample s for variant v. The bytes are shared: never modify
// them. Concurrent callers asking for the same sample and variant wait for one encoding.
func (f *Feed) Frame(s fleet.Sample, v Variant) ([]byte, error) {
	if v.MaxPoints <= 0 {
		v.MaxPoints = DefaultMaxPoints
	}
	if s.Type != pointCloudType {
		v.Downsample, v.MaxPoints = false, 0 // one cache entry for what only differs in those
	}
	f.mu.Lock()
	var e *encoding
	switch {
	case s.Seq == f.seq:
		e = f.cache[v]
		if e == nil {
			e = &encoding{}
			f.cache[v] = e
		}
	case s.Seq > f.seq:
		f.seq = s.Seq
		clear(f.cache)
		e = &encoding{}
		f.cache[v] = e
	default:
		e = &encoding{} // an older sample: encode it, but do not displace the newest
	}
	f.mu.Unlock()
	e.once.Do(func() { e.data, e.err = encode(f.stream, s, v) })
	return e.data, e.err
}

func encode(stream fleet.Stream, s fleet.Sample, v Variant) ([]byte, error) {
	payload := s.Payload
	if v.Downsample && s.Type == pointCloudType {
		var err error
		if payload, err = DownsamplePointCloud(payload, v.MaxPoints); err != nil {
			return nil, err
		}
	}
	if v.Format == JSON {
		if len(payload) > MaxJSONDecoded {
			return nil, ErrTooLarge
		}
		out, err := msgs.PayloadToJSON(s.Type, payload)
		if err != nil {
			return nil, err
		}
		if len(out) > MaxJSONEncoded {
			return nil, ErrTooLarge
		}
		return out, nil
	}
	env := &streampb.MessageStream{
		ComponentName: stream.Component,
		StreamName:    stream.Name,
		Source:        int32(stream.Source),
		DataType:      s.Type,
		Data:          payload,
		Sequence:      s.Seq,
	}
	if !s.Time.IsZero() {
		env.PublishTime = &catalogpb.Time{Sec: int32(s.Time.Unix()), Nanosec: uint32(s.Time.Nanosecond())}
	}
	// JPEG and PNG are compressed already; gzip would only cost time.
	if s.Type != compressedImageType && len(payload) >= minGzip {
		if z := gzipped(payload); len(z) < len(payload)*9/10 {
			env.Data, env.Compression = z, streampb.Compression_COMPRESSION_GZIP
		}
	}
	return proto.Marshal(env)
}

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

func gzipped(data []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(data) / 2)
	w := gzipWriters.Get().(*gzip.Writer)
	w.Reset(&buf)
	w.Write(data)
	w.Close()
	gzipWriters.Put(w)
	return buf.Bytes()
}

// DownsamplePointCloud keeps at most maxPoints points of a serialized PointCloud2, evenly
// spread (every k-th point), as an unorganized cloud (height 1). A cloud within the limit
// is returned unchanged.
func DownsamplePointCloud(payload []byte, maxPoints int) ([]byte, error) {
	var pc catalogpb.PointCloud2
	if err := proto.Unmarshal(payload, &pc); err != nil {
		return nil, fmt.Errorf("point cloud: %w", err)
	}
	n := int(pc.Width) * int(pc.Height)
	step := int(pc.PointStep)
	if n <= maxPoints || step == 0 || len(pc.Data) < n*step {
		return payload, nil
	}
	stride := (n + maxPoints - 1) / maxPoints
	kept := (n + stride - 1) / stride
	data := make([]byte, 0, kept*step)
	for i := 0; i < n; i += stride {
		data = append(data, pc.Data[i*step:(i+1)*step]...)
	}
	pc.Data = data
	pc.Width, pc.Height = uint32(kept), 1
	pc.RowStep = uint32(kept * step)
	return proto.Marshal(&pc)
}

// Pacer spaces one client's frames for maxRate (frames per second; 0: no cap).
type Pacer struct {
	interval time.Duration
	last     time.Time
}

// NewPacer returns a pacer for maxRate frames per second.
func NewPacer(maxRate float64) *Pacer {
	p := &Pacer{}
	if maxRate > 0 {
		p.interval = time.Duration(float64(time.Second) / maxRate)
	}
	return p
}

// Wait is how long to wait at now before the next frame may go.
func (p *Pacer) Wait(now time.Time) time.Duration {
	if p.interval == 0 || p.last.IsZero() {
		return 0
	}
	return max(0, p.last.Add(p.interval).Sub(now))
}

// Sent records that a frame went at now.
func (p *Pacer) Sent(now time.Time) { p.last = now }
