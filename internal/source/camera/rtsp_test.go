package camera

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// These tests run Debian's ffmpeg against GStreamer's RTSP server: real peers, real
// processes.

func tools(t testing.TB) Tools {
	t.Helper()
	tl, err := LookupTools()
	if err != nil {
		t.Fatalf("%v: the camera tests need it", err)
	}
	return tl
}

func realCamera(t *testing.T, rawURL string, logs *logtest.Buffer) *Camera {
	t.Helper()
	spec, err := ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = &logtest.Buffer{}
	}
	c := New(Config{Name: "test", Spec: spec, Tools: tools(t), Log: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(func() {
		c.Close()
		if n := len(cameratest.Children("ffmpeg")) + len(cameratest.Children("ffprobe")); n != 0 {
			t.Errorf("%d ffmpeg processes left after Close (zombies count)", n)
		}
	})
	return c
}

// images reads n images from sub, decoding each, and returns them with the time they took.
func images(t *testing.T, sub *fleet.Subscription, n int) ([]*catalogpb.CompressedImage, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*catalogpb.CompressedImage
	var first time.Time
	for len(out) < n {
		s, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %d images: %v", len(out), err)
		}
		if first.IsZero() {
			first = time.Now()
		}
		var img catalogpb.CompressedImage
		if err := proto.Unmarshal(s.Payload, &img); err != nil {
			t.Fatal(err)
		}
		out = append(out, &img)
	}
	return out, time.Since(first)
}

func decodeJPEG(t *testing.T, data []byte) (w, h int) {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image %d bytes does not decode: %v", len(data), err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// cmdline is a process's command line as every user of the host can read it.
func cmdline(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatalf("reading ffmpeg's command line: %v", err)
	}
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
}

func TestRTSPCameraDeliversDecodableJPEG(t *testing.T) {
	tests := []struct {
		codec, query string
		copy         bool // MJPEG passes through ffmpeg without re-encoding
	}{
		{"h264", "", false},
		{"mjpeg", "", true},
		{"h264", "?transport=udp", false},
	}
	for _, tt := range tests {
		t.Run(tt.codec+tt.query, func(t *testing.T) {
			const fps = 15
			srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: tt.codec, Width: 320, Height: 240, FPS: fps})
			c := realCamera(t, srv.URL()+tt.query, nil)
			sub, err := c.Subscribe()
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			images(t, sub, 3) // the first few may come in a burst from the server's buffer
			const n = 30
			imgs, took := images(t, sub, n)
			for _, img := range imgs {
				if w, h := decodeJPEG(t, img.Data); w != 320 || h != 240 {
					t.Fatalf("image %dx%d, want 320x240", w, h)
				}
				if img.Format != "jpeg" || img.Header.GetFrameId() != "test" {
					t.Fatalf("format %q frame %q", img.Format, img.Header.GetFrameId())
				}
			}
			// The served rate: n-1 intervals of 1/fps, with room for a loaded machine.
			rate := float64(n-1) / took.Seconds()
			if rate < fps*0.6 || rate > fps*1.5 {
				t.Fatalf("%.1f images per second, the camera serves %d", rate, fps)
			}
			args := cmdline(t, c.PID())
			if copied := strings.Contains(args, "-c:v copy"); copied != tt.copy {
				t.Fatalf("ffmpeg runs %q; MJPEG passthrough %v, want %v", args, copied, tt.copy)
			}
			if strings.Contains(args, "rtsp://") {
				t.Fatalf("the camera URL is on ffmpeg's command line: %q", args)
			}
			t.Logf("%s: %.1f images/s, %d bytes each, ffmpeg %s", tt.codec+tt.query, rate, len(imgs[0].Data), args)
		})
	}
}

