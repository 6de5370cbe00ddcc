package server

import (
	"context"
	"fmt"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/source/ros2"
)

// ROS2Config is an agent's gateway to the ROS 2 graph of its network (nil: none).
type ROS2Config struct {
	Domain    int
	Interface string
	Peers     []string
	XML       string
	MaxSample int
	Robots    []ros2.RobotSpec // empty: one robot per namespace found
	Name      string           // the root namespace's robot; default: the host name
	PoseTopic string           // relative to each namespace; default odom
	// GoalTopic and CancelTopic: a goal's topic and its cancel's, relative to each namespace
	// (ros2.Config); ListGoal lists nav/goal even while no node subscribes to GoalTopic.
	GoalTopic, CancelTopic string
	ListGoal               bool
	MaxLinear              float64
	MaxAngular             float64
}

// startROS2 joins the ROS 2 graph; its robots go online in the registry as they are found and
// offline when their topics leave.
func (s *Server) startROS2(ctx context.Context) error {
	rc := s.cfg.ROS2
	if rc == nil {
		return nil
	}
	src, err := ros2.Start(ctx, ros2.Config{
		Domain:       rc.Domain,
		Interface:    rc.Interface,
		Peers:        rc.Peers,
		XML:          rc.XML,
		MaxSample:    rc.MaxSample,
		Robots:       rc.Robots,
		Name:         rc.Name,
		PoseTopic:    rc.PoseTopic,
		GoalTopic:    rc.GoalTopic,
		CancelTopic:  rc.CancelTopic,
		ListGoal:     rc.ListGoal,
		MaxLinear:    rc.MaxLinear,
		MaxAngular:   rc.MaxAngular,
		DataDir:      s.cfg.DataDir,
		LogFile:      LogFile(s.cfg.DataDir),
		AgentVersion: s.cfg.Version,
		HostStats:    hoststat.New(s.cfg.DataDir),
		Logger:       s.log.With("source", "ros2"),
		Presence:     ros2Presence{s},
	})
	if err != nil {
		return fmt.Errorf("starting the ROS 2 source: %w", err)
	}
	s.closers = append(s.closers, src.Close)
	return nil
}

// ros2Presence puts a ROS 2 robot in the registry while it has topics in the graph.
type ros2Presence struct{ s *Server }

func (p ros2Presence) Online(ctx context.Context, r fleet.Robot) error {
	return p.s.registry.Add(ctx, p.s.hosted(r), p.s.localFleetID())
}

func (p ros2Presence) Offline(r fleet.Robot) { p.s.registry.Remove(p.s.hosted(r)) }
