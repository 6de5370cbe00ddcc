package ros1

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// presence records the robot going online and offline.
type presence struct {
	mu     sync.Mutex
	online bool
	ups    int
	downs  int
}

func (p *presence) Online(ctx context.Context, r fleet.Robot) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.online = true
	p.ups++
	return nil
}

func (p *presence) Offline(r fleet.Robot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.online = false
	p.downs++
}

func (p *presence) is(online bool) func() bool {
	return func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.online == online
	}
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// robotScript is a small rospy robot: odometry at 20 Hz, a scan at 10 Hz, a battery at 5 Hz,
// a topic of a type outside the catalog (geometry_msgs/Accel), and a /cmd_vel subscriber that
// prints what it gets.
const robotScript = `
import rospy, math
from nav_msgs.msg import Odometry
from sensor_msgs.msg import LaserScan, BatteryState
from geometry_msgs.msg import Twist, Accel
rospy.init_node('testbot')
odom = rospy.Publisher('/odom', Odometry, queue_size=1)
scan = rospy.Publisher('/scan', LaserScan, queue_size=1)
bat = rospy.Publisher('/battery', BatteryState, queue_size=1)
acc = rospy.Publisher('/accel', Accel, queue_size=1)
def cmd(m):
    print('cmd %.3f %.3f' % (m.linear.x, m.angular.z), flush=True)
rospy.Subscriber('/cmd_vel', Twist, cmd)
print('ready', flush=True)
i = 0
r = rospy.Rate(20)
while not rospy.is_shutdown():
    o = Odometry()
    o.header.frame_id = 'odom'; o.child_frame_id = 'base_link'
    o.header.stamp = rospy.Time.now()
    o.pose.pose.position.x = 1.5; o.pose.pose.position.y = -2.0
    o.pose.pose.orientation.z = math.sin(0.25); o.pose.pose.orientation.w = math.cos(0.25)
    odom.publish(o)
    if i % 2 == 0:
        s = LaserScan(); s.header.frame_id = 'laser'; s.angle_min = -1.0; s.angle_max = 1.0
        s.range_max = 10.0; s.ranges = [1.0 + j * 0.01 for j in range(100)]
        scan.publish(s)
    if i % 4 == 0:
        b = BatteryState(); b.percentage = 0.8; b.voltage = 24.5
        bat.publish(b)
        a = Accel(); a.linear.x = 3.25
        acc.publish(a)
    i += 1
    r.sleep()
`

func startRobot(t *testing.T, m *rostest.Master, cfg Config) (*Robot, *presence, *logBuffer) {
	t.Helper()
	p := &presence{}
	logs := &logBuffer{}
	cfg.MasterURI = m.URI
	cfg.Host = "127.0.0.1"
	cfg.DataDir = t.TempDir()
	cfg.Presence = p
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if cfg.PollPeriod == 0 {
		cfg.PollPeriod = 200 * time.Millisecond
	}
	if cfg.Linger == 0 {
		cfg.Linger = 300 * time.Millisecond
	}
	r, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	rostest.Eventually(t, 10*time.Second, "the robot is online", p.is(true))
	return r, p, logs
}

func key(topic string) fleetgate.StreamKey {
	return fleetgate.StreamKey{Name: topic, Source: fleetgate.SourceROS1}
}

// streamsOf waits until the robot lists the wanted topics and returns its streams by name.
func streamsOf(t *testing.T, r *Robot, want ...string) map[string]fleetgate.Stream {
	t.Helper()
	var byName map[string]fleetgate.Stream
	rostest.Eventually(t, 10*time.Second, fmt.Sprintf("the robot lists %v", want), func() bool {
		streams, err := r.Streams(context.Background())
		if err != nil {
			return false
		}
		byName = map[string]fleetgate.Stream{}
		for _, s := range streams {
			byName[s.Name] = s
		}
		for _, w := range want {
			if _, ok := byName[w]; !ok {
				return false
			}
		}
		return true
	})
	return byName
}

