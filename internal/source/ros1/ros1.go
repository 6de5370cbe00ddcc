// Package ros1 is the ROS 1 robot source: one robot per ROS master, whose topics are its
// streams (source 2). It speaks the ROS 1 protocols itself (rosnode, tcpros, xmlrpc beneath
// it) and implements fleet.Robot, so nothing above the contract learns about ROS. The robot
// is internal/source/rosgraph's, which ROS 2 shares; this package is its transport.
//
// The robot is online while its master answers. Topics are listed from the master at most
// every PollPeriod and only when someone asks; each topic is subscribed to once, on its first
// reader, and dropped Linger after its last; an input topic is advertised on first use and
// kept. After a master restart the agent registers again.
package ros1

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rosnode"
	"github.com/fleetgate/fleetgate/internal/source/rosgraph"
)

// Presence is told when the robot comes online (its master answers and the agent is
// registered) and goes offline; the server adapts the fleet registry to it.
type Presence = rosgraph.Presence

// Config configures the robot of one ROS master.
type Config struct {
	MasterURI string // http://host:11311
	Name      string // robot name; default: the master's host
	PoseTopic string // nav_msgs/Odometry or geometry_msgs/PoseStamped; default /odom
	// GoalTopic takes the goals of the robot's nav/goal stream (geometry_msgs/PoseStamped,
	// move_base's; default /move_base_simple/goal), listed when a node subscribes to it or
	// always with ListGoal; CancelTopic takes a goal's cancel (actionlib_msgs/GoalID; default
	// /move_base/cancel).
	GoalTopic, CancelTopic string
	ListGoal               bool
	// MaxLinear (m/s) and MaxAngular (rad/s, or rad of steering) are the speed limits input
	// topics declare (fleetgate.Stream.Limits); the gateway clamps drive commands to them.
	MaxLinear, MaxAngular float64
	// Host is the address the agent advertises to ROS nodes; default from ROS_HOSTNAME,
	// ROS_IP or the host name (rosnode.AdvertisedHost).
	Host         string
	DataDir      string // the robot's id is kept under DataDir/ros1
	LogFile      string // the agent's log file, offered as a resource; may be empty
	AgentVersion string
	HostStats    *hoststat.Sampler // nil: no host metrics
	Logger       *slog.Logger
	Presence     Presence

	// Timing; zero means the default. Tests shorten them.
	PollPeriod   time.Duration // topic list refresh and master check; default 2 s
	Linger       time.Duration // a topic nobody reads is unsubscribed after this; default 5 s
	ReadTimeout  time.Duration // a read waits this long for a first message; default 5 s
	OfflineAfter int           // failed master checks, 1 s apart, before going offline; default 2
	// Now is the clock of the topic list's age; default time.Now. Tests inject theirs.
	Now func() time.Time
}

// Defaults.
const (
	DefaultPoseTopic   = "/odom"
	DefaultGoalTopic   = "/move_base_simple/goal"
	DefaultCancelTopic = "/move_base/cancel"
	DefaultMaxLinear   = 1.0
	DefaultMaxAngular  = 1.5
	defaultPoll        = 2 * time.Second
	defaultLinger      = 5 * time.Second
	defaultRead        = 5 * time.Second
	// retryPeriod is how often an unreachable master is tried: its return is noticed
	// within a second, well inside the 5 s re-registration promise.
	retryPeriod = time.Second
)

