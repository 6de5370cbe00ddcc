package server_test

// The agent link issue's benchmark: the REST stream read (v2 endpoint 7) of one stream on the
// cloud, through the agent link, against the same read on the local gateway next to the
// robot. Both gateways and the client run in this process over loopback, so on a small
// machine they compete for the CPU: the ratio cloud/local is the figure to take, not the
// absolute numbers. Like the other benchmarks it never fails on speed; it reports.
//
//	go test -run '^$' -bench BenchmarkLinkStreamRead -benchtime 2s ./server/
//
// Sub-benchmarks are <stream>/<gateway> and <stream>-8readers/<gateway>: pose (a PoseStamped,
// about 300 bytes of JSON), camera (a 640x480 JPEG, about 10 KB) and points (a PointCloud2,
// about 300 KB), each read on the local gateway and on the cloud, one request at a time and
// by 8 concurrent readers. Metrics: p50-µs and p99-µs per read, reads/s, and MB/s of
// response bodies. The cloud's read is two link round trips (the gateway resolves the stream
// from the robot's stream list, then reads it).

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

func BenchmarkLinkStreamRead(b *testing.B) {
	cloud := servertest.MustOpen(b)
	key, err := server.DemoAgentKey(context.Background(), cloud.Gateway(), filepath.Join(b.TempDir(), "agent-key"), "bench-agent")
	if err != nil {
		b.Fatal(err)
	}
	agent := servertest.MustOpen(b, servertest.Agent, func(c *server.Config) {
		c.Sim = server.SimConfig{Count: 1, Seed: 1}
		c.Cloud, c.AgentKey = cloud.URL, key
	})
	robots := agent.Registry().Robots()
	if len(robots) != 1 {
		b.Fatalf("the agent hosts %d robots, want 1", len(robots))
	}
	id := robots[0].Info().ID
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := cloud.Registry().Robot(id); ok {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the robot is not online on the cloud within 10 s\nagent logs:\n%s", agent.Logs())
		}
	}
	gateways := []struct {
		name   string
		url    string
		bearer string
	}{
		{"local", agent.URL, agent.Login(servertest.AdminToken)},
		{"cloud", cloud.URL, cloud.Login(servertest.AdminToken)},
	}
	streams := []struct{ name, query string }{
		{"pose", "componentName=base&streamName=pose&source=1"},
		{"camera", "componentName=camera&streamName=image&source=1"},
		{"points", "componentName=depth&streamName=points&source=1"},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallelReaders}, Timeout: 10 * time.Second}
	for _, st := range streams {
		for _, readers := range []int{1, parallelReaders} {
			for _, gw := range gateways {
				name := st.name + "/" + gw.name
				if readers > 1 {
					name = fmt.Sprintf("%s-%dreaders/%s", st.name, readers, gw.name)
				}
				url := fmt.Sprintf("%s/apigateway/v2/robots/%s/stream?%s", gw.url, id, st.query)
				b.Run(name, func(b *testing.B) {
					benchRead(b, client, url, gw.bearer, readers)
				})
			}
		}
	}
}

// parallelReaders is the number of concurrent readers of the throughput variant.
const parallelReaders = 8

// benchRead reads url b.N times with readers concurrent clients and reports latency
// percentiles and throughput.
func benchRead(b *testing.B, client *http.Client, url, bearer string, readers int) {
	read := func() (int64, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "bearer "+bearer)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %d", url, resp.StatusCode)
		}
		return n, err
	}
	// A warm connection and, for the camera and depth streams, a rendered frame.
	if _, err := read(); err != nil {
		b.Fatal(err)
	}

	var (
		mu        sync.Mutex
		latencies []time.Duration
		bytes     int64
	)
	b.ResetTimer()
	if readers == 1 {
		for range b.N {
			start := time.Now()
			n, err := read()
			if err != nil {
				b.Fatal(err)
			}
			bytes += n
			latencies = append(latencies, time.Since(start))
		}
	} else {
		// RunParallel runs parallelism × GOMAXPROCS goroutines: readers, rounded up to a
		// multiple of GOMAXPROCS.
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((readers + procs - 1) / procs)
		b.RunParallel(func(pb *testing.PB) {
			var mine []time.Duration
			var got int64
			for pb.Next() {
				start := time.Now()
				n, err := read()
				if err != nil {
					b.Error(err)
					return
				}
				got += n
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			latencies, bytes = append(latencies, mine...), bytes+got
			mu.Unlock()
		})
	}
	b.StopTimer()
	elapsed := b.Elapsed()
	slices.Sort(latencies)
	b.ReportMetric(micros(percentile(latencies, 0.50)), "p50-µs")
	b.ReportMetric(micros(percentile(latencies, 0.99)), "p99-µs")
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "reads/s")
	b.ReportMetric(float64(bytes)/1e6/elapsed.Seconds(), "MB/s")
}

// percentile is the p-quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(len(sorted))*p)) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
