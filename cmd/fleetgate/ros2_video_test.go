//go:build ros2

package main

import (
	"bytes"
	"context"
	bigendian "encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/source/ros2/ros2test"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// h264Units encodes n pictures of ffmpeg's test pattern with libx264 as the gateway's own
// encoder does (a keyframe first, SPS and PPS in front of it) and returns the access units.
func h264Units(t *testing.T, n int) [][]byte {
	t.Helper()
	args := append([]string{"-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15", "-frames:v", "30"}, video.EncodeArgs(video.Settings{})...)
	out, err := exec.Command("ffmpeg", args...).Output()
	if err != nil {
		t.Fatalf("ffmpeg: %v", err)
	}
	var aus [][]byte
	for pr := video.NewPartReader(bytes.NewReader(out)); ; {
		au, err := pr.Next()
		if err != nil {
			break
		}
		aus = append(aus, au)
	}
	if len(aus) != n || !video.IsKeyframe(aus[0]) {
		t.Fatalf("ffmpeg made %d access units, the first a keyframe: %v", len(aus), len(aus) > 0 && video.IsKeyframe(aus[0]))
	}
	return aus
}

// A ROS 2 camera publishing foxglove_msgs/msg/CompressedVideo (each peer, H.264 access
// units from libx264, in a loop) is a camera stream that offers h264 only, and a W3 viewer
// with codec=h264 gets the peer's access units unchanged, in order, from a keyframe on.
func TestROS2CompressedVideoPassesThrough(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is missing: scripts/test.sh installs it")
	}
	aus := h264Units(t, 30)
	var file []byte
	for _, au := range aus {
		file = bigendian.BigEndian.AppendUint32(file, uint32(len(au)))
		file = append(file, au...)
	}
	path := filepath.Join(t.TempDir(), "camera.units")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, peer := range ros2Peers(t) {
		t.Run(peer.name, func(t *testing.T) { compressedVideoFrom(t, peer, path, aus) })
	}
}

func compressedVideoFrom(t *testing.T, peer ros2Peer, path string, aus [][]byte) {
	ros2test.Start(t, peer.path, "--domain", strconv.Itoa(peer.domain), "--video", path, "--video-hz", "30",
		"--image-hz", "0", "--cloud-hz", "0", "--scan-hz", "0")
	_, bearer, robot := ros2Agent(t, peer.domain, "bot")
	waitStreams(t, robot, bearer, "/camera/video")
	var list struct {
		RobotStreams []struct {
			StreamName, StreamType, Direction string
			Codecs                            []string
		}
	}
	api(t, "GET", robot+"/streams", bearer, &list)
	for _, s := range list.RobotStreams {
		if s.StreamName == "/camera/video" && (s.StreamType != video.Type || s.Direction != "output" || !slices.Equal(s.Codecs, []string{"h264"})) {
			t.Fatalf("/camera/video is listed as %+v", s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws := dialROSW3(t, ctx, robot, bearer, ros2Query("/camera/video", "&codec=h264"))
	next := -1 // the index of the access unit due next
	for i := range 45 {
		env := envelope(t, ctx, ws)
		var v catalogpb.CompressedVideo
		if env.DataType != video.Type || proto.Unmarshal(env.Data, &v) != nil || v.Format != "h264" || v.FrameId != "camera" || v.GetTimestamp().GetSec() < 1600000000 {
			t.Fatalf("frame %d: %s %v", i, env.DataType, &v)
		}
		if next < 0 {
			if !video.IsKeyframe(v.Data) {
				t.Fatalf("the first frame is no keyframe: NAL types %v", video.NALTypes(v.Data))
			}
			next = slices.IndexFunc(aus, func(au []byte) bool { return bytes.Equal(au, v.Data) })
			if next < 0 {
				t.Fatal("the first frame is none of the peer's access units")
			}
		}
		if !bytes.Equal(v.Data, aus[next]) {
			t.Fatalf("frame %d is not the peer's access unit %d unchanged", i, next)
		}
		next = (next + 1) % len(aus)
	}
}
