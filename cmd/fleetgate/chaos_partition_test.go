//go:build linux

package main

// Issue 32's row "one replica partitioned from NATS and PostgreSQL for 60 s while its agents
// stay connected": its agents move to a healthy replica, and commands from the partitioned
// replica never reach a robot once another owns it (fencing); its viewers reconnect through
// haproxy within 10 s; when the partition heals the replica rejoins without restarting.
//
// r3 runs in a network namespace of its own (internal/netshape, a veth pair to a second
// namespace): it reaches NATS and PostgreSQL only across the veth, through bridges the test
// keeps in the other namespace, and is reached (by haproxy, its agent, its clients) through a
// bridge into its namespace's loopback, which the partition leaves alone. The partition is
// the veth's r3 end down. The test command's partition is 12 s.

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/netshape"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
)

func TestChaosReplicaPartitioned(t *testing.T) {
	partition, clients := 12*time.Second, 1
	if chaosLong() {
		partition, clients = 60*time.Second, 4
	}
	if err := netshape.Available(); err != nil {
		t.Skipf("NOT POSSIBLE HERE: %v (the test command runs as root, where it runs)", err)
	}
	l, err := netshape.Open(netshape.Config{Veth: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() }) // registered first, so it runs last: after the processes
	pg := pgtest.Start(t)
	c := &chaosCluster{db: pg.NewDatabase(t)}
	nats := natstest.Start(t)
	c.replicas = startReplicas(t, 2, c.db, nats.URL())

	// r3, across the veth from the bus and the store.
	natsAcross := bridgeTo(t, l, hostPort(t, nats.URL()))
	pgAcross := bridgeTo(t, l, hostPort(t, c.db))
	args, env := replicaArgs(t, "r3", withHost(t, c.db, pgAcross), withHost(t, nats.URL(), natsAcross))
	r3 := startLoggedCmd(t, "r3", l.Command(l.Site, binary, args...), env)
	r3.URL = "http://" + bridgeInto(t, l, strings.TrimPrefix(r3.URL, "http://"))
	c.replicas = append(c.replicas, r3)
	r3pid := r3.cmd.Process.Pid
	c.front = startHAProxy(t, c.replicas)

	// a1 tries r3 first, then the others; a2 comes through haproxy.
	c.startChaosAgents(t, r3.URL+","+c.replicas[0].URL+","+c.replicas[1].URL, c.front)
	if !holds(r3, "a1") {
		t.Fatal("a1 is not linked to r3")
	}
	before := c.resources(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	// r3's viewers, kept there by haproxy's cookie while it is up.
	var viewers []*probe
	for range clients {
		for _, robot := range c.robots {
			viewers = append(viewers, cameraViewer(ctx, c.front, c.bearer, robot, "r3"))
		}
	}
	// r3's REST clients: a reader, and an event poster counting its acknowledged entries.
	readers := []*probe{restReader(ctx, c.front, c.bearer, "r3")}
	posters := []*poster{eventPoster(ctx, &wg, c.front, c.bearer, c.robots[1], "part-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-", "r3")}
	// A driver on r3 itself, turning a1's robot, until the partition heals: once another
	// replica holds a1, none of its commands may reach the robot.
	r3ctx, r3cancel := context.WithCancel(ctx)
	defer r3cancel()
	wg.Go(func() { driveTurning(r3ctx, nil, r3.URL, c.bearer, c.robots[0]) })
	type reading struct {
		at time.Time
		w  float64
	}
	var mu sync.Mutex
	var readings []reading
	wg.Go(func() {
		watchTurn(ctx, c.agents[0].URL, c.robots[0], func(at time.Time, w float64) {
			mu.Lock()
			readings = append(readings, reading{at, w})
			mu.Unlock()
		})
	})
	waitServed(t, viewers, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(readings) > 0 && math.Abs(readings[len(readings)-1].w) > 0.5
	})

	t.Logf("r3 partitioned from NATS and PostgreSQL (its veth down) for %v", partition)
	faultBegins(viewers, readers, []*probe{posters[0].probe})
	if err := l.SetSiteUp(false); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	movedAfter := waitFor(t, partition, "a1 linked to a replica other than r3", func() bool {
		return holds(c.replicas[0], "a1") || holds(c.replicas[1], "a1")
	})
	moved := cut.Add(movedAfter)
	t.Logf("a1 linked to another replica %v after the partition began", movedAfter.Round(10*time.Millisecond))
	time.Sleep(time.Until(cut.Add(partition)))
	r3cancel()
	viewersDuring := make([]time.Duration, len(viewers))
	for i, p := range viewers {
		viewersDuring[i] = p.longest()
	}
	if err := l.SetSiteUp(true); err != nil {
		t.Fatal(err)
	}
	healed := time.Now()
	rejoined := waitFor(t, 30*time.Second, "r3 serving both robots again", func() bool {
		return robotsOnline(r3.URL, c.bearer, c.robots, true) && batteryStatus(r3.URL, c.bearer, c.robots[0]) == 200 &&
			batteryStatus(r3.URL, c.bearer, c.robots[1]) == 200 && getJSON(r3.URL+"/healthz", "", nil) == 200
	})
	t.Logf("r3 rejoined (both robots online and readable there) %v after the partition healed", rejoined.Round(10*time.Millisecond))
	time.Sleep(time.Second)
	cancel()
	wg.Wait()

	if !r3.running() || r3.cmd.Process.Pid != r3pid {
		t.Error("r3 restarted or exited")
	}
	// Fencing: from the move (and the robot's braking after it) to the heal, a1's robot was
	// driven by r3's commands never again.
	var driven []string
	fenceReadings := 0
	mu.Lock()
	for _, r := range readings {
		if r.at.After(moved.Add(1500*time.Millisecond)) && r.at.Before(healed) {
			fenceReadings++
			if math.Abs(r.w) > 0.01 {
				driven = append(driven, r.at.Sub(moved).Round(time.Millisecond).String())
			}
		}
	}
	mu.Unlock()
	if len(driven) > 0 {
		t.Errorf("a1's robot turned after another replica held a1 (r3's driver is the only one): %v after the move", driven)
	}
	oneOwnerEach(t, c.replicas, "a1", "a2")
	for i, d := range viewersDuring {
		if d > 10*time.Second {
			t.Errorf("r3's viewer %d was without pictures for %v, want a reconnection through haproxy within 10 s", i, d)
		}
	}
	acked := checkAcked(t, c.front, c.bearer, posters)
	t.Logf("r3 partitioned %v:", partition)
	for _, line := range []string{figures("W3 camera viewers of r3", viewers), figures("REST readers of r3", readers),
		figures("event posters of r3", []*probe{posters[0].probe}), acked,
		fmt.Sprintf("fencing: %d readings of a1's robot between the move and the heal, %d turning", fenceReadings, len(driven)),
		"a1 moved " + movedAfter.Round(10*time.Millisecond).String() + " after the cut; r3 rejoined " + rejoined.Round(10*time.Millisecond).String() + " after the heal",
		"before: " + before, "after: " + c.resources(t)} {
		t.Log("  " + line)
	}
}

