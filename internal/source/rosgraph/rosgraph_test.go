package rosgraph

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// fakeGraph is a Transport over a topic list the test sets: it counts the readers it made and
// closed, lets the test deliver messages to the live ones, and records what writers wrote.
// Its serialisation is ROS 1's (rosmsg.CodecFor), for either form of type name.
type fakeGraph struct {
	mu       sync.Mutex
	topics   map[string]Topic
	readers  map[string]*fakeReader // the live reader of each topic
	opened   int
	closed   int
	refusal  error
	writers  []*fakeWriter
	nodes    []string // nil: not a NodeLister (see nodeGraph)
	writeErr error
}

type fakeReader struct {
	g       *fakeGraph
	name    string
	deliver func([]byte, bool)
	once    sync.Once
}

func (r *fakeReader) Close() {
	r.once.Do(func() {
		r.g.mu.Lock()
		defer r.g.mu.Unlock()
		r.g.closed++
		if r.g.readers[r.name] == r {
			delete(r.g.readers, r.name)
		}
	})
}

// refusingReader is a fakeReader whose publishers refused it.
type refusingReader struct{ *fakeReader }

func (r refusingReader) Refused() error {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.g.refusal
}

type fakeWriter struct {
	topic  Topic
	mu     sync.Mutex
	wrote  [][]byte
	closed bool
	err    error
}

func (w *fakeWriter) Write(msg []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.wrote = append(w.wrote, msg)
	return nil
}

func (w *fakeWriter) Close() { w.mu.Lock(); w.closed = true; w.mu.Unlock() }

func newFakeGraph(topics ...Topic) *fakeGraph {
	g := &fakeGraph{topics: map[string]Topic{}, readers: map[string]*fakeReader{}}
	g.set(topics...)
	return g
}

// set replaces the topic list.
func (g *fakeGraph) set(topics ...Topic) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.topics = map[string]Topic{}
	for _, t := range topics {
		g.topics[t.Name] = t
	}
}

func (g *fakeGraph) Topics(context.Context) (map[string]Topic, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.topics), nil
}

func (g *fakeGraph) Subscribe(_ context.Context, t Topic, deliver func([]byte, bool)) (Reader, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := &fakeReader{g: g, name: t.Name, deliver: deliver}
	g.readers[t.Name] = r
	g.opened++
	if g.refusal != nil {
		return refusingReader{r}, nil
	}
	return r, nil
}

func (g *fakeGraph) Advertise(_ context.Context, t Topic, _ *rosmsg.Codec) (Writer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := &fakeWriter{topic: t, err: g.writeErr}
	g.writers = append(g.writers, w)
	return w, nil
}

func (g *fakeGraph) Codec(rosType string) (*rosmsg.Codec, error) {
	return rosmsg.CodecFor(msgType(rosType))
}

// emit delivers m, serialised, on topic's live reader; false when it has none.
func (g *fakeGraph) emit(t *testing.T, topic string, m proto.Message) bool {
	t.Helper()
	g.mu.Lock()
	r := g.readers[topic]
	typ := g.topics[topic].Type
	g.mu.Unlock()
	if r == nil {
		return false
	}
	c, err := g.Codec(typ)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	r.deliver(b, false)
	return true
}

func (g *fakeGraph) counts() (opened, closed, live int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.opened, g.closed, len(g.readers)
}

// nodeGraph is a fakeGraph that knows the graph's nodes.
type nodeGraph struct{ *fakeGraph }

func (g nodeGraph) Nodes() []string { return g.nodes }

// presence records what it is told, of which robot.
type presence struct {
	mu     sync.Mutex
	online []fleet.Robot
	downs  int
	refuse error
}

func (p *presence) Online(_ context.Context, r fleet.Robot) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refuse != nil {
		return p.refuse
	}
	p.online = append(p.online, r)
	return nil
}

func (p *presence) Offline(fleet.Robot) { p.mu.Lock(); p.downs++; p.mu.Unlock() }

// source is the source's own robot type, embedding a Robot as ros1's and ros2's do.
type source struct{ *Robot }

const robotID = "8f1b1a52-2a29-4f8b-9d0e-0c8d4c6a9a11"

var (
	odom    = Topic{Name: "/odom", Type: "nav_msgs/Odometry", Direction: fleetgate.Output}
	battery = Topic{Name: "/battery", Type: "sensor_msgs/BatteryState", Direction: fleetgate.Output}
	cmdVel  = Topic{Name: "/cmd_vel", Type: "geometry_msgs/Twist", Direction: fleetgate.Input}
	accel   = Topic{Name: "/accel", Type: "geometry_msgs/Accel", Direction: fleetgate.Output} // not in the catalog
)

