// Package output turns the samples of a robot stream into the frames of the live stream
// WebSocket (W3 output): MessageStream envelopes (gzip where it pays) or plain JSON, point
// clouds downsampled on request. Each sample is encoded once per variant and the bytes are
// shared by every client of the stream: encoding per client is what makes relays slow.
//
// A large envelope that is not gzipped is not copied at all: its Frame is a small head and
// tail around the sample's payload itself (see Frame).
package output

import (
	"bytes"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// Format is the frame format a client asked for.
type Format int

const (
	Protobuf Format = iota // binary frames, one MessageStream envelope each
	JSON                   // text frames, the typed message as plain JSON
	// Foxglove is the message alone, as a Foxglove WebSocket channel carries it behind the
	// protocol's per-client header (foxglove.go): no envelope, never gzipped.
	Foxglove
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

// minSplit is the smallest payload sent without copying it into its envelope (a Frame with a
// head and a tail): below it, one copy per sample costs less than the extra write a
// three-part frame costs each client.
const minSplit = 32 << 10

// PointCloudType is the type whose samples Variant.Downsample thins.
const PointCloudType = pointCloudType

const (
	pointCloudType      = "Platform.Messages.sensor_msgs.PointCloud2"
	compressedImageType = "Platform.Messages.sensor_msgs.CompressedImage"
	// VideoType is the type of H.264 camera streams (W3's codec=h264).
	VideoType = "Platform.Messages.foxglove_msgs.CompressedVideo"
)

// ErrTooLarge is returned for JSON output over the limits (its code closes 1009).
var ErrTooLarge error = fleetgate.Errorf(fleetgate.ETooLarge, "frame too large for JSON output; use format=protobuf")

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
	stream fleetgate.Stream

	mu    sync.Mutex
	seq   uint64
	cache map[Variant]*encoding
}

type encoding struct {
	once  sync.Once
	frame Frame
	err   error
}

// Frame is the encoding of one sample for one variant: the frame's bytes are Head, Body and
// Tail one after the other, one WebSocket message. It is shared by every client of the
// sample: never modify its bytes.
//
// A protobuf envelope whose payload is large and not gzipped is not copied: Body is the
// sample's payload itself, Head the envelope's fields before it (fields 1 to 4, and the tag
// and length of field 5, data) and Tail those after it (fields 6 to 8), together exactly
// what proto.Marshal of the envelope makes. Every other frame (JSON, gzipped or small
// envelopes) is all in Body, with Head and Tail empty.
type Frame struct {
	Head, Body, Tail []byte
}

// Len is the frame's size in bytes.
func (f Frame) Len() int { return len(f.Head) + len(f.Body) + len(f.Tail) }

// AppendTo appends the frame's bytes to b.
func (f Frame) AppendTo(b []byte) []byte {
	b = append(b, f.Head...)
	b = append(b, f.Body...)
	return append(b, f.Tail...)
}

// Bytes returns the frame's bytes in one slice: Body itself when the frame is all in Body,
// else a copy.
func (f Frame) Bytes() []byte {
	if len(f.Head) == 0 && len(f.Tail) == 0 {
		return f.Body
	}
	return f.AppendTo(make([]byte, 0, f.Len()))
}

// NewFeed returns the feed of one stream.
func NewFeed(stream fleetgate.Stream) *Feed {
	return &Feed{stream: stream, cache: map[Variant]*encoding{}}
}

// Frame returns the frame of sample s for variant v. The bytes are shared: never modify
// them. Concurrent callers asking for the same sample and variant wait for one encoding.
func (f *Feed) Frame(s fleetgate.Sample, v Variant) (Frame, error) {
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
	e.once.Do(func() { e.frame, e.err = encode(f.stream, s, v) })
	return e.frame, e.err
}

func encode(stream fleetgate.Stream, s fleetgate.Sample, v Variant) (Frame, error) {
	payload := s.Payload
	if v.Downsample && s.Type == pointCloudType {
		var err error
		if payload, err = DownsamplePointCloud(payload, v.MaxPoints); err != nil {
			return Frame{}, err
		}
	}
	if v.Format == Foxglove {
		return foxgloveFrame(s, payload)
	}
	if v.Format == JSON {
		if len(payload) > MaxJSONDecoded {
			return Frame{}, ErrTooLarge
		}
		out, err := msgs.PayloadToJSON(s.Type, payload)
		if err != nil {
			return Frame{}, err
		}
		if len(out) > MaxJSONEncoded {
			return Frame{}, ErrTooLarge
		}
		return Frame{Body: out}, nil
	}
	data, compression := payload, streampb.Compression_COMPRESSION_NONE
	// JPEG, PNG and H.264 are compressed already; gzip would only cost time.
	if s.Type != compressedImageType && s.Type != VideoType && len(payload) >= minGzip {
		if z := gzipped(payload); len(z) < len(payload)*9/10 {
			data, compression = z, streampb.Compression_COMPRESSION_GZIP
		}
	}
	if compression == streampb.Compression_COMPRESSION_NONE && len(data) >= minSplit {
		if f, ok := splitEnvelope(stream, s, data); ok {
			return f, nil
		}
	}
	env := &streampb.MessageStream{
		ComponentName: stream.Component,
		StreamName:    stream.Name,
		Source:        int32(stream.Source),
		DataType:      s.Type,
		Data:          data,
		Compression:   compression,
		Sequence:      s.Seq,
	}
	if !s.Time.IsZero() {
		env.PublishTime = &catalogpb.Time{Sec: int32(s.Time.Unix()), Nanosec: uint32(s.Time.Nanosecond())}
	}
	b, err := proto.Marshal(env)
	return Frame{Body: b}, err
}

// The MessageStream fields, numbered as in the .proto; splitEnvelope writes them in number
// order, as proto.Marshal does.
const (
	fieldComponentName protowire.Number = 1
	fieldStreamName    protowire.Number = 2
	fieldSource        protowire.Number = 3
	fieldDataType      protowire.Number = 4
	fieldData          protowire.Number = 5
	fieldCompression   protowire.Number = 6 // always none here: a split envelope is not gzipped
	fieldPublishTime   protowire.Number = 7
	fieldSequence      protowire.Number = 8
	fieldTimeSec       protowire.Number = 1 // of Time
	fieldTimeNanosec   protowire.Number = 2
)

// splitEnvelope is the MessageStream of sample s with data (not gzipped) as a Frame that
// does not copy data: the head before it, the tail after it, both in one small allocation.
// Their bytes with data between them are exactly proto.Marshal's of the envelope (proto3:
// fields at their zero value are left out, in field number order). ok is false when a string
// is not valid UTF-8, which proto.Marshal refuses: the caller marshals and reports its error.
func splitEnvelope(stream fleetgate.Stream, s fleetgate.Sample, data []byte) (f Frame, ok bool) {
	if !utf8.ValidString(stream.Component) || !utf8.ValidString(stream.Name) || !utf8.ValidString(s.Type) {
		return Frame{}, false
	}
	source := uint64(int64(int32(stream.Source))) // int32: negative values take ten bytes
	var sec, nsec uint64
	if !s.Time.IsZero() {
		sec, nsec = uint64(int64(int32(s.Time.Unix()))), uint64(uint32(s.Time.Nanosecond()))
	}
	// Sizes first, so that head and tail share one exact allocation.
	size := func(num protowire.Number, n int) int { return protowire.SizeTag(num) + protowire.SizeBytes(n) }
	headLen := 0
	if stream.Component != "" {
		headLen += size(fieldComponentName, len(stream.Component))
	}
	if stream.Name != "" {
		headLen += size(fieldStreamName, len(stream.Name))
	}
	if source != 0 {
		headLen += protowire.SizeTag(fieldSource) + protowire.SizeVarint(source)
	}
	if s.Type != "" {
		headLen += size(fieldDataType, len(s.Type))
	}
	if len(data) > 0 {
		headLen += protowire.SizeTag(fieldData) + protowire.SizeVarint(uint64(len(data)))
	}
	timeLen := 0
	if sec != 0 {
		timeLen += protowire.SizeTag(fieldTimeSec) + protowire.SizeVarint(sec)
	}
	if nsec != 0 {
		timeLen += protowire.SizeTag(fieldTimeNanosec) + protowire.SizeVarint(nsec)
	}
	tailLen := 0
	if !s.Time.IsZero() {
		tailLen += size(fieldPublishTime, timeLen)
	}
	if s.Seq != 0 {
		tailLen += protowire.SizeTag(fieldSequence) + protowire.SizeVarint(s.Seq)
	}

	b := make([]byte, 0, headLen+tailLen)
	if stream.Component != "" {
		b = protowire.AppendTag(b, fieldComponentName, protowire.BytesType)
		b = protowire.AppendString(b, stream.Component)
	}
	if stream.Name != "" {
		b = protowire.AppendTag(b, fieldStreamName, protowire.BytesType)
		b = protowire.AppendString(b, stream.Name)
	}
	if source != 0 {
		b = protowire.AppendTag(b, fieldSource, protowire.VarintType)
		b = protowire.AppendVarint(b, source)
	}
	if s.Type != "" {
		b = protowire.AppendTag(b, fieldDataType, protowire.BytesType)
		b = protowire.AppendString(b, s.Type)
	}
	if len(data) > 0 {
		b = protowire.AppendTag(b, fieldData, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(len(data)))
	}
	if !s.Time.IsZero() {
		b = protowire.AppendTag(b, fieldPublishTime, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(timeLen))
		if sec != 0 {
			b = protowire.AppendTag(b, fieldTimeSec, protowire.VarintType)
			b = protowire.AppendVarint(b, sec)
		}
		if nsec != 0 {
			b = protowire.AppendTag(b, fieldTimeNanosec, protowire.VarintType)
			b = protowire.AppendVarint(b, nsec)
		}
	}
	if s.Seq != 0 {
		b = protowire.AppendTag(b, fieldSequence, protowire.VarintType)
		b = protowire.AppendVarint(b, s.Seq)
	}
	// Full slice expressions: an append to one part can never write into the other.
	return Frame{Head: b[:headLen:headLen], Body: data, Tail: b[headLen:len(b):len(b)]}, true
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
