package video_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

var (
	cameraKey = fleetgate.StreamKey{Component: "camera", Name: "front", Source: fleetgate.SourceComponent}
	odomKey   = fleetgate.StreamKey{Component: "base", Name: "odom", Source: fleetgate.SourceComponent}
)

// picture is a JPEG CompressedImage of a gradient that moves with n.
func picture(t *testing.T, n int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 160, 120))
	for y := range 120 {
		for x := range 160 {
			img.Set(x, y, color.RGBA{uint8(x + n), uint8(y * 2), uint8(n * 3), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "front"}, Format: "jpeg", Data: b.Bytes()})
	return p
}

// cameraRobot is a robot with a JPEG camera that shows a new picture every 20 ms until the
// test ends.
func cameraRobot(t *testing.T) *fleettest.Robot {
	r := &fleettest.Robot{ID: "r1", Name: "r1", StreamList: []fleetgate.Stream{
		{Component: "camera", Name: "front", Type: video.ImageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "base", Name: "odom", Type: "Platform.Messages.nav_msgs.Odometry", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			r.Emit(cameraKey, video.ImageType, picture(t, n))
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return r
}

func needFFmpeg(t *testing.T) *video.Encoders {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	return video.New()
}

// TestEncoderRunsWhileWatched: an H.264 subscriber of a JPEG camera gets a keyframe with SPS
// and PPS first, then pictures; the encoder (and the camera's JPEG subscription) stops when
// the last subscriber leaves.
func TestEncoderRunsWhileWatched(t *testing.T) {
	encs := needFFmpeg(t)
	r := cameraRobot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, err := encs.Subscribe(ctx, "r1", r, cameraKey, fleetgate.SubscribeOptions{Codec: fleetgate.CodecH264})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		s, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var v catalogpb.CompressedVideo
		if err := proto.Unmarshal(s.Payload, &v); err != nil || s.Type != video.Type || v.Format != "h264" || v.FrameId != "front" {
			t.Fatalf("frame %d: %s %v %v", i, s.Type, &v, err)
		}
		if key := video.IsKeyframe(v.Data); (i == 0) != key || s.Keyframe != key {
			t.Fatalf("frame %d: keyframe %v (flag %v), NAL types %v", i, key, s.Keyframe, video.NALTypes(v.Data))
		}
	}
	if encs.Running() != 1 || r.Subscribers(cameraKey) != 1 {
		t.Fatalf("%d encoders, %d camera subscribers while watched", encs.Running(), r.Subscribers(cameraKey))
	}
	sub.Close()
	deadline := time.Now().Add(5 * time.Second)
	for encs.Running() > 0 || r.Subscribers(cameraKey) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d encoders, %d camera subscribers after the last viewer left", encs.Running(), r.Subscribers(cameraKey))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEncoderEndsWithTheCamera: a camera that goes away ends its H.264 subscribers with the
// reason; a stream that is not a camera's has no h264.
func TestEncoderEndsWithTheCamera(t *testing.T) {
	encs := needFFmpeg(t)
	r := cameraRobot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := encs.Subscribe(ctx, "r1", r, odomKey, fleetgate.SubscribeOptions{Codec: fleetgate.CodecH264}); fleetgate.ErrorCode(err) != fleetgate.EInvalid {
		t.Fatalf("h264 of odometry: %v, want EInvalid", err)
	}
	sub, err := encs.Subscribe(ctx, "r1", r, cameraKey, fleetgate.SubscribeOptions{Codec: fleetgate.CodecH264})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Next(ctx); err != nil {
		t.Fatal(err)
	}
	r.Disconnect()
	for {
		if _, err := sub.Next(ctx); err != nil {
			if !fleetgate.Is(err, fleetgate.EOffline) {
				t.Fatalf("ended with %v, want EOffline", err)
			}
			break
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for encs.Running() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the encoder runs on after its camera went away")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCodecs(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		h264 bool
		want string
	}{{video.ImageType, true, "[jpeg h264]"}, {video.ImageType, false, "[jpeg]"}, {video.Type, false, "[h264]"}, {"x.Odometry", true, "[]"}} {
		if got := fmtList(video.Codecs(tc.typ, tc.h264)); got != tc.want {
			t.Errorf("Codecs(%s, %v) = %s, want %s", tc.typ, tc.h264, got, tc.want)
		}
	}
}

func fmtList(l []string) string {
	b := []byte("[")
	for i, s := range l {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, s...)
	}
	return string(append(b, ']'))
}
