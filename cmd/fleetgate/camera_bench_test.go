package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/source/camera/gstreamer"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// BenchmarkCameras measures what a camera costs the agent, run as its own process (the
// fleetgate binary) with one camera, against GStreamer's RTSP server at 30 fps: the added
// latency (the frame's stamp, taken when its JPEG left ffmpeg, to its arrival at a W3
// client) and the agent's CPU (the fleetgate process and its ffmpeg, from /proc), with 1 and
// with 20 viewers of the camera. A timed experiment: it runs once whatever b.N is (give
// -benchtime 1x); FLEETGATE_BENCH_DURATION sets each measurement's length (default 10s).
//
//	go test -run '^$' -bench BenchmarkCameras -benchtime 1x ./cmd/fleetgate
func BenchmarkCameras(b *testing.B) {
	window := 10 * time.Second
	// The test pattern: colour bars with a moving ball's worth of change by default, frames
	// of a size a real scene gives; FLEETGATE_BENCH_PATTERN=snow for the worst case.
	pattern := "smpte"
	if p := os.Getenv("FLEETGATE_BENCH_PATTERN"); p != "" {
		pattern = p
	}
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_BENCH_DURATION")); err == nil && d > 0 {
		window = d
	}
	for _, c := range []struct {
		codec string
		w, h  int
	}{{"h264", 640, 480}, {"mjpeg", 640, 480}, {"h264", 1280, 720}, {"mjpeg", 1280, 720}} {
		b.Run(fmt.Sprintf("%s-%dx%d", c.codec, c.w, c.h), func(b *testing.B) {
			srv, err := gstreamer.Start(gstreamer.Options{Codec: c.codec, Width: c.w, Height: c.h, FPS: 30, Dir: b.TempDir(), Pattern: pattern})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			agent := startBenchAgent(b, "--camera", "dock="+srv.URL())
			one := measureCamera(b, agent, 1, window)
			twenty := measureCamera(b, agent, 20, window)
			b.ReportMetric(one.latencyP50, "ms-latency-p50")
			b.ReportMetric(one.latencyP95, "ms-latency-p95")
			b.ReportMetric(one.fps, "fps")
			b.ReportMetric(one.agentCPU, "%cpu-agent-1")
			b.ReportMetric(one.ffmpegCPU, "%cpu-ffmpeg-1")
			b.ReportMetric(twenty.agentCPU, "%cpu-agent-20")
			b.ReportMetric(twenty.ffmpegCPU, "%cpu-ffmpeg-20")
			ratio := (twenty.agentCPU + twenty.ffmpegCPU) / (one.agentCPU + one.ffmpegCPU)
			b.ReportMetric(ratio, "cpu-20/1")
			b.ReportMetric(one.frameKB, "KB/frame")
			b.Logf("%s %dx%d@30 (%s, %.0f KB per JPEG): 1 viewer %.1f fps, latency p50 %.1f ms p95 %.1f ms, CPU agent %.1f%% + ffmpeg %.1f%%; "+
				"20 viewers %.1f fps each, latency p50 %.1f ms, CPU agent %.1f%% + ffmpeg %.1f%%; CPU 20/1 = %.2f (ffmpeg processes: %d)",
				c.codec, c.w, c.h, pattern, one.frameKB, one.fps, one.latencyP50, one.latencyP95, one.agentCPU, one.ffmpegCPU,
				twenty.fps, twenty.latencyP50, twenty.agentCPU, twenty.ffmpegCPU, ratio, twenty.ffmpegs)
		})
	}
}

type benchAgent struct {
	cmd    *exec.Cmd
	url    string
	bearer string
	robot  string
}

