// Package ros2 is the ROS 2 robot source: the agent joins the ROS 2 graph of its network as a
// DDS participant (package dds: Cyclone DDS through cgo, build tag ros2) and hosts one robot
// per namespace, whose topics are its streams (source 3). Messages are decoded from CDR in Go
// (internal/source/rosmsg); nothing is installed on the robots. The robot is
// internal/source/rosgraph's, which ROS 1 shares; this package is its transport.
//
// Robots: with Config.Robots, one robot per given namespace, holding the topics under it (the
// longest namespace wins; "/" takes every topic). Without, a namespace /X is a robot when it
// has a topic /X/cmd_vel or /X/odom, and every other topic belongs to the robot of the root
// namespace, named Config.Name. The system topics every node has (/rosout,
// /parameter_events) are nobody's streams.
//
// A topic that another participant publishes is an output; one that others only subscribe
// to is an input. A robot is online while it has topics and goes offline OfflineAfter after
// its last one left the graph. Each output topic is read by one DDS reader, made on its
// first reader and dropped Linger after its last, whose QoS follows the topic's publishers
// (learned from discovery): reliable only if every publisher is, transient-local only if
// every publisher is, so that it matches all of them. An input topic gets a reliable,
// volatile writer on first use, kept: a drive command never waits for a late joiner.
package ros2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
	"github.com/fleetgate/fleetgate/internal/source/rosgraph"
)

// Presence is told when a robot comes online and goes offline; the server adapts the fleet
// registry to it.
type Presence = rosgraph.Presence

// RobotSpec names the robot of a namespace.
type RobotSpec struct {
	Name      string
	Namespace string // "/" or "/a" or "/a/b"
}

// Config configures the agent's ROS 2 source.
type Config struct {
	Domain    int      // ROS_DOMAIN_ID
	Interface string   // network interface for DDS; empty: Cyclone chooses
	Peers     []string // unicast discovery peers
	XML       string   // more Cyclone DDS configuration (inside <Domain>)
	MaxSample int      // bytes; larger samples are dropped with a log line; default 64 MiB

	Robots []RobotSpec // explicit robots; empty: automatic (package doc)
	Name   string      // the root namespace's robot in automatic mode; default: the host name
	// PoseTopic is the pose topic relative to each robot's namespace (nav_msgs/Odometry or
	// geometry_msgs/PoseStamped); default "odom".
	PoseTopic string
	// GoalTopic takes the goals of each robot's nav/goal stream (geometry_msgs/msg/PoseStamped,
	// relative to its namespace; default goal_pose, Nav2's), listed when a node subscribes to
	// it or always with ListGoal. CancelTopic (relative too; default goal_pose/cancel) takes a
	// goal's cancel, an action_msgs/msg/GoalInfo that cancels every goal: Nav2 has no such
	// topic, a bridge node on the robot passes it on to its action (docs/ros2.md).
	GoalTopic, CancelTopic string
	ListGoal               bool
	// MaxLinear (m/s) and MaxAngular (rad/s) are the speed limits input topics declare.
	MaxLinear, MaxAngular float64

	DataDir      string // robot ids are kept under DataDir/ros2
	LogFile      string // the agent's log file, offered as a resource; may be empty
	AgentVersion string
	HostStats    *hoststat.Sampler
	Logger       *slog.Logger
	Presence     Presence

	// Timing; zero means the default.
	Linger       time.Duration // an output topic nobody reads is dropped after this; default 5 s
	ReadTimeout  time.Duration // a read waits this long for a first sample; default 5 s
	OfflineAfter time.Duration // a robot without topics goes offline after this; default 3 s
	MatchWait    time.Duration // a new writer waits this long for its subscribers; default 1 s
}

// Defaults.
const (
	DefaultPoseTopic   = "odom"
	DefaultGoalTopic   = "goal_pose"
	DefaultCancelTopic = "goal_pose/cancel"
	DefaultMaxLinear   = 1.0
	DefaultMaxAngular  = 1.5
)

// Source is the agent's view of the ROS 2 graph: one DDS participant, the robots it found.
type Source struct {
	cfg Config
	log *slog.Logger
	p   *dds.Participant

	mu     sync.Mutex
	topics map[string]*topicState // by ROS topic name
	robots map[string]*Robot      // by namespace; made once, kept

	changed chan struct{}
	stop    context.CancelFunc
	done    chan struct{}
	once    sync.Once
}

// topicState is what discovery says of one topic: its remote writers and readers.
type topicState struct {
	name    string
	ddsType string // of the writers when there are any, else of the readers
	writers map[[16]byte]dds.Endpoint
	readers map[[16]byte]dds.Endpoint
}

