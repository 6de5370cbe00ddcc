package cloud_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/live"
)

// The words a frozen agent's cloud viewers and controllers end with (confirm.go).
const stoppedAnswering = "the robot's gateway stopped answering; it stops the robot by itself"

// confirmWithin is the safety rule's bound: the panel never tells an operator something about
// a robot it has not confirmed within 2 s.
const confirmWithin = 2 * time.Second

// TestFrozenAgentIsToldWithin2s: an agent frozen as a stopped process is (its connections
// open, nothing read, nothing sent) ends its cloud viewer and its cloud operator's control
// within 2 s of the freeze, in words, long before the heartbeats (15 s) would; its robot's
// requests then fail at once with those words, and Confirm says how long it has been silent,
// while the link stays up. When it answers again, its robot is confirmed again and watched
// afresh, and the control the cloud ended is released at the agent.
func TestFrozenAgentIsToldWithin2s(t *testing.T) {
	w := newWorldBeating(t, link.HeartbeatInterval) // the real heartbeat: it must not be what tells
	w.serveLive.Store(true)
	proxy := startFreezer(t, strings.TrimPrefix(w.srv.URL, "http://"))
	bot := scriptedRobot(idOne, "one")
	teleop := &grantingTeleop{}
	w.startAgentAt("http://"+proxy.addr(), "fga_alpha", teleop, bot)
	w.waitOnline(idOne, true, 5*time.Second)
	r := w.remote(idOne)
	confirmer, ok := fleet.As[fleet.Confirmer](r)
	if !ok {
		t.Fatal("a robot behind the link is not a fleet.Confirmer")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if silent := time.Since(confirmer.Confirm(ctx)); silent > confirmWithin {
		t.Errorf("a linked agent asked to confirm: silent for %v", silent)
	}

	// A cloud viewer of the pose, receiving, and a cloud operator driving.
	sub, err := r.Subscribe(ctx, poseKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	emitUntil(t, bot, sub)
	driven, ok := fleet.As[fleet.RemoteDriven](r)
	if !ok {
		t.Fatal("a robot behind the link is not fleet.RemoteDriven")
	}
	ctl, err := driven.TakeControl(ctx, driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}

	proxy.freeze()
	frozen := time.Now()
	deadline := time.NewTimer(confirmWithin)
	defer deadline.Stop()
	for _, end := range []struct {
		what string
		done <-chan struct{}
		err  func() error
	}{{"the viewer", sub.Done(), sub.Err}, {"the control", ctl.Done(), ctl.Err}} {
		select {
		case <-end.done:
		case <-deadline.C:
			t.Fatalf("%s still on %v after the agent froze; want it ended within %v\nlogs:\n%s", end.what, time.Since(frozen), confirmWithin, w.logs.String())
		}
		t.Logf("%s ended %v after the agent froze: %v", end.what, time.Since(frozen).Round(time.Millisecond), end.err())
		if err := end.err(); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(fleetgate.ErrorMessage(err), stoppedAnswering) {
			t.Errorf("%s ended with %v; want ErrUnavailable saying %q", end.what, err, stoppedAnswering)
		}
	}

	// While it does not answer: requests and new viewers fail with the words, within the
	// bound (not after a request's deadline); Confirm answers at once with the old answer.
	readCtx, readCancel := context.WithTimeout(ctx, 5*time.Second)
	start := time.Now()
	_, err = r.Read(readCtx, poseKey)
	readCancel()
	if !strings.Contains(fleetgate.ErrorMessage(err), stoppedAnswering) || time.Since(start) > confirmWithin {
		t.Errorf("a read of the frozen agent's robot: %v after %v; want the words within %v", err, time.Since(start), confirmWithin)
	}
	if _, err := r.Subscribe(ctx, poseKey, fleetgate.SubscribeOptions{}); !strings.Contains(fleetgate.ErrorMessage(err), stoppedAnswering) {
		t.Errorf("a new viewer of the frozen agent's robot: %v; want the words", err)
	}
	if silent := time.Since(confirmer.Confirm(ctx)); silent < time.Since(frozen)-100*time.Millisecond {
		t.Errorf("Confirm while frozen %v: silent for %v, want at least since the freeze", time.Since(frozen), silent)
	}
	// The link is up: presence is the heartbeats' to decide, and a stall of seconds does not
	// take the robot offline and back.
	if !w.registry.Online(idOne) {
		t.Error("the frozen agent's robot went offline within seconds; the heartbeats decide presence")
	}

	proxy.thaw()
	waitUntil(t, 10*time.Second, "the thawed agent's robot confirmed again", func() bool {
		return time.Since(confirmer.Confirm(ctx)) <= confirmWithin
	})
	waitUntil(t, 10*time.Second, "the agent let go of the control the cloud ended", func() bool { return teleop.releases() == 1 })
	var again *fleet.Subscription
	waitUntil(t, 10*time.Second, "a new viewer of the thawed agent's robot", func() bool {
		again, err = r.Subscribe(ctx, poseKey, fleetgate.SubscribeOptions{})
		return err == nil
	})
	defer again.Close()
	emitUntil(t, bot, again)
}

// TestUnwatchedAgentIsNotPinged: nobody watching, driving or asking, the cloud sends an agent
// nothing but its heartbeats: an idle uplink (a metered modem) carries no pings.
func TestUnwatchedAgentIsNotPinged(t *testing.T) {
	w := newWorldBeating(t, time.Minute) // no heartbeat falls in the windows below
	proxy := startFreezer(t, strings.TrimPrefix(w.srv.URL, "http://"))
	w.startAgentAt("http://"+proxy.addr(), "fga_alpha", nil, scriptedRobot(idOne, "one"))
	w.waitOnline(idOne, true, 5*time.Second)
	before := proxy.pings.Load()
	time.Sleep(2 * time.Second) // a window of time to measure, not a synchronisation
	idle := proxy.pings.Load() - before
	confirmer, _ := fleet.As[fleet.Confirmer](w.remote(idOne))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	confirmer.Confirm(ctx)
	before = proxy.pings.Load()
	time.Sleep(2 * time.Second)
	watched := proxy.pings.Load() - before
	t.Logf("pings from the cloud in 2 s: %d while nobody watched, %d while a page confirmed the robot", idle, watched)
	if idle > 0 {
		t.Errorf("%d pings in 2 s while nobody watched; want none", idle)
	}
	// Every pingEvery (500 ms): 4 in 2 s; 2 leave room for a loaded machine.
	if watched < 2 {
		t.Errorf("%d pings in 2 s while a page confirmed the robot; want about 4", watched)
	}
}

// emitUntil emits pose samples until sub has one.
func emitUntil(t *testing.T, bot interface {
	Emit(fleetgate.StreamKey, string, []byte) fleetgate.Sample
}, sub *fleet.Subscription) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		bot.Emit(poseKey, "Platform.Messages.geometry_msgs.PoseStamped", []byte("pose-bytes"))
		select {
		case <-sub.Ready():
			if _, ok := sub.Take(); ok {
				return
			}
		case <-sub.Done():
			t.Fatalf("the viewer ended: %v", sub.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatal("no sample reached the cloud viewer")
}

func waitUntil(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// grantingTeleop is an agent's teleoperation that grants every control and counts releases.
type grantingTeleop struct {
	mu       sync.Mutex
	released int
}

func (g *grantingTeleop) OpenControlForCloud(context.Context, string, fleetgate.StreamKey, string) (live.Input, error) {
	return grantedInput{g}, nil
}
func (g *grantingTeleop) HeldControls(string) []fleetgate.Held { return nil }
func (g *grantingTeleop) releases() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.released
}

type grantedInput struct{ g *grantingTeleop }

func (grantedInput) Stream() fleetgate.Stream {
	return fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: twist, Direction: fleetgate.Input, Source: fleetgate.SourceComponent}
}
func (grantedInput) Drive(func(error)) live.Driver { return nopDriver{} }
func (grantedInput) Connected() bool               { return true }
func (in grantedInput) Release()                   { in.g.mu.Lock(); in.g.released++; in.g.mu.Unlock() }
func (grantedInput) Name() string                  { return "granted" }

type nopDriver struct{}

func (nopDriver) Command(proto.Message) error { return nil }
func (nopDriver) Stop() error                 { return nil }

// freezer is a TCP proxy between an agent and the cloud that can freeze as a stopped agent
// process does (SIGSTOP): nothing is read or passed on either way, the connections stay
// open, and the kernel keeps taking bytes into its buffers.
type freezer struct {
	ln    net.Listener
	pings atomic.Int64 // WebSocket pings from the cloud to the agent

	mu     sync.Mutex
	thawed chan struct{} // nil while running; closed at the thaw
}

func startFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezer{ln: ln}
	var conns sync.WaitGroup
	t.Cleanup(func() {
		p.thaw()
		ln.Close()
		conns.Wait()
	})
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
	})
	conns.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			open = append(open, c, up)
			mu.Unlock()
			conns.Go(func() { p.pipe(up, c, nil); c.Close(); up.Close() })
			conns.Go(func() { p.pipe(c, up, &frameCounter{pings: &p.pings}); c.Close(); up.Close() })
		}
	})
	return p
}