func TestTopicsAsStreams(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, robotScript)
	r, _, _ := startRobot(t, m, Config{})
	streams := streamsOf(t, r, "/odom", "/scan", "/battery", "/accel", "/cmd_vel", "/rosout")
	want := map[string]fleetgate.Stream{
		"/odom":    {Name: "/odom", Type: "Platform.Messages.nav_msgs.Odometry", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		"/scan":    {Name: "/scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		"/battery": {Name: "/battery", Type: "Platform.Messages.sensor_msgs.BatteryState", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		"/accel":   {Name: "/accel", Type: "geometry_msgs/Accel", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		"/cmd_vel": {Name: "/cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceROS1,
			Limits: fleetgate.SpeedLimits{Linear: DefaultMaxLinear, Angular: DefaultMaxAngular}},
		"/rosout": {Name: "/rosout", Type: "rosgraph_msgs/Log", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
	}
	for name, w := range want {
		if got := streams[name]; got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
}

// Two readers share one ROS subscription; it goes Linger after the last one leaves.
func TestOneSubscriptionPerTopic(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, robotScript)
	r, _, _ := startRobot(t, m, Config{})
	streamsOf(t, r, "/scan")
	ctx := context.Background()
	a, err := r.Subscribe(ctx, key("/scan"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Subscribe(ctx, key("/scan"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []*fleet.Subscription{a, b} {
		wait, cancel := context.WithTimeout(ctx, 10*time.Second)
		s, err := sub.Next(wait)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var scan catalogpb.LaserScan
		if err := proto.Unmarshal(s.Payload, &scan); err != nil || len(scan.Ranges) != 100 || scan.Ranges[99] != float32(1.0+99*0.01) || scan.Header.FrameId != "laser" {
			t.Fatalf("scan %v, %v", &scan, err)
		}
	}
	subscribed := func() int {
		st, err := r.node.Master().GetSystemState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tn := range st.Subscribers {
			if tn.Topic == "/scan" {
				for _, node := range tn.Nodes {
					if node == r.node.Name() {
						n++
					}
				}
			}
		}
		return n
	}
	if n := subscribed(); n != 1 {
		t.Errorf("registered %d times as subscriber of /scan", n)
	}
	a.Close()
	b.Close()
	rostest.Eventually(t, 10*time.Second, "the subscription is dropped after the last reader", func() bool { return subscribed() == 0 })
	// A reader after that starts afresh and gets a new message.
	c, err := r.Subscribe(ctx, key("/scan"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.Next(wait); err != nil {
		t.Fatal(err)
	}
}

func TestReadAndMetrics(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, robotScript)
	r, _, _ := startRobot(t, m, Config{})
	streamsOf(t, r, "/odom", "/battery", "/accel")
	ctx := context.Background()
	s, err := r.Read(ctx, key("/odom"))
	if err != nil {
		t.Fatal(err)
	}
	var odom catalogpb.Odometry
	if err := proto.Unmarshal(s.Payload, &odom); err != nil || odom.Pose.Pose.Position.X != 1.5 || odom.ChildFrameId != "base_link" {
		t.Fatalf("odometry %v, %v", &odom, err)
	}
	bat, err := r.Metric(ctx, fleetgate.MetricBattery, "")
	if err != nil || bat.Value.(float64) < 79.99 || bat.Value.(float64) > 80.01 {
		t.Errorf("battery %v, %v", bat, err)
	}
	pos, err := r.Metric(ctx, fleetgate.MetricPosition, "")
	if err != nil || pos.Value != `{"x":1.5,"y":-2,"theta":0.5,"frame":"odom"}` {
		t.Errorf("position %v, %v", pos, err)
	}
	types, err := r.Metrics(ctx)
	if err != nil || !containsAll(types, fleetgate.MetricBattery, fleetgate.MetricPosition, fleetgate.MetricComponents) {
		t.Errorf("metric types %v, %v", types, err)
	}
	comps, _ := r.Metric(ctx, fleetgate.MetricComponents, "")
	if list, _ := comps.Value.([]fleetgate.ComponentInfo); len(list) == 0 || !strings.Contains(fmt.Sprint(list), "/testbot") {
		t.Errorf("components %v", comps)
	}
	// KPIs never wait: they come once the subscriptions have a value.
	rostest.Eventually(t, 10*time.Second, "pose and battery KPIs", func() bool {
		kpis, err := r.KPIs(ctx)
		return err == nil && len(kpis) == 2
	})
	// A topic of a type outside the catalog reads as its ROS bytes.
	raw, err := r.Read(ctx, key("/accel"))
	if err != nil {
		t.Fatal(err)
	}
	if raw.Type != "geometry_msgs/Accel" || len(raw.Payload) != 48 || hex.EncodeToString(raw.Payload[:8]) != "0000000000000a40" {
		t.Errorf("accel %s %x", raw.Type, raw.Payload)
	}
	// Input topics cannot be read; unknown ones are not found.
	if _, err := r.Read(ctx, key("/cmd_vel")); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Errorf("reading an input: %v", err)
	}
	if _, err := r.Read(ctx, key("/nope")); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("reading an unknown topic: %v", err)
	}
}

func containsAll(types []fleetgate.MetricType, want ...fleetgate.MetricType) bool {
	for _, w := range want {
		found := false
		for _, t := range types {
			found = found || t == w
		}
		if !found {
			return false
		}
	}
	return true
}

// A Twist reaches a rospy subscriber as ROS bytes, the first one too (the node connects to
// the new publisher a moment after it is advertised).
func TestPublishTwist(t *testing.T) {
	m := rostest.StartMaster(t)
	bot := m.Python(t, robotScript)
	r, _, _ := startRobot(t, m, Config{MaxLinear: 0.7, MaxAngular: 1.2})
	// The input declares the limits the gateway clamps commands to.
	if s := streamsOf(t, r, "/cmd_vel")["/cmd_vel"]; s.Limits != (fleetgate.SpeedLimits{Linear: 0.7, Angular: 1.2}) {
		t.Errorf("limits %+v", s.Limits)
	}
	ctx := context.Background()
	send := func(lx, az float64) {
		t.Helper()
		b, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: lx}, Angular: &catalogpb.Vector3{Z: az}})
		if err := doortest.Send(ctx, r, key("/cmd_vel"), "Platform.Messages.geometry_msgs.Twist", b); err != nil {
			t.Fatal(err)
		}
	}
	send(0.5, -0.25) // the first command, right after advertising, is not lost
	if _, err := bot.WaitLine(10*time.Second, func(l string) bool { return l == "cmd 0.500 -0.250" }); err != nil {
		t.Fatal(err)
	}
	send(0.25, 0.5)
	if _, err := bot.WaitLine(10*time.Second, func(l string) bool { return l == "cmd 0.250 0.500" }); err != nil {
		t.Fatal(err)
	}
	// Wrong type, output topic, NaN: refused.
	b, _ := proto.Marshal(&catalogpb.Twist{})
	if err := doortest.Send(ctx, r, key("/cmd_vel"), "Platform.Messages.geometry_msgs.Pose", b); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Errorf("wrong type: %v", err)
	}
	if err := doortest.Send(ctx, r, key("/odom"), "Platform.Messages.nav_msgs.Odometry", nil); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Errorf("output topic: %v", err)
	}
}

