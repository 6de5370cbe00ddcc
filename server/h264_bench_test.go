package server_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// BenchmarkSimCameraH264 compares the simulator's camera (640x480, 15 fps) as W3 gives it:
// JPEG against codec=h264 (encoded by ffmpeg's libx264 at its default bitrate). Bytes per
// second are the pictures' (what the uplink would carry); the encoder's CPU is from /proc.
// A timed experiment: it runs once whatever b.N is (-benchtime 1x); FLEETGATE_BENCH_DURATION
// sets each window (default 5s).
//
//	go test -run '^$' -bench SimCameraH264 -benchtime 1x ./server
func BenchmarkSimCameraH264(b *testing.B) {
	window := 5 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_BENCH_DURATION")); err == nil && d > 0 {
		window = d
	}
	s := servertest.MustOpen(b, servertest.Agent, func(c *server.Config) {
		c.Sim = server.SimConfig{Count: 1, Seed: 1, CmdTimeout: time.Second}
	})
	bearer := s.Login(servertest.AdminToken)
	var simID string
	for _, id := range robotIDs(b, s, bearer) {
		simID = id
	}
	measure := func(codec string) (fps, bytesPerSec, cpu float64) {
		ctx, cancel := context.WithTimeout(context.Background(), window+30*time.Second)
		defer cancel()
		q := url.Values{"componentName": {"camera"}, "streamName": {"image"}, "codec": {codec}}
		conn, _, err := w3(ctx, s, bearer, simID, q)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(websocket.StatusNormalClosure, "")
		warm := time.Now().Add(time.Second)
		for time.Now().Before(warm) {
			if _, _, err := conn.Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
		pids := encoders(b)
		cpu0, start := cpuOf(b, pids), time.Now()
		frames, bytes := 0, 0
		for time.Since(start) < window {
			_, msg, err := conn.Read(ctx)
			if err != nil {
				b.Fatal(err)
			}
			var env streampb.MessageStream
			proto.Unmarshal(msg, &env)
			var img catalogpb.CompressedImage
			var v catalogpb.CompressedVideo
			if codec == "h264" {
				proto.Unmarshal(env.Data, &v)
				bytes += len(v.Data)
			} else {
				proto.Unmarshal(env.Data, &img)
				bytes += len(img.Data)
			}
			frames++
		}
		took := time.Since(start).Seconds()
		return float64(frames) / took, float64(bytes) / took, 100 * (cpuOf(b, pids) - cpu0) / took
	}
	jfps, jbytes, _ := measure("jpeg")
	hfps, hbytes, hcpu := measure("h264")
	b.ReportMetric(jbytes/1000, "kB/s-jpeg")
	b.ReportMetric(hbytes/1000, "kB/s-h264")
	b.ReportMetric(hbytes/jbytes, "bytes-h264/jpeg")
	b.ReportMetric(hcpu, "%cpu-encoder")
	b.Logf("sim camera 640x480: JPEG %.1f fps %.0f kB/s; H.264 %.1f fps %.0f kB/s (%.2f of JPEG), encoder %.1f%% of a core",
		jfps, jbytes/1000, hfps, hbytes/1000, hbytes/jbytes, hcpu)
}

func robotIDs(b *testing.B, s *servertest.Server, bearer string) []string {
	var list struct{ RobotDataList []robotItem }
	s.Do("GET", "/apigateway/v2/robots", bearer, "").JSON(b, &list)
	var ids []string
	for _, r := range list.RobotDataList {
		ids = append(ids, r.BasicData.ID)
	}
	return ids
}

// cpuOf is the user and system CPU seconds of processes pids, from /proc.
func cpuOf(b *testing.B, pids []int) float64 {
	total := 0.0
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			b.Fatalf("process %d: %v", pid, err)
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		utime, _ := strconv.ParseFloat(fields[11], 64)
		stime, _ := strconv.ParseFloat(fields[12], 64)
		total += (utime + stime) / 100
	}
	return total
}
