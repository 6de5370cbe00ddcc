package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
)

// H.264 on W3 (codec=h264, an extension): a real client asks the simulator's camera as H.264
// and a real decoder (ffprobe, ffmpeg) reads what it received.

// h264Frames reads n W3 frames, each a CompressedVideo envelope, and writes their access
// units one after the other to a file (a raw H.264 stream, as ffmpeg reads it); it returns
// the file and the envelopes.
func h264Frames(t *testing.T, ctx context.Context, conn *websocket.Conn, n int) (string, []*streampb.MessageStream) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "received.h264")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var envs []*streampb.MessageStream
	for i := range n {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		env := &streampb.MessageStream{}
		if err := proto.Unmarshal(b, env); err != nil || env.DataType != video.Type || env.Compression != streampb.Compression_COMPRESSION_NONE {
			t.Fatalf("frame %d: envelope %v, %v", i, env, err)
		}
		var v catalogpb.CompressedVideo
		if err := proto.Unmarshal(env.Data, &v); err != nil || v.Format != "h264" || v.Timestamp == nil {
			t.Fatalf("frame %d: %v %v", i, &v, err)
		}
		if i == 0 && !video.IsKeyframe(v.Data) {
			t.Fatalf("the first frame is no keyframe with SPS and PPS: NAL types %v", video.NALTypes(v.Data))
		}
		f.Write(v.Data)
		envs = append(envs, env)
	}
	return path, envs
}

// probeH264 decodes a raw H.264 file with ffprobe, counting its pictures; ffmpeg's decoder
// must find no error in it.
func probeH264(t *testing.T, path string) (frames, width, height int, profile string) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-f", "h264", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height,profile", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var r struct {
		Streams []struct {
			Frames  string `json:"nb_read_frames"`
			Width   int    `json:"width"`
			Height  int    `json:"height"`
			Profile string `json:"profile"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) != 1 {
		t.Fatalf("ffprobe said %s (%v)", out, err)
	}
	if msgs, err := exec.Command("ffmpeg", "-v", "error", "-f", "h264", "-i", path, "-f", "null", "-").CombinedOutput(); err != nil || len(msgs) > 0 {
		t.Fatalf("ffmpeg does not decode the stream cleanly: %v %s", err, msgs)
	}
	frames, _ = strconv.Atoi(r.Streams[0].Frames)
	return frames, r.Streams[0].Width, r.Streams[0].Height, r.Streams[0].Profile
}

// encoders lists the H.264 encoders (ffmpeg running libx264) this process started.
func encoders(t *testing.T) []int {
	t.Helper()
	dirs, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err1 := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		cmdline, err2 := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err1 != nil || err2 != nil || !strings.Contains(string(cmdline), "libx264") {
			continue
		}
		// stat: pid (comm) state ppid ...
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[1] == self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoEncoder fails unless every encoder this process started is gone within a few
// seconds (the encoder stops on its own goroutine once the last viewer has left).
func waitNoEncoder(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(encoders(t)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("ffmpeg encoders %v still run with no viewer", encoders(t))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSimCameraAsH264(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	s, bearer := cameraAgent(t, server.CameraConfig{}, 1)
	simID := robotsOf(t, s, bearer)["sim-1"]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Endpoint 6 says which streams offer it.
	var list struct {
		RobotStreams []struct {
			StreamName string
			Codecs     []string `json:"codecs"`
		}
	}
	s.Do(http.MethodGet, "/apigateway/v2/robots/"+simID+"/streams", bearer, "").JSON(t, &list)
	codecs := map[string]string{}
	for _, st := range list.RobotStreams {
		codecs[st.StreamName] = strings.Join(st.Codecs, ",")
	}
	if codecs["image"] != "jpeg,h264" || codecs["odom"] != "" {
		t.Fatalf("codecs per stream: %v", codecs)
	}

	camera := url.Values{"componentName": {"camera"}, "streamName": {"image"}}
	with := func(extra ...string) url.Values {
		q := url.Values{}
		for k, v := range camera {
			q[k] = v
		}
		for i := 0; i+1 < len(extra); i += 2 {
			q.Set(extra[i], extra[i+1])
		}
		return q
	}
	conn, _, err := w3(ctx, s, bearer, simID, with("codec", "h264"))
	if err != nil {
		t.Fatal(err)
	}
	path, envs := h264Frames(t, ctx, conn, 20)
	frames, w, h, profile := probeH264(t, path)
	if frames != 20 || w != 640 || h != 480 || !strings.Contains(profile, "Baseline") {
		t.Fatalf("decoded %d pictures of %dx%d (%s), want 20 of 640x480, baseline", frames, w, h, profile)
	}
	for i := 1; i < len(envs); i++ {
		if envs[i].Sequence <= envs[i-1].Sequence {
			t.Fatalf("sequence %d after %d", envs[i].Sequence, envs[i-1].Sequence)
		}
	}
	// A second viewer of the same size shares the encoder, and starts at a keyframe at once.
	again, _, err := w3(ctx, s, bearer, simID, with("codec", "h264"))
	if err != nil {
		t.Fatal(err)
	}
	path, _ = h264Frames(t, ctx, again, 3)
	if frames, _, _, _ := probeH264(t, path); frames != 3 {
		t.Fatalf("second viewer: %d pictures, want 3", frames)
	}
	if n := len(encoders(t)); n != 1 {
		t.Fatalf("%d encoders for one camera and two viewers", n)
	}
	again.Close(websocket.StatusNormalClosure, "")
	// A viewer of another size, while the first watches: a keyframe at once, its own size.
	small, _, err := w3(ctx, s, bearer, simID, with("codec", "h264", "maxWidth", "320"))
	if err != nil {
		t.Fatal(err)
	}
	path, _ = h264Frames(t, ctx, small, 5)
	if frames, w, h, _ := probeH264(t, path); frames != 5 || w != 320 || h != 240 {
		t.Fatalf("scaled: %d pictures of %dx%d, want 5 of 320x240", frames, w, h)
	}
	small.Close(websocket.StatusNormalClosure, "")
	conn.Close(websocket.StatusNormalClosure, "")
	waitNoEncoder(t)

	// Without a codec, or with jpeg, the camera stays JPEG.
	for _, q := range []url.Values{camera, with("codec", "jpeg")} {
		conn, _, err := w3(ctx, s, bearer, simID, q)
		if err != nil {
			t.Fatal(err)
		}
		if _, w, h := jpegFrames(t, ctx, conn, 2); w != 640 || h != 480 {
			t.Fatalf("%v: %dx%d", q, w, h)
		}
		conn.Close(websocket.StatusNormalClosure, "")
	}

	// An unknown codec, or a codec on input, is a 400; h264 of a stream that is not a
	// camera's closes 1008 (it cannot be resolved as asked).
	for _, q := range []url.Values{with("codec", "vp9"), with("codec", "h265"),
		{"componentName": {"base"}, "streamName": {"command"}, "direction": {"input"}, "codec": {"h264"}}} {
		_, resp, err := w3(ctx, s, bearer, simID, q)
		if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%v: %v %v, want 400", q, resp, err)
		}
	}
	odom, _, err := w3(ctx, s, bearer, simID, url.Values{"componentName": {"base"}, "streamName": {"odom"}, "codec": {"h264"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := odom.Read(ctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("h264 of odometry: %v, want close 1008", err)
	}
	waitNoEncoder(t)
}
