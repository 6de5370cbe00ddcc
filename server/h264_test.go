package server_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/clockstrip"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/internal/video/videotest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// H.264 on W3 (codec=h264, an extension): a real client asks the simulator's camera as H.264
// and a real decoder (ffprobe, ffmpeg) reads what it received.

// h264Frames reads n W3 frames, each a CompressedVideo envelope, the first a keyframe; it
// returns their access units and the envelopes.
func h264Frames(t *testing.T, ctx context.Context, conn *websocket.Conn, n int) ([][]byte, []*streampb.MessageStream) {
	t.Helper()
	var units [][]byte
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
		units = append(units, v.Data)
		envs = append(envs, env)
	}
	return units, envs
}

// encoders lists the H.264 encoders (ffmpeg running libx264) this process started.
func encoders(t testing.TB) []int {
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
	videotest.NeedFFmpeg(t)
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
	units, envs := h264Frames(t, ctx, conn, 20)
	if st := videotest.ProbeUnits(t, units); st.Frames != 20 || st.Width != 640 || st.Height != 480 || !strings.Contains(st.Profile, "Baseline") {
		t.Fatalf("decoded %v, want 20 of 640x480, baseline", st)
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
	units, _ = h264Frames(t, ctx, again, 3)
	if st := videotest.ProbeUnits(t, units); st.Frames != 3 {
		t.Fatalf("second viewer: %v, want 3", st)
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
	units, _ = h264Frames(t, ctx, small, 5)
	if st := videotest.ProbeUnits(t, units); st.Frames != 5 || st.Width != 320 || st.Height != 240 {
		t.Fatalf("scaled: %v, want 5 of 320x240", st)
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

// TestSimCameraH264KeepsEachPicturesTime: every H.264 access unit of the simulator's camera
// carries its own picture's time. The camera burns each picture's capture time into it
// (ClockStrip); a real decoder reads the pictures back, and each must say the time of the
// envelope it came in (glass to glass is measured against it, docs/performance.md).
func TestSimCameraH264KeepsEachPicturesTime(t *testing.T) {
	videotest.NeedFFmpeg(t)
	s := servertest.MustOpen(t, servertest.Agent, func(c *server.Config) {
		c.Sim = server.SimConfig{Count: 1, Seed: 1, CmdTimeout: time.Second, ClockStrip: true}
	})
	bearer := s.Login(servertest.AdminToken)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, _, err := w3(ctx, s, bearer, robotsOf(t, s, bearer)["sim-1"], url.Values{"componentName": {"camera"}, "streamName": {"image"}, "codec": {"h264"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	units, envs := h264Frames(t, ctx, conn, 20)
	pics := videotest.DecodeGray(t, units)
	if len(pics) != len(units) {
		t.Fatalf("%d pictures decoded of %d access units", len(pics), len(units))
	}
	for i, p := range pics {
		at := envs[i].GetPublishTime()
		envelope := time.Unix(int64(at.GetSec()), int64(at.GetNanosec())).Truncate(time.Millisecond)
		burned, ok := clockstrip.Read(p, time.Now())
		if !ok || !burned.Equal(envelope) {
			t.Errorf("access unit %d (sequence %d): the picture was taken at %v (read %v), its envelope says %v",
				i, envs[i].GetSequence(), burned.Format("15:04:05.000"), ok, envelope.Format("15:04:05.000"))
		}
	}
}
