package main

// The replicas issue's W1 benchmark (make bench-cluster-w1): three serve replicas on a real
// PostgreSQL and nats-server, one real agent with a simulated robot linked to r1 (so the
// frames of r2 and r3 carry values that came over NATS), and CLUSTER_W1 fleet KPI sockets
// (default 1,000; make bench-cluster-w1 runs 20,000), a third on each replica, opened as a
// wall of kiosks opens them: one read-scoped API token, exchanged for a bearer. The sockets'
// client ends are in three client processes (bench/w1client, which the benchmark builds, one
// per replica), as a process may hold at most 20,000 descriptors here.
// Over 30 s with every socket up it measures, for each tick of each replica, the time from
// the tick to the last socket of that replica receiving the tick's frame (the goal:
// at most 250 ms at p99 with 20,000 sockets), and reports:
//
//   - last-p50-ms, last-p99-ms: tick to last receive over the ticks of all replicas, and
//     r1-last-p50-ms ... r3-last-p99-ms per replica;
//   - recv-p50-ms, recv-p99-ms: tick to receive over every receipt;
//   - missed: receipts not made (a socket that did not get a tick's frame before the window
//     closed, a tick a replica skipped), dropped: sockets that ended during the run;
//   - KiB-per-socket: the replicas' resident memory with the sockets, less before them;
//   - cpu-ms/s: the replicas' CPU per second over the window (idle-cpu-ms/s without the
//     sockets), client-cpu-ms/s: the client processes', machine-busy-%: the whole machine's
//     (2 cores, shared by everything: PostgreSQL, NATS, the replicas, the agent, the clients).
//
// Ticks are told apart by the frames themselves. The simulated robot stamps its KPIs with the
// agent's sample time, which a replica reuses until the next push or announcement: it says
// when a value was sampled, not when the replica ticked. A KPI pushed without a time is
// stamped by the hub with the tick that read it (internal/kpi/frame.go), on every replica, so
// the benchmark links one more robot, the clock, which pushes such a KPI each second: its
// updateTime in a frame is that replica's tick (the time the tick was due: Go's ticker sends
// that, so a tick that fires late on a loaded machine counts from when it was due). The clock
// links to r1 as the agent does.
//
// Like every benchmark here it never fails on speed; it fails when a socket cannot open or a
// frame does not decode.
//
//	CLUSTER_W1=20000 go test -run '^$' -bench BenchmarkClusterW1 -benchtime 1x -timeout 40m -v ./cmd/fleetgate

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

const (
	// w1Window is how long the ticks are measured, once every socket is up and settled.
	w1Window = 30 * time.Second
	// w1Tail is how long the sockets keep reading after the window, for its last ticks'
	// frames; a frame that has not come by then counts as missed.
	w1Tail = 3 * time.Second
)

