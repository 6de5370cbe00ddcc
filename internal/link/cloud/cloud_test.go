package cloud_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/proto/linkpb"
	"github.com/fleetgate/fleetgate/server/uplink"
)

// fakeCore stands in for the gateway core: revocations, archived records and event-log
// entries.
type fakeCore struct {
	mu       sync.Mutex
	revoked  map[string]bool             // by agent id
	archived map[string][]archivedRecord // by robot id
	// robotAgent is the agent each robot's record names, by robot id: an agent's entries
	// are stored for its robots only, as the core does.
	robotAgent map[string]string
	events     []fleetgate.Event // stored
	listings   int               // ArchivedResources calls: resource lists the cloud compared
}

type archivedRecord struct {
	fleetgate.Resource
	sha256 string
}

func (c *fakeCore) RevokedAgents(_ context.Context, ids []string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, id := range ids {
		if c.revoked[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

func (c *fakeCore) ArchivedResources(_ context.Context, robotID string) ([]fleetgate.Resource, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listings++
	var out []fleetgate.Resource
	for _, r := range c.archived[robotID] {
		out = append(out, r.Resource)
	}
	return out, nil
}

func (c *fakeCore) SaveArchivedResource(_ context.Context, robotID string, res fleetgate.Resource, sha string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	list := slices.DeleteFunc(c.archived[robotID], func(r archivedRecord) bool { return r.ID == res.ID })
	res.CreatedAt = res.CreatedAt.UTC().Truncate(time.Millisecond) // as the store keeps it
	c.archived[robotID] = append(list, archivedRecord{res, sha})
	return nil
}

func (c *fakeCore) SaveAgentEvents(_ context.Context, agentID string, events []fleetgate.Event) ([]fleetgate.Event, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var refused []fleetgate.Event
	for _, e := range events {
		if c.robotAgent[e.RobotID] != agentID {
			refused = append(refused, e)
			continue
		}
		c.events = append(c.events, e)
	}
	return refused, nil
}

func (c *fakeCore) storedEvents() []fleetgate.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

func (c *fakeCore) AgentSeen(context.Context, string, time.Time) error { return nil }

func (c *fakeCore) MayArchive(_ context.Context, robotID, resourceID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for robot, list := range c.archived {
		for _, r := range list {
			if r.ID == resourceID && robot != robotID {
				return fmt.Errorf("resource %s belongs to another robot", resourceID)
			}
		}
	}
	return nil
}

// records returns what the core holds for robotID.
func (c *fakeCore) records(robotID string) []archivedRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.archived[robotID])
}

func (c *fakeCore) revoke(id string) {
	c.mu.Lock()
	c.revoked[id] = true
	c.mu.Unlock()
}

// world is a cloud acceptor behind a test HTTP server.
type world struct {
	t        *testing.T
	core     *fakeCore
	tracker  *refusingTracker
	registry *fleet.Registry
	acc      *cloud.Acceptor
	srv      *httptest.Server
	dir      *blob.Dir
	root     string
	logs     *logtest.Buffer
	// heartbeat is the cloud's interval in this world: heartbeat unless a test needs a
	// more patient cloud.
	heartbeat time.Duration
	// serveLive, when set, serves the agents' live connections too (link.LivePath); without
	// it the world's agents are as agents of a version without the live view.
	serveLive atomic.Bool
}

const heartbeat = 200 * time.Millisecond

// refusingTracker is the core's presence records: it keeps out the robots a test names.
type refusingTracker struct {
	mu     sync.Mutex
	refuse map[string]error // by robot id
	// hold, when set for a robot id, makes its next RobotOnline say so on entered and wait
	// for the channel to close: a slow store.
	hold    map[string]chan struct{}
	entered chan string
}

func (t *refusingTracker) RobotOnline(_ context.Context, info fleetgate.Info, _ fleet.Home, _ time.Time) error {
	t.mu.Lock()
	gate := t.hold[info.ID]
	delete(t.hold, info.ID)
	err := t.refuse[info.ID]
	t.mu.Unlock()
	if gate != nil {
		t.entered <- info.ID
		<-gate
	}
	return err
}

func (t *refusingTracker) RobotSeen(context.Context, string, time.Time) error { return nil }

// keys are the agents the test's HTTP layer admits, by key.
var keys = map[string]cloud.Agent{
	"fga_alpha": {ID: "agent-alpha", Name: "alpha", FleetID: "fleet-1"},
	"fga_beta":  {ID: "agent-beta", Name: "beta", FleetID: "fleet-1"},
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldBeating(t, heartbeat)
}

// newWorldBeating is newWorld with a cloud that beats every interval (its silence and write
// limits are MissedHeartbeats of them).
func newWorldBeating(t *testing.T, interval time.Duration) *world {
	t.Helper()
	root := t.TempDir()
	dir, err := blob.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{
		t:    t,
		core: &fakeCore{revoked: map[string]bool{}, archived: map[string][]archivedRecord{}, robotAgent: map[string]string{}},
		dir:  dir, root: root, logs: &logtest.Buffer{}, heartbeat: interval,
	}
	log := slog.New(slog.NewTextHandler(w.logs, nil))
	w.tracker = &refusingTracker{refuse: map[string]error{}, hold: map[string]chan struct{}{}, entered: make(chan string, 1)}
	w.registry = fleet.NewRegistry(w.tracker, log, nil)
	w.acc = cloud.New(cloud.Config{
		Core: w.core, Registry: w.registry, Archive: cloud.NewArchive(dir), Logger: log,
		Heartbeat: interval, RecheckEvery: 50 * time.Millisecond, PruneEvery: 50 * time.Millisecond,
		ResyncEvery: resyncEvery,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.acc.Run(ctx); close(done) }()
	// The server's HTTP layer authenticates agents (its tests cover the refusals); this one
	// admits the keys above.
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		a, ok := keys[r.Header.Get(link.KeyHeader)]
		w.core.mu.Lock()
		revoked := w.core.revoked[a.ID]
		w.core.mu.Unlock()
		if !ok || revoked {
			http.Error(rw, "invalid agent key", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == link.LivePath {
			if !w.serveLive.Load() {
				http.NotFound(rw, r)
				return
			}
			w.acc.ServeLive(rw, r, a)
			return
		}
		w.acc.Serve(rw, r, a)
	}))
	t.Cleanup(func() {
		cancel()
		<-done
		w.srv.Close()
	})
	return w
}

// startAgent runs an agent with key hosting robots until the test ends (or stop is called).
func (w *world) startAgent(key string, robots ...fleet.Robot) (stop func()) {
	w.t.Helper()
	stop, _ = w.startAgentWith(key, robots...)
	return stop
}

// startAgentWith is startAgent that also returns the agent's registry of local robots.
func (w *world) startAgentWith(key string, robots ...fleet.Robot) (stop func(), local *fleet.Registry) {
	w.t.Helper()
	return w.startAgentAt(w.srv.URL, key, nil, robots...)
}

// startAgentAt is startAgentWith dialling cloudURL (a proxy of the test's), with teleop (nil:
// none) serving the cloud's operators.
func (w *world) startAgentAt(cloudURL, key string, teleop teleop, robots ...fleet.Robot) (stop func(), local *fleet.Registry) {
	w.t.Helper()
	reg := fleet.NewRegistry(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	for _, r := range robots {
		reg.Add(context.Background(), r, "local-fleet")
	}
	a, err := uplink.New(uplink.Config{
		CloudURL: cloudURL, Key: key, Version: "test", Core: agentSide{robots: reg, door: door.New(door.Config{}), teleop: teleop},
		Logger:   slog.New(slog.NewTextHandler(w.logs, nil)).With("side", "agent"),
		KPIEvery: 50 * time.Millisecond, ResourceScanEvery: 100 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
	})
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	w.t.Cleanup(stop)
	return stop, reg
}

// teleop is the cloud operators' control an agent's core grants (uplink.Controls).
type teleop interface {
	OpenControlForCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, user string) (live.Input, error)
	HeldControls(robotID string) []fleetgate.Held
}

// agentSide is the core of the tests' agents (uplink.Core): robots in a registry, their door,
// teleop (nil: refused) and no event log.
type agentSide struct {
	robots *fleet.Registry
	door   *door.Door
	teleop teleop
}

func (a agentSide) HostedRobots() []fleet.Robot                               { return a.robots.Robots() }
func (a agentSide) HostedRobotsChanged() <-chan struct{}                      { return a.robots.Changed() }
func (a agentSide) HostedRobot(id string) (fleet.Robot, bool)                 { return a.robots.Robot(id) }
func (agentSide) Unforwarded(context.Context, int) ([]fleetgate.Event, error) { return nil, nil }
func (agentSide) Forwarded(context.Context, []int64) error                    { return nil }
func (agentSide) Posted() <-chan struct{}                                     { return nil }

func (a agentSide) OpenControlForCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, user string) (live.Input, error) {
	if a.teleop == nil {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "this agent serves no teleoperation through the cloud")
	}
	return a.teleop.OpenControlForCloud(ctx, robotID, key, user)
}