// kill -9 of the master: the robot goes offline, its readers end with ErrOffline; the master
// and the robot's nodes restart: the robot is online again and its streams flow.
func TestMasterRestart(t *testing.T) {
	m := rostest.StartMaster(t)
	bot := m.Python(t, robotScript)
	r, p, _ := startRobot(t, m, Config{})
	streamsOf(t, r, "/odom")
	sub, err := r.Subscribe(context.Background(), key("/odom"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Kill()
	rostest.Eventually(t, 10*time.Second, "the robot is offline", p.is(false))
	select {
	case <-sub.Done():
		if !fleetgate.Is(sub.Err(), fleetgate.EOffline) {
			t.Errorf("subscription ended with %v", sub.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription did not end")
	}
	if _, err := r.Streams(context.Background()); !fleetgate.Is(err, fleetgate.EOffline) {
		t.Errorf("streams while offline: %v", err)
	}
	bot.Kill()
	m.Start()
	back := time.Now()
	m.Python(t, robotScript) // ROS nodes do not re-register with a new master: they restart
	rostest.Eventually(t, 10*time.Second, "the robot is online again", p.is(true))
	if d := time.Since(back); d > 5*time.Second {
		t.Errorf("online %v after the master returned", d)
	}
	streamsOf(t, r, "/odom")
	s, err := r.Read(context.Background(), key("/odom"))
	if err != nil || s.Type != "Platform.Messages.nav_msgs.Odometry" {
		t.Fatalf("read after the restart: %v, %v", s, err)
	}
}

// A publisher whose type has another md5sum than ours is refused with one log line naming
// the topic and both types, and a read says why it has nothing.
func TestMD5MismatchRefused(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, `
import rospy
from std_msgs.msg import String
class OldBattery(String):
    _type = 'sensor_msgs/BatteryState'
    _md5sum = 'ba95b5b3ebe9bbac01b5ceb8b8ab9a11'
rospy.init_node('oldbot')
pub = rospy.Publisher('/battery', OldBattery, queue_size=1)
print('ready', flush=True)
r = rospy.Rate(10)
while not rospy.is_shutdown():
    pub.publish(OldBattery('x'))
    r.sleep()
`)
	r, _, logs := startRobot(t, m, Config{ReadTimeout: 2 * time.Second})
	streamsOf(t, r, "/battery")
	_, err := r.Read(context.Background(), key("/battery"))
	if !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "sensor_msgs/BatteryState") {
		t.Errorf("read: %v", err)
	}
	rostest.Eventually(t, 5*time.Second, "the refusal is logged", func() bool {
		return strings.Contains(logs.String(), "refused the subscription to /battery as sensor_msgs/BatteryState (md5sum 4ddae7f048e32fda22cac764685e3974)")
	})
	if n := strings.Count(logs.String(), "refused the subscription to /battery"); n != 1 {
		t.Errorf("logged %d times", n)
	}
}

// A type outside the catalog that a topic carries has a template, from the definition its
// publisher sends (rospy's /rosout, rosgraph_msgs/Log); a type no topic carries has none.
func TestMessageTemplateOfAListedType(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, robotScript)
	r, _, _ := startRobot(t, m, Config{})
	streamsOf(t, r, "/rosout", "/accel")
	for typ, want := range map[string]string{
		"rosgraph_msgs/Log":   `{"header":{"seq":0,"stamp":{"secs":0,"nsecs":0},"frame_id":""},"level":0,"name":"","msg":"","file":"","function":"","line":0,"topics":[]}`,
		"geometry_msgs/Accel": `{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, err := r.MessageTemplate(ctx, typ)
		cancel()
		if err != nil || string(got) != want {
			t.Errorf("%s: template %s, %v; want %s", typ, got, err, want)
		}
	}
	if _, err := r.MessageTemplate(context.Background(), "custom_msgs/Nope"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a type no topic carries: %v", err)
	}
}

// TestLatchedMapReachesALateViewer: rospy publishes /map once, latched (as map_server does).
// The first viewer gets it as the node connects; a second viewer joining well after the
// freshness window, while the first still watches (the same reader: rospy sends nothing
// more), gets it at once too, latched and with its own time.
func TestLatchedMapReachesALateViewer(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, `
import rospy
from nav_msgs.msg import OccupancyGrid
rospy.init_node('map_server')
pub = rospy.Publisher('/map', OccupancyGrid, queue_size=1, latch=True)
g = OccupancyGrid()
g.header.frame_id = 'map'
g.info.resolution, g.info.width, g.info.height = 0.05, 4, 2
g.data = [0, 100, 0, 100, -1, 0, 0, 0]
pub.publish(g)
print('ready', flush=True)
rospy.spin()
`)
	r, _, _ := startRobot(t, m, Config{})
	streamsOf(t, r, "/map")
	ctx := context.Background()
	first, err := r.Subscribe(ctx, key("/map"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	got, err := first.Next(wait)
	cancel()
	if err != nil {
		t.Fatalf("the first viewer: %v", err)
	}
	if !got.Latched {
		t.Error("the map of a latching publisher is not latched")
	}
	// The age under test, not a synchronisation: the map must be older than any periodic
	// sample a new viewer is given.
	time.Sleep(time.Until(got.Time.Add(fleet.MaxCachedAge + 500*time.Millisecond)))
	second, err := r.Subscribe(ctx, key("/map"), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	late, ok := second.Take()
	if !ok {
		t.Fatalf("a viewer joining %v after the latched map got nothing", time.Since(got.Time).Round(time.Millisecond))
	}
	var grid catalogpb.OccupancyGrid
	if err := proto.Unmarshal(late.Payload, &grid); err != nil || grid.GetInfo().GetWidth() != 4 || len(grid.GetData()) != 8 {
		t.Errorf("not the map: %v %v", &grid, err)
	}
	if late.Seq != got.Seq || !late.Time.Equal(got.Time) {
		t.Errorf("the late viewer got sample %d of %v, want %d of %v", late.Seq, late.Time, got.Seq, got.Time)
	}
}

// TestQuietTopicIsNoSample: a topic rospy advertises and never publishes is read with a wait
// for its first message until the caller's deadline, then answered as a quiet stream
// (ENoSample, "no sample yet on /quiet"), not as a robot that does not answer.
func TestQuietTopicIsNoSample(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, `
import rospy
from nav_msgs.msg import Odometry
rospy.init_node('quiet')
pub = rospy.Publisher('/quiet', Odometry, queue_size=1)
print('ready', flush=True)
rospy.spin()
`)
	r, _, _ := startRobot(t, m, Config{})
	streamsOf(t, r, "/quiet")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err := r.Read(ctx, key("/quiet"))
	if !fleetgate.Is(err, fleetgate.ENoSample) || fleetgate.ErrorMessage(err) != "no sample yet on /quiet" {
		t.Errorf("a read of a quiet topic: %v; want ENoSample \"no sample yet on /quiet\"", err)
	}
}