func BenchmarkClusterW1(b *testing.B) {
	sockets := 1000
	if v, err := strconv.Atoi(os.Getenv("CLUSTER_W1")); err == nil && v > 0 {
		sockets = v
	}
	pg := pgtest.Start(b)
	db := pg.NewDatabase(b)
	nats := natstest.Start(b)
	replicas := startReplicas(b, 3, db, nats.URL())
	admin := login(b, replicas[0].URL, testToken)

	// The real agent with a simulated robot, and the clock, both linked to r1.
	simKey := addAgentTo(b, db, "sim")
	sim := startLogged(b, "sim", nil, "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", replicas[0].URL, "--agent-key", simKey)
	robot := localRobots(b, sim.URL, 1)[0]
	clock := uuid.NewString()
	stopClock := make(chan struct{})
	clockDone := make(chan struct{})
	clockConn, welcome, err := linkOnce(replicas[0].URL, addAgentTo(b, db, "tick-clock"), clock)
	if err != nil {
		b.Fatalf("linking the clock: %v", err)
	}
	go func() {
		defer close(clockDone)
		tickClock(clockConn, welcome, clock, stopClock)
	}()
	b.Cleanup(func() {
		close(stopClock)
		<-clockDone
	})
	waitFor(b, 20*time.Second, "the simulated robot and the clock online on every replica", func() bool {
		for _, r := range replicas {
			if !robotsOnline(r.URL, admin, []string{robot, clock}, true) {
				return false
			}
		}
		return true
	})

	// A kiosk's token: read scope, exchanged for a bearer that every socket shares.
	stdout, stderr, code := runCLI(b, nil, "token", "create", "--db", db, "--user", "admin@localhost", "--name", "kiosk-wall", "--scope", "read")
	if code != 0 {
		b.Fatalf("token create: %d %s", code, stderr)
	}
	kiosk := login(b, replicas[0].URL, strings.TrimSpace(stdout))
	fleetID := fleetWithRobots(b, replicas[0].URL, kiosk, 2) // the simulated robot and the clock

	idleCPU := cpuOver(replicas, 10*time.Second)
	rssBefore := rssOf(replicas)
	rssEach := make([]int64, len(replicas))
	for i, r := range replicas {
		rssEach[i] = rssOne(r)
	}

	// One client process per replica (bench/w1client): here a process may open at most 20,000
	// files (the hard limit, which root cannot raise in this container), fewer than 20,000
	// sockets need. Their clock is this machine's, as the replicas' is.
	w1client := buildBenchTool(b, "bench/w1client")
	dialed := time.Now()
	clients := make([]*w1ClientProcess, len(replicas))
	for i, r := range replicas {
		n := sockets / len(replicas)
		if i < sockets%len(replicas) {
			n++
		}
		clients[i] = startW1Clients(b, w1client, w1Job{URL: kpiSocketURL(r.URL, fleetID), Bearer: kiosk, Clock: clock, Robot: robot, Sockets: n})
	}
	for i, c := range clients {
		if err := <-c.up; err != nil {
			b.Fatalf("the clients of %s: %v", replicas[i].name, err)
		}
	}
	b.Logf("%d W1 sockets up in %s", sockets, time.Since(dialed).Round(time.Millisecond))

	time.Sleep(5 * time.Second) // settle: every socket subscribed and past its first frames
	rssAfter := rssOf(replicas)
	rssEachAfter := make([]int64, len(replicas))
	for i, r := range replicas {
		rssEachAfter[i] = rssOne(r)
	}
	clientCPU := func() (sum time.Duration) {
		for _, c := range clients {
			sum += procCPUTime(c.cmd.Process.Pid)
		}
		return sum
	}
	start := time.Now()
	cpu0, clients0, busy0 := cpuOf(replicas), clientCPU(), machineCPU()
	time.Sleep(w1Window)
	end := time.Now()
	cpu1, clients1, busy1 := cpuOf(replicas), clientCPU(), machineCPU()
	time.Sleep(w1Tail)
	results := make([]w1Result, len(clients))
	for i, c := range clients {
		results[i] = c.finish(b)
		if results[i].Err != "" {
			b.Fatalf("the clients of %s: %s", replicas[i].name, results[i].Err)
		}
	}

	// Per replica: every tick in the window, its last receipt, and the receipts not made.
	type tickStat struct {
		last time.Duration
		got  int
	}
	var lasts, recvs []time.Duration
	perReplica := make([][]time.Duration, len(replicas))
	missed, dropped := 0, 0
	for ri, r := range replicas {
		ticks := map[int64]*tickStat{}
		members := len(results[ri].Sockets)
		for _, sock := range results[ri].Sockets {
			if sock.Dropped {
				dropped++
			}
			for _, rc := range sock.Receipts {
				if rc.Tick < start.UnixNano() || rc.Tick >= end.UnixNano() {
					continue
				}
				d := time.Duration(rc.At - rc.Tick)
				recvs = append(recvs, d)
				t := ticks[rc.Tick]
				if t == nil {
					t = &tickStat{}
					ticks[rc.Tick] = t
				}
				t.got++
				t.last = max(t.last, d)
			}
		}
		if n := results[ri].WithoutRobot; n > 0 {
			b.Logf("%s: %d distinct frames lacked the simulated robot's KPIs", r.name, n)
		}
		if n := results[ri].WithoutClock; n > 0 {
			b.Logf("%s: %d distinct frames lacked the clock (offline there): their receipts count as missed", r.name, n)
		}
		if len(ticks) == 0 {
			b.Errorf("%s: no frame of a tick in the window reached its %d sockets", r.name, members)
			missed += members * int(w1Window/time.Second)
			continue
		}
		// The hub's ticker fires on a one-second grid: count the grid's ticks in the window,
		// so a tick the replica skipped (a tick longer than a second) counts as missed too.
		var seen int64
		for t := range ticks {
			seen = t
			break
		}
		period := int64(time.Second)
		first := seen - (seen-start.UnixNano())/period*period
		expected := 0
		for t := first; t < end.UnixNano(); t += period {
			expected++
		}
		got := 0
		var series []string // tick to last in ms, tick by tick: a spike shows when it came
		for _, at := range slices.Sorted(maps.Keys(ticks)) {
			got += ticks[at].got
			perReplica[ri] = append(perReplica[ri], ticks[at].last)
			series = append(series, strconv.Itoa(int(ticks[at].last.Milliseconds())))
		}
		lasts = append(lasts, perReplica[ri]...)
		missed += members*expected - got
		// The replicas tick at their own offsets in the second; ticks that come close share
		// the cores.
		b.Logf("%s: %d sockets, ticks at +%d ms in the second, %d in the window (%d seen), tick to last p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d receipts missed; RSS %.1f MiB before the sockets, %.1f MiB with them; tick to last by tick (ms): %s",
			r.name, members, seen%period/int64(time.Millisecond), expected, len(ticks), ms(percentile(perReplica[ri], 50)), ms(percentile(perReplica[ri], 99)),
			ms(slices.Max(perReplica[ri])), members*expected-got, float64(rssEach[ri])/1048576, float64(rssEachAfter[ri])/1048576, strings.Join(series, " "))
	}

	window := end.Sub(start).Seconds()
	kib := float64(rssAfter-rssBefore) / 1024 / float64(sockets)
	cpu := float64((cpu1 - cpu0).Milliseconds()) / window
	clientsCPU := float64((clients1 - clients0).Milliseconds()) / window
	busy := busy1.busySince(busy0) * 100
	b.ReportMetric(ms(percentile(lasts, 50)), "last-p50-ms")
	b.ReportMetric(ms(percentile(lasts, 99)), "last-p99-ms")
	for ri, r := range replicas {
		b.ReportMetric(ms(percentile(perReplica[ri], 50)), r.name+"-last-p50-ms")
		b.ReportMetric(ms(percentile(perReplica[ri], 99)), r.name+"-last-p99-ms")
	}
	b.ReportMetric(ms(percentile(recvs, 50)), "recv-p50-ms")
	b.ReportMetric(ms(percentile(recvs, 99)), "recv-p99-ms")
	b.ReportMetric(float64(missed), "missed")
	b.ReportMetric(float64(dropped), "dropped")
	b.ReportMetric(kib, "KiB-per-socket")
	b.ReportMetric(cpu, "cpu-ms/s")
	b.ReportMetric(float64(idleCPU.Milliseconds())/10, "idle-cpu-ms/s")
	b.ReportMetric(clientsCPU, "client-cpu-ms/s")
	b.ReportMetric(busy, "machine-busy-%")
	b.ReportMetric(0, "ns/op")
	b.Logf("%d W1 sockets over 3 replicas, %d ticks: tick to last p50 %.1f ms, p99 %.1f ms; %d receipts missed, %d sockets dropped; %.1f KiB per socket; replicas' CPU %.0f ms/s (idle %.0f ms/s), the clients' %.0f ms/s, the machine %.0f%% busy",
		sockets, len(lasts), ms(percentile(lasts, 50)), ms(percentile(lasts, 99)), missed, dropped, kib, cpu,
		float64(idleCPU.Milliseconds())/10, clientsCPU, busy)
}