func startBenchAgent(b *testing.B, args ...string) *benchAgent {
	b.Helper()
	const token = "fgt_BenchBenchBenchBenchBenchBench01"
	args = append([]string{"agent", "--data", filepath.Join(b.TempDir(), "data"), "--listen", "127.0.0.1:0",
		"--admin-token", token, "--sim", "0", "--camera-devices=false"}, args...)
	cmd := exec.Command(binary, args...)
	cmd.Env = cleanEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	urls := make(chan string, 1)
	var lines strings.Builder
	var linesMu sync.Mutex
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			linesMu.Lock()
			if lines.Len() < 8<<10 {
				lines.WriteString(s.Text() + "\n")
			}
			linesMu.Unlock()
			if m := listeningURL.FindStringSubmatch(s.Text()); m != nil && strings.Contains(s.Text(), "listening") {
				select {
				case urls <- m[1] + m[2]:
				default:
				}
			}
		}
	}()
	a := &benchAgent{cmd: cmd}
	select {
	case a.url = <-urls:
	case <-time.After(30 * time.Second):
		linesMu.Lock()
		defer linesMu.Unlock()
		b.Fatalf("the agent did not start:\n%s", lines.String())
	}
	resp, err := http.Post(a.url+"/apigateway/v2/auth/login", "application/json", strings.NewReader(`{"userToken":"`+token+`"}`))
	if err != nil {
		b.Fatal(err)
	}
	var login struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&login)
	resp.Body.Close()
	a.bearer = strings.TrimPrefix(login.Token, "bearer ")
	req, _ := http.NewRequest(http.MethodGet, a.url+"/apigateway/v2/robots", nil)
	req.Header.Set("Authorization", "bearer "+a.bearer)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.RobotDataList) != 1 {
		b.Fatalf("robots: %+v", list)
	}
	a.robot = list.RobotDataList[0].BasicData.ID
	return a
}

type cameraFigures struct {
	fps                    float64 // per viewer
	latencyP50, latencyP95 float64 // ms
	agentCPU, ffmpegCPU    float64 // percent of one core
	ffmpegs                int
	frameKB                float64
}

// measureCamera connects viewers, lets them settle, and measures over window.
func measureCamera(b *testing.B, a *benchAgent, viewers int, window time.Duration) cameraFigures {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	u := "ws" + strings.TrimPrefix(a.url, "http") + "/apigateway/v2/robots/" + a.robot + "/streams/connect?componentName=camera&streamName=dock&source=5"
	var mu sync.Mutex
	var latencies []float64
	frames, bytes := 0, 0
	measuring := false
	var wg sync.WaitGroup
	for range viewers {
		conn, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + a.bearer}}})
		if err != nil {
			b.Fatal(err)
		}
		conn.SetReadLimit(16 << 20)
		wg.Go(func() {
			defer conn.CloseNow()
			for {
				_, data, err := conn.Read(ctx)
				if err != nil {
					return
				}
				got := time.Now()
				var env streampb.MessageStream
				var img catalogpb.CompressedImage
				if proto.Unmarshal(data, &env) != nil || proto.Unmarshal(env.Data, &img) != nil {
					continue
				}
				stamp := time.Unix(int64(img.Header.GetStamp().GetSec()), int64(img.Header.GetStamp().GetNanosec()))
				mu.Lock()
				if measuring {
					frames++
					bytes += len(img.Data)
					latencies = append(latencies, float64(got.Sub(stamp).Microseconds())/1000)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(3 * time.Second) // ffmpeg starts, the first burst passes
	pids := childrenOf(a.cmd.Process.Pid, "ffmpeg")
	agent0, ffmpeg0 := cpuSeconds(a.cmd.Process.Pid), sumCPU(pids)
	mu.Lock()
	measuring = true
	mu.Unlock()
	start := time.Now()
	time.Sleep(window)
	mu.Lock()
	measuring = false
	n, lat, size := frames, slices.Clone(latencies), bytes
	mu.Unlock()
	took := time.Since(start).Seconds()
	agent1, ffmpeg1 := cpuSeconds(a.cmd.Process.Pid), sumCPU(pids)
	cancel()
	wg.Wait()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	return cameraFigures{
		fps:        float64(n) / float64(viewers) / took,
		latencyP50: pct(0.5), latencyP95: pct(0.95),
		agentCPU:  100 * (agent1 - agent0) / took,
		ffmpegCPU: 100 * (ffmpeg1 - ffmpeg0) / took,
		ffmpegs:   len(pids),
		frameKB:   float64(size) / float64(max(n, 1)) / 1024,
	}
}

// cpuSeconds is a process's user and system CPU time, from /proc/PID/stat.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	const ticks = 100 // USER_HZ on Linux
	return (utime + stime) / ticks
}

func sumCPU(pids []int) float64 {
	total := 0.0
	for _, p := range pids {
		total += cpuSeconds(p)
	}
	return total
}

// childrenOf lists the processes named name whose parent is pid.
func childrenOf(pid int, name string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open || s[open+1:closing] != name {
			continue
		}
		fields := strings.Fields(s[closing+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