func (a agentSide) HeldControls(robotID string) []fleetgate.Held {
	if a.teleop == nil {
		return nil
	}
	return a.teleop.HeldControls(robotID)
}

func (a agentSide) UploadFromCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	robot, ok := a.robots.Robot(robotID)
	if !ok {
		return fleetgate.Errorf(fleetgate.EOffline, "robot %s is not connected to this agent", robotID)
	}
	return a.door.Send(ctx, robot, key, typ, payload, door.Who{User: user, Path: door.PathLink})
}

// waitOnline waits until robot id's presence is want, and returns how long that took.
func (w *world) waitOnline(id string, want bool, within time.Duration) time.Duration {
	w.t.Helper()
	start := time.Now()
	for !time.Now().After(start.Add(within)) {
		if w.registry.Online(id) == want {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.t.Fatalf("robot %s online=%v not reached within %s\nlogs:\n%s", id, want, within, w.logs.String())
	return 0
}

// wantPresence checks which of robots one, two and three are online.
func (w *world) wantPresence(one, two, three bool) {
	w.t.Helper()
	got, want := [3]bool{w.registry.Online(idOne), w.registry.Online(idTwo), w.registry.Online(idThree)}, [3]bool{one, two, three}
	if got != want {
		w.t.Errorf("online (one, two, three): %v, want %v", got, want)
	}
}

func (w *world) remote(id string) fleet.Robot {
	w.t.Helper()
	r, ok := w.registry.Robot(id)
	if !ok {
		w.t.Fatalf("robot %s is not registered", id)
	}
	return r
}

// rawAgent dials the link by hand, to play a misbehaving agent. It sends nothing after its
// hello: the cloud drops it after MissedHeartbeats intervals unless the test calls beat.
func (w *world) rawAgent(key string, hello *linkpb.Hello) (*websocket.Conn, *linkpb.Welcome) {
	w.t.Helper()
	conn, err := w.dialRaw(key, hello, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	f, err := link.ReadFrame(conn)
	if err != nil {
		w.t.Fatal(err)
	}
	return conn, f.GetWelcome()
}

// dialRaw dials the link (with client, when not nil) and sends hello; it does not wait for
// the answer.
func (w *world) dialRaw(key string, hello *linkpb.Hello, client *http.Client) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, w.srv.URL+link.Path, &websocket.DialOptions{HTTPHeader: http.Header{link.KeyHeader: {key}}, HTTPClient: client})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(link.MaxFrame)
	w.t.Cleanup(func() { conn.CloseNow() })
	if err := link.WriteFrame(conn, &linkpb.Frame{Body: &linkpb.Frame_Hello{Hello: hello}}, time.Second); err != nil {
		return nil, err
	}
	return conn, nil
}

// beat keeps a raw agent heard, sending heartbeats until its link ends: for tests that take
// longer than the cloud's patience with a silent agent on a loaded machine.
func (w *world) beat(conn *websocket.Conn) {
	go func() {
		for {
			if link.WriteFrame(conn, &linkpb.Frame{Body: &linkpb.Frame_Heartbeat{Heartbeat: &linkpb.Heartbeat{}}}, time.Second) != nil {
				return
			}
			time.Sleep(w.heartbeat / 2)
		}
	}()
}

const (
	idOne   = "11111111-1111-4111-8111-111111111111"
	idTwo   = "22222222-2222-4222-8222-222222222222"
	idThree = "33333333-3333-4333-8333-333333333333"
)

var (
	poseKey  = fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}
	driveKey = fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
)