// w1Job is what a client process (bench/w1client) is to do: open Sockets W1 sockets at URL
// with Bearer and tell the ticks by the KPI of the robot Clock.
type w1Job struct {
	URL, Bearer, Clock, Robot string
	Sockets                   int
}

// w1Result is what a client process received: bench/w1client's result, field for field (gob
// matches them by name).
type w1Result struct {
	Err          string // a frame that did not decode
	WithoutRobot int64  // distinct frames without the simulated robot's three KPIs
	WithoutClock int64  // distinct frames without the clock's KPI
	Sockets      []w1SocketResult
}

type w1SocketResult struct {
	Dropped  bool // the socket ended before the benchmark closed it
	Receipts []w1Receipt
}

// w1Receipt is a frame as a socket got it: its replica's tick and the arrival, in Unix ns.
type w1Receipt struct{ Tick, At int64 }

// w1ClientProcess is a client process started by the benchmark.
type w1ClientProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   string
	up    chan error // nil once every socket is open, or why not
	done  chan error // the process's exit
}

// buildBenchTool builds the main package pkg (a path inside the module, such as
// "bench/w1client") into a temporary directory and returns the binary.
func buildBenchTool(b *testing.B, pkg string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/fleetgate/fleetgate/"+pkg).CombinedOutput(); err != nil {
		b.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// startW1Clients runs the client binary (bench/w1client) with job; it ends when its stdin
// closes (finish, or the cleanup).
func startW1Clients(b *testing.B, bin string, job w1Job) *w1ClientProcess {
	b.Helper()
	out := filepath.Join(b.TempDir(), "w1-result.gob")
	p := &w1ClientProcess{cmd: exec.Command(bin, "-url", job.URL, "-clock", job.Clock, "-robot", job.Robot,
		"-sockets", strconv.Itoa(job.Sockets), "-out", out),
		out: out, up: make(chan error, 1), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "W1CLIENT_BEARER="+job.Bearer)
	p.cmd.Stderr = os.Stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		var said []string
		up := false
		for !up && sc.Scan() {
			if up = sc.Text() == "up"; up {
				p.up <- nil
			} else {
				said = append(said, sc.Text())
			}
		}
		io.Copy(io.Discard, stdout)
		err := p.cmd.Wait()
		if !up {
			p.up <- fmt.Errorf("ended (%v) before its sockets were up: %s", err, strings.Join(said, "; "))
		}
		p.done <- err
	}()
	b.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(time.Minute):
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// finish closes the process's sockets and returns what they received.
func (p *w1ClientProcess) finish(b *testing.B) w1Result {
	b.Helper()
	p.stdin.Close()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		if err != nil {
			b.Fatalf("client process: %v", err)
		}
	case <-time.After(time.Minute):
		b.Fatal("client process still running a minute after it was told to end")
	}
	f, err := os.Open(p.out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var res w1Result
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&res); err != nil {
		b.Fatalf("the client process's result: %v", err)
	}
	return res
}

