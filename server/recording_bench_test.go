package server_test

// The recordings issue's benchmark: three simulated robots on one agent, each streaming its
// camera (15 Hz JPEG), scan (10 Hz), point cloud (5 Hz) and pose (20 Hz) to a live viewer
// over W3, first without recording, then while the agent records those four streams of all
// three robots, then without again. It reports the viewers' latency (publish to receipt)
// with and without recording and their ratio, the process's CPU in each phase, and the
// bytes per second the recordings wrote. The viewers subscribe to every recorded stream in
// every phase, so that the simulator renders the same in all of them: the difference is the
// recorder's. Viewers, agent and simulator share this process (and a 2-core machine): take
// the ratios, not the absolute figures. It never fails on speed.
//
//	go test -run '^$' -bench BenchmarkRecording -benchtime 1x ./server/
//	FLEETGATE_BENCH_DURATION=1m go test -run '^$' -bench BenchmarkRecording -benchtime 1x ./server/

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// recordedStreams are the streams of each robot: viewed in every phase, recorded in one.
var recordedStreams = []struct{ component, name string }{
	{"camera", "image"}, {"lidar", "scan"}, {"depth", "points"}, {"base", "pose"},
}

func recordingBenchDuration(b *testing.B) time.Duration {
	if v := os.Getenv("FLEETGATE_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			b.Fatalf("FLEETGATE_BENCH_DURATION=%q: want a Go duration of at least 1s", v)
		}
		return d
	}
	return 10 * time.Second
}

// latencies collects the viewers' frame latencies of the current phase.
type latencies struct {
	mu     sync.Mutex
	camera []time.Duration
	all    []time.Duration
	on     bool
}

func (l *latencies) add(camera bool, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	l.all = append(l.all, d)
	if camera {
		l.camera = append(l.camera, d)
	}
}

// phase starts collecting anew and returns what the previous phase collected.
func (l *latencies) phase(on bool) (camera, all []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	camera, all = l.camera, l.all
	l.camera, l.all, l.on = nil, nil, on
	return camera, all
}

func latencyPercentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(p*float64(len(s))))]) / float64(time.Millisecond)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkRecording(b *testing.B) {
	d := recordingBenchDuration(b)
	agent := servertest.MustOpen(b, servertest.Agent, func(c *server.Config) { c.Sim = server.SimConfig{Count: 3, Seed: 1} })
	bearer := agent.Login(servertest.AdminToken)
	var robots []string
	for _, r := range agent.Registry().Robots() {
		robots = append(robots, r.Info().ID)
	}
	if len(robots) != 3 {
		b.Fatalf("%d robots, want 3", len(robots))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var lat latencies
	var viewers sync.WaitGroup
	wsURL := "ws" + strings.TrimPrefix(agent.URL, "http")
	for _, id := range robots {
		for _, s := range recordedStreams {
			url := fmt.Sprintf("%s/apigateway/v2/robots/%s/streams/connect?componentName=%s&streamName=%s&source=1", wsURL, id, s.component, s.name)
			conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
			if err != nil {
				b.Fatalf("viewer of %s/%s: %v", s.component, s.name, err)
			}
			conn.SetReadLimit(64 << 20)
			camera := s.component == "camera"
			viewers.Add(1)
			go func() {
				defer viewers.Done()
				defer conn.CloseNow()
				var env streampb.MessageStream
				for {
					_, data, err := conn.Read(ctx)
					if err != nil {
						return
					}
					at := time.Now()
					if proto.Unmarshal(data, &env) != nil || env.GetPublishTime() == nil {
						continue
					}
					pub := time.Unix(int64(env.GetPublishTime().GetSec()), int64(env.GetPublishTime().GetNanosec()))
					lat.add(camera, at.Sub(pub))
				}
			}()
		}
	}
	defer viewers.Wait()
	defer cancel()

	type phase struct {
		camera, all []time.Duration
		cpu         float64 // share of one core
	}
	run := func(name string) phase {
		lat.phase(true)
		cpu0, wall0 := cpuTime(b), time.Now()
		time.Sleep(d)
		cpu := float64(cpuTime(b)-cpu0) / float64(time.Since(wall0))
		camera, all := lat.phase(false)
		b.Logf("%s: %d frames, camera p50 %.1f ms p99 %.1f ms, all p50 %.1f ms p99 %.1f ms, CPU %.0f%% of a core",
			name, len(all), latencyPercentile(camera, .5), latencyPercentile(camera, .99), latencyPercentile(all, .5), latencyPercentile(all, .99), 100*cpu)
		return phase{camera, all, cpu}
	}

	time.Sleep(2 * time.Second) // warm-up: renderers and sockets at their pace
	before := run("without recording")
	var ids []string
	for _, id := range robots {
		var streams []string
		for _, s := range recordedStreams {
			streams = append(streams, s.component+"/"+s.name)
		}
		body, _ := json.Marshal(map[string]any{"streams": streams})
		resp := agent.Do("POST", "/apigateway/v2/robots/"+id+"/recordings", bearer, string(body))
		var rec struct{ ID string }
		if resp.Status != http.StatusCreated {
			b.Fatalf("starting a recording: %d %s", resp.Status, resp.Body)
		}
		resp.JSON(b, &rec)
		ids = append(ids, rec.ID)
	}
	recStart := time.Now()
	during := run("recording")
	var written, messages, dropped int64
	for i, id := range robots {
		resp := agent.Do("POST", "/apigateway/v2/robots/"+id+"/recordings/"+ids[i]+"/stop", bearer, "")
		var rec struct{ Size, Messages, DroppedSamples int64 }
		if resp.Status != http.StatusOK {
			b.Fatalf("stopping a recording: %d %s", resp.Status, resp.Body)
		}
		resp.JSON(b, &rec)
		written, messages, dropped = written+rec.Size, messages+rec.Messages, dropped+rec.DroppedSamples
	}
	recorded := time.Since(recStart)
	after := run("without recording, again")

	base := phase{camera: append(before.camera, after.camera...), all: append(before.all, after.all...), cpu: (before.cpu + after.cpu) / 2}
	b.ReportMetric(latencyPercentile(base.camera, .5), "camera-p50-ms")
	b.ReportMetric(latencyPercentile(during.camera, .5), "camera-p50-ms-rec")
	b.ReportMetric(latencyPercentile(base.all, .99), "p99-ms")
	b.ReportMetric(latencyPercentile(during.all, .99), "p99-ms-rec")
	b.ReportMetric(latencyPercentile(during.camera, .5)/latencyPercentile(base.camera, .5), "camera-p50-ratio")
	b.ReportMetric(latencyPercentile(during.all, .5)/latencyPercentile(base.all, .5), "p50-ratio")
	b.ReportMetric(latencyPercentile(during.all, .99)/latencyPercentile(base.all, .99), "p99-ratio")
	b.ReportMetric(100*base.cpu, "cpu-%")
	b.ReportMetric(100*during.cpu, "cpu-%-rec")
	b.ReportMetric(100*(during.cpu-base.cpu), "recorder-cpu-%")
	b.ReportMetric(float64(written)/recorded.Seconds()/1e6, "MB/s-written")
	b.ReportMetric(float64(messages)/recorded.Seconds(), "msgs/s-written")
	b.ReportMetric(float64(dropped), "dropped")
}
