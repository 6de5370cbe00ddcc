// Package rosgraph is the robot of a ROS graph, written once for ROS 1 and ROS 2: its topics
// as streams, one reader per output topic however many subscribe (made on the first, dropped
// Linger after the last), its input topics written from the door's commands (the teleop
// input), and its metrics and KPIs: battery and pose read from topics, the host's load and
// the agent's state. What differs between the ROS versions, how the graph's topics are
// listed, read and written (ROS 1's master, XML-RPC and TCPROS; ROS 2's DDS), is the
// Transport each source hands it; internal/source/ros1 and ros2 embed a Robot in theirs.
package rosgraph

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// Topic is one topic of a robot's ROS graph.
type Topic struct {
	Name string // /odom
	// Type is the ROS type as the robot's ROS writes it: nav_msgs/Odometry (ROS 1),
	// nav_msgs/msg/Odometry (ROS 2).
	Type      string
	Direction string // fleetgate.Output (another node publishes it) or fleetgate.Input
}

// msgType is a ROS type as the message codecs name it, package/Name, for either ROS.
func msgType(rosType string) string { return strings.Replace(rosType, "/msg/", "/", 1) }

// catalogType is the catalog's name of the topic's type, "" when the catalog lacks it. Some
// types only ROS 2 robots bring (Foxglove's CompressedVideo) have one.
func (t Topic) catalogType() string {
	if strings.Contains(t.Type, "/msg/") {
		return rosmsg.CatalogTypeROS2(msgType(t.Type))
	}
	return rosmsg.CatalogType(t.Type)
}

// streamType is the stream's type: the catalog's name, or the ROS type of a topic whose type
// the catalog lacks (relayed as the transport's bytes).
func (t Topic) streamType() string {
	if c := t.catalogType(); c != "" {
		return c
	}
	return t.Type
}

// Transport is how a robot reaches its ROS graph.
type Transport interface {
	// Topics lists the robot's topics now, by name; it may answer from a recent list.
	Topics(ctx context.Context) (map[string]Topic, error)
	// Subscribe starts reading output topic t: deliver gets each message as the transport
	// serialises it, from any goroutine, until the Reader closes; latched says its publisher
	// keeps it for late joiners (ROS 1 latching, ROS 2 transient-local durability).
	Subscribe(ctx context.Context, t Topic, deliver func(msg []byte, latched bool)) (Reader, error)
	// Advertise makes the writer of input topic t, whose messages c serialises.
	Advertise(ctx context.Context, t Topic, c *rosmsg.Codec) (Writer, error)
	// Codec is the codec between the catalog and the transport's serialisation of rosType,
	// a type the catalog has.
	Codec(rosType string) (*rosmsg.Codec, error)
}

// Reader is a transport's reading of one topic.
type Reader interface{ Close() }

// Refuser is a Reader whose publishers may refuse it (ROS 1 checks md5sums): a read that got
// nothing in time says why.
type Refuser interface {
	// Refused is the publishers' refusal, nil when there is none.
	Refused() error
}

// Writer is a transport's writer of one input topic.
type Writer interface {
	Write(msg []byte) error
	Close()
}

// NodeLister is a Transport that knows the graph's nodes: they are the robot's components.
type NodeLister interface {
	// Nodes are the graph's nodes but the agent's own, sorted.
	Nodes() []string
}

// Presence is told when a robot comes online and goes offline; the server adapts the fleet
// registry to it.
type Presence interface {
	Online(ctx context.Context, r fleet.Robot) error
	Offline(r fleet.Robot)
}

// Config configures a Robot.
type Config struct {
	// Info identifies the robot; its ID is a UUID, from which the ids of its components and
	// resources derive.
	Info   fleetgate.Info
	Source fleetgate.SourceType // of its streams: SourceROS1 or SourceROS2
	// PoseTopic is the full name of the pose topic (nav_msgs/Odometry or
	// geometry_msgs/PoseStamped): the Position metric and the pose KPI.
	PoseTopic string
	// Limits are the speed limits its input topics declare; the door clamps drive commands
	// to them.
	Limits    fleetgate.SpeedLimits
	LogFile   string            // the agent's log file, offered as a resource; may be empty
	HostStats *hoststat.Sampler // nil: no host metrics
	Logger    *slog.Logger
	// Presence is told of Self (the source's robot, which embeds this one, so that the
	// registry sees all it offers) coming online and going offline.
	Presence Presence
	Self     fleet.Robot
	// Unreachable completes "robot NAME is offline: " for a call while the robot is offline
	// ("its ROS master does not answer").
	Unreachable string

	// GoalTopic is the topic a goal on the robot's nav/goal stream goes to (a PoseStamped in
	// the map frame): move_base_simple/goal on ROS 1, goal_pose on ROS 2; "" takes no goals.
	// nav/goal is listed when the graph has the topic, or always with ListGoal (the topic was
	// configured).
	GoalTopic string
	ListGoal  bool
	// CancelTopic takes a goal's cancel (the door's, when the lease it was sent under ends):
	// the cancel of every goal, an actionlib_msgs/GoalID with an empty id (ROS 1,
	// move_base/cancel) or an action_msgs/msg/GoalInfo with a zero id and stamp (ROS 2, what
	// an action's cancel_goal service takes, for a bridge node to pass on). "": the robot gets
	// no cancel, only the zero on its drive topic.
	CancelTopic string

	Linger      time.Duration // a topic nobody reads is dropped after this
	ReadTimeout time.Duration // a read waits this long for a first message
}

