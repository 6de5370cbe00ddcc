package ros2

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
	"github.com/fleetgate/fleetgate/internal/source/rosgraph"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// Robot is the robot of one ROS 2 namespace: a ROS-graph robot (rosgraph) over the topics
// DDS discovery finds in its namespace. It implements fleet.Robot.
type Robot struct {
	*rosgraph.Robot
	ns  string
	log *slog.Logger
	s   *Source
	dds *namespace

	mu       sync.Mutex
	lastSeen time.Time
	since    time.Time // when the robot last began to have topics; zero while it has none
}

var _ fleet.Robot = (*Robot)(nil)

// settle is how long a robot has topics before it goes online.
const settle = 400 * time.Millisecond

// Namespace is the robot's ROS namespace.
func (r *Robot) Namespace() string { return r.ns }

// seen: the robot has topics now; it goes online if it was not.
func (r *Robot) seen(ctx context.Context, now time.Time) {
	r.mu.Lock()
	r.lastSeen = now
	if r.since.IsZero() {
		r.since = now
	}
	// Discovery brings a participant's endpoints one by one: a robot goes online once its
	// topics have been there a moment, so a namespace whose cmd_vel comes after its scan
	// does not flash by as topics of the root's robot.
	settled := now.Sub(r.since) >= settle
	r.mu.Unlock()
	if !settled || r.Online() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := r.GoOnline(ctx); err != nil {
		r.log.Warn("the ROS 2 robot cannot go online yet", "err", err)
		return
	}
	r.log.Info("ROS 2 robot online")
}

// idle: the robot has no topics; it goes offline OfflineAfter after the last one left.
func (r *Robot) idle(now time.Time) {
	r.mu.Lock()
	r.since = time.Time{}
	gone := now.Sub(r.lastSeen) >= r.s.cfg.OfflineAfter
	r.mu.Unlock()
	if gone && r.Online() {
		r.log.Info("ROS 2 robot offline: its topics left the graph")
		r.GoOffline("its topics left the ROS 2 graph")
	}
}

// namespace is a robot's transport (rosgraph.Transport): the topics of its namespace as DDS
// discovery finds them, read by readers that follow their publishers' QoS and written by
// volatile writers.
type namespace struct {
	s   *Source
	ns  string
	log *slog.Logger

	mu      sync.Mutex
	readers map[*reader]struct{}
}

var _ rosgraph.Transport = (*namespace)(nil)

// Topics lists the namespace's topics: an output when another participant publishes it, an
// input when others only subscribe to it.
func (n *namespace) Topics(context.Context) (map[string]rosgraph.Topic, error) {
	g := n.s.topicsOf(n.ns)
	out := make(map[string]rosgraph.Topic, len(g))
	for name, t := range g {
		out[name] = rosgraph.Topic{Name: name, Type: t.ros2Type, Direction: t.direction}
	}
	return out, nil
}

// Codec is the CDR serialisation of a catalog type.
func (n *namespace) Codec(ros2Type string) (*rosmsg.Codec, error) {
	return rosmsg.CDRCodecFor(codecType(ros2Type))
}

// discovered is what discovery says of topic t now.
func (n *namespace) discovered(t rosgraph.Topic) (topicInfo, error) {
	ti, ok := n.s.topicsOf(n.ns)[t.Name]
	if !ok || ti.ros2Type != t.Type {
		return topicInfo{}, fleetgate.Errorf(fleetgate.ENotFound, "topic %s of type %s left the ROS 2 graph", t.Name, t.Type)
	}
	return ti, nil
}

// Subscribe makes a DDS reader of an output topic with its publishers' QoS.
func (n *namespace) Subscribe(_ context.Context, t rosgraph.Topic, deliver func([]byte, bool)) (rosgraph.Reader, error) {
	ti, err := n.discovered(t)
	if err != nil {
		return nil, err
	}
	rd := &reader{n: n, name: t.Name, ddsType: ti.ddsType, deliver: deliver, qos: ti.qos}
	if rd.dds, err = n.s.p.Reader(ddsTopic(t.Name), ti.ddsType, ti.qos, rd.deliverAs(ti.qos)); err != nil {
		return nil, err
	}
	n.mu.Lock()
	if n.readers == nil {
		n.readers = map[*reader]struct{}{}
	}
	n.readers[rd] = struct{}{}
	n.mu.Unlock()
	return rd, nil
}