func TestRTSPCameraCredentials(t *testing.T) {
	const user, password = "operator", "Tr0ub4dor&3:x@y/z"
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg", User: user, Password: password})
	withUser := func(pw string) string {
		return strings.Replace(srv.URL(), "rtsp://", "rtsp://"+user+":"+urlEscape(pw)+"@", 1)
	}
	t.Run("wrong", func(t *testing.T) {
		logs := &logtest.Buffer{}
		c := realCamera(t, withUser("guess-1234"), logs)
		sub, err := c.Subscribe()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		select {
		case <-sub.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("a refused camera was not reported within 5 s")
		}
		if err := sub.Err(); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "401") {
			t.Fatalf("ended with %v, want the camera's 401", err)
		}
		t.Logf("refused in %s: %v", time.Since(start).Round(time.Millisecond), sub.Err())
		if strings.Contains(logs.String(), "guess-1234") || strings.Contains(sub.Err().Error(), "guess-1234") {
			t.Fatalf("the password reached the log or the reason: %s / %v", logs, sub.Err())
		}
	})
	t.Run("right", func(t *testing.T) {
		logs := &logtest.Buffer{}
		c := realCamera(t, withUser(password), logs)
		sub, err := c.Subscribe()
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		imgs, _ := images(t, sub, 5)
		decodeJPEG(t, imgs[4].Data)
		pid := c.PID()
		args := cmdline(t, pid)
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{password, urlEscape(password), user} {
			if strings.Contains(args, secret) || strings.Contains(string(env), secret) {
				t.Fatalf("a credential is in ffmpeg's command line or environment: %q", args)
			}
		}
		if s := c.Stream(); strings.Contains(s.SourceURL, user) || strings.Contains(s.SourceURL, "@") {
			t.Fatalf("descriptor carries credentials: %q", s.SourceURL)
		}
		if strings.Contains(logs.String(), password) {
			t.Fatalf("the password reached the log: %s", logs)
		}
	})
}

func urlEscape(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", ":", "%3A", "@", "%40", "/", "%2F", " ", "%20")
	return r.Replace(s)
}

func TestRTSPCameraServerKilledAndRestarted(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "h264"})
	c := realCamera(t, srv.URL(), nil)
	subs := make([]*fleet.Subscription, 3)
	for i := range subs {
		var err error
		if subs[i], err = c.Subscribe(); err != nil {
			t.Fatal(err)
		}
		images(t, subs[i], 2)
	}
	killed := time.Now()
	srv.Kill()
	for _, sub := range subs {
		select {
		case <-sub.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("viewers were not told that the camera went away")
		}
		if !fleetgate.Is(sub.Err(), fleetgate.EUnavailable) {
			t.Fatalf("viewer ended with %v", sub.Err())
		}
	}
	t.Logf("viewers told %s after the kill: %v", time.Since(killed).Round(time.Millisecond), subs[0].Err())
	srv.Restart(t)
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	imgs, _ := images(t, sub, 3)
	decodeJPEG(t, imgs[2].Data)
}

func TestRTSPCameraOneFFmpegForManyViewers(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg"})
	c := realCamera(t, srv.URL(), nil)
	subs := make([]*fleet.Subscription, 20)
	for i := range subs {
		var err error
		if subs[i], err = c.Subscribe(); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range subs {
		images(t, sub, 2)
	}
	if pids := cameratest.Children("ffmpeg"); len(pids) != 1 {
		t.Fatalf("%d ffmpeg processes for 20 viewers of one camera, want 1", len(pids))
	}
	for _, sub := range subs {
		sub.Close()
	}
	// A few seconds after the last viewer, ffmpeg stops (and is reaped).
	waitFor(t, "ffmpeg to stop after the linger", func() bool { return len(cameratest.Children("ffmpeg")) == 0 })
}

// TestRTSPCameraStallRestartsInRealTime holds the server still (SIGSTOP): its connection
// stays open and silent. After the stall timeout the supervisor restarts ffmpeg, the viewer
// staying; once the server runs again, images flow to the same viewer.
func TestRTSPCameraStallRestartsInRealTime(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg"})
	c := realCamera(t, srv.URL(), nil)
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	images(t, sub, 3)
	first := c.PID()
	srv.Pause()
	paused := time.Now()
	waitFor(t, "the stalled ffmpeg to be replaced", func() bool { pid := c.PID(); return pid != first })
	if d := time.Since(paused); d < DefaultStallTimeout-500*time.Millisecond {
		t.Fatalf("restarted %s after the stall began, before the %s stall timeout", d, DefaultStallTimeout)
	}
	srv.Resume()
	imgs, _ := images(t, sub, 3)
	decodeJPEG(t, imgs[2].Data)
	select {
	case <-sub.Done():
		t.Fatalf("the viewer was dropped: %v", sub.Err())
	default:
	}
}

// A dying ffmpeg (killed here) is reaped, not left a zombie, and replaced; the viewer stays
// and gets images again.
func TestRTSPCameraFFmpegKilled(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg"})
	c := realCamera(t, srv.URL(), nil)
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	images(t, sub, 3)
	first := c.PID()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new ffmpeg", func() bool { pid := c.PID(); return pid != 0 && pid != first })
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", first)); err == nil {
		t.Fatalf("the killed ffmpeg %d is still in /proc (a zombie)", first)
	}
	imgs, _ := images(t, sub, 3)
	decodeJPEG(t, imgs[2].Data)
	if n := len(cameratest.Children("ffmpeg")); n != 1 {
		t.Fatalf("%d ffmpeg processes, want 1", n)
	}
}