// Robot is the robot of a ROS graph. It implements fleet.Robot and door.Driven.
type Robot struct {
	cfg       Config
	transport Transport
	log       *slog.Logger
	uuid      uuid.UUID

	pending sync.Mutex // one Presence call at a time

	mu      sync.Mutex
	online  bool
	inbound map[string]*inbound // output topics being read

	// outMu guards outbound and is held while a writer is made (a transport may wait for
	// its subscribers to match).
	outMu    sync.Mutex
	outbound map[string]*outbound
}

var _ fleet.Robot = (*Robot)(nil)

// New returns the robot, offline; the source brings it online (GoOnline) when its graph is
// there.
func New(cfg Config, t Transport) *Robot {
	if cfg.Self == nil {
		panic("rosgraph: Config.Self is required")
	}
	return &Robot{
		cfg:       cfg,
		transport: t,
		log:       cfg.Logger,
		uuid:      uuid.MustParse(cfg.Info.ID),
		inbound:   map[string]*inbound{},
		outbound:  map[string]*outbound{},
	}
}

// Info identifies the robot.
func (r *Robot) Info() fleetgate.Info { return r.cfg.Info }

// Online reports whether the robot is online.
func (r *Robot) Online() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.online
}

// GoOnline takes the robot online and tells Presence; when Presence refuses, the robot stays
// offline and the refusal is returned. An online robot is left as it is.
func (r *Robot) GoOnline(ctx context.Context) error {
	r.pending.Lock()
	defer r.pending.Unlock()
	r.mu.Lock()
	if r.online {
		r.mu.Unlock()
		return nil
	}
	r.online = true
	r.mu.Unlock()
	if err := r.cfg.Presence.Online(ctx, r.cfg.Self); err != nil {
		r.mu.Lock()
		r.online = false
		r.mu.Unlock()
		return err
	}
	return nil
}

// GoOffline takes the robot offline, tells Presence, and ends every reader with
// fleetgate.EOffline saying why; the writers stay for the robot's return.
func (r *Robot) GoOffline(why string) {
	r.pending.Lock()
	defer r.pending.Unlock()
	r.mu.Lock()
	was := r.online
	r.online = false
	ins := r.inbound
	r.inbound = map[string]*inbound{}
	r.mu.Unlock()
	if was {
		r.cfg.Presence.Offline(r.cfg.Self)
	}
	err := fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline: %s", r.cfg.Info.Name, why)
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Go(func() { in.shutdown(err) })
	}
	wg.Wait()
}

// CloseWriters closes the input topics' writers, as the source stops.
func (r *Robot) CloseWriters() {
	r.outMu.Lock()
	outs := r.outbound
	r.outbound = map[string]*outbound{}
	r.outMu.Unlock()
	for _, o := range outs {
		o.w.Close()
	}
}

func (r *Robot) offline() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.online {
		return fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline: %s", r.cfg.Info.Name, r.cfg.Unreachable)
	}
	return nil
}

// topics is the robot's topic list, while it is online.
func (r *Robot) topics(ctx context.Context) (map[string]Topic, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	return r.transport.Topics(ctx)
}

// Streams lists the topics as streams, sorted by name; input topics declare the robot's
// speed limits.
func (r *Robot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.Stream, 0, len(g))
	for _, t := range g {
		s := fleetgate.Stream{Name: t.Name, Type: t.streamType(), Direction: t.Direction, Source: r.cfg.Source}
		if t.Direction == fleetgate.Input {
			s.Limits = r.cfg.Limits
		}
		out = append(out, s)
	}
	if t, ok := r.goalTopic(g); ok {
		out = append(out, fleetgate.Stream{Component: goalKey.Component, Name: goalKey.Name, Type: t.streamType(), Direction: fleetgate.Input, Source: r.cfg.Source})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// find resolves a stream key to its topic.
func (r *Robot) find(ctx context.Context, key fleetgate.StreamKey) (Topic, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return Topic{}, err
	}
	if key == (fleetgate.StreamKey{Component: goalKey.Component, Name: goalKey.Name, Source: r.cfg.Source}) {
		if t, ok := r.goalTopic(g); ok {
			return t, nil
		}
	}
	t, ok := g[key.Name]
	if !ok || key.Component != "" || key.Source != r.cfg.Source {
		return Topic{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no stream %s/%s of source %d", r.cfg.Info.Name, key.Component, key.Name, key.Source)
	}
	return t, nil
}

// FindOutput resolves a stream key to an output topic: one that can be read.
func (r *Robot) FindOutput(ctx context.Context, key fleetgate.StreamKey) (Topic, error) {
	t, err := r.find(ctx, key)
	if err != nil {
		return Topic{}, err
	}
	if t.Direction != fleetgate.Output {
		return Topic{}, fleetgate.Errorf(fleetgate.EInvalid, "%s is an input topic: nobody publishes it, so it cannot be read", t.Name)
	}
	return t, nil
}

// Read returns the latest message of an output topic: the one its reader has when it is
// live, else the first that arrives (within ReadTimeout).
func (r *Robot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	t, err := r.FindOutput(ctx, key)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	in, err := r.inboundFor(t)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	return in.read(ctx)
}

// Subscribe follows an output topic; the first subscriber starts its reader. The options are
// for sources whose samples cross a network: here every subscriber shares the one reader,
// and the gateway paces and downsamples per client.
func (r *Robot) Subscribe(ctx context.Context, key fleetgate.StreamKey, _ fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	t, err := r.FindOutput(ctx, key)
	if err != nil {
		return nil, err
	}
	in, err := r.inboundFor(t)
	if err != nil {
		return nil, err
	}
	return in.subscribe(ctx)
}