// followQoS has each reader follow its publishers' QoS: a best-effort publisher joining a
// reliable topic makes its reader best-effort, or it would never match.
func (n *namespace) followQoS() {
	n.mu.Lock()
	readers := make([]*reader, 0, len(n.readers))
	for rd := range n.readers {
		readers = append(readers, rd)
	}
	n.mu.Unlock()
	if len(readers) == 0 {
		return
	}
	g := n.s.topicsOf(n.ns)
	for _, rd := range readers {
		if t, ok := g[rd.name]; ok && t.direction == fleetgate.Output && t.ddsType == rd.ddsType {
			rd.follow(t.qos)
		}
	}
}

// reader is the DDS reader of one output topic, made again when its publishers' QoS changes;
// its subscribers stay.
type reader struct {
	n       *namespace
	name    string
	ddsType string
	deliver func([]byte, bool)

	mu     sync.Mutex
	qos    dds.QoS
	dds    *dds.Reader
	closed bool
}

// follow remakes the DDS reader with new QoS.
func (rd *reader) follow(qos dds.QoS) {
	rd.mu.Lock()
	if rd.closed || rd.qos == qos {
		rd.mu.Unlock()
		return
	}
	next, err := rd.n.s.p.Reader(ddsTopic(rd.name), rd.ddsType, qos, rd.deliverAs(qos))
	if err != nil {
		rd.mu.Unlock()
		rd.n.log.Warn("following the publishers' QoS", "topic", rd.name, "err", err)
		return
	}
	old := rd.dds
	rd.dds, rd.qos = next, qos
	rd.mu.Unlock()
	old.Close()
	rd.n.log.Info("reader follows its publishers' QoS", "topic", rd.name, "reliable", qos.Reliable, "transient_local", qos.TransientLocal)
}

// deliverAs is the delivery of a DDS reader of qos: transient-local durability is what the
// publishers keep for late joiners (every one of them, as the reader follows them: a map),
// so its samples are latched.
func (rd *reader) deliverAs(qos dds.QoS) func([]byte) {
	return func(msg []byte) { rd.deliver(msg, qos.TransientLocal) }
}

func (rd *reader) Close() {
	rd.n.mu.Lock()
	delete(rd.n.readers, rd)
	rd.n.mu.Unlock()
	rd.mu.Lock()
	rd.closed = true
	r := rd.dds
	rd.mu.Unlock()
	r.Close()
}

// Advertise makes a reliable, volatile writer of an input topic: a drive command never waits
// for a late joiner. It waits (MatchWait at most) for the topic's subscribers to match it, so
// that the first command is not lost to discovery. A topic the graph does not have (a
// configured goal or cancel topic nobody subscribes to yet) is written as its type names it.
func (n *namespace) Advertise(_ context.Context, t rosgraph.Topic, _ *rosmsg.Codec) (rosgraph.Writer, error) {
	ti, err := n.discovered(t)
	if _, there := n.s.topicsOf(n.ns)[t.Name]; err != nil && !there && ddsType(t.Type) != "" {
		ti, err = topicInfo{name: t.Name, ros2Type: t.Type, ddsType: ddsType(t.Type), direction: fleetgate.Input}, nil
	}
	if err != nil {
		return nil, err
	}
	w, err := n.s.p.Writer(ddsTopic(t.Name), ti.ddsType, dds.QoS{Reliable: true, Depth: 1})
	if err != nil {
		return nil, err
	}
	if ti.lateJoiners > 0 {
		n.log.Warn("subscribers of an input topic ask for transient-local durability, which the agent never offers (a drive command must not reach a late joiner): they get no commands",
			"topic", t.Name, "subscribers", ti.lateJoiners)
	}
	deadline := time.Now().Add(n.s.cfg.MatchWait)
	for w.Matched() < ti.readers-ti.lateJoiners && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	n.log.Info("writing to a ROS 2 topic", "topic", t.Name, "type", t.Type, "matched", w.Matched())
	return w, nil
}