// Robot is the robot of one ROS master: a ROS-graph robot (rosgraph) over the master's
// topic list and TCPROS. It implements fleet.Robot, fleet.MessageDefinitions and
// fleet.MessageTemplates.
type Robot struct {
	*rosgraph.Robot
	cfg   Config
	log   *slog.Logger
	node  *rosnode.Node
	graph *graph

	stop      context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

var (
	_ fleet.Robot              = (*Robot)(nil)
	_ fleet.MessageDefinitions = (*Robot)(nil)
	_ fleet.MessageTemplates   = (*Robot)(nil)
)

// Start starts the node and the loop that follows the master. The robot goes online through
// cfg.Presence as soon as its master answers; Start does not wait for it.
func Start(ctx context.Context, cfg Config) (*Robot, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Presence == nil {
		return nil, errors.New("ros1: no Presence")
	}
	u, err := url.Parse(cfg.MasterURI)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("ros1: master URI %q is not http://host:port", cfg.MasterURI)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	cfg.MasterURI = u.String()
	if cfg.Name == "" {
		cfg.Name = u.Hostname()
	}
	if cfg.GoalTopic == "" {
		cfg.GoalTopic = DefaultGoalTopic
	}
	if cfg.CancelTopic == "" {
		cfg.CancelTopic = DefaultCancelTopic
	}
	if cfg.PoseTopic == "" {
		cfg.PoseTopic = DefaultPoseTopic
	}
	if cfg.MaxLinear <= 0 {
		cfg.MaxLinear = DefaultMaxLinear
	}
	if cfg.MaxAngular <= 0 {
		cfg.MaxAngular = DefaultMaxAngular
	}
	if cfg.PollPeriod <= 0 {
		cfg.PollPeriod = defaultPoll
	}
	if cfg.Linger <= 0 {
		cfg.Linger = defaultLinger
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = defaultRead
	}
	if cfg.OfflineAfter <= 0 {
		cfg.OfflineAfter = 2
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	id, err := fleet.LoadIdentity(filepath.Join(cfg.DataDir, "ros1"), cfg.MasterURI)
	if err != nil {
		return nil, fmt.Errorf("ros1: %w", err)
	}
	log := cfg.Logger.With("robot", cfg.Name, "master", cfg.MasterURI)
	// One node name per robot, stable across restarts: a restarted agent takes over its
	// own registrations instead of leaving a dead node beside a new one.
	node, err := rosnode.Start(rosnode.Config{
		Name:      "/fleetgate_" + strings.ReplaceAll(id, "-", "")[:12],
		MasterURI: cfg.MasterURI,
		Host:      cfg.Host,
		Logger:    log,
	})
	if err != nil {
		return nil, fmt.Errorf("ros1: %w", err)
	}
	r := &Robot{cfg: cfg, log: log, node: node, done: make(chan struct{})}
	r.graph = &graph{node: node, log: log, period: cfg.PollPeriod, now: cfg.Now}
	r.Robot = rosgraph.New(rosgraph.Config{
		Info: fleetgate.Info{
			ID:            id,
			Name:          cfg.Name,
			ConfigName:    "ros1",
			ConfigVersion: "1",
			AgentVersion:  cfg.AgentVersion,
		},
		Source:      fleetgate.SourceROS1,
		PoseTopic:   cfg.PoseTopic,
		GoalTopic:   cfg.GoalTopic,
		ListGoal:    cfg.ListGoal,
		CancelTopic: cfg.CancelTopic,
		Limits:      fleetgate.SpeedLimits{Linear: cfg.MaxLinear, Angular: cfg.MaxAngular},
		LogFile:     cfg.LogFile,
		HostStats:   cfg.HostStats,
		Logger:      log,
		Presence:    cfg.Presence,
		Self:        r,
		Unreachable: "its ROS master does not answer",
		Linger:      cfg.Linger,
		ReadTimeout: cfg.ReadTimeout,
	}, r.graph)
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r.stop = stop
	go r.run(runCtx)
	context.AfterFunc(ctx, r.Close)
	r.log.Info("ROS 1 node started", "node", r.node.Name(), "api", r.node.URI())
	return r, nil
}

// Close takes the robot offline, unregisters from the master and stops the node (which
// closes the publishers).
func (r *Robot) Close() {
	r.closeOnce.Do(func() {
		r.stop()
		<-r.done
		r.goOffline("the agent is stopping")
		r.node.Close()
	})
}

// run follows the master: online while it answers, offline after OfflineAfter failed checks,
// registered again when it comes back or restarts.
func (r *Robot) run(ctx context.Context) {
	defer close(r.done)
	failures, lastPID := 0, 0
	for {
		ctxCall, cancel := context.WithTimeout(ctx, r.cfg.PollPeriod)
		pid, err := r.node.Master().GetPid(ctxCall)
		cancel()
		if ctx.Err() != nil {
			return
		}
		online := r.Online()
		wait := r.cfg.PollPeriod
		switch {
		case err != nil:
			failures++
			wait = retryPeriod
			if online && failures >= r.cfg.OfflineAfter {
				r.log.Warn("ROS master unreachable; robot offline", "err", err)
				r.goOffline("the ROS master is unreachable")
			}
		case !online:
			failures = 0
			if err := r.goOnline(ctx, pid); err != nil {
				r.log.Warn("ROS master answers but the robot cannot go online yet", "err", err)
				wait = retryPeriod
			} else {
				lastPID = pid
			}
		case pid != lastPID:
			failures = 0
			// Restarted between two checks: the new master knows nothing of us.
			r.log.Info("ROS master restarted; registering again", "pid", pid)
			lastPID = pid
			r.graph.forget()
			if err := r.node.Reregister(ctx); err != nil {
				r.log.Warn("registering again with the ROS master", "err", err)
			}
		default:
			failures = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func (r *Robot) goOnline(ctx context.Context, pid int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*r.cfg.PollPeriod+5*time.Second)
	defer cancel()
	// Publications are kept across a master's absence; the new master must learn them.
	if err := r.node.Reregister(ctx); err != nil {
		return err
	}
	r.graph.forget() // the new master's topics, not the old one's
	if err := r.GoOnline(ctx); err != nil {
		return fmt.Errorf("registering the robot: %w", err)
	}
	r.log.Info("ROS master answers; robot online", "pid", pid)
	return nil
}

// goOffline ends every reader with fleetgate.EOffline and forgets the publishers' message
// definitions; the publishers stay, to be registered again when the master returns.
func (r *Robot) goOffline(why string) {
	r.GoOffline(why)
	r.graph.forgetDefinitions()
}
