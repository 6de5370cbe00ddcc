//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/netshape"
	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
)

// rtspBridge makes the test RTSP server (server: host:port on this namespace's loopback)
// reachable from the site's namespace at 127.0.0.1:8554, as a camera on the robot's own
// network is: RTSP over TCP (the camera's ffmpeg interleaves RTP in it). It ends with the test.
func rtspBridge(t testing.TB, l *netshape.Link, server string) {
	t.Helper()
	ln, err := l.Listen(l.Site, "tcp", "127.0.0.1:8554")
	if err != nil {
		t.Fatal(err)
	}
	serveBridge(t, ln, func() (net.Conn, error) { return net.DialTimeout("tcp", server, 5*time.Second) })
}

// BenchmarkUplinkCameras runs issue 31's profiles with more cameras and another kind: one
// simulated camera (the baseline of each profile, in the same run), four simulated cameras
// (four robots, a viewer each), and the RTSP test camera (GStreamer, H.264 at 1 Mbit/s,
// 640x480, 30 fps, passed through as H.264 or decoded to JPEG by the agent), each as JPEG and
// as H.264, with the link's lanes and BBR, the log growing and the operator driving sim-1:
// fps per camera (the slowest), the camera's bytes per second as the viewers received them and
// everything on the uplink (the log's upload included), picture age (envelope) and glass age
// (the capture time burned into the picture by the simulator, --sim-clock-strip, or by the RTSP
// camera before its encoder, gstreamer.Options.ClockStrip; read from the decoded picture).
// make bench-uplink-cameras; figures in docs/performance.md.
func BenchmarkUplinkCameras(b *testing.B) {
	window, profiles := uplinkBenchRuns(15 * time.Second)
	rtsp := cameratest.StartRTSP(b, cameratest.RTSPOptions{Codec: "h264", Width: 640, Height: 480, FPS: 30, Bitrate: 1000, Pattern: "smpte", ClockStrip: true})
	type camerasCase struct {
		name string
		sims int
		rtsp bool
	}
	var report bytes.Buffer
	fmt.Fprintf(&report, "| uplink | cameras | codec | fps per camera (slowest) | picture age p50 / p99 | glass age p50 / p99 (unread) | react p50 / p99 | opens p50 / p99 (failed) | camera kB/s each | uplink kB/s |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range profiles {
		for _, c := range []camerasCase{{"1 sim", 1, false}, {"4 sim", 4, false}, {"RTSP", 1, true}} {
			for _, codec := range []string{"jpeg", "h264"} {
				b.Run(p.name+"/"+strings.ReplaceAll(c.name, " ", "")+"/"+codec, func(b *testing.B) {
					args := []string{"--sim", fmt.Sprint(c.sims), "--sim-clock-strip"}
					var cams []cameraView
					var s *shapedSite
					if c.rtsp {
						// The bridge needs the link before the agent starts: open the site with the
						// camera's URL known in advance (the bridge's fixed address).
						args = append(args, "--camera", "sim-1/front=rtsp://127.0.0.1:8554/test")
						s = startShapedSiteWith(b, p.profile, func(l *netshape.Link) { rtspBridge(b, l, fmt.Sprintf("127.0.0.1:%d", rtsp.Port())) }, args...)
						cams = []cameraView{{robot: s.robot, query: "componentName=camera&streamName=front&source=5", codec: codec, strip: true}}
					} else {
						s = startShapedSite(b, p.profile, args...)
						s.waitRobots(b, c.sims)
						for i := range c.sims {
							cams = append(cams, cameraView{robot: s.robots[fmt.Sprintf("sim-%d", i+1)], query: simCamera, codec: codec, strip: true})
						}
					}
					f := s.measureCameras(b, window, cams)
					b.Logf("%s, %s, %s: %v", p.name, c.name, codec, f)
					glass := "-"
					if len(f.glass) > 0 || f.glassUnread > 0 {
						glass = fmt.Sprintf("%v / %v (%d)", percentile(f.glass, 50).Round(time.Millisecond), percentile(f.glass, 99).Round(time.Millisecond), f.glassUnread)
					}
					fmt.Fprintf(&report, "| %s | %s | %s | %.1f (%.1f) | %v / %v | %s | %v / %v | %v / %v (%d) | %.0f | %.0f |\n", p.name, c.name, codec, f.fps, f.minFPS,
						percentile(f.age, 50).Round(time.Millisecond), percentile(f.age, 99).Round(time.Millisecond), glass,
						percentile(f.react, 50).Round(time.Millisecond), percentile(f.react, 99).Round(time.Millisecond),
						percentile(f.opens, 50).Round(time.Millisecond), percentile(f.opens, 99).Round(time.Millisecond), len(f.openFailures),
						f.cameraKBps(), f.upMbps()*1e6/8/1e3)
					b.ReportMetric(ms(percentile(f.age, 99)), "age-p99-ms")
					b.ReportMetric(f.minFPS, "min-fps")
					b.ReportMetric(f.upMbps(), "up-Mbit/s")
				})
			}
		}
	}
	b.Logf("\n%s", report.String())
	if out := os.Getenv("FLEETGATE_BENCH_REPORT"); out != "" {
		os.WriteFile(filepath.Clean(out), report.Bytes(), 0o644)
	}
}
