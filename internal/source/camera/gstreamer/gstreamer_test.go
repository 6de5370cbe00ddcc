package gstreamer_test

import (
	"bufio"
	"context"
	"image"
	"io"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/clockstrip"
	"github.com/fleetgate/fleetgate/internal/source/camera/gstreamer"
)

// decodedPicture is a picture ffmpeg decoded from the RTSP stream, and when it came out.
type decodedPicture struct {
	at  time.Time
	img *image.Gray
}

// watch decodes n pictures of the server's stream with ffmpeg (RTSP over TCP, as the agent's
// camera reads it), each stamped as it leaves the decoder.
func watch(t *testing.T, srv *gstreamer.Server, w, h, n int) []decodedPicture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ffmpeg", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-threads", "1", "-probesize", "32", "-analyzeduration", "0", "-rtsp_transport", "tcp", "-i", srv.URL(),
		"-frames:v", strconv.Itoa(n), "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("ffmpeg (the test command installs it): %v", err)
	}
	defer cmd.Wait()
	defer cancel()
	r := bufio.NewReaderSize(out, w*h)
	var pics []decodedPicture
	for range n {
		pix := make([]byte, w*h)
		if _, err := io.ReadFull(r, pix); err != nil {
			t.Fatalf("ffmpeg gave %d pictures of %d: %v", len(pics), n, err)
		}
		pics = append(pics, decodedPicture{time.Now(), &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}})
	}
	return pics
}

func startServer(t *testing.T, opts gstreamer.Options) *gstreamer.Server {
	t.Helper()
	opts.Dir = t.TempDir()
	srv, err := gstreamer.Start(opts)
	if err != nil {
		t.Fatalf("the camera tests need GStreamer's RTSP server: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestClockStripReadsBackFromTheDecodedStream: with ClockStrip, the pictures decoded from the
// H.264 RTSP stream carry their capture time (package clockstrip's layout), read back a few
// tens of milliseconds old; without it, no picture reads.
func TestClockStripReadsBackFromTheDecodedStream(t *testing.T) {
	const w, h, n = 320, 240, 30
	opts := gstreamer.Options{Width: w, Height: h, FPS: 30, Pattern: "smpte", Bitrate: 500}
	plain := startServer(t, opts)
	opts.ClockStrip = true
	strip := startServer(t, opts)

	var ages []time.Duration
	for i, p := range watch(t, strip, w, h, n) {
		burned, ok := clockstrip.Read(p.img, p.at)
		if !ok {
			continue
		}
		// Read unwraps to a time not after now; a misread lands anywhere in its 4.66 hours.
		if age := p.at.Sub(burned); age > 2*time.Second {
			t.Errorf("picture %d reads %v old: not the time it was captured", i, age)
		} else {
			ages = append(ages, age)
		}
	}
	t.Logf("%d of %d pictures read, ages %v", len(ages), n, ages)
	// The first pictures may come while ffmpeg still probes the stream; most must read.
	if len(ages) < n*3/4 {
		t.Errorf("%d of %d pictures read their capture time back", len(ages), n)
	}
	for i, p := range watch(t, plain, w, h, 5) {
		if burned, ok := clockstrip.Read(p.img, p.at); ok {
			t.Errorf("picture %d of a server without the strip reads %v", i, burned)
		}
	}
}