func (p *freezer) addr() string { return p.ln.Addr().String() }

// pipe copies src to dst, holding each read while frozen; count, when not nil, sees the bytes.
func (p *freezer) pipe(dst, src net.Conn, count *frameCounter) {
	buf := make([]byte, 32<<10)
	for {
		p.wait()
		n, err := src.Read(buf)
		if n > 0 {
			p.wait() // what arrived during a freeze goes on at the thaw
			if count != nil {
				count.write(buf[:n])
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *freezer) wait() {
	p.mu.Lock()
	thawed := p.thawed
	p.mu.Unlock()
	if thawed != nil {
		<-thawed
	}
}

func (p *freezer) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thawed == nil {
		p.thawed = make(chan struct{})
	}
}

func (p *freezer) thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.thawed != nil {
		close(p.thawed)
		p.thawed = nil
	}
}

// frameCounter counts the pings among the WebSocket frames a server sends (unmasked), after
// its HTTP upgrade answer.
type frameCounter struct {
	pings   *atomic.Int64
	upgrade []byte // the upgrade answer so far, until its blank line
	header  []byte // the current frame's header so far
	skip    uint64 // payload bytes of the current frame still to pass
	inBody  bool
}

func (f *frameCounter) write(b []byte) {
	for len(b) > 0 {
		switch {
		case !f.inBody:
			f.upgrade = append(f.upgrade, b[0])
			b = b[1:]
			f.inBody = strings.HasSuffix(string(f.upgrade), "\r\n\r\n")
		case f.skip > 0:
			n := min(f.skip, uint64(len(b)))
			f.skip -= n
			b = b[n:]
		default:
			f.header = append(f.header, b[0])
			b = b[1:]
			if need := headerSize(f.header); need > 0 && len(f.header) == need {
				if f.header[0]&0x0f == 0x9 {
					f.pings.Add(1)
				}
				f.skip = payloadSize(f.header)
				f.header = f.header[:0]
			}
		}
	}
}

// headerSize is the size of an unmasked frame header, once its first two bytes are known.
func headerSize(h []byte) int {
	if len(h) < 2 {
		return 0
	}
	switch h[1] & 0x7f {
	case 126:
		return 4
	case 127:
		return 10
	}
	return 2
}

func payloadSize(h []byte) uint64 {
	switch n := uint64(h[1] & 0x7f); n {
	case 126:
		return uint64(h[2])<<8 | uint64(h[3])
	case 127:
		var v uint64
		for _, c := range h[2:10] {
			v = v<<8 | uint64(c)
		}
		return v
	default:
		return n
	}
}
