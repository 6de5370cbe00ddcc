package output

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

var camera = fleetgate.Stream{Component: "camera", Name: "image", Type: compressedImageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent}

func cloud(t testing.TB, n int) []byte {
	t.Helper()
	data := make([]byte, n*12)
	for i := range n {
		data[i*12] = byte(i) // x's low byte tells the points apart
	}
	b, err := proto.Marshal(&catalogpb.PointCloud2{Width: uint32(n), Height: 1, PointStep: 12, RowStep: uint32(n * 12), Data: data, IsDense: true,
		Fields: []*catalogpb.PointField{{Name: "x", Datatype: 7, Count: 1}, {Name: "y", Offset: 4, Datatype: 7, Count: 1}, {Name: "z", Offset: 8, Datatype: 7, Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func envelope(t *testing.T, frame Frame) *streampb.MessageStream {
	t.Helper()
	var env streampb.MessageStream
	if err := proto.Unmarshal(frame.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	return &env
}

func TestJPEGIsNeverGzipped(t *testing.T) {
	jpeg := bytes.Repeat([]byte{0xff, 0xd8, 0, 0}, 4096) // compressible, but a picture
	payload, _ := proto.Marshal(&catalogpb.CompressedImage{Format: "jpeg", Data: jpeg})
	f := NewFeed(camera)
	frame, err := f.Frame(fleetgate.Sample{Type: compressedImageType, Payload: payload, Seq: 1, Time: time.Unix(5, 7)}, Variant{})
	if err != nil {
		t.Fatal(err)
	}
	env := envelope(t, frame)
	if env.Compression != streampb.Compression_COMPRESSION_NONE || !bytes.Equal(env.Data, payload) {
		t.Errorf("a CompressedImage was gzipped")
	}
	if env.PublishTime.GetSec() != 5 || env.PublishTime.GetNanosec() != 7 || env.Sequence != 1 || env.ComponentName != "camera" {
		t.Errorf("envelope %+v", env)
	}
}

func TestGzipOnlyWhenItPays(t *testing.T) {
	stream := fleetgate.Stream{Component: "depth", Name: "points", Type: pointCloudType, Source: fleetgate.SourceComponent}
	compressible := cloud(t, 1000)
	env := envelope(t, must(NewFeed(stream).Frame(fleetgate.Sample{Type: pointCloudType, Payload: compressible, Seq: 1}, Variant{})))
	if env.Compression != streampb.Compression_COMPRESSION_GZIP {
		t.Fatal("a compressible cloud went uncompressed")
	}
	zr, _ := gzip.NewReader(bytes.NewReader(env.Data))
	if raw, _ := io.ReadAll(zr); !bytes.Equal(raw, compressible) {
		t.Error("gzip round trip changed the payload")
	}
	// Random bytes do not compress: sent as they are.
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7919 + i*i*31)
	}
	small, _ := proto.Marshal(&catalogpb.String{Data: string(noise)})
	env = envelope(t, must(NewFeed(stream).Frame(fleetgate.Sample{Type: "Platform.Messages.std_msgs.String", Payload: small, Seq: 1}, Variant{})))
	if env.Compression == streampb.Compression_COMPRESSION_GZIP && len(env.Data) >= len(small)*9/10 {
		t.Error("gzip kept although it did not pay")
	}
}

func must(f Frame, err error) Frame {
	if err != nil {
		panic(err)
	}
	return f
}

func TestDownsamplePointCloud(t *testing.T) {
	out, err := DownsamplePointCloud(cloud(t, 120_000), 50_000)
	if err != nil {
		t.Fatal(err)
	}
	var pc catalogpb.PointCloud2
	proto.Unmarshal(out, &pc)
	if pc.Width > 50_000 || pc.Width < 40_000 || pc.Height != 1 || len(pc.Data) != int(pc.Width)*12 || pc.RowStep != pc.Width*12 {
		t.Errorf("downsampled: width %d height %d data %d row_step %d", pc.Width, pc.Height, len(pc.Data), pc.RowStep)
	}
	if pc.Data[12] != 3 { // stride 3: the second kept point is point 3
		t.Errorf("points are not evenly spread: second x byte %d", pc.Data[12])
	}
	small := cloud(t, 1000)
	if same, _ := DownsamplePointCloud(small, 50_000); !bytes.Equal(same, small) {
		t.Error("a cloud within the limit was changed")
	}
	if _, err := DownsamplePointCloud([]byte{0xff}, 10); err == nil {
		t.Error("garbage accepted")
	}
}

func TestFrameVariantsShareOneEncoding(t *testing.T) {
	stream := fleetgate.Stream{Component: "depth", Name: "points", Type: pointCloudType, Source: fleetgate.SourceComponent}
	f := NewFeed(stream)
	s := fleetgate.Sample{Type: pointCloudType, Payload: cloud(t, 60_000), Seq: 4}
	var wg sync.WaitGroup
	frames := make([]Frame, 16)
	for i := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames[i] = must(f.Frame(s, Variant{Downsample: true}))
		}()
	}
	wg.Wait()
	for _, fr := range frames[1:] {
		if &fr.Body[0] != &frames[0].Body[0] {
			t.Fatal("clients of one sample got separate encodings")
		}
	}
	whole := must(f.Frame(s, Variant{}))
	if whole.Len() <= frames[0].Len() {
		t.Error("withoutDownSampling got the downsampled cloud")
	}
	next := must(f.Frame(fleetgate.Sample{Type: pointCloudType, Payload: cloud(t, 10), Seq: 5}, Variant{Downsample: true}))
	if bytes.Equal(next.Bytes(), frames[0].Bytes()) {
		t.Error("a new sample reused the old encoding")
	}
}

func TestJSONLimits(t *testing.T) {
	stream := fleetgate.Stream{Component: "depth", Name: "points", Type: pointCloudType}
	big := cloud(t, (MaxJSONDecoded/12)+10)
	if _, err := NewFeed(stream).Frame(fleetgate.Sample{Type: pointCloudType, Payload: big, Seq: 1}, Variant{Format: JSON}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("12 MiB cloud as JSON: %v, want ErrTooLarge", err)
	}
	// Under 12 MiB decoded but over 16 MiB as JSON (bytes become base64, floats text).
	scan := &catalogpb.LaserScan{Ranges: make([]float32, 2_900_000)}
	for i := range scan.Ranges {
		scan.Ranges[i] = 1.2345678
	}
	payload, _ := proto.Marshal(scan)
	if len(payload) > MaxJSONDecoded {
		t.Fatalf("test scan is %d bytes", len(payload))
	}
	if _, err := NewFeed(stream).Frame(fleetgate.Sample{Type: "Platform.Messages.sensor_msgs.LaserScan", Payload: payload, Seq: 1}, Variant{Format: JSON}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("JSON over 16 MiB: %v, want ErrTooLarge", err)
	}
	out, err := NewFeed(stream).Frame(fleetgate.Sample{Type: "Platform.Messages.std_msgs.Bool", Payload: []byte{8, 1}, Seq: 1}, Variant{Format: JSON})
	if err != nil || string(out.Bytes()) != `{"data":true}` || len(out.Head)+len(out.Tail) != 0 {
		t.Errorf("json frame %s %v", out, err)
	}
}

func TestPacer(t *testing.T) {
	p := NewPacer(4)
	now := time.Unix(100, 0)
	if p.Wait(now) != 0 {
		t.Error("the first frame waits")
	}
	p.Sent(now)
	if w := p.Wait(now.Add(100 * time.Millisecond)); w != 150*time.Millisecond {
		t.Errorf("wait %v, want 150ms", w)
	}
	if w := p.Wait(now.Add(time.Second)); w != 0 {
		t.Errorf("late frame waits %v", w)
	}
	if NewPacer(0).Wait(now) != 0 {
		t.Error("maxRate 0 caps")
	}
}

func TestFeedsShareAndRelease(t *testing.T) {
	var fs Feeds
	a, releaseA := fs.Get("r1", camera)
	b, releaseB := fs.Get("r1", camera)
	c, releaseC := fs.Get("r2", camera)
	if a != b || a == c || fs.Len() != 2 {
		t.Fatalf("feeds not shared per robot stream (len %d)", fs.Len())
	}
	releaseA()
	releaseA()
	if fs.Len() != 2 {
		t.Error("a double release dropped a feed still in use")
	}
	releaseB()
	releaseC()
	if fs.Len() != 0 {
		t.Errorf("feeds left: %d", fs.Len())
	}
}

// marshalled is the envelope as proto.Marshal makes it: what every frame must equal.
func marshalled(t *testing.T, stream fleetgate.Stream, s fleetgate.Sample, data []byte, compression streampb.Compression) []byte {
	t.Helper()
	env := &streampb.MessageStream{ComponentName: stream.Component, StreamName: stream.Name, Source: int32(stream.Source),
		DataType: s.Type, Data: data, Compression: compression, Sequence: s.Seq}
	if !s.Time.IsZero() {
		env.PublishTime = &catalogpb.Time{Sec: int32(s.Time.Unix()), Nanosec: uint32(s.Time.Nanosecond())}
	}
	b, err := proto.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// The head, the payload and the tail of a split envelope are exactly proto.Marshal's bytes,
// with or without each optional field, at the varint boundaries of every length and value.
func TestSplitEnvelopeIsProtoMarshal(t *testing.T) {
	streams := []fleetgate.Stream{
		camera,
		{}, // every string empty, source 0
		{Component: "ç", Name: string(make([]byte, 200)), Source: fleetgate.SourceDevice},
		{Component: "arm", Name: "joints", Source: -1},                 // a negative int32: ten bytes
		{Component: "arm", Name: "joints", Source: 1<<31 - 1},          // the largest int32
		{Component: "arm", Name: "joints", Source: 1 << 33},            // truncated to int32, as the envelope does
		{Component: "a", Name: "b", Source: fleetgate.SourceComponent}, // short strings
	}
	times := []time.Time{
		{},              // no publish time
		time.Unix(0, 0), // a publish time whose fields are both zero: an empty message
		time.Unix(5, 7), // one-byte varints
		time.Unix(1_750_000_000, 123_456_789),
		time.Unix(-3, 999_999_999), // a negative second
		time.Unix(1<<31+5, 0),      // beyond int32, truncated as the envelope does
	}
	seqs := []uint64{0, 1, 127, 128, 1 << 20, 1<<64 - 1}
	types := []string{compressedImageType, "", "Platform.Messages.std_msgs.String"}
	payloads := [][]byte{nil, {}, {0}, noise(127), noise(128), noise(16383), noise(16384), noise(150 << 10), noise(2 << 20)}
	n := 0
	for i, stream := range streams {
		for j, at := range times {
			for k, seq := range seqs {
				typ := types[(i+j+k)%len(types)]
				for _, payload := range payloads {
					if len(payload) > 64<<10 && k != len(seqs)-1 {
						// The large lengths' varints are the same at every sequence: once per
						// stream and time is enough (under -race, each is a 2 MB marshal).
						continue
					}
					s := fleetgate.Sample{Type: typ, Payload: payload, Time: at, Seq: seq}
					f, ok := splitEnvelope(stream, s, payload)
					if !ok {
						t.Fatalf("stream %+v sample %v/%d refused", stream, at, seq)
					}
					want := marshalled(t, stream, s, payload, streampb.Compression_COMPRESSION_NONE)
					if got := f.AppendTo(nil); !bytes.Equal(got, want) {
						t.Fatalf("stream %+v, time %v, seq %d, type %q, %d-byte payload:\n got head %x tail %x\nwant %x...%x",
							stream, at, seq, typ, len(payload), f.Head, f.Tail, want[:min(len(want), len(f.Head)+8)], want[max(0, len(want)-len(f.Tail)-8):])
					}
					if len(payload) > 0 && &f.Body[0] != &payload[0] {
						t.Fatal("the payload was copied")
					}
					if f.Len() != len(want) || !bytes.Equal(f.Bytes(), want) {
						t.Fatal("Len or Bytes disagree with the frame's parts")
					}
					if cap(f.Head) != len(f.Head) || cap(f.Tail) != len(f.Tail) {
						t.Fatal("an append to the head or tail could write into the other")
					}
					n++
				}
			}
		}
	}
	t.Logf("%d envelopes compared", n)
}

// Feed.Frame splits the envelopes it does not gzip, when large enough to pay, and keeps
// every other frame in one Body; every frame is exactly proto.Marshal's envelope.
func TestFrameSplitsLargeUncompressedEnvelopes(t *testing.T) {
	image := func(n int) []byte {
		b, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "camera"}, Format: "jpeg", Data: noise(n)})
		return b
	}
	depth := fleetgate.Stream{Component: "depth", Name: "points", Type: pointCloudType, Source: fleetgate.SourceComponent}
	text := fleetgate.Stream{Component: "log", Name: "text", Type: "Platform.Messages.std_msgs.String", Source: fleetgate.SourceComponent}
	str := func(b []byte) []byte { p, _ := proto.Marshal(&catalogpb.String{Data: string(b)}); return p }
	for _, c := range []struct {
		name   string
		stream fleetgate.Stream
		sample fleetgate.Sample
		split  bool
		gzip   bool
	}{
		{"image 150 KiB", camera, fleetgate.Sample{Type: compressedImageType, Payload: image(150 << 10), Time: time.Unix(1_750_000_000, 5), Seq: 9}, true, false},
		{"image 2 MiB without time", camera, fleetgate.Sample{Type: compressedImageType, Payload: image(2 << 20), Seq: 1 << 40}, true, false},
		{"image just under the split size", camera, fleetgate.Sample{Type: compressedImageType, Payload: make([]byte, minSplit-1), Time: time.Unix(3, 0), Seq: 2}, false, false},
		{"image at the split size", camera, fleetgate.Sample{Type: compressedImageType, Payload: make([]byte, minSplit), Time: time.Unix(3, 0), Seq: 2}, true, false},
		{"empty image", camera, fleetgate.Sample{Type: compressedImageType, Time: time.Unix(3, 0), Seq: 3}, false, false},
		{"incompressible text 64 KiB", text, fleetgate.Sample{Type: text.Type, Payload: str(noise(64 << 10)), Time: time.Unix(8, 8), Seq: 4}, true, false},
		{"compressible cloud", depth, fleetgate.Sample{Type: pointCloudType, Payload: cloud(t, 20_000), Time: time.Unix(8, 8), Seq: 5}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := NewFeed(c.stream).Frame(c.sample, Variant{})
			if err != nil {
				t.Fatal(err)
			}
			if split := len(f.Head) > 0; split != c.split {
				t.Fatalf("split %v, want %v", split, c.split)
			}
			if c.split && &f.Body[0] != &c.sample.Payload[0] {
				t.Error("a split frame copied the payload")
			}
			env := envelope(t, f)
			if gz := env.Compression == streampb.Compression_COMPRESSION_GZIP; gz != c.gzip {
				t.Fatalf("gzip %v, want %v", gz, c.gzip)
			}
			if c.gzip {
				return // compared with its own gzip in TestGzipOnlyWhenItPays
			}
			if want := marshalled(t, c.stream, c.sample, c.sample.Payload, streampb.Compression_COMPRESSION_NONE); !bytes.Equal(f.Bytes(), want) {
				t.Error("the frame differs from proto.Marshal of its envelope")
			}
		})
	}
}

// A string proto.Marshal refuses (invalid UTF-8) is refused the same way when split.
func TestSplitEnvelopeInvalidUTF8(t *testing.T) {
	stream := fleetgate.Stream{Component: "cam\xff", Name: "image", Source: fleetgate.SourceComponent}
	s := fleetgate.Sample{Type: compressedImageType, Payload: noise(minSplit), Seq: 1}
	if _, ok := splitEnvelope(stream, s, s.Payload); ok {
		t.Fatal("invalid UTF-8 split")
	}
	if _, err := NewFeed(stream).Frame(s, Variant{}); err == nil {
		t.Fatal("invalid UTF-8 accepted")
	}
}
