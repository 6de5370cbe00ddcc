package camera

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/camera/gstreamer"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// BenchmarkH264PassThrough compares, for one H.264 RTSP camera (GStreamer, 1 Mbit/s, 640x480 at 30
// fps), what its viewers' streams weigh and what they cost the agent: today's JPEG (ffmpeg
// decodes and encodes JPEG) against H.264 passed through (ffmpeg copies). Bytes per second
// are the payloads' (the picture bytes, as the uplink carries them); CPU is the ffmpeg
// process's, from /proc. A timed experiment: it runs once whatever b.N is (-benchtime 1x);
// FLEETGATE_BENCH_DURATION sets each window (default 5s), FLEETGATE_BENCH_PATTERN the test
// pattern (default smpte: colour bars and a moving patch).
//
//	go test -run '^$' -bench H264PassThrough -benchtime 1x ./internal/source/camera
func BenchmarkH264PassThrough(b *testing.B) {
	window := 5 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_BENCH_DURATION")); err == nil && d > 0 {
		window = d
	}
	pattern := "smpte"
	if p := os.Getenv("FLEETGATE_BENCH_PATTERN"); p != "" {
		pattern = p
	}
	srv, err := gstreamer.Start(gstreamer.Options{Codec: "h264", Width: 640, Height: 480, FPS: 30, Dir: b.TempDir(), Pattern: pattern, Bitrate: 1000})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	spec, err := ParseURL(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	c := New(Config{Name: "bench", Spec: spec, Tools: tools(b), Log: slog.New(slog.DiscardHandler)})
	defer c.Close()
	jpegs, err := c.Subscribe()
	if err != nil {
		b.Fatal(err)
	}
	jpegFig := measureStream(b, jpegs, c.PID, window)
	jpegs.Close()
	video, err := c.SubscribeWith(fleetgate.SubscribeOptions{Codec: fleetgate.CodecH264})
	if err != nil {
		b.Fatal(err)
	}
	h264Fig := measureStream(b, video, c.videoStream().PID, window)
	video.Close()
	b.ReportMetric(jpegFig.bytesPerSec/1000, "kB/s-jpeg")
	b.ReportMetric(h264Fig.bytesPerSec/1000, "kB/s-h264")
	b.ReportMetric(h264Fig.bytesPerSec/jpegFig.bytesPerSec, "bytes-h264/jpeg")
	b.ReportMetric(jpegFig.cpu, "%cpu-jpeg")
	b.ReportMetric(h264Fig.cpu, "%cpu-h264")
	b.ReportMetric(h264Fig.cpu/jpegFig.cpu, "cpu-h264/jpeg")
	b.Logf("640x480@30 %s: JPEG %.1f fps %.0f kB/s, ffmpeg %.1f%% of a core; H.264 pass-through %.1f fps %.0f kB/s, ffmpeg %.1f%%",
		pattern, jpegFig.fps, jpegFig.bytesPerSec/1000, jpegFig.cpu, h264Fig.fps, h264Fig.bytesPerSec/1000, h264Fig.cpu)
}

type streamFigures struct {
	fps, bytesPerSec, cpu float64
}

// measureStream reads sub for window after its first second (the start's burst), counting
// its pictures' bytes, and the CPU of the process pid() names meanwhile.
func measureStream(b *testing.B, sub *fleet.Subscription, pid func() int, window time.Duration) streamFigures {
	ctx, cancel := context.WithTimeout(context.Background(), window+20*time.Second)
	defer cancel()
	warm := time.Now().Add(time.Second)
	for time.Now().Before(warm) {
		if _, err := sub.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cpu0, start := processCPU(b, pid()), time.Now()
	frames, bytes := 0, 0
	for time.Since(start) < window {
		s, err := sub.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var m struct{ data []byte }
		var img catalogpb.CompressedImage
		var v catalogpb.CompressedVideo
		if s.Type == ImageType && proto.Unmarshal(s.Payload, &img) == nil {
			m.data = img.Data
		} else if proto.Unmarshal(s.Payload, &v) == nil {
			m.data = v.Data
		}
		frames++
		bytes += len(m.data)
	}
	took := time.Since(start).Seconds()
	return streamFigures{fps: float64(frames) / took, bytesPerSec: float64(bytes) / took,
		cpu: 100 * (processCPU(b, pid()) - cpu0) / took}
}

// processCPU is a process's user and system CPU seconds, from /proc/PID/stat.
func processCPU(b *testing.B, pid int) float64 {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("process %d: %v", pid, err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100 // clock ticks: 100 a second on Linux
}