// hostPort is the host:port of a URL.
func hostPort(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// withHost is raw with its host:port replaced.
func withHost(t *testing.T, raw, hostPort string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = hostPort
	return u.String()
}

// bridgeTo serves, in l's cloud namespace at its address, a bridge to target (host:port here):
// what l's site namespace reaches across the veth. It returns the bridge's address.
func bridgeTo(t *testing.T, l *netshape.Link, target string) string {
	t.Helper()
	ln, err := l.Listen(l.Cloud, "tcp", netip.AddrPortFrom(l.CloudAddr, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	serveBridge(t, ln, func() (net.Conn, error) { return net.DialTimeout("tcp", target, 5*time.Second) })
	return ln.Addr().String()
}

// bridgeInto serves, on 127.0.0.1 here, a bridge to target in l's site namespace (its
// loopback: not across the veth). It returns the bridge's address.
func bridgeInto(t *testing.T, l *netshape.Link, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dial := l.Dialer(l.Site)
	serveBridge(t, ln, func() (net.Conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return dial(ctx, "tcp", target)
	})
	return ln.Addr().String()
}

// serveBridge copies each connection ln accepts to one dial makes, both ways, until either
// ends; the test's end closes them all.
func serveBridge(t testing.TB, ln net.Listener, dial func() (net.Conn, error)) {
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	var wg sync.WaitGroup
	track := func(c net.Conn, on bool) bool {
		mu.Lock()
		defer mu.Unlock()
		if on && open == nil {
			return false // the test has ended
		}
		if on {
			open[c] = true
		} else if open != nil {
			delete(open, c)
		}
		return true
	}
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer in.Close()
				out, err := dial()
				if err != nil {
					return
				}
				defer out.Close()
				if !track(in, true) || !track(out, true) {
					return
				}
				defer track(in, false)
				defer track(out, false)
				done := make(chan struct{}, 2)
				go func() { io.Copy(out, in); done <- struct{}{} }()
				go func() { io.Copy(in, out); done <- struct{}{} }()
				<-done
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for c := range open {
			c.Close()
		}
		open = nil
		mu.Unlock()
		wg.Wait()
	})
}