// Start joins the ROS 2 graph. Robots go online through cfg.Presence as they are found.
func Start(ctx context.Context, cfg Config) (*Source, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Presence == nil {
		return nil, errors.New("ros2: no Presence")
	}
	if cfg.Name == "" {
		cfg.Name, _ = os.Hostname()
		if cfg.Name == "" {
			cfg.Name = "ros2"
		}
	}
	if cfg.PoseTopic == "" {
		cfg.PoseTopic = DefaultPoseTopic
	}
	cfg.PoseTopic = strings.Trim(cfg.PoseTopic, "/")
	if cfg.GoalTopic == "" {
		cfg.GoalTopic = DefaultGoalTopic
	}
	if cfg.CancelTopic == "" {
		cfg.CancelTopic = DefaultCancelTopic
	}
	cfg.GoalTopic, cfg.CancelTopic = strings.Trim(cfg.GoalTopic, "/"), strings.Trim(cfg.CancelTopic, "/")
	if cfg.MaxLinear <= 0 {
		cfg.MaxLinear = DefaultMaxLinear
	}
	if cfg.MaxAngular <= 0 {
		cfg.MaxAngular = DefaultMaxAngular
	}
	if cfg.MaxSample <= 0 {
		cfg.MaxSample = dds.DefaultMaxSample
	}
	if cfg.Linger <= 0 {
		cfg.Linger = 5 * time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 5 * time.Second
	}
	if cfg.OfflineAfter <= 0 {
		cfg.OfflineAfter = 3 * time.Second
	}
	if cfg.MatchWait <= 0 {
		cfg.MatchWait = time.Second
	}
	for i, rs := range cfg.Robots {
		if rs.Namespace != "/" {
			cfg.Robots[i].Namespace = "/" + strings.Trim(rs.Namespace, "/")
		}
	}
	s := &Source{
		cfg:     cfg,
		log:     cfg.Logger,
		topics:  map[string]*topicState{},
		robots:  map[string]*Robot{},
		changed: make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	p, err := dds.Open(dds.Config{
		Domain: cfg.Domain, Interface: cfg.Interface, Peers: cfg.Peers, XML: cfg.XML,
		MaxSample: cfg.MaxSample, Logger: cfg.Logger, OnEvent: s.onEvent,
	})
	if err != nil {
		return nil, fmt.Errorf("ros2: %w", err)
	}
	s.p = p
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	go s.run(runCtx)
	context.AfterFunc(ctx, s.Close)
	s.log.Info("ROS 2 participant started", "domain", cfg.Domain)
	return s, nil
}

// Close takes every robot offline (zeroing nothing: the gateway zeroes controlled robots
// before sources close) and leaves the graph.
func (s *Source) Close() {
	s.once.Do(func() {
		s.stop()
		<-s.done
		s.mu.Lock()
		robots := slices.Collect(maps.Values(s.robots))
		s.mu.Unlock()
		for _, r := range robots {
			r.GoOffline("the agent is stopping")
			r.CloseWriters()
		}
		s.p.Close()
	})
}

// onEvent follows discovery (from the participant's goroutine: it must not block).
func (s *Source) onEvent(ev dds.Event) {
	name := topicOfDDS(ev.Topic)
	if name == "" || rosType(ev.Type) == "" {
		return
	}
	s.mu.Lock()
	t := s.topics[name]
	if t == nil {
		if ev.Gone {
			s.mu.Unlock()
			return
		}
		t = &topicState{name: name, writers: map[[16]byte]dds.Endpoint{}, readers: map[[16]byte]dds.Endpoint{}}
		s.topics[name] = t
	}
	side := t.readers
	if ev.Writer {
		side = t.writers
	}
	if ev.Gone {
		delete(side, ev.GUID)
	} else {
		side[ev.GUID] = ev.Endpoint
	}
	t.ddsType = ""
	for _, e := range t.writers {
		t.ddsType = e.Type
	}
	if t.ddsType == "" {
		for _, e := range t.readers {
			t.ddsType = e.Type
		}
	}
	if len(t.writers) == 0 && len(t.readers) == 0 {
		delete(s.topics, name)
	}
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// run brings robots online and offline as the graph changes, and has readers follow their
// publishers' QoS.
func (s *Source) run(ctx context.Context) {
	defer close(s.done)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
		case <-tick.C:
		}
		s.reconcile(ctx)
	}
}

