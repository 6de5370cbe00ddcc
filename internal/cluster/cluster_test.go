package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/cluster"
	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
)

const (
	idOne  = "11111111-1111-4111-8111-111111111111"
	period = 100 * time.Millisecond
	twist  = "Platform.Messages.geometry_msgs.Twist"
	pose   = "Platform.Messages.geometry_msgs.PoseStamped"
)

var (
	poseKey  = fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}
	driveKey = fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
)

func testRobot() *fleettest.Robot {
	r := &fleettest.Robot{
		ID: idOne, Name: "one",
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: pose, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "cmd_vel", Type: twist, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
		MetricList: []fleetgate.Metric{{Type: fleetgate.MetricType(100), Name: "battery", Value: 87.5}},
		KPIList:    []fleetgate.KPI{{Name: "activity", DataType: "Platform.Messages.std_msgs.String", Payload: []byte("\n\x06moving"), Time: time.Unix(1700000000, 0).UTC()}},
	}
	r.Emit(poseKey, pose, []byte("pose-0"))
	return r
}

// fakeAgents is a replica's agent links, as the acceptor lists and fences them.
type fakeAgents struct {
	mu     sync.Mutex
	linked []cloud.LinkedAgent
	fenced []string
}

func (a *fakeAgents) Linked() []cloud.LinkedAgent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]cloud.LinkedAgent(nil), a.linked...)
}

// setLinked replaces the links, as an acceptor's change would, under the lock the replica's
// Linked takes (it reads them on its own goroutine).
func (a *fakeAgents) setLinked(linked []cloud.LinkedAgent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.linked = linked
}

func (a *fakeAgents) Fence(agentID string, link uint64, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fenced = append(a.fenced, agentID)
}

func (a *fakeAgents) fencedNow() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.fenced...)
}

type replica struct {
	node     *cluster.Node
	registry *fleet.Registry
	agents   *fakeAgents
	stop     context.CancelFunc
	done     chan struct{}
	logs     *bytes.Buffer
}

