package main

// The replicas issue's benchmark (make bench-cluster): three serve replicas on a real
// PostgreSQL and nats-server, loaded with CLUSTER_LINKS lightweight agent links (default
// 1,000; make bench-cluster runs 10,000), spread over the replicas, each with one robot,
// heartbeats and one KPI sample a second, opened by this process (the client, apart from the
// replicas). It reports:
//
//   - KiB-per-link: the replicas' resident memory with the links, less before them, per link;
//   - cpu-ms/s-per-1k-agents: the replicas' CPU over 20 s with the links up, per second and
//     per 1,000 agents, beside their CPU over 20 s before the links (idle-cpu-ms/s);
//   - the p99 of a REST stream read of a real (simulated) agent's robot on the replica that
//     holds its link and on one that forwards it over NATS, measured in alternating rounds,
//     and their ratio (the goal: at most 1.5x).
//
// Like every benchmark here it never fails on speed.
//
//	CLUSTER_LINKS=10000 go test -run '^$' -bench BenchmarkClusterLinks -benchtime 1x -timeout 30m -v ./cmd/fleetgate

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/linkpb"
	"github.com/fleetgate/fleetgate/server"
)

func BenchmarkClusterLinks(b *testing.B) {
	links := 1000
	if v, err := strconv.Atoi(os.Getenv("CLUSTER_LINKS")); err == nil && v > 0 {
		links = v
	}
	pg := pgtest.Start(b)
	db := pg.NewDatabase(b)
	nats := natstest.Start(b)
	var profile []string
	if addr := os.Getenv("CLUSTER_PPROF"); addr != "" {
		profile = []string{"--metrics-listen", addr} // go tool pprof http://ADDR/debug/pprof/profile
	}
	replicas := startReplicas(b, 3, db, nats.URL(), profile...)
	bearer := login(b, replicas[0].URL, testToken)

	// One real agent with a simulated robot, linked to r1: the stream reads.
	simKey := addAgentTo(b, db, "sim")
	sim := startLogged(b, "sim", nil, "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", replicas[0].URL, "--agent-key", simKey)
	robot := localRobots(b, sim.URL, 1)[0]
	waitFor(b, 15*time.Second, "the simulated robot online on every replica", func() bool {
		for _, r := range replicas {
			if !robotsOnline(r.URL, bearer, []string{robot}, true) {
				return false
			}
		}
		return true
	})

	// The agents of the load, created in the shared store as `fleetgate agents add` does.
	ctx := context.Background()
	gw, closeDB, err := server.OpenOffline(ctx, "", db)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, links)
	created := time.Now()
	for i := range keys {
		_, key, err := gw.AddAgent(ctx, fmt.Sprintf("load-%05d", i), "")
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = key
	}
	closeDB()
	b.Logf("%d agents created in %s", links, time.Since(created).Round(time.Millisecond))

	idleCPU := cpuOver(replicas, 20*time.Second)
	rssBefore := rssOf(replicas)
	rssEach := make([]int64, len(replicas))
	for i, r := range replicas {
		rssEach[i] = rssOne(r)
	}

	var up atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	dialed := time.Now()
	sem := make(chan struct{}, 64) // dials in flight
	for i, key := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			loadLink(b, replicas[i%3].URL, key, &up, stop, sem)
		}()
	}
	waitFor(b, 10*time.Minute, fmt.Sprintf("%d links welcomed", links), func() bool { return up.Load() == int64(links) })
	b.Logf("%d links up in %s", links, time.Since(dialed).Round(time.Millisecond))
	time.Sleep(10 * time.Second) // settle: robot records written, first announcements out
	rssAfter := rssOf(replicas)
	loadCPU := cpuOver(replicas, 20*time.Second)

	// Stream reads: on r1 (holds the simulated agent) and r2 (forwards), in alternating rounds.
	read := func(base string) time.Duration {
		start := time.Now()
		if s := getJSON(base+"/apigateway/v2/robots/"+robot+"/stream?componentName=base&streamName=battery&source=1&streamType="+
			string((&catalogpb.BatteryState{}).ProtoReflect().Descriptor().FullName()), bearer, nil); s != 200 {
			b.Fatalf("stream read on %s: %d", base, s)
		}
		return time.Since(start)
	}
	var same, cross []time.Duration
	for round := range 10 {
		for range 50 {
			if round%2 == 0 {
				same = append(same, read(replicas[0].URL))
				cross = append(cross, read(replicas[1].URL))
			} else {
				cross = append(cross, read(replicas[1].URL))
				same = append(same, read(replicas[0].URL))
			}
		}
	}
	close(stop)
	wg.Wait()

	kib := float64(rssAfter-rssBefore) / 1024 / float64(links)
	perK := float64(loadCPU.Milliseconds()) / 20 / (float64(links) / 1000)
	p99Same, p99Cross := p99(same), p99(cross)
	b.ReportMetric(kib, "KiB-per-link")
	b.ReportMetric(perK, "cpu-ms/s-per-1k-agents")
	b.ReportMetric(float64(idleCPU.Milliseconds())/20, "idle-cpu-ms/s")
	b.ReportMetric(float64(p99Same.Microseconds()), "p99-same-µs")
	b.ReportMetric(float64(p99Cross.Microseconds()), "p99-cross-µs")
	b.ReportMetric(float64(p99Cross)/float64(p99Same), "p99-cross/same")
	b.Logf("%d links over 3 replicas: %.1f KiB per link; CPU %.1f ms/s per 1,000 agents (idle %.1f ms/s in all); stream read p99 same replica %s, cross-replica %s (%.2fx)",
		links, kib, perK, float64(idleCPU.Milliseconds())/20, p99Same, p99Cross, float64(p99Cross)/float64(p99Same))
	for i, r := range replicas {
		b.Logf("%s: RSS %.1f MiB before the links, %.1f MiB with them", r.name, float64(rssEach[i])/1048576, float64(rssOne(r))/1048576)
	}
}