func (s *Source) reconcile(ctx context.Context) {
	now := time.Now()
	s.mu.Lock()
	busy := map[string]bool{}
	for name := range s.topics {
		if ns, ok := s.namespaceLocked(name); ok {
			busy[ns] = true
		}
	}
	for ns := range busy {
		if s.robots[ns] == nil {
			r, err := s.newRobot(ns)
			if err != nil {
				s.log.Error("a ROS 2 robot cannot be hosted", "namespace", ns, "err", err)
				continue
			}
			s.robots[ns] = r
		}
	}
	robots := slices.Collect(maps.Values(s.robots))
	s.mu.Unlock()
	for _, r := range robots {
		if busy[r.ns] {
			r.seen(ctx, now)
		} else {
			r.idle(now)
		}
		r.dds.followQoS()
	}
}

// namespaceLocked is the namespace of the robot a topic belongs to.
func (s *Source) namespaceLocked(topic string) (string, bool) {
	if systemTopics[topic] {
		return "", false
	}
	if len(s.cfg.Robots) > 0 {
		best := ""
		for _, rs := range s.cfg.Robots {
			if inNamespace(topic, rs.Namespace) && len(rs.Namespace) > len(best) {
				best = rs.Namespace
			}
		}
		return best, best != ""
	}
	if i := strings.IndexByte(topic[1:], '/'); i > 0 {
		ns := topic[:i+1]
		for _, m := range markers {
			if s.topics[ns+"/"+m] != nil {
				return ns, true
			}
		}
	}
	return "/", true
}

func (s *Source) newRobot(ns string) (*Robot, error) {
	name := s.cfg.Name
	if ns != "/" {
		name = strings.TrimPrefix(ns, "/")
	}
	for _, rs := range s.cfg.Robots {
		if rs.Namespace == ns && rs.Name != "" {
			name = rs.Name
		}
	}
	id, err := fleet.LoadIdentity(filepath.Join(s.cfg.DataDir, "ros2"), fmt.Sprintf("domain %d namespace %s", s.cfg.Domain, ns))
	if err != nil {
		return nil, err
	}
	log := s.log.With("robot", name, "namespace", ns)
	r := &Robot{ns: ns, log: log, s: s, dds: &namespace{s: s, ns: ns, log: log}}
	r.Robot = rosgraph.New(rosgraph.Config{
		Info:        fleetgate.Info{ID: id, Name: name, ConfigName: "ros2", ConfigVersion: "1", AgentVersion: s.cfg.AgentVersion},
		Source:      fleetgate.SourceROS2,
		PoseTopic:   inNS(ns, s.cfg.PoseTopic),
		GoalTopic:   inNS(ns, s.cfg.GoalTopic),
		ListGoal:    s.cfg.ListGoal,
		CancelTopic: inNS(ns, s.cfg.CancelTopic),
		Limits:      fleetgate.SpeedLimits{Linear: s.cfg.MaxLinear, Angular: s.cfg.MaxAngular},
		LogFile:     s.cfg.LogFile,
		HostStats:   s.cfg.HostStats,
		Logger:      log,
		Presence:    s.cfg.Presence,
		Self:        r,
		Unreachable: "none of its topics is in the ROS 2 graph",
		Linger:      s.cfg.Linger,
		ReadTimeout: s.cfg.ReadTimeout,
	}, r.dds)
	return r, nil
}

// topicInfo is one topic of a robot as a stream.
type topicInfo struct {
	name      string
	ros2Type  string // pkg/msg/Name
	ddsType   string
	direction string
	qos       dds.QoS // what a reader of it asks: matches every publisher
	// lateJoiners counts the subscribers that ask for transient-local durability, which
	// the agent's volatile writers never match.
	lateJoiners int
	readers     int
}

// topicsOf lists the topics of the robot of namespace ns.
func (s *Source) topicsOf(ns string) map[string]topicInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]topicInfo{}
	for name, t := range s.topics {
		if got, ok := s.namespaceLocked(name); !ok || got != ns {
			continue
		}
		ti := topicInfo{name: name, ddsType: t.ddsType, ros2Type: rosType(t.ddsType), readers: len(t.readers)}
		switch {
		case len(t.writers) > 0:
			ti.direction = fleetgate.Output
			ti.qos = dds.QoS{Reliable: true, TransientLocal: true, Depth: 1}
			for _, w := range t.writers {
				ti.qos.Reliable = ti.qos.Reliable && w.QoS.Reliable
				ti.qos.TransientLocal = ti.qos.TransientLocal && w.QoS.TransientLocal
			}
		case len(t.readers) > 0:
			ti.direction = fleetgate.Input
			for _, r := range t.readers {
				if r.QoS.TransientLocal {
					ti.lateJoiners++
				}
			}
		}
		out[name] = ti
	}
	return out
}

// Robots lists the robots found so far, by name.
func (s *Source) Robots() []*Robot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Values(s.robots))
	sort.Slice(out, func(i, j int) bool { return out[i].Info().Name < out[j].Info().Name })
	return out
}
