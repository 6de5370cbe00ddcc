package camera

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/internal/video/videotest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// accessUnits reads n H.264 frames from sub; the first must be a keyframe with SPS and PPS.
func accessUnits(t *testing.T, sub *fleet.Subscription, n int) [][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var units [][]byte
	for i := range n {
		s, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %d access units: %v", i, err)
		}
		var v catalogpb.CompressedVideo
		if err := proto.Unmarshal(s.Payload, &v); err != nil || s.Type != VideoType || v.Format != "h264" || v.FrameId != "test" {
			t.Fatalf("frame %d: %s %v %v", i, s.Type, &v, err)
		}
		if i == 0 && (!s.Keyframe || !video.IsKeyframe(v.Data)) {
			t.Fatalf("the first frame is no keyframe: NAL types %v", video.NALTypes(v.Data))
		}
		units = append(units, v.Data)
	}
	return units
}

// TestRTSPCameraAsH264: an H.264 camera passes through to H.264 viewers as it came (ffmpeg
// copies, no decode, no encode); an MJPEG camera is encoded once by the camera's ffmpeg. JPEG
// viewers keep their own ffmpeg, and each runs only while watched.
func TestRTSPCameraAsH264(t *testing.T) {
	for _, tt := range []struct {
		codec string
		copy  bool
	}{{"h264", true}, {"mjpeg", false}} {
		t.Run(tt.codec, func(t *testing.T) {
			srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: tt.codec, Width: 320, Height: 240, FPS: 15})
			c := realCamera(t, srv.URL(), nil)
			sub, err := c.SubscribeWith(fleetgate.SubscribeOptions{Codec: fleetgate.CodecH264})
			if err != nil {
				t.Fatal(err)
			}
			if st := videotest.ProbeUnits(t, accessUnits(t, sub, 12)); st.Frames != 12 || st.Width != 320 || st.Height != 240 {
				t.Fatalf("decoded %v, want 12 of 320x240", st)
			}
			args := cmdline(t, c.videoStream().PID())
			if copied := strings.Contains(args, "-c:v copy") && !strings.Contains(args, "libx264"); copied != tt.copy {
				t.Fatalf("ffmpeg runs %q; pass-through %v, want %v", args, copied, tt.copy)
			}
			if c.PID() != 0 {
				t.Fatalf("the JPEG ffmpeg runs with no JPEG viewer")
			}
			if !tt.copy {
				return // what follows is the same for both
			}
			// A JPEG viewer at the same time: today's path, an ffmpeg of its own.
			jpegs, err := c.Subscribe()
			if err != nil {
				t.Fatal(err)
			}
			imgs, _ := images(t, jpegs, 2)
			if w, h := decodeJPEG(t, imgs[1].Data); w != 320 || h != 240 {
				t.Fatalf("JPEG viewer: %dx%d", w, h)
			}
			// A second H.264 viewer starts at a keyframe at once (the cached group of pictures).
			again, err := c.SubscribeWith(fleetgate.SubscribeOptions{Codec: fleetgate.CodecH264})
			if err != nil {
				t.Fatal(err)
			}
			if st := videotest.ProbeUnits(t, accessUnits(t, again, 3)); st.Frames != 3 {
				t.Fatalf("second viewer: %v, want 3", st)
			}
			again.Close()
			sub.Close()
			jpegs.Close()
		})
	}
}