// loadLink is one lightweight agent: hello with one robot, heartbeats each interval the
// cloud asks for, one custom KPI a second, until stop.
func loadLink(b *testing.B, base, key string, up *atomic.Int64, stop <-chan struct{}, sem <-chan struct{}) {
	// A loaded replica may refuse or drop a link before its welcome (it says try again
	// later): the agent retries, as a real one does.
	var conn *websocket.Conn
	var f *linkpb.Frame
	robotID := uuid.NewString()
	for attempt := 1; ; attempt++ {
		var err error
		conn, f, err = linkOnce(base, key, robotID)
		if err == nil {
			break
		}
		if attempt == 10 {
			<-sem
			b.Errorf("linking to %s: %v", base, err)
			return
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
	<-sem
	defer conn.CloseNow()
	up.Add(1)
	beat := time.Duration(f.GetWelcome().GetHeartbeatIntervalMs()) * time.Millisecond
	go func() { // the cloud's heartbeats and anything else are read and dropped
		for {
			if _, err := link.ReadFrame(conn); err != nil {
				return
			}
		}
	}()
	kpi := &linkpb.Frame{Body: &linkpb.Frame_Kpis{Kpis: &linkpb.KPIValues{RobotId: robotID, Kpis: []*linkpb.KPI{{
		Name: "activity", DataType: "Platform.Messages.std_msgs.String", Payload: []byte("\n\x04idle")}}}}}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastBeat := time.Now()
	for {
		select {
		case <-stop:
			conn.Close(websocket.StatusNormalClosure, "")
			return
		case now := <-tick.C:
			kpi.GetKpis().GetKpis()[0].Time = link.Time(now)
			if link.WriteFrame(conn, kpi, 10*time.Second) != nil {
				return
			}
			if now.Sub(lastBeat) >= beat {
				lastBeat = now
				if link.WriteFrame(conn, &linkpb.Frame{Body: &linkpb.Frame_Heartbeat{Heartbeat: &linkpb.Heartbeat{}}}, 10*time.Second) != nil {
					return
				}
			}
		}
	}
}

// linkOnce dials base as the agent of key, says hello with one robot and reads the welcome.
func linkOnce(base, key, robotID string) (*websocket.Conn, *linkpb.Frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+link.Path, &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
		HTTPHeader: http.Header{link.KeyHeader: {key}}, CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, nil, err
	}
	conn.SetReadLimit(link.MaxFrame)
	hello := &linkpb.Frame{Body: &linkpb.Frame_Hello{Hello: &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, AgentVersion: "bench",
		Robots: []*linkpb.RobotInfo{{Id: robotID, Name: "load-" + robotID[:8]}}}}}
	if err := link.WriteFrame(conn, hello, 30*time.Second); err != nil {
		conn.CloseNow()
		return nil, nil, err
	}
	f, err := link.ReadFrame(conn)
	if err != nil || f.GetWelcome() == nil {
		conn.CloseNow()
		return nil, nil, fmt.Errorf("no welcome: %v %v", f, err)
	}
	if len(f.GetWelcome().GetRefused()) > 0 {
		conn.CloseNow()
		return nil, nil, fmt.Errorf("robot refused: %v", f.GetWelcome().GetRefused()[0])
	}
	return conn, f, nil
}

// cpuOver is the replicas' CPU time over d.
func cpuOver(replicas []*loggedProcess, d time.Duration) time.Duration {
	start := cpuOf(replicas)
	time.Sleep(d)
	return cpuOf(replicas) - start
}

func cpuOf(replicas []*loggedProcess) time.Duration {
	var sum time.Duration
	for _, r := range replicas {
		sum += procCPUTime(r.cmd.Process.Pid)
	}
	return sum
}

// procCPUTime is a process's user and system time from /proc (clock ticks of 10 ms).
func procCPUTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func rssOf(replicas []*loggedProcess) int64 {
	var sum int64
	for _, r := range replicas {
		sum += rssOne(r)
	}
	return sum
}

// rssOne is a process's resident memory from /proc, in bytes.
func rssOne(p *loggedProcess) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*99/100)]
}