const twist = "Platform.Messages.geometry_msgs.Twist"

func scriptedRobot(id, name string) *fleettest.Robot {
	r := &fleettest.Robot{
		ID: id, Name: name,
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped", Direction: fleetgate.Output, Source: fleetgate.SourceComponent, DisplayName: "Pose"},
			{Component: "base", Name: "cmd_vel", Type: twist, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
		MetricList: []fleetgate.Metric{
			{Type: fleetgate.MetricType(1), Value: fleetgate.Usage{Used: 1, Limit: 4}},
			{Type: fleetgate.MetricType(100), Name: "battery", Value: 87.5},
		},
		KPIList: []fleetgate.KPI{{Name: "activity", DataType: "Platform.Messages.std_msgs.String", Payload: []byte("\n\x06moving"), Time: time.Unix(1700000000, 0).UTC()}},
	}
	r.Emit(poseKey, r.StreamList[0].Type, []byte("pose-bytes"))
	return r
}

// TestRemoteRobotAnswersAsTheRobot: every call on the cloud side reaches the robot behind the
// agent and comes back unchanged, errors keeping their kind.
func TestRemoteRobotAnswersAsTheRobot(t *testing.T) {
	w := newWorld(t)
	bot := scriptedRobot(idOne, "one")
	w.startAgent("fga_alpha", bot)
	w.waitOnline(idOne, true, 5*time.Second)
	r := w.remote(idOne).(*cloud.RemoteRobot)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	if got := r.Info(); got != bot.Info() {
		t.Errorf("Info %+v, want %+v", got, bot.Info())
	}
	streams, err := r.Streams(ctx)
	if err != nil || !reflect.DeepEqual(streams, bot.StreamList) {
		t.Errorf("Streams = %+v, %v; want %+v", streams, err, bot.StreamList)
	}
	sample, err := r.Read(ctx, poseKey)
	if err != nil || string(sample.Payload) != "pose-bytes" || sample.Type != bot.StreamList[0].Type || sample.Seq != 1 {
		t.Errorf("Read = %+v, %v", sample, err)
	}
	if _, err := r.Read(ctx, fleetgate.StreamKey{Component: "no", Name: "such", Source: 1}); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("Read of a missing stream: %v, want ErrNotFound", err)
	}
	// An upload goes through the agent's door: held to the stream's limit (1 m/s).
	if err := r.Send(ctx, driveKey, twist, fleettest.TwistPayload(5, 0.25), "op@example.com"); err != nil {
		t.Errorf("Send: %v", err)
	}
	if got := bot.Published(); len(got) != 1 || !bytes.Equal(got[0].Payload, fleettest.TwistPayload(1, 0.25)) || got[0].Key != driveKey {
		t.Errorf("robot received %+v", got)
	}
	if err := r.Send(ctx, driveKey, "Platform.Messages.std_msgs.String", nil, "op@example.com"); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Errorf("Send of the wrong type: %v, want ErrInvalid", err)
	}
	types, err := r.Metrics(ctx)
	if err != nil || !reflect.DeepEqual(types, []fleetgate.MetricType{1, 100}) {
		t.Errorf("Metrics = %v, %v", types, err)
	}
	m, err := r.Metric(ctx, 100, "battery")
	if err != nil || m.Value != 87.5 {
		t.Errorf("Metric = %+v, %v", m, err)
	}
	kpis, err := r.KPIs(ctx)
	if err != nil || !reflect.DeepEqual(kpis, bot.KPIList) {
		t.Errorf("KPIs = %+v, %v; want %+v", kpis, err, bot.KPIList)
	}
	// This test's agent opens no live connection (as an agent of an older version): a live
	// stream is unavailable, said within the caller's deadline.
	subCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := r.Subscribe(subCtx, poseKey, fleetgate.SubscribeOptions{}); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Errorf("Subscribe without the agent's live connection: %v, want ErrUnavailable", err)
	}
}