type fixture struct {
	r    *source
	g    *fakeGraph
	p    *presence
	logs *logtest.Buffer
}

// newFixture is an online robot of source 2 over g, with a ReadTimeout of 200 ms and a Linger
// of a minute (a test of the linger sets its own: a reader must not go while a test uses it).
func newFixture(t *testing.T, transport Transport, g *fakeGraph, edit ...func(*Config)) fixture {
	t.Helper()
	f := fixture{r: &source{}, g: g, p: &presence{}, logs: &logtest.Buffer{}}
	cfg := Config{
		Info:        fleetgate.Info{ID: robotID, Name: "bot", ConfigName: "ros1", ConfigVersion: "1", AgentVersion: "test"},
		Source:      fleetgate.SourceROS1,
		PoseTopic:   "/odom",
		Limits:      fleetgate.SpeedLimits{Linear: 0.7, Angular: 1.2},
		Logger:      slog.New(slog.NewTextHandler(f.logs, nil)),
		Presence:    f.p,
		Self:        f.r,
		Unreachable: "its graph is gone",
		Linger:      time.Minute,
		ReadTimeout: 200 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	f.r.Robot = New(cfg, transport)
	if err := f.r.GoOnline(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.r.GoOffline("the test ended") })
	return f
}

func key(topic string) fleetgate.StreamKey {
	return fleetgate.StreamKey{Name: topic, Source: fleetgate.SourceROS1}
}