// tickClock is the clock robot's agent: one custom KPI a second, pushed without a time so
// that each replica's hub stamps it with its tick, heartbeats as the cloud asks, until stop.
func tickClock(conn *websocket.Conn, welcome *linkpb.Frame, robotID string, stop <-chan struct{}) {
	defer conn.CloseNow()
	go func() {
		for {
			if _, err := link.ReadFrame(conn); err != nil {
				return
			}
		}
	}()
	kpi := &linkpb.Frame{Body: &linkpb.Frame_Kpis{Kpis: &linkpb.KPIValues{RobotId: robotID, Kpis: []*linkpb.KPI{{
		Name: "tick", DataType: "Platform.Messages.std_msgs.String", Payload: []byte("\n\x04tick")}}}}}
	heartbeat := &linkpb.Frame{Body: &linkpb.Frame_Heartbeat{Heartbeat: &linkpb.Heartbeat{}}}
	beat := time.Duration(welcome.GetWelcome().GetHeartbeatIntervalMs()) * time.Millisecond
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastBeat := time.Now()
	for {
		select {
		case <-stop:
			conn.Close(websocket.StatusNormalClosure, "")
			return
		case now := <-tick.C:
			if link.WriteFrame(conn, kpi, 10*time.Second) != nil {
				return
			}
			if now.Sub(lastBeat) >= beat {
				lastBeat = now
				if link.WriteFrame(conn, heartbeat, 10*time.Second) != nil {
					return
				}
			}
		}
	}
}

// machineTimes is the whole machine's CPU time from /proc/stat, in clock ticks.
type machineTimes struct{ busy, total int64 }

func machineCPU() machineTimes {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return machineTimes{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	var m machineTimes
	for i, field := range strings.Fields(sc.Text())[1:] {
		v, _ := strconv.ParseInt(field, 10, 64)
		if i < 8 { // user nice system idle iowait irq softirq steal; guest is in user already
			m.total += v
			if i != 3 && i != 4 {
				m.busy += v
			}
		}
	}
	return m
}

// busySince is the share of the machine's CPU time spent busy since m0, 0 to 1.
func (m machineTimes) busySince(m0 machineTimes) float64 {
	if m.total == m0.total {
		return 0
	}
	return float64(m.busy-m0.busy) / float64(m.total-m0.total)
}
