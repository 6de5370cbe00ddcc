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

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

var camera = fleet.Stream{Component: "camera", Name: "image", Type: compressedImageType, Direction: fleet.Output, Source: fleet.SourceComponent}

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

func envelope(t *testing.T, frame []byte) *streampb.MessageStream {
	t.Helper()
	var env streampb.MessageStream
	if err := proto.Unmarshal(frame, &env); err != nil {
		t.Fatal(err)
	}
	return &env
}

func TestJPEGIsNeverGzipped(t *testing.T) {
	jpeg := bytes.Repeat([]byte{0xff, 0xd8, 0, 0}, 4096) // compressible, but a picture
	payload, _ := proto.Marshal(&catalogpb.CompressedImage{Format: "jpeg", Data: jpeg})
	f := NewFeed(camera)
	frame, err := f.Frame(fleet.Sample{Type: compressedImageType, Payload: payload, Seq: 1, Time: time.Unix(5, 7)}, Variant{})
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
	stream := fleet.Stream{Component: "depth", Name: "points", Type: pointCloudType, Source: fleet.SourceComponent}
	compressible := cloud(t, 1000)
	env := envelope(t, must(NewFeed(stream).Frame(fleet.Sample{Type: pointCloudType, Payload: compressible, Seq: 1}, Variant{})))
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
	env = envelope(t, must(NewFeed(stream).Frame(fleet.Sample{Type: "Platform.Messages.std_msgs.String", Payload: small, Seq: 1}, Variant{})))
	if env.Compression == streampb.Compression_COMPRESSION_GZIP && len(env.Data) >= len(small)*9/10 {
		t.Error("gzip kept although it did not pay")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
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
	stream := fleet.Stream{Component: "depth", Name: "points", Type: pointCloudType, Source: fleet.SourceComponent}
	f := NewFeed(stream)
	s := fleet.Sample{Type: pointCloudType, Payload: cloud(t, 60_000), Seq: 4}
	var wg sync.WaitGroup
	frames := make([][]byte, 16)
	for i := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames[i] = must(f.Frame(s, Variant{Downsample: true}))
		}()
	}
	wg.Wait()
	for _, fr := range frames[1:] {
		if &fr[0] != &frames[0][0] {
			t.Fatal("clients of one sample got separate encodings")
		}
	}
	whole := must(f.Frame(s, Variant{}))
	if len(whole) <= len(frames[0]) {
		t.Error("withoutDownSampling got the downsampled cloud")
	}
	next := must(f.Frame(fleet.Sample{Type: pointCloudType, Payload: cloud(t, 10), Seq: 5}, Variant{Downsample: true}))
	if bytes.Equal(next, frames[0]) {
		t.Error("a new sample reused the old encoding")
	}
}

func TestJSONLimits(t *testing.T) {
	stream := fleet.Stream{Component: "depth", Name: "points", Type: pointCloudType}
	big := cloud(t, (MaxJSONDecoded/12)+10)
	if _, err := NewFeed(stream).Frame(fleet.Sample{Type: pointCloudType, Payload: big, Seq: 1}, Variant{Format: JSON}); !errors.Is(err, ErrTooLarge) {
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
	if _, err := NewFeed(stream).Frame(fleet.Sample{Type: "Platform.Messages.sensor_msgs.LaserScan", Payload: payload, Seq: 1}, Variant{Format: JSON}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("JSON over 16 MiB: %v, want ErrTooLarge", err)
	}
	out, err := NewFeed(stream).Frame(fleet.Sample{Type: "Platform.Messages.std_msgs.Bool", Payload: []byte{8, 1}, Seq: 1}, Variant{Format: JSON})
	if err != nil || string(out) != `{"data":true}` {
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