func startReplica(t *testing.T, url, name string) *replica {
	t.Helper()
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	reg := fleet.NewRegistry(nil, log, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	node, err := cluster.Open(ctx, cluster.Config{URL: url, Replica: name, Local: reg, Logger: log, Period: period})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{node: node, registry: reg, agents: &fakeAgents{}, done: make(chan struct{}), logs: logs}
	node.SetAgents(r.agents)
	runCtx, stop := context.WithCancel(context.Background())
	r.stop = stop
	go func() { node.Run(runCtx); close(r.done) }()
	t.Cleanup(r.close)
	return r
}

func (r *replica) close() {
	r.stop()
	<-r.done
	r.node.Close()
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eventually waits up to d for ok.
func eventually(t *testing.T, d time.Duration, what string, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !ok() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestRobotHeldElsewhereAnswersThroughItsReplica: a robot held by replica a is online on
// replica b, and every call made on b reaches the robot and brings back its answer or error.
func TestRobotHeldElsewhereAnswersThroughItsReplica(t *testing.T) {
	nats := natstest.Start(t)
	a, b := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b")
	robot := testRobot()
	if err := a.registry.AddHosted(context.Background(), robot, fleet.Home{FleetID: "fleet-1", AgentID: "agent-1"}); err != nil {
		t.Fatal(err)
	}
	took := eventually(t, 2*time.Second, "robot online on b", func() bool { return b.node.Online(idOne) })
	t.Logf("online on the other replica after %s", took)
	if b.node.Online("99999999-9999-4999-8999-999999999999") {
		t.Error("an unknown robot is online")
	}
	r, _ := b.node.Robot(idOne)
	if r.Info().Name != "one" || r.Info().ConfigVersion != "7" {
		t.Errorf("info on b: %+v", r.Info())
	}
	if held, ok := r.(*cluster.Robot); !ok || held.Replica() != "a" || held.AgentID() != "agent-1" {
		t.Errorf("robot on b is %T held by %v", r, r)
	}
	ctx := ctxFor(t, 5*time.Second)
	streams, err := r.Streams(ctx)
	if err != nil || len(streams) != 2 || streams[0].Type != pose {
		t.Fatalf("streams: %v, %v", streams, err)
	}
	if s, err := r.Read(ctx, poseKey); err != nil || string(s.Payload) != "pose-0" {
		t.Errorf("read: %q, %v", s.Payload, err)
	}
	// The command goes through the holder's door: held to the stream's limit (1 m/s).
	if err := r.(fleet.RemoteDriven).Send(ctx, driveKey, twist, fleettest.TwistPayload(5, 0.5), "op@example.com"); err != nil {
		t.Errorf("send: %v", err)
	}
	if p := robot.Published(); len(p) != 1 || !bytes.Equal(p[0].Payload, fleettest.TwistPayload(1, 0.5)) || p[0].Type != twist {
		t.Errorf("published at the robot: %+v", p)
	}
	if m, err := r.Metric(ctx, fleetgate.MetricType(100), "battery"); err != nil || m.Value != 87.5 {
		t.Errorf("metric: %+v, %v", m, err)
	}
	if kpis, err := r.KPIs(ctx); err != nil || len(kpis) != 1 || kpis[0].Name != "activity" {
		t.Errorf("kpis: %+v, %v", kpis, err)
	}
	// The robot's own error crosses the cluster as the same kind.
	_, err = r.Read(ctx, fleetgate.StreamKey{Component: "nope", Name: "nope", Source: fleetgate.SourceComponent})
	if !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("read of a missing stream: %v, want ErrNotFound", err)
	}
	// The caller's deadline holds across the cluster.
	robot.Lock()
	robot.Delay = time.Second
	robot.Unlock()
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = r.Metrics(short)
	if !fleetgate.Is(err, fleetgate.EUnavailable) || time.Since(start) > 900*time.Millisecond {
		t.Errorf("a slow robot: %v after %s, want ErrUnavailable near the 200 ms deadline", err, time.Since(start))
	}
}

// TestLiveStreamCrossesOnceperReplica: two viewers on replica b of a stream held by a get its
// samples; a relays it on one subject whatever the number of viewers, and stops when they go.
func TestLiveStreamCrossesOncePerReplica(t *testing.T) {
	nats := natstest.Start(t)
	a, b := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b")
	robot := testRobot()
	a.registry.AddHosted(context.Background(), robot, fleet.Home{FleetID: "fleet-1"})
	eventually(t, 2*time.Second, "robot online on b", func() bool { return b.node.Online(idOne) })
	r, _ := b.node.Robot(idOne)
	ctx := ctxFor(t, 10*time.Second)
	v1, err := r.Subscribe(ctx, poseKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := r.Subscribe(ctx, poseKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The holder subscribes once the first interest arrives: emit until both viewers see a
	// sample (the ones before the relay started are not relayed).
	got := map[*fleet.Subscription]string{}
	deadline := time.Now().Add(5 * time.Second)
	for i := 1; len(got) < 2 && time.Now().Before(deadline); i++ {
		robot.Emit(poseKey, pose, []byte("pose-live"))
		time.Sleep(20 * time.Millisecond)
		for _, v := range []*fleet.Subscription{v1, v2} {
			if s, ok := v.Take(); ok {
				got[v] = string(s.Payload)
			}
		}
	}
	if got[v1] != "pose-live" || got[v2] != "pose-live" {
		t.Fatalf("viewers got %v", got)
	}
	// One subscription at the robot for both viewers of replica b.
	if n := robotSubscribers(robot); n != 1 {
		t.Errorf("subscriptions at the robot: %d, want 1 for two viewers of one replica", n)
	}
	v1.Close()
	v2.Close()
	took := eventually(t, 6*time.Second, "relay stopped at the holder", func() bool { return robotSubscribers(robot) == 0 })
	t.Logf("holder stopped relaying %s after the last viewer left", took)
	// A viewer of a stream that is gone at the holder ends with its error.
	robot.Lock()
	robot.StreamList = append(robot.StreamList, fleetgate.Stream{Component: "cam", Name: "front", Type: pose, Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	robot.Unlock()
	time.Sleep(2100 * time.Millisecond) // the stream list cached on b is stale now
	// A context of its own: the one above may be near its end after a slow relay stop (a CI
	// run's took 3.9 s, and the viewer then ended with the context, not with the holder's word).
	v3, err := r.Subscribe(ctxFor(t, 10*time.Second), fleetgate.StreamKey{Component: "cam", Name: "front", Source: fleetgate.SourceComponent}, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	robot.Lock()
	robot.StreamList = robot.StreamList[:2]
	robot.Unlock()
	select {
	case <-v3.Done():
	case <-time.After(8 * time.Second):
	}
	if err := v3.Err(); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a viewer of a stream gone at the holder: %v, want ErrNotFound", err)
	}
}

// robotSubscribers counts the open subscriptions of the robot's pose stream.
func robotSubscribers(r *fleettest.Robot) int {
	return r.Subscribers(poseKey)
}

// TestSilentReplicaTakesItsRobotsOffline: a replica that stops announcing (killed) holds
// nothing after MissedAnnouncements periods, and its robots' viewers elsewhere end offline.
func TestSilentReplicaTakesItsRobotsOffline(t *testing.T) {
	nats := natstest.Start(t)
	a, b := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b")
	robot := testRobot()
	a.registry.AddHosted(context.Background(), robot, fleet.Home{FleetID: "fleet-1"})
	eventually(t, 2*time.Second, "robot online on b", func() bool { return b.node.Online(idOne) })
	if got := b.node.Replicas(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("b hears replicas %v, want [a b]", got)
	}
	r, _ := b.node.Robot(idOne)
	viewer, err := r.Subscribe(ctxFor(t, 5*time.Second), poseKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.close()
	took := eventually(t, 2*time.Second, "robot offline on b", func() bool { return !b.node.Online(idOne) })
	if got := b.node.Replicas(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("b hears replicas %v after a went silent, want [b]", got)
	}
	limit := cluster.MissedAnnouncements * period
	if took < limit-period {
		t.Errorf("offline after %s, before the %s of missed announcements", took, limit)
	}
	t.Logf("offline %s after its replica went silent (limit %s)", took, limit)
	select {
	case <-viewer.Done():
		if !fleetgate.Is(viewer.Err(), fleetgate.EOffline) {
			t.Errorf("viewer ended with %v, want ErrOffline", viewer.Err())
		}
	case <-time.After(time.Second):
		t.Error("the viewer did not end")
	}
	// A call on the robot object a caller still holds fails clearly, fast.
	start := time.Now()
	if _, err := r.Metrics(ctxFor(t, 5*time.Second)); !fleetgate.Is(err, fleetgate.EUnavailable) || time.Since(start) > time.Second {
		t.Errorf("call to a gone replica: %v after %s, want ErrUnavailable at once", err, time.Since(start))
	}
}

// TestNewerClaimFencesTheOlderLink: an agent linked to replica a that links to replica b is
// b's: a closes its link, and of the two announcements every replica believes b.
func TestNewerClaimFencesTheOlderLink(t *testing.T) {
	nats := natstest.Start(t)
	a, b, c := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b"), startReplica(t, nats.URL(), "c")
	ctx := ctxFor(t, 5*time.Second)
	robotA := testRobot()
	a.agents.setLinked([]cloud.LinkedAgent{{ID: "agent-1", Link: 1, LastHeard: time.Now()}})
	if err := a.node.Claim(ctx, "agent-1", 1); err != nil {
		t.Fatal(err)
	}
	a.registry.AddHosted(ctx, robotA, fleet.Home{FleetID: "fleet-1", AgentID: "agent-1"})
	eventually(t, 2*time.Second, "robot held by a, seen on c", func() bool {
		r, ok := c.node.Robot(idOne)
		return ok && r.(*cluster.Robot).Replica() == "a"
	})
	// The agent links to b (a still thinks it holds it: a partition, or a silent drop).
	robotB := testRobot()
	b.agents.setLinked([]cloud.LinkedAgent{{ID: "agent-1", Link: 9, LastHeard: time.Now()}})
	if err := b.node.Claim(ctx, "agent-1", 9); err != nil {
		t.Fatal(err)
	}
	b.registry.AddHosted(ctx, robotB, fleet.Home{FleetID: "fleet-1", AgentID: "agent-1"})
	took := eventually(t, 2*time.Second, "a fences its link", func() bool { return len(a.agents.fencedNow()) == 1 })
	t.Logf("older link fenced %s after the newer claim", took)
	eventually(t, 2*time.Second, "c believes b", func() bool {
		r, ok := c.node.Robot(idOne)
		return ok && r.(*cluster.Robot).Replica() == "b"
	})
	if f := b.agents.fencedNow(); len(f) != 0 {
		t.Errorf("the newer holder fenced itself: %v", f)
	}
	if at, ok := c.node.AgentLastHeard("agent-1"); !ok || time.Since(at) > 5*time.Second {
		t.Errorf("agent last heard on c: %v, %v", at, ok)
	}
	// a releasing its (replaced) claim leaves b's in place: a later claim by a still fences b.
	a.node.Release("agent-1", 1)
	a.agents.setLinked(nil)
	time.Sleep(3 * period)
	if f := b.agents.fencedNow(); len(f) != 0 {
		t.Errorf("a stale release fenced the holder: %v", f)
	}
}

// TestNATSOutage: with NATS gone, calls to robots held elsewhere fail at once as unavailable
// (no crash, no hang), and the cluster comes back by itself with NATS.
func TestNATSOutage(t *testing.T) {
	nats := natstest.Start(t)
	a, b := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b")
	robot := testRobot()
	a.registry.AddHosted(context.Background(), robot, fleet.Home{FleetID: "fleet-1"})
	eventually(t, 2*time.Second, "robot online on b", func() bool { return b.node.Online(idOne) })
	r, _ := b.node.Robot(idOne)
	nats.Stop()
	start := time.Now()
	_, err := r.Metrics(ctxFor(t, 5*time.Second))
	if !fleetgate.Is(err, fleetgate.EUnavailable) || !errors.Is(err, cluster.ErrUnreachable) || time.Since(start) > 2*time.Second {
		t.Errorf("call with NATS down: %v after %s, want ErrUnavailable (NATS unreachable) at once", err, time.Since(start))
	}
	t.Logf("call with NATS down failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if err := b.node.Claim(ctxFor(t, 5*time.Second), "agent-2", 1); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Errorf("claim with NATS down: %v, want ErrUnavailable (the link is refused, the agent retries)", err)
	}
	eventually(t, 2*time.Second, "robot offline on b while NATS is down", func() bool { return !b.node.Online(idOne) })
	nats.Restart()
	took := eventually(t, 10*time.Second, "robot online on b again", func() bool { return b.node.Online(idOne) })
	t.Logf("back %s after NATS returned", took)
	r, _ = b.node.Robot(idOne)
	if _, err := r.Metrics(ctxFor(t, 5*time.Second)); err != nil {
		t.Errorf("call after NATS returned: %v", err)
	}
}

// drivenRobot is a robot whose agent governs its teleoperation (as cloud.RemoteRobot): it
// records what reaches it.
type drivenRobot struct {
	*fleettest.Robot
	mu       sync.Mutex
	heldBy   string
	commands []string
	released int
	current  *fakeControl
	// governed is what its controls' grants say of their thresholds; asked are the teleop
	// settings requests that reached it.
	governed fleet.Governed
	asked    []fleet.TeleopSettingsRequest
}

func (d *drivenRobot) Unwrap() fleet.Robot { return d.Robot }

func (d *drivenRobot) TakeControl(ctx context.Context, key fleetgate.StreamKey, user string) (fleet.RemoteControl, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.heldBy != "" {
		return nil, fleetgate.HeldError(fleetgate.Held{Key: key, Owner: d.heldBy, Since: time.Unix(1700000000, 0)})
	}
	d.heldBy = user
	d.current = &fakeControl{d: d, done: make(chan struct{}), Governed: d.governed}
	return d.current, nil
}

// Send is an upload the robot's agent would check at its door; these tests drive by control.
func (d *drivenRobot) Send(context.Context, fleetgate.StreamKey, string, []byte, string) error {
	return fleetgate.Errorf(fleetgate.EUnavailable, "uploads are not what this robot is for")
}

func (d *drivenRobot) Controls(ctx context.Context) ([]fleetgate.Held, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.heldBy == "" {
		return nil, nil
	}
	return []fleetgate.Held{{Key: driveKey, Owner: d.heldBy, Since: time.Unix(1700000000, 0)}}, nil
}

func (d *drivenRobot) state() (string, []string, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.heldBy, append([]string(nil), d.commands...), d.released
}

type fakeControl struct {
	d    *drivenRobot
	once sync.Once
	done chan struct{}
	err  error
	// delay is the operator's delay handed on with the commands (fleet.DelayCarrier).
	delay time.Duration
	fleet.Governed
}

func (c *fakeControl) SetOperatorDelay(d time.Duration) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.delay = d
}

// Command records the command with the operator's delay it came with ("2@300ms").
func (c *fakeControl) Command(payload []byte) error {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	cmd := string(payload)
	if c.delay > 0 {
		cmd += "@" + c.delay.String()
	}
	c.d.commands = append(c.d.commands, cmd)
	return nil
}

func (c *fakeControl) Release() {
	c.d.mu.Lock()
	c.d.heldBy = ""
	c.d.released++
	c.d.mu.Unlock()
	c.end(nil)
}

func (c *fakeControl) end(err error)         { c.once.Do(func() { c.err = err; close(c.done) }) }
func (c *fakeControl) Done() <-chan struct{} { return c.done }
func (c *fakeControl) Err() error            { <-c.done; return c.err }

// drivenElsewhere starts replicas a and b on a fresh nats-server, a holding a remotely
// driven robot, and returns the server, replica b, the robot and b's way to drive it.
func drivenElsewhere(t *testing.T) (*natstest.Server, *replica, *drivenRobot, fleet.RemoteDriven) {
	t.Helper()
	nats := natstest.Start(t)
	a, b := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b")
	robot := &drivenRobot{Robot: testRobot()}
	a.registry.AddHosted(context.Background(), robot, fleet.Home{FleetID: "fleet-1"})
	eventually(t, 2*time.Second, "robot online on b", func() bool { return b.node.Online(idOne) })
	r, _ := b.node.Robot(idOne)
	rd, ok := fleet.As[fleet.RemoteDriven](r)
	if !ok {
		t.Fatal("a robot held elsewhere is not remotely driven")
	}
	return nats, b, robot, rd
}

// TestTeleoperationThroughAnotherReplica: an operator on replica b drives a robot held by a:
// control is taken at the robot's agent (where lease, rate cap and deadman run), commands
// arrive in order, and every way of letting go reaches the agent: the release, a held stream
// refused, the agent's own end, the operator's replica going silent, and NATS going down.
func TestTeleoperationThroughAnotherReplica(t *testing.T) {
	_, b, robot, rd := drivenElsewhere(t)
	ctx := ctxFor(t, 10*time.Second)

	ctl, err := rd.TakeControl(ctx, driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"1", "2", "3"} {
		if err := ctl.Command([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 2*time.Second, "commands at the agent", func() bool { _, cmds, _ := robot.state(); return len(cmds) == 3 })
	if owner, cmds, _ := robot.state(); owner != "op@example.com" || cmds[0] != "1" || cmds[2] != "3" {
		t.Errorf("at the agent: owner %q, commands %v", owner, cmds)
	}
	if held, err := rd.Controls(ctx); err != nil || len(held) != 1 || held[0].Owner != "op@example.com" {
		t.Errorf("controls through b: %+v, %v", held, err)
	}
	// A second operator is refused with who drives.
	_, err = rd.TakeControl(ctx, driveKey, "other@example.com")
	if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != "op@example.com" {
		t.Errorf("second operator: %v, want HeldError by op@example.com", err)
	}
	ctl.Release()
	eventually(t, 2*time.Second, "release at the agent", func() bool { owner, _, rel := robot.state(); return owner == "" && rel == 1 })

	// The agent ends the control (its link lost): the operator on b learns it, offline.
	ctl, err = rd.TakeControl(ctx, driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}
	robot.mu.Lock()
	current := robot.current
	robot.heldBy = ""
	robot.mu.Unlock()
	current.end(fleetgate.Errorf(fleetgate.EOffline, "the link was lost"))
	select {
	case <-ctl.Done():
		if !fleetgate.Is(ctl.Err(), fleetgate.EOffline) {
			t.Errorf("operator's control ended with %v, want ErrOffline", ctl.Err())
		}
	case <-time.After(2 * time.Second):
		t.Error("the operator's control did not end with the agent's")
	}

	// The operator's replica goes silent while driving: the holder lets go.
	if _, err = rd.TakeControl(ctx, driveKey, "op@example.com"); err != nil {
		t.Fatal(err)
	}
	_, _, before := robot.state()
	b.close()
	took := eventually(t, 2*time.Second, "holder releases the silent replica's control", func() bool { _, _, rel := robot.state(); return rel == before+1 })
	t.Logf("control of a silent replica released %s after it stopped", took)
}

// TestTeleoperationLetsGoWithoutNATS: with NATS down, the operator's commands fail (the
// session ends, zero-on-fault) and the holder releases at the agent by itself.
func TestTeleoperationLetsGoWithoutNATS(t *testing.T) {
	nats, _, robot, rd := drivenElsewhere(t)
	ctl, err := rd.TakeControl(ctxFor(t, 5*time.Second), driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	nats.Stop()
	t.Logf("nats stopped in %s", time.Since(stopped))
	eventually(t, 2*time.Second, "holder releases at the agent", func() bool { _, _, rel := robot.state(); return rel == 1 })
	select {
	case <-ctl.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the operator's control did not end")
	}
	if err := ctl.Command([]byte("go")); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Errorf("command with NATS down: %v, want ErrUnavailable", err)
	}
	t.Logf("let go everywhere %s after NATS stopped", time.Since(stopped).Round(time.Millisecond))
}

// TestSilentBusIsLost: a NATS connection that goes silent without being reset (a partition:
// packets lost, no RST) is seen as lost within seconds, so the replica stops believing in a
// bus it cannot reach; it connects again when the bus answers.
func TestSilentBusIsLost(t *testing.T) {
	nats := natstest.Start(t)
	u, _ := url.Parse(nats.URL())
	freeze := &freezingProxy{target: u.Host}
	addr := freeze.start(t)
	u.Host = addr
	r := startReplica(t, u.String(), "a")
	if !r.node.Connected() {
		t.Fatal("not connected through the proxy")
	}
	freeze.set(true)
	took := eventually(t, 10*time.Second, "the silent bus seen as lost", func() bool { return !r.node.Connected() })
	t.Logf("a silent bus lost after %v", took.Round(time.Millisecond))
	if limit := time.Duration(cluster.MaxPingsOutstanding+4) * cluster.PingInterval; took > limit { // room for a loaded machine
		t.Errorf("lost after %v, want within %v", took, limit)
	}
	freeze.set(false)
	eventually(t, 10*time.Second, "connected again", r.node.Connected)
}

// freezingProxy forwards TCP to target; frozen, it forwards nothing and closes nothing, as a
// partitioned network does, and it refuses new connections (they would not get through).
type freezingProxy struct {
	target string
	frozen atomic.Bool
}

func (p *freezingProxy) set(frozen bool) { p.frozen.Store(frozen) }

func (p *freezingProxy) start(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if err != nil {
				dst.Close()
				return
			}
			for p.frozen.Load() {
				time.Sleep(10 * time.Millisecond) // held, as a lost packet is, until the network heals
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
	}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			if p.frozen.Load() {
				in.Close()
				continue
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			go pipe(out, in)
			go pipe(in, out)
		}
	}()
	return ln.Addr().String()
}

// TestTeleoperationCarriesTheOperatorsDelay: the viewer replica's estimate of its operator's
// delay reaches the agent with the commands, through the holder; the agent's door governs by
// it, and holds a session without one after its first second (docs/reliability.md).
func TestTeleoperationCarriesTheOperatorsDelay(t *testing.T) {
	_, _, robot, rd := drivenElsewhere(t)
	ctl, err := rd.TakeControl(ctxFor(t, 10*time.Second), driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ctl.Command([]byte("1"))
	dc, ok := ctl.(fleet.DelayCarrier)
	if !ok {
		t.Fatal("a control through another replica does not carry the operator's delay")
	}
	dc.SetOperatorDelay(300 * time.Millisecond)
	ctl.Command([]byte("2"))
	eventually(t, 2*time.Second, "commands at the agent", func() bool { _, cmds, _ := robot.state(); return len(cmds) == 2 })
	if _, cmds, _ := robot.state(); !slices.Equal(cmds, []string{"1", "2@300ms"}) {
		t.Errorf("at the agent: %v, want the second command with the operator's 300 ms", cmds)
	}
}
