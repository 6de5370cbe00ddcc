package output

import (
	"bytes"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/foxglovepb"
)

// TestFoxgloveImage: a camera sample becomes a foxglove.CompressedImage that protobuf reads
// with every field, its picture not copied (Body is the sample's own bytes), made once for
// every client of the sample.
func TestFoxgloveImage(t *testing.T) {
	jpeg := bytes.Repeat([]byte{0xff, 0xd8, 1, 2}, 40<<10)
	payload, _ := proto.Marshal(&catalogpb.CompressedImage{
		Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: 1700000000, Nanosec: 250}, FrameId: "camera_optical"},
		Format: "jpeg", Data: jpeg})
	f := NewFeed(camera)
	sample := fleetgate.Sample{Type: compressedImageType, Payload: payload, Seq: 3, Time: time.Unix(9, 9)}
	frame, err := f.Frame(sample, Variant{Format: Foxglove})
	if err != nil {
		t.Fatal(err)
	}
	var img foxglovepb.CompressedImage
	if err := proto.Unmarshal(frame.Bytes(), &img); err != nil {
		t.Fatal(err)
	}
	if img.Timestamp.GetSeconds() != 1700000000 || img.Timestamp.GetNanos() != 250 || img.FrameId != "camera_optical" ||
		img.Format != "jpeg" || !bytes.Equal(img.Data, jpeg) {
		t.Errorf("foxglove image: stamp %v, frame %q, format %q, %d bytes", img.Timestamp, img.FrameId, img.Format, len(img.Data))
	}
	if len(frame.Body) != len(jpeg) || &frame.Body[0] != &payload[len(payload)-len(jpeg)] {
		t.Errorf("the picture was copied: Body is not the sample's bytes")
	}
	again, _ := f.Frame(sample, Variant{Format: Foxglove})
	if &again.Head[0] != &frame.Head[0] {
		t.Errorf("a second client got a conversion of its own")
	}
}

// TestFoxgloveImageWithoutStamp: an image whose header has no stamp takes the sample's time.
func TestFoxgloveImageWithoutStamp(t *testing.T) {
	payload, _ := proto.Marshal(&catalogpb.CompressedImage{Format: "png", Data: []byte{1, 2, 3}})
	frame, err := NewFeed(camera).Frame(fleetgate.Sample{Type: compressedImageType, Payload: payload, Seq: 1, Time: time.Unix(42, 7)}, Variant{Format: Foxglove})
	if err != nil {
		t.Fatal(err)
	}
	var img foxglovepb.CompressedImage
	if err := proto.Unmarshal(frame.Bytes(), &img); err != nil {
		t.Fatal(err)
	}
	if img.Timestamp.GetSeconds() != 42 || img.Timestamp.GetNanos() != 7 || img.Format != "png" || !bytes.Equal(img.Data, []byte{1, 2, 3}) {
		t.Errorf("got %v", &img)
	}
}

// TestFoxgloveOtherTypes: any other type goes as its payload, untouched and not copied; a
// point cloud is downsampled when the variant says so, as on W3.
func TestFoxgloveOtherTypes(t *testing.T) {
	pose, _ := proto.Marshal(&catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 1}}})
	stream := fleetgate.Stream{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped"}
	frame, err := NewFeed(stream).Frame(fleetgate.Sample{Type: stream.Type, Payload: pose, Seq: 1}, Variant{Format: Foxglove})
	if err != nil {
		t.Fatal(err)
	}
	if len(frame.Head)+len(frame.Tail) != 0 || &frame.Body[0] != &pose[0] {
		t.Errorf("a pose was not sent as its own bytes")
	}
	big := cloud(t, 3*DefaultMaxPoints)
	pc := fleetgate.Stream{Component: "depth", Name: "points", Type: pointCloudType}
	frame, err = NewFeed(pc).Frame(fleetgate.Sample{Type: pointCloudType, Payload: big, Seq: 1}, Variant{Format: Foxglove, Downsample: true})
	if err != nil {
		t.Fatal(err)
	}
	var got catalogpb.PointCloud2
	if err := proto.Unmarshal(frame.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Width != DefaultMaxPoints {
		t.Errorf("downsampled cloud has %d points, want %d", got.Width, DefaultMaxPoints)
	}
	if FoxgloveType(compressedImageType) != FoxgloveImageType || FoxgloveType(stream.Type) != stream.Type {
		t.Errorf("FoxgloveType")
	}
}

// TestFoxgloveImageMalformed: a payload that is no CompressedImage fails its frame (the
// channel's subscription ends with the reason), it does not panic.
func TestFoxgloveImageMalformed(t *testing.T) {
	for _, payload := range [][]byte{{0x0a, 0x05, 1}, {0x1a, 0xff}, {0x0a, 0x02, 0x0a, 0x09}} {
		if _, err := NewFeed(camera).Frame(fleetgate.Sample{Type: compressedImageType, Payload: payload, Seq: 1}, Variant{Format: Foxglove}); err == nil {
			t.Errorf("%x: no error", payload)
		}
	}
}