// TestSlowRobotAnswersWithinTheDeadline: the caller's deadline holds whatever the robot does,
// and the error says the robot did not answer (the agent's or the cloud's timer, whichever
// fires first).
func TestSlowRobotAnswersWithinTheDeadline(t *testing.T) {
	w := newWorld(t)
	bot := scriptedRobot(idOne, "one")
	w.startAgent("fga_alpha", bot)
	w.waitOnline(idOne, true, 5*time.Second)
	bot.Lock()
	bot.Delay = 10 * time.Second
	bot.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := w.remote(idOne).Read(ctx, poseKey)
	took := time.Since(start)
	if !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), `robot "one" did not answer`) {
		t.Errorf("slow read: %v, want ErrUnavailable saying the robot did not answer", err)
	}
	if took > time.Second {
		t.Errorf("slow read took %s with a 300ms deadline", took)
	}
}

// TestOtherProtocolVersionIsRefused: an agent of another protocol version gets a refusal
// saying so and close code 4004, not a crash or a misread.
func TestOtherProtocolVersionIsRefused(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, w.srv.URL+link.Path, &websocket.DialOptions{HTTPHeader: http.Header{link.KeyHeader: {"fga_alpha"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	link.WriteFrame(conn, &linkpb.Frame{Body: &linkpb.Frame_Hello{Hello: &linkpb.Hello{ProtocolVersion: 99,
		Robots: []*linkpb.RobotInfo{{Id: idOne, Name: "one"}}}}}, time.Second)
	f, err := link.ReadFrame(conn)
	if err != nil || !strings.Contains(f.GetRefusal().GetReason(), "protocol 99") {
		t.Fatalf("answer to version 99: %v, %v; want a refusal naming it", f, err)
	}
	if _, err := link.ReadFrame(conn); websocket.CloseStatus(err) != link.CloseVersion {
		t.Errorf("close: %v, want %d", err, link.CloseVersion)
	}
	if w.registry.Online(idOne) {
		t.Error("a refused agent's robot came online")
	}
}

// TestNewerLinkOfAnAgentWins: a second link with the same key takes over; the older one is
// told why and closed, and the robots stay online through the new link.
func TestNewerLinkOfAnAgentWins(t *testing.T) {
	w := newWorld(t)
	old, welcome := w.rawAgent("fga_alpha", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idOne, Name: "one"}}})
	w.beat(old)
	if welcome.GetAgentId() != "agent-alpha" || welcome.GetFleetId() != "fleet-1" || welcome.GetHeartbeatIntervalMs() != uint32(heartbeat.Milliseconds()) {
		t.Errorf("welcome %+v", welcome)
	}
	w.waitOnline(idOne, true, time.Second)
	first := w.remote(idOne)
	w.startAgent("fga_alpha", scriptedRobot(idOne, "one"))
	f, err := link.ReadFrame(old)
	for err == nil && f.GetRefusal() == nil {
		f, err = link.ReadFrame(old) // heartbeats before the refusal
	}
	if err != nil || f.GetRefusal().GetReason() != "replaced by a newer connection of this agent" {
		t.Fatalf("old link got %v, %v; want the replacement refusal", f, err)
	}
	if _, err := link.ReadFrame(old); websocket.CloseStatus(err) != link.CloseReplaced {
		t.Errorf("old link closed with %v, want %d", err, link.CloseReplaced)
	}
	deadline := time.Now().Add(2 * time.Second)
	for r, ok := w.registry.Robot(idOne); (!ok || r == first) && time.Now().Before(deadline); r, ok = w.registry.Robot(idOne) {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s, err := w.remote(idOne).Read(ctx, poseKey); err != nil || string(s.Payload) != "pose-bytes" {
		t.Errorf("read through the new link: %v, %v", s, err)
	}
}

// TestRequestWaitsForTheWelcome: the robots are registered just before the welcome goes
// out, so a caller can reach one in between; its request must follow the welcome on the wire,
// since an agent takes any other first frame as a broken cloud.
func TestRequestWaitsForTheWelcome(t *testing.T) {
	for i := range 30 {
		w := newWorld(t)
		asked := make(chan error, 1)
		go func() {
			for {
				changed := w.registry.Changed()
				if w.registry.Online(idOne) {
					break
				}
				<-changed
			}
			r, _ := w.registry.Robot(idOne)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := r.Read(ctx, poseKey)
			asked <- err
		}()
		conn, welcome := w.rawAgent("fga_alpha", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idOne, Name: "one"}}})
		if welcome == nil {
			t.Fatalf("round %d: the first frame after hello is not the welcome", i)
		}
		f, err := link.ReadFrame(conn)
		for err == nil && f.GetRequest() == nil {
			f, err = link.ReadFrame(conn) // heartbeats
		}
		if err != nil || f.GetRequest().GetRobotId() != idOne {
			t.Fatalf("round %d: after the welcome: %v, %v; want the read request", i, f, err)
		}
		conn.CloseNow()
		if err := <-asked; !fleetgate.Is(err, fleetgate.EOffline) {
			t.Fatalf("round %d: the read ended with %v; want offline once the agent went", i, err)
		}
	}
}