// eventually polls cond until it holds or 5 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestTopicsAsStreams: catalog types by their catalog names (either ROS's form of the type),
// other types as the ROS type, inputs with the speed limits, sorted; presence is told of the
// source's robot, and an offline robot says why.
func TestTopicsAsStreams(t *testing.T) {
	g := newFakeGraph(odom, cmdVel, accel, Topic{Name: "/scan", Type: "sensor_msgs/msg/LaserScan", Direction: fleetgate.Output})
	f := newFixture(t, g, g)
	if len(f.p.online) != 1 || f.p.online[0] != fleet.Robot(f.r) {
		t.Errorf("presence was told of %v, want the source's robot", f.p.online)
	}
	streams, err := f.r.Streams(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []fleetgate.Stream{
		{Name: "/accel", Type: "geometry_msgs/Accel", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		{Name: "/cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceROS1,
			Limits: fleetgate.SpeedLimits{Linear: 0.7, Angular: 1.2}},
		{Name: "/odom", Type: "Platform.Messages.nav_msgs.Odometry", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		{Name: "/scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
	}
	if len(streams) != len(want) {
		t.Fatalf("streams %+v, want %+v", streams, want)
	}
	for i := range want {
		if streams[i] != want[i] {
			t.Errorf("stream %d: %+v, want %+v", i, streams[i], want[i])
		}
	}
	f.r.GoOffline("the master went away")
	if f.p.downs != 1 {
		t.Errorf("presence told of %d offlines, want 1", f.p.downs)
	}
	if _, err := f.r.Streams(context.Background()); !fleetgate.Is(err, fleetgate.EOffline) || !strings.Contains(err.Error(), "its graph is gone") {
		t.Errorf("streams while offline: %v", err)
	}
	// A presence that refuses keeps the robot offline.
	f.p.refuse = fleetgate.Errorf(fleetgate.EConflict, "another agent hosts it")
	if err := f.r.GoOnline(context.Background()); !fleetgate.Is(err, fleetgate.EConflict) || f.r.Online() {
		t.Errorf("GoOnline with presence refusing: %v, online %v", err, f.r.Online())
	}
}

// TestOneReaderPerTopic: subscribers share one reader, which goes Linger after the last one
// leaves; a subscriber after that gets a new reader and a new message, never the stale one.
func TestOneReaderPerTopic(t *testing.T) {
	g := newFakeGraph(odom)
	f := newFixture(t, g, g, func(c *Config) { c.Linger = 50 * time.Millisecond })
	ctx := context.Background()
	a, err := f.r.Subscribe(ctx, key("/odom"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.r.Subscribe(ctx, key("/odom"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if opened, _, _ := g.counts(); opened != 1 {
		t.Fatalf("%d readers for two subscribers, want 1", opened)
	}
	if !g.emit(t, "/odom", &catalogpb.Odometry{ChildFrameId: "base_link"}) {
		t.Fatal("no reader of /odom")
	}
	for _, sub := range []*fleet.Subscription{a, b} {
		s, err := sub.Next(ctx)
		var m catalogpb.Odometry
		if err != nil || s.Type != "Platform.Messages.nav_msgs.Odometry" || proto.Unmarshal(s.Payload, &m) != nil || m.ChildFrameId != "base_link" {
			t.Fatalf("sample %+v, %v", s, err)
		}
	}
	a.Close()
	b.Close()
	eventually(t, "the reader dropped after the last subscriber", func() bool { _, closed, _ := g.counts(); return closed == 1 })
	c, err := f.r.Subscribe(ctx, key("/odom"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if opened, _, live := g.counts(); opened != 2 || live != 1 {
		t.Fatalf("opened %d, live %d after a new subscriber, want a second reader", opened, live)
	}
	if _, ok := f.r.inbound["/odom"].latest(); ok {
		t.Error("a new reader starts with the dropped one's message")
	}
}

// TestRead: the live reader's latest message, else the first that comes within ReadTimeout,
// else why not: nothing came, or the publishers refused the reader. Input, unknown and
// other-source streams cannot be read; a type outside the catalog reads as the ROS bytes.
func TestRead(t *testing.T) {
	refused := Topic{Name: "/refused", Type: "geometry_msgs/Accel", Direction: fleetgate.Output}
	g := newFakeGraph(odom, cmdVel, accel, refused)
	f := newFixture(t, g, g)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		eventually(t, "a reader of /odom", func() bool { _, _, live := g.counts(); return live == 1 })
		if !g.emit(t, "/odom", &catalogpb.Odometry{ChildFrameId: "first"}) {
			t.Error("no reader of /odom")
		}
	}()
	s, err := f.r.Read(ctx, key("/odom"))
	<-done
	var m catalogpb.Odometry
	if err != nil || proto.Unmarshal(s.Payload, &m) != nil || m.ChildFrameId != "first" {
		t.Fatalf("read %+v, %v; want the first message", s, err)
	}
	if !g.emit(t, "/odom", &catalogpb.Odometry{ChildFrameId: "latest"}) {
		t.Fatal("the reader of /odom went with its last subscriber, before its linger")
	}
	if s, err := f.r.Read(ctx, key("/odom")); err != nil || proto.Unmarshal(s.Payload, &m) != nil || m.ChildFrameId != "latest" {
		t.Fatalf("read %+v, %v; want the latest message at once", s, err)
	}

	// A silent topic of a graph that answers is a stream with no sample yet, not a robot that
	// is not there.
	if _, err := f.r.Read(ctx, key("/accel")); !fleetgate.Is(err, fleetgate.ENoSample) || fleetgate.ErrorMessage(err) != "no sample yet on /accel" {
		t.Errorf("a read of a silent topic: %v", err)
	}
	g.mu.Lock()
	g.refusal = errors.New("the publisher of /refused refused the subscription as geometry_msgs/Accel")
	g.mu.Unlock()
	if _, err := f.r.Read(ctx, key("/refused")); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "refused the subscription") {
		t.Errorf("a read the publishers refused: %v, want their refusal", err)
	}

	for _, c := range []struct {
		key  fleetgate.StreamKey
		code string
	}{
		{key("/cmd_vel"), fleetgate.EInvalid},
		{key("/nope"), fleetgate.ENotFound},
		{fleetgate.StreamKey{Name: "/odom", Source: fleetgate.SourceROS2}, fleetgate.ENotFound},
		{fleetgate.StreamKey{Component: "base", Name: "/odom", Source: fleetgate.SourceROS1}, fleetgate.ENotFound},
	} {
		if _, err := f.r.Read(ctx, c.key); !fleetgate.Is(err, c.code) {
			t.Errorf("read %+v: %v, want %s", c.key, err, c.code)
		}
	}

	// Opaque: the bytes as they came.
	g.set(odom, Topic{Name: "/raw", Type: "my_pkg/Thing", Direction: fleetgate.Output})
	go func() {
		eventually(t, "a reader of /raw", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.readers["/raw"] != nil })
		g.mu.Lock()
		r := g.readers["/raw"]
		g.mu.Unlock()
		r.deliver([]byte{1, 2, 3}, false)
	}()
	if s, err := f.r.Read(ctx, key("/raw")); err != nil || s.Type != "my_pkg/Thing" || !bytes.Equal(s.Payload, []byte{1, 2, 3}) {
		t.Errorf("an opaque read: %+v, %v", s, err)
	}
}

// TestBadBytesAreDropped: a message that does not decode reaches nobody and is logged once a
// minute, not once each.
func TestBadBytesAreDropped(t *testing.T) {
	g := newFakeGraph(odom)
	f := newFixture(t, g, g)
	sub, err := f.r.Subscribe(context.Background(), key("/odom"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	g.mu.Lock()
	r := g.readers["/odom"]
	g.mu.Unlock()
	for range 3 {
		r.deliver([]byte{0xff}, false)
	}
	g.emit(t, "/odom", &catalogpb.Odometry{ChildFrameId: "good"})
	s, err := sub.Next(context.Background())
	var m catalogpb.Odometry
	if err != nil || proto.Unmarshal(s.Payload, &m) != nil || m.ChildFrameId != "good" {
		t.Fatalf("the first sample: %+v, %v; want the good one", s, err)
	}
	if n := strings.Count(f.logs.String(), "does not decode"); n != 1 {
		t.Errorf("%d log lines for 3 bad messages, want 1", n)
	}
}

// TestPublish: a command through the door reaches the input topic's writer in the
// transport's serialisation; the writer is made once and kept, and made anew when the topic
// comes back with another type. Outputs, other types and types outside the catalog are
// refused; a failed write is unavailable.
func TestPublish(t *testing.T) {
	g := newFakeGraph(odom, cmdVel, Topic{Name: "/weird", Type: "my_pkg/Thing", Direction: fleetgate.Input})
	f := newFixture(t, g, g)
	ctx := context.Background()
	twist := func(x float64) []byte {
		b, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: x}})
		return b
	}
	for _, x := range []float64{0.5, 5} {
		if err := doortest.Send(ctx, f.r, key("/cmd_vel"), "Platform.Messages.geometry_msgs.Twist", twist(x)); err != nil {
			t.Fatal(err)
		}
	}
	if len(g.writers) != 1 || len(g.writers[0].wrote) != 2 {
		t.Fatalf("writers %d (want 1) wrote %v", len(g.writers), g.writers)
	}
	c, _ := rosmsg.CodecFor("geometry_msgs/Twist")
	var got []float64
	for _, b := range g.writers[0].wrote {
		m, err := c.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.(*catalogpb.Twist).GetLinear().GetX())
	}
	if got[0] != 0.5 || got[1] != 0.7 {
		t.Errorf("the writer got linear.x %v, want [0.5 0.7] (the second clamped to the limit)", got)
	}

	for _, c := range []struct {
		name, topic, typ string
		code             string
	}{
		{"an output", "/odom", "Platform.Messages.nav_msgs.Odometry", fleetgate.EInvalid},
		{"another type", "/cmd_vel", "Platform.Messages.geometry_msgs.Pose", fleetgate.EInvalid},
		{"outside the catalog", "/weird", "my_pkg/Thing", fleetgate.EInvalid},
		{"unknown", "/nope", "Platform.Messages.geometry_msgs.Twist", fleetgate.ENotFound},
	} {
		if err := doortest.Send(ctx, f.r, key(c.topic), c.typ, nil); !fleetgate.Is(err, c.code) {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}

	// The door keeps its lease of /cmd_vel as a Twist stream: the writer is asked directly.
	acker := Topic{Name: "/cmd_vel", Type: "ackermann_msgs/AckermannDriveStamped", Direction: fleetgate.Input}
	out, err := f.r.outboundFor(ctx, acker)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.writers) != 2 || !g.writers[0].closed || out.w != g.writers[1] || g.writers[1].topic.Type != acker.Type {
		t.Errorf("after a change of type: %d writers, the first closed %v; want a second of the new type", len(g.writers), g.writers[0].closed)
	}
	// Back to Twist, on a writer that fails.
	g.writeErr = errors.New("the node is closing")
	if err := doortest.Send(ctx, f.r, key("/cmd_vel"), "Platform.Messages.geometry_msgs.Twist", twist(0.1)); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Errorf("a failed write: %v, want unavailable", err)
	}
	f.r.CloseWriters()
	if len(g.writers) != 3 || !g.writers[1].closed || !g.writers[2].closed {
		t.Error("CloseWriters left a writer open")
	}
}

// TestMetricsFromTopics: battery from the first BatteryState output by name, position from
// the pose topic (Odometry or PoseStamped, in either ROS's form of the type), the graph's
// nodes when the transport knows them; KPIs never wait: the first call starts the readers,
// and a later one finds their values.
func TestMetricsFromTopics(t *testing.T) {
	ctx := context.Background()
	for _, ros2 := range []bool{false, true} {
		name := map[bool]string{false: "ROS 1 types", true: "ROS 2 types"}[ros2]
		t.Run(name, func(t *testing.T) {
			pose, bat := odom, battery
			if ros2 {
				pose.Type, bat.Type = "nav_msgs/msg/Odometry", "sensor_msgs/msg/BatteryState"
			}
			second := bat
			second.Name = "/zz_battery"
			g := newFakeGraph(pose, bat, second, cmdVel)
			g.nodes = []string{"/driver", "/lidar"}
			f := newFixture(t, nodeGraph{g}, g)

			types, err := f.r.Metrics(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []fleetgate.MetricType{fleetgate.MetricBattery, fleetgate.MetricPosition, fleetgate.MetricComponents, fleetgate.MetricAgentOperationalState} {
				if !containsMetric(types, want) {
					t.Errorf("metric types %v lack %v", types, want)
				}
			}
			if kpis, err := f.r.KPIs(ctx); err != nil || len(kpis) != 0 {
				t.Fatalf("KPIs before any value: %v, %v; want none, at once", kpis, err)
			}
			if _, _, live := g.counts(); live != 2 {
				t.Fatalf("%d readers after the first KPIs, want the pose's and the first battery's", live)
			}
			if !g.emit(t, "/odom", &catalogpb.Odometry{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.PoseWithCovariance{Pose: &catalogpb.Pose{
				Position: &catalogpb.Point{X: 1.5, Y: -2}, Orientation: &catalogpb.Quaternion{W: 1}}}}) ||
				!g.emit(t, "/battery", &catalogpb.BatteryState{Percentage: 0.8}) {
				t.Fatal("the first KPIs started no reader of the pose or the battery")
			}
			if g.emit(t, "/zz_battery", &catalogpb.BatteryState{Percentage: 0.1}) {
				t.Error("the second battery topic is read too")
			}
			kpis, err := f.r.KPIs(ctx)
			if err != nil || len(kpis) != 2 || kpis[0].Name != "pose" || kpis[1].Name != "battery" {
				t.Fatalf("KPIs %+v, %v; want pose and battery", kpis, err)
			}
			var v catalogpb.Float64
			if proto.Unmarshal(kpis[1].Payload, &v) != nil || v.Data < 79.99 || v.Data > 80.01 {
				t.Errorf("battery KPI %v", &v)
			}
			if m, err := f.r.Metric(ctx, fleetgate.MetricBattery, ""); err != nil || m.Value.(float64) < 79.99 || m.Value.(float64) > 80.01 {
				t.Errorf("battery %v, %v", m, err)
			}
			if m, err := f.r.Metric(ctx, fleetgate.MetricPosition, ""); err != nil || m.Value != `{"x":1.5,"y":-2,"theta":0,"frame":"map"}` {
				t.Errorf("position %v, %v", m, err)
			}
			m, err := f.r.Metric(ctx, fleetgate.MetricComponents, "")
			comps, _ := m.Value.([]fleetgate.ComponentInfo)
			if err != nil || len(comps) != 2 || comps[0].Name != "/driver" || comps[0].UUID == comps[1].UUID {
				t.Errorf("components %+v, %v", comps, err)
			}
			if m, err := f.r.Metric(ctx, fleetgate.MetricCustom, "battery"); err != nil || m.Type != fleetgate.MetricCustom {
				t.Errorf("the battery KPI as a custom metric: %+v, %v", m, err)
			}
			if m, err := f.r.Metric(ctx, fleetgate.MetricAgentOperationalState, ""); err != nil || m.Value.(fleetgate.AgentOperationalState).Version != "test" {
				t.Errorf("agent state %+v, %v", m, err)
			}
		})
	}
	// Without the topics and the nodes, no such metrics.
	g := newFakeGraph(cmdVel)
	f := newFixture(t, g, g)
	types, err := f.r.Metrics(ctx)
	if err != nil || containsMetric(types, fleetgate.MetricBattery) || containsMetric(types, fleetgate.MetricPosition) || containsMetric(types, fleetgate.MetricComponents) {
		t.Errorf("metric types of a robot with no such topics: %v, %v", types, err)
	}
	for _, typ := range []fleetgate.MetricType{fleetgate.MetricBattery, fleetgate.MetricPosition, fleetgate.MetricComponents, fleetgate.MetricCpu} {
		if _, err := f.r.Metric(ctx, typ, ""); !fleetgate.Is(err, fleetgate.ENotFound) {
			t.Errorf("metric %v: %v, want not found", typ, err)
		}
	}
}

func containsMetric(types []fleetgate.MetricType, want fleetgate.MetricType) bool {
	for _, t := range types {
		if t == want {
			return true
		}
	}
	return false
}

// TestOfflineEndsReaders: going offline ends every subscriber with EOffline saying why and
// closes the readers; the writers stay for the robot's return.
func TestOfflineEndsReaders(t *testing.T) {
	g := newFakeGraph(odom, cmdVel)
	f := newFixture(t, g, g)
	ctx := context.Background()
	sub, err := f.r.Subscribe(ctx, key("/odom"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := proto.Marshal(&catalogpb.Twist{})
	if err := doortest.Send(ctx, f.r, key("/cmd_vel"), "Platform.Messages.geometry_msgs.Twist", b); err != nil {
		t.Fatal(err)
	}
	f.r.GoOffline("the master is unreachable")
	select {
	case <-sub.Done():
		if !fleetgate.Is(sub.Err(), fleetgate.EOffline) || !strings.Contains(sub.Err().Error(), "the master is unreachable") {
			t.Errorf("the subscription ended with %v", sub.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription outlived its robot")
	}
	if _, _, live := g.counts(); live != 0 {
		t.Errorf("%d readers live after going offline", live)
	}
	if g.writers[0].closed {
		t.Error("going offline closed a writer")
	}
	if _, err := f.r.Subscribe(ctx, key("/odom"), fleetgate.SubscribeOptions{}); !fleetgate.Is(err, fleetgate.EOffline) {
		t.Errorf("subscribe while offline: %v", err)
	}
}

// TestLogFileResource: the agent's log is the robot's one resource, for organization admins
// only, and opens by its id.
func TestLogFileResource(t *testing.T) {
	log := filepath.Join(t.TempDir(), "fleetgate.log")
	if err := os.WriteFile(log, []byte("a line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := newFakeGraph(odom)
	f := newFixture(t, g, g, func(c *Config) { c.LogFile = log })
	ctx := context.Background()
	list, err := f.r.Resources(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "fleetgate.log" || !list[0].AdminOnly || list[0].Size != 7 {
		t.Fatalf("resources %+v, %v", list, err)
	}
	file, res, err := f.r.OpenResource(ctx, list[0].ID)
	if err != nil || res.ID != list[0].ID {
		t.Fatalf("open %+v, %v", res, err)
	}
	file.Close()
	if _, _, err := f.r.OpenResource(ctx, "nope"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("open an unknown resource: %v", err)
	}
}

// TestTheFirstGoalReadiesItsCancel: the cancel's topic is advertised with the first goal, not
// at the first cancel: a ROS 1 subscriber connects a while after a new publisher registers, and
// a cancel published before it has connected would reach nobody (move_base going on to its goal).
func TestTheFirstGoalReadiesItsCancel(t *testing.T) {
	goalTopic := Topic{Name: "/move_base_simple/goal", Type: goalType, Direction: fleetgate.Input}
	g := newFakeGraph(odom, cmdVel, goalTopic)
	f := newFixture(t, g, g, func(c *Config) { c.GoalTopic, c.CancelTopic = goalTopic.Name, "/move_base/cancel" })
	goal, _ := proto.Marshal(&catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"},
		Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 4}, Orientation: &catalogpb.Quaternion{W: 1}}})
	if err := doortest.Send(context.Background(), f.r, fleetgate.StreamKey{Component: "nav", Name: "goal", Source: fleetgate.SourceROS1}, door.GoalType, goal); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var advertised []string
	for _, w := range g.writers {
		advertised = append(advertised, w.topic.Name)
		if w.topic.Name == "/move_base/cancel" && len(w.wrote) != 0 {
			t.Errorf("the cancel's writer wrote %d messages: a goal cancels nothing", len(w.wrote))
		}
	}
	if !slices.Equal(advertised, []string{goalTopic.Name, "/move_base/cancel"}) {
		t.Errorf("after the first goal the robot advertised %v, want the goal's topic and then its cancel's", advertised)
	}
}
