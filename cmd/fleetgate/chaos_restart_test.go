package main

// Issue 32's row "the cloud restarted": fleetgate serve gets SIGTERM with 200 W3 viewers of
// sim-1 and an operator driving it through the cloud, then starts again on the same address
// and data. What must hold: the driven robot is still before the cloud has exited (its
// shutdown zeroes what it drives: the agent's door ends the cloud operator's control); the
// viewers, reconnecting as the panel's sockets do (jsclient/src/net/backoff.ts: equal-jitter
// exponential backoff from 500 ms), are all watching again within 5 s of the new cloud's
// start; the agent relinks by itself (the same process, its jittered backoff capped at 5 s).
// FLEETGATE_CHAOS_VIEWERS sets the number of viewers (the test command's 20; make chaos 200).

import (
	"bufio"
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestChaosCloudRestart(t *testing.T) {
	viewers := 20
	if n, err := strconv.Atoi(os.Getenv("FLEETGATE_CHAOS_VIEWERS")); err == nil && n > 0 {
		viewers = n
	}
	cloudDir := t.TempDir()
	serve := func(listen string) *loggedProcess {
		return startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", listen, "--admin-token", testToken)
	}
	cloud := serve("127.0.0.1:0")
	listen := strings.TrimPrefix(cloud.URL, "http://")
	key := addAgent(t, cloudDir, "site")
	agent := startLogged(t, "agent", nil, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", cloud.URL, "--agent-key", key, "--metrics-listen", "127.0.0.1:0")
	robot := localRobots(t, agent.URL, 1)[0]
	local, bearer := login(t, agent.URL, testToken), login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "sim-1 online on the cloud", func() bool { return robotsOnline(cloud.URL, bearer, []string{robot}, true) })

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	// The viewers: sim-1's odometry through the cloud, each socket opened again with the
	// panel's policy whenever it ends.
	type viewerLog struct {
		mu          sync.Mutex
		opened      []time.Time
		closed      []time.Time
		refusedOpen int // attempts that failed
	}
	logs := make([]*viewerLog, viewers)
	cloudURL := cloud.URL // the same address before and after the restart (cloud is replaced)
	var open atomic.Int64
	for i := range logs {
		v := &viewerLog{}
		logs[i] = v
		wg.Go(func() {
			b := panelBackoff{}
			for ctx.Err() == nil {
				dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
				conn, _, err := websocket.Dial(dctx, w3URL(cloudURL, robot, "componentName=base&streamName=odom&source=1"),
					&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
				dcancel()
				if err == nil {
					// Watching from the first frame: a socket open on a robot whose agent has
					// not relinked yet shows nothing.
					at, watching := time.Now(), false
					for {
						if _, _, err := conn.Read(ctx); err != nil {
							break
						}
						if !watching {
							watching = true
							v.mu.Lock()
							v.opened = append(v.opened, time.Now())
							v.mu.Unlock()
							open.Add(1)
						}
					}
					conn.CloseNow()
					if watching {
						open.Add(-1)
						v.mu.Lock()
						v.closed = append(v.closed, time.Now())
						v.mu.Unlock()
					}
					b.lived(time.Since(at))
				} else {
					v.mu.Lock()
					v.refusedOpen++
					v.mu.Unlock()
				}
				select {
				case <-ctx.Done():
				case <-time.After(b.next()):
				}
			}
		})
	}
	waitFor(t, 60*time.Second, "every viewer watching", func() bool { return open.Load() == int64(viewers) })
	agentBefore := gauges(t, agent)

	// The operator, turning sim-1 through the cloud (a command every 50 ms), until the socket ends.
	driver := dialW3(t, cloud.URL, bearer, robot, "componentName=base&streamName=cmd_vel&direction=input&format=json")
	defer driver.CloseNow()
	turnWith(ctx, &wg, driver)
	waitFor(t, 10*time.Second, "sim-1 turning", func() bool { return math.Abs(odom(t, agent.URL, local, robot).w) > 0.5 })

	// The robot's turn rate at the site every 10 ms, from before the SIGTERM.
	type reading struct {
		at time.Time
		w  float64
	}
	var mu sync.Mutex
	var readings []reading
	wg.Go(func() {
		for ctx.Err() == nil {
			w := odom(t, agent.URL, local, robot).w
			mu.Lock()
			readings = append(readings, reading{time.Now(), w})
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	})
	time.Sleep(200 * time.Millisecond)

	term := time.Now()
	cloud.signal(t, syscall.SIGTERM)
	select {
	case <-cloud.done:
	case <-time.After(15 * time.Second):
		t.Fatal("the cloud still running 15 s after SIGTERM")
	}
	exited := time.Now()
	// The cloud lets go of its operator's control at the agent and waits for the agent to
	// answer its close, which the agent does after the zero (internal/link/cloud's
	// Shutdown): the lease, freed right after the zero, is free as the cloud is gone.
	held := controlsHeld(t, agent.URL, local, robot)
	// The zero reached the robot when its turn rate fell from the driver's 1 rad/s (it then
	// brakes to a stop); the deadman's own zero would come 500 ms after the last command.
	slowing := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range readings {
			if r.at.After(term) && math.Abs(r.w) < 0.9 {
				return r.at
			}
		}
		return time.Time{}
	}
	var zeroed time.Time
	waitFor(t, 5*time.Second, "sim-1 slowing after the SIGTERM", func() bool { zeroed = slowing(); return !zeroed.IsZero() })
	t.Logf("SIGTERM: the cloud exited after %v; sim-1's stream held by %d as it did; sim-1 slowing (odometry every 10 ms) after %v",
		exited.Sub(term).Round(time.Millisecond), held, zeroed.Sub(term).Round(time.Millisecond))
	if held != 0 {
		t.Errorf("the cloud exited with its operator's control still held at the agent (%d): the robot not zeroed before", held)
	}
	if zeroed.Sub(term) > 400*time.Millisecond {
		t.Errorf("sim-1 slowing %v after the SIGTERM: the deadman's, not the shutdown's zero", zeroed.Sub(term))
	}

	restart := time.Now()
	cloud = serve(listen)
	started := time.Now()
	t.Logf("the cloud down for %v; started again in %v", restart.Sub(exited).Round(time.Millisecond), started.Sub(restart).Round(time.Millisecond))
	back := waitFor(t, 30*time.Second, "sim-1 online on the restarted cloud", func() bool { return robotsOnline(cloud.URL, bearer, []string{robot}, true) })
	t.Logf("sim-1 online on the new cloud %v after its start (the agent not restarted: %v)", back.Round(time.Millisecond), agent.running())
	if !agent.running() {
		t.Error("the agent exited")
	}
	waitFor(t, 30*time.Second, "every viewer watching again", func() bool { return open.Load() == int64(viewers) })
	// The agent relinked in the same process: what it holds is what it held.
	var agentAfter map[string]float64
	waitFor(t, 20*time.Second, "the agent's goroutines and open files back to where they were", func() bool {
		agentAfter = gauges(t, agent)
		return agentAfter["go_goroutines"] <= agentBefore["go_goroutines"]+10 && agentAfter["process_open_fds"] <= agentBefore["process_open_fds"]+5
	})
	t.Logf("the agent before / after: goroutines %v / %v, open files %v / %v", agentBefore["go_goroutines"], agentAfter["go_goroutines"],
		agentBefore["process_open_fds"], agentAfter["process_open_fds"])

	// Each viewer: its outage (socket ended to open again) and its reopening after the start.
	var outages, afterStart []time.Duration
	attempts := 0
	for _, v := range logs {
		v.mu.Lock()
		attempts += v.refusedOpen
		var down, up time.Time
		for _, c := range v.closed {
			if c.After(term) {
				down = c
				break
			}
		}
		for _, o := range v.opened {
			if o.After(started) {
				up = o
				break
			}
		}
		v.mu.Unlock()
		if down.IsZero() || up.IsZero() {
			t.Errorf("a viewer's socket: ended %v, opened again %v", down, up)
			continue
		}
		outages = append(outages, up.Sub(down))
		afterStart = append(afterStart, up.Sub(started))
	}
	t.Logf("%d viewers: outage p50 %v, p99 %v, max %v; watching again after the start p50 %v, p99 %v, max %v; %d failed attempts",
		viewers, percentile(outages, 50).Round(time.Millisecond), percentile(outages, 99).Round(time.Millisecond), percentile(outages, 100).Round(time.Millisecond),
		percentile(afterStart, 50).Round(time.Millisecond), percentile(afterStart, 99).Round(time.Millisecond), percentile(afterStart, 100).Round(time.Millisecond), attempts)
	if worst := percentile(afterStart, 100); worst > 5*time.Second {
		t.Errorf("a viewer watched again %v after the cloud's start: want within 5 s", worst)
	}
}

// panelBackoff is jsclient's Backoff (src/net/backoff.ts) with its defaultBackoff: equal
// jitter, the step doubling from 500 ms to 30 s, never under 250 ms, reset by a socket that
// lived 10 s.
type panelBackoff struct{ failures int }

func (b *panelBackoff) next() time.Duration {
	step := min(30*time.Second, 500*time.Millisecond<<min(b.failures, 30))
	b.failures++
	return max(250*time.Millisecond, step/2+time.Duration(rand.Float64()*float64(step/2)))
}

func (b *panelBackoff) lived(d time.Duration) {
	if d >= 10*time.Second {
		b.failures = 0
	}
}

var metricsLine = regexp.MustCompile(`msg="metrics listening" url=(\S+)`)

// gauges reads go_goroutines and process_open_fds of p (started with --metrics-listen).
func gauges(t *testing.T, p *loggedProcess) map[string]float64 {
	t.Helper()
	m := metricsLine.FindStringSubmatch(p.logs())
	if m == nil {
		t.Fatalf("%s logged no metrics address", p.name)
	}
	out := readGauges(quickClient, m[1])
	if len(out) != 2 {
		t.Fatalf("%s's metrics: %v", p.name, out)
	}
	return out
}

// readGauges reads go_goroutines and process_open_fds from the metrics listener at base;
// fewer when it did not answer.
func readGauges(c *http.Client, base string) map[string]float64 {
	out := map[string]float64{}
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && (name == "go_goroutines" || name == "process_open_fds") {
			out[name], _ = strconv.ParseFloat(value, 64)
		}
	}
	return out
}