// TestReplacedLinkNeverOverwritesTheNewer: a link still recording its robot (a slow store)
// when a newer link of its agent takes over must not put its robot back over the newer
// link's, nor take the robot offline as it ends.
func TestReplacedLinkNeverOverwritesTheNewer(t *testing.T) {
	w := newWorld(t)
	gate := make(chan struct{})
	w.tracker.hold[idOne] = gate
	hello := &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idOne, Name: "one"}}}
	older, err := w.dialRaw("fga_alpha", hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-w.tracker.entered // the older link is recording its robot, and waits on the store
	newer, _ := w.rawAgent("fga_alpha", hello)
	w.beat(newer)
	w.waitOnline(idOne, true, time.Second)
	current, _ := w.registry.Robot(idOne)
	close(gate)
	// The older link learns it was replaced, and answers the close.
	var refusal string
	for err == nil {
		var f *linkpb.Frame
		if f, err = link.ReadFrame(older); f.GetRefusal() != nil {
			refusal = f.GetRefusal().GetReason()
		}
	}
	if refusal == "" || websocket.CloseStatus(err) != link.CloseReplaced {
		t.Errorf("the older link ended with %v after refusal %q; want the replacement", err, refusal)
	}
	deadline := time.Now().Add(2 * time.Second)
	for strings.Count(w.logs.String(), "agent disconnected") < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(w.logs.String(), "agent disconnected"); n != 1 {
		t.Fatalf("%d sessions ended, want the older one\nlogs:\n%s", n, w.logs.String())
	}
	if r, ok := w.registry.Robot(idOne); !ok || r != current {
		t.Fatalf("after the older link ended: robot registered %v, the newer link's %v\nlogs:\n%s", ok, r == current, w.logs.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	go func() { // answer the read on the newer link
		for {
			f, err := link.ReadFrame(newer)
			if err != nil {
				return
			}
			if req := f.GetRequest(); req != nil {
				link.WriteFrame(newer, &linkpb.Frame{Body: &linkpb.Frame_Response{Response: &linkpb.Response{Id: req.GetId(),
					Result: &linkpb.Response_MetricTypes{MetricTypes: &linkpb.MetricTypes{Types: []int32{1}}}}}}, time.Second)
			}
		}
	}()
	if types, err := current.Metrics(ctx); err != nil || len(types) != 1 {
		t.Errorf("a call through the newer link: %v, %v", types, err)
	}
}

// TestImpatientCallerLeavesTheLinkUp: a caller whose deadline ends while its large request
// is still being written gets its 503 at the deadline, and the link, with every robot of the
// agent, stays up (a write cut off by its context would close the socket).
func TestImpatientCallerLeavesTheLinkUp(t *testing.T) {
	// A patient cloud: the fake agent takes the 4 MiB frame through a 4 KiB buffer, which
	// under the race detector on a loaded machine outlasts the 600 ms a 200 ms heartbeat
	// allows one write, and that limit is not what this test is about.
	w := newWorldBeating(t, 2*time.Second)
	dialer := &net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := w.dialRaw("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idTwo, Name: "two"}}},
		&http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := link.ReadFrame(conn); err != nil || f.GetWelcome() == nil {
		t.Fatalf("answer to hello: %v, %v", f, err)
	}
	w.beat(conn)
	w.waitOnline(idTwo, true, time.Second)
	r := w.remote(idTwo).(*cloud.RemoteRobot)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	// 4 MiB: far more than the agent's 4 KiB receive buffer lets through while it is not
	// reading, so the write is still going at the deadline.
	err = r.Send(ctx, driveKey, twist, make([]byte, 4<<20), "op@example.com")
	if !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("publish past its deadline: %v, want ErrUnavailable", err)
	}
	time.Sleep(100 * time.Millisecond)
	go func() { // the agent reads again, and answers what asks for an answer
		for {
			f, err := link.ReadFrame(conn)
			if err != nil {
				return
			}
			if req := f.GetRequest(); req != nil && req.GetMetricTypes() != nil {
				link.WriteFrame(conn, &linkpb.Frame{Body: &linkpb.Frame_Response{Response: &linkpb.Response{Id: req.GetId(),
					Result: &linkpb.Response_MetricTypes{MetricTypes: &linkpb.MetricTypes{Types: []int32{1}}}}}}, time.Second)
			}
		}
	}()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	if types, err := r.Metrics(ctx2); err != nil || len(types) != 1 {
		t.Errorf("a call after the impatient one: %v, %v; want the link still up\nlogs:\n%s", types, err, w.logs.String())
	}
	if !w.registry.Online(idTwo) {
		t.Error("the agent's robot went offline")
	}
}

// TestRevokedAgentIsClosedAtOnce: revoking a connected agent's key closes its link within
// the re-check period and takes its robots offline; the other agent is untouched.
func TestRevokedAgentIsClosedAtOnce(t *testing.T) {
	w := newWorld(t)
	w.startAgent("fga_alpha", scriptedRobot(idOne, "one"))
	w.startAgent("fga_beta", scriptedRobot(idTwo, "two"))
	w.waitOnline(idOne, true, 5*time.Second)
	w.waitOnline(idTwo, true, 5*time.Second)
	w.core.revoke("agent-alpha")
	took := w.waitOnline(idOne, false, time.Second)
	t.Logf("revoked agent offline after %s", took)
	if !w.registry.Online(idTwo) {
		t.Error("the other agent's robot went offline")
	}
	if !strings.Contains(w.logs.String(), "agent key revoked") {
		t.Error("the revocation is not logged")
	}
}

// TestGarbageFrameEndsOnlyThatLink: a frame that is no link frame closes that link (1002),
// logs it and takes its robots offline; another agent goes on.
func TestGarbageFrameEndsOnlyThatLink(t *testing.T) {
	w := newWorld(t)
	w.startAgent("fga_alpha", scriptedRobot(idOne, "one"))
	w.waitOnline(idOne, true, 5*time.Second)
	bad, _ := w.rawAgent("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idTwo, Name: "two"}}})
	w.beat(bad)
	w.waitOnline(idTwo, true, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := bad.Write(ctx, websocket.MessageBinary, []byte{0xff, 0xff, 0xff, 0x01}); err != nil {
		t.Fatal(err)
	}
	w.waitOnline(idTwo, false, 2*time.Second)
	var err error
	for err == nil {
		_, err = link.ReadFrame(bad)
	}
	if websocket.CloseStatus(err) != websocket.StatusProtocolError {
		t.Errorf("bad link closed with %v, want 1002", err)
	}
	if !strings.Contains(w.logs.String(), "malformed frame") {
		t.Error("the malformed frame is not logged")
	}
	if _, err := w.remote(idOne).Read(ctx, poseKey); err != nil {
		t.Errorf("the healthy agent's robot: %v", err)
	}
}

// TestAgentThatStopsReading: requests to an agent that reads nothing end at their deadline,
// saying so, while another agent's robots answer at once.
func TestAgentThatStopsReading(t *testing.T) {
	w := newWorld(t)
	w.startAgent("fga_alpha", scriptedRobot(idOne, "one"))
	w.waitOnline(idOne, true, 5*time.Second)
	conn, _ := w.rawAgent("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idTwo, Name: "two"}}})
	w.beat(conn) // it is heard, it just never reads
	w.waitOnline(idTwo, true, time.Second)
	stuck := w.remote(idTwo)

	var wg sync.WaitGroup
	var stuckErr error
	var stuckTook time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, stuckErr = stuck.Read(ctx, poseKey)
		stuckTook = time.Since(start)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := w.remote(idOne).Read(ctx, poseKey); err != nil {
		t.Errorf("healthy robot: %v", err)
	}
	// The stuck agent's read holds its caller for 500 ms; the healthy one must not wait on it
	// (the bound leaves room for a loaded machine under -race).
	if took := time.Since(start); took > 400*time.Millisecond {
		t.Errorf("healthy robot took %s beside a stuck agent", took)
	}
	wg.Wait()
	if !fleetgate.Is(stuckErr, fleetgate.EUnavailable) || stuckTook > time.Second {
		t.Errorf("stuck agent: %v after %s, want ErrUnavailable within its deadline", stuckErr, stuckTook)
	}
}

// TestSilentAgentGoesOffline: an agent that sends nothing at all (a silent drop) is taken
// offline after MissedHeartbeats intervals, and its robots' calls fail fast after that.
func TestSilentAgentGoesOffline(t *testing.T) {
	w := newWorld(t)
	w.rawAgent("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idTwo, Name: "two"}}})
	w.waitOnline(idTwo, true, time.Second)
	start := time.Now()
	w.waitOnline(idTwo, false, 3*time.Second)
	took := time.Since(start)
	limit := time.Duration(link.MissedHeartbeats) * heartbeat
	// About 3 heartbeats (600 ms), checked every 10 ms; the upper bound (1 s) leaves room for
	// a loaded machine and is far below the 5 s a close handshake with a silent peer takes.
	if took > limit+2*heartbeat || took < limit-2*heartbeat {
		t.Errorf("silent agent offline after %s, want about %s", took, limit)
	}
	t.Logf("silent agent offline after %s (%d heartbeats of %s)", took, link.MissedHeartbeats, heartbeat)
}

// TestResourcesAreCopiedWholeAndServedOffline: the agent's files reach the archive whole and
// verified, are listed only then, and stay readable after the robot goes offline.
func TestResourcesAreCopiedWholeAndServedOffline(t *testing.T) {
	w := newWorld(t)
	bot := scriptedRobot(idOne, "one")
	big := bytes.Repeat([]byte("0123456789abcdef"), 50_000) // 800 000 bytes: four chunks
	files := map[string][]byte{
		"aaaaaaaa-0000-4000-8000-000000000001": []byte("a small log\n"),
		"aaaaaaaa-0000-4000-8000-000000000002": big,
	}
	bot.Files = files
	at := time.Unix(1700000000, 123456789)
	for id, data := range files {
		bot.FileInfo = append(bot.FileInfo, fleetgate.Resource{ID: id, Name: id[len(id)-1:] + ".bin", MIMEType: "application/octet-stream", FileType: "log", Size: int64(len(data)), CreatedAt: at})
	}
	stop := w.startAgent("fga_alpha", bot)
	w.waitOnline(idOne, true, 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for {
		list, _ := w.remote(idOne).Resources(context.Background())
		if len(list) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("resources listed: %+v\nlogs:\n%s", list, w.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	w.waitOnline(idOne, false, 2*time.Second)
	for _, rec := range w.core.records(idOne) {
		f, err := w.dir.Open(rec.ID)
		if err != nil {
			t.Fatalf("archived %s: %v", rec.ID, err)
		}
		got, _ := io.ReadAll(f)
		f.Close()
		sum := sha256.Sum256(files[rec.ID])
		if !bytes.Equal(got, files[rec.ID]) || rec.sha256 != hex.EncodeToString(sum[:]) || rec.Size != int64(len(got)) {
			t.Errorf("archived %s: %d bytes, sha %s; want the robot's %d bytes", rec.ID, len(got), rec.sha256, len(files[rec.ID]))
		}
	}
}

// TestAnotherRobotsResourceIDIsNotArchived: a robot announcing a resource id that the
// archive holds for another robot does not get it uploaded over that robot's copy.
func TestAnotherRobotsResourceIDIsNotArchived(t *testing.T) {
	w := newWorld(t)
	const id = "aaaaaaaa-0000-4000-8000-00000000000a"
	at := time.Unix(1700000000, 0)
	one := scriptedRobot(idOne, "one")
	one.Files = map[string][]byte{id: []byte("the real recording")}
	one.FileInfo = []fleetgate.Resource{{ID: id, Name: "real.bag", Size: 18, CreatedAt: at}}
	w.startAgent("fga_alpha", one)
	deadline := time.Now().Add(5 * time.Second)
	for len(w.core.records(idOne)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("robot one's file not archived\nlogs:\n%s", w.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	two := scriptedRobot(idTwo, "two")
	two.Files = map[string][]byte{id: []byte("a forgery, of another size")}
	two.FileInfo = []fleetgate.Resource{{ID: id, Name: "real.bag", Size: 26, CreatedAt: at.Add(time.Hour)}}
	w.startAgent("fga_beta", two)
	for !strings.Contains(w.logs.String(), "belongs to another robot") {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatalf("robot two's upload was not refused\nlogs:\n%s", w.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	f, err := w.dir.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != "the real recording" || len(w.core.records(idTwo)) != 0 {
		t.Errorf("archived %q, robot two's records %d; want robot one's file and none for two", got, len(w.core.records(idTwo)))
	}
}

// slowFile is a resource whose reads take time, so that an upload can be cut in the middle.
type slowRobot struct {
	*fleettest.Robot
	data []byte
	res  fleetgate.Resource
	read func(n int) // called after each read with the bytes read so far
}

type slowReader struct {
	*bytes.Reader
	total int
	after func(int)
}

func (r *slowReader) Read(p []byte) (int, error) {
	time.Sleep(2 * time.Millisecond)
	n, err := r.Reader.Read(p[:min(len(p), 64<<10)])
	r.total += n
	r.after(r.total)
	return n, err
}

func (r *slowReader) Close() error { return nil }

func (r *slowRobot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	return []fleetgate.Resource{r.res}, nil
}

func (r *slowRobot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	return &slowReader{Reader: bytes.NewReader(r.data), after: r.read}, r.res, nil
}

// TestUploadResumesAfterADrop: a link that drops in the middle of an upload leaves a partial
// file; the next link carries on from it, and the copy is whole and verified.
func TestUploadResumesAfterADrop(t *testing.T) {
	w := newWorld(t)
	data := bytes.Repeat([]byte("resumable upload "), 200_000) // 3.4 MB
	res := fleetgate.Resource{ID: "bbbbbbbb-0000-4000-8000-000000000001", Name: "run.bag", FileType: "rosbag", Size: int64(len(data)), CreatedAt: time.Unix(1700000000, 0)}
	cut := make(chan struct{})
	var once sync.Once
	first := &slowRobot{Robot: scriptedRobot(idOne, "one"), data: data, res: res, read: func(n int) {
		if n > len(data)/2 {
			once.Do(func() { close(cut) })
		}
	}}
	stop := w.startAgent("fga_alpha", first)
	select {
	case <-cut:
	case <-time.After(10 * time.Second):
		t.Fatalf("the upload never got half way\nlogs:\n%s", w.logs.String())
	}
	stop()
	w.waitOnline(idOne, false, 2*time.Second)
	if w.dir.Has(res.ID) {
		t.Fatal("a partial upload is visible")
	}
	partial, err := os.Stat(filepath.Join(w.root, ".partial"))
	if err != nil || !partial.IsDir() {
		t.Fatalf("no partial upload kept: %v", err)
	}

	second := &slowRobot{Robot: scriptedRobot(idOne, "one"), data: data, res: res, read: func(int) {}}
	w.startAgent("fga_alpha", second)
	deadline := time.Now().Add(20 * time.Second)
	for !w.dir.Has(res.ID) {
		if time.Now().After(deadline) {
			t.Fatalf("the upload did not finish\nlogs:\n%s", w.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	f, _ := w.dir.Open(res.ID)
	got, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(got, data) {
		t.Errorf("resumed copy has %d bytes, want the %d of the file", len(got), len(data))
	}
	if !strings.Contains(w.logs.String(), "resuming resource upload") {
		t.Errorf("the second upload started over instead of resuming\nlogs:\n%s", w.logs.String())
	}
}

// TestAbandonedUploadsAreRemoved: an upload no agent has resumed for KeepPartial (7 days)
// is removed by the acceptor; a younger one waits for its agent.
func TestAbandonedUploadsAreRemoved(t *testing.T) {
	w := newWorld(t)
	const abandoned, waiting = "0a0a0a0a-1111-4111-8111-111111111111", "0b0b0b0b-1111-4111-8111-111111111111"
	for _, id := range []string{abandoned, waiting} {
		u, err := w.dir.StartUpload(id, "v1")
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Write(0, []byte("the first chunk")); err != nil {
			t.Fatal(err)
		}
		u.Close()
	}
	partial := filepath.Join(w.root, ".partial")
	old := time.Now().Add(-8 * 24 * time.Hour)
	for _, name := range []string{abandoned, abandoned + ".version"} {
		if err := os.Chtimes(filepath.Join(partial, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		// The file goes before the line that says so is logged: wait for both.
		if _, err := os.Stat(filepath.Join(partial, abandoned)); errors.Is(err, os.ErrNotExist) &&
			strings.Contains(w.logs.String(), "removed abandoned uploads") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the abandoned upload is still there, or its removal not logged, after 2 s\nlogs:\n%s", w.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(partial, waiting)); err != nil {
		t.Errorf("the recent upload: %v, want it kept", err)
	}
}

// TestAnnouncedRobotsAreChecked: robots with bad ids or names are refused with a reason in
// the welcome, the others registered.
func TestAnnouncedRobotsAreChecked(t *testing.T) {
	w := newWorld(t)
	_, welcome := w.rawAgent("fga_alpha", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{
		{Id: idOne, Name: "one"},
		{Id: "not-a-uuid", Name: "bad"},
		{Id: idTwo, Name: ""},
		{Id: idOne, Name: "again"},
		{Id: idThree, Name: strings.Repeat("x", 300)},
	}})
	var reasons []string
	for _, r := range welcome.GetRefused() {
		reasons = append(reasons, r.GetId()+": "+r.GetReason())
	}
	want := []string{
		"not-a-uuid: robot id is not a UUID",
		idTwo + ": robot name is empty",
		idOne + ": robot announced twice",
		idThree + ": a robot field is longer than 256 bytes",
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("refused %q\nwant %q", reasons, want)
	}
	w.wantPresence(true, false, false)
}

// TestCoreRefusalsReachTheAgent: a robot the core keeps out on purpose is refused with the
// core's words; one it fails to record is refused without them (they may name internals).
func TestCoreRefusalsReachTheAgent(t *testing.T) {
	w := newWorld(t)
	w.tracker.refuse[idTwo] = fleetgate.Errorf(fleetgate.EConflict, "robot %s belongs to another organization", idTwo)
	w.tracker.refuse[idThree] = errors.New("database is locked")
	_, welcome := w.rawAgent("fga_alpha", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{
		{Id: idOne, Name: "one"}, {Id: idTwo, Name: "two"}, {Id: idThree, Name: "three"},
	}})
	reasons := map[string]string{}
	for _, r := range welcome.GetRefused() {
		reasons[r.GetId()] = r.GetReason()
	}
	want := map[string]string{
		idTwo:   "robot " + idTwo + " belongs to another organization",
		idThree: "the cloud could not register it",
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("refused %q\nwant %q", reasons, want)
	}
	w.wantPresence(true, false, false)
}

// TestRobotJoiningDuringTheHandshakeIsAnnounced: a robot that comes online on the agent
// between its hello and the cloud's welcome reaches the cloud once the link is up.
func TestRobotJoiningDuringTheHandshakeIsAnnounced(t *testing.T) {
	w := newWorld(t)
	gate := make(chan struct{})
	w.tracker.hold[idOne] = gate // the cloud records robot one slowly: the welcome waits
	_, local := w.startAgentWith("fga_alpha", scriptedRobot(idOne, "one"))
	<-w.tracker.entered
	if err := local.Add(context.Background(), scriptedRobot(idThree, "three"), "local-fleet"); err != nil {
		t.Fatal(err)
	}
	close(gate)
	w.waitOnline(idOne, true, 3*time.Second)
	w.waitOnline(idThree, true, 3*time.Second)
}

// TestRobotsJoiningAndLeavingAnAgent: robots that come and go on the agent come and go on
// the cloud while the link stays up.
func TestRobotsJoiningAndLeavingAnAgent(t *testing.T) {
	w := newWorld(t)
	one := scriptedRobot(idOne, "one")
	_, local := w.startAgentWith("fga_alpha", one)
	w.waitOnline(idOne, true, 5*time.Second)
	two := scriptedRobot(idTwo, "two")
	local.Add(context.Background(), two, "local-fleet")
	w.waitOnline(idTwo, true, 2*time.Second)
	local.Remove(one)
	w.waitOnline(idOne, false, 2*time.Second)
	if !w.registry.Online(idTwo) {
		t.Error("robot two went offline with robot one")
	}
}
