package server

import (
	"context"
	"fmt"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/source/ros1"
)

// ROS1Config is one ROS 1 robot an agent hosts: the robot of one ROS master.
type ROS1Config struct {
	MasterURI  string  // http://host:11311
	Name       string  // default: the master's host
	PoseTopic  string  // default /odom
	MaxLinear  float64 // m/s; default 1.0
	MaxAngular float64 // rad/s; default 1.5
	// GoalTopic and CancelTopic: a goal's topic and its cancel's (ros1.Config); ListGoal lists
	// nav/goal even while no node subscribes to GoalTopic.
	GoalTopic, CancelTopic string
	ListGoal               bool
}

// startROS1 starts a ROS 1 robot per configured master. Each goes online in the registry
// when its master answers, and offline when it stops answering.
func (s *Server) startROS1(ctx context.Context) error {
	for _, rc := range s.cfg.ROS1 {
		r, err := ros1.Start(ctx, ros1.Config{
			MasterURI:    rc.MasterURI,
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
			Logger:       s.log.With("source", "ros1"),
			Presence:     ros1Presence{s},
		})
		if err != nil {
			return fmt.Errorf("starting the ROS 1 robot of %s: %w", rc.MasterURI, err)
		}
		s.cams.expect(r.Info().Name) // its cameras wait for it to come online
		s.closers = append(s.closers, r.Close)
	}
	return nil
}

// ros1Presence puts a ROS 1 robot in the registry while its master answers.
type ros1Presence struct{ s *Server }

func (p ros1Presence) Online(ctx context.Context, r fleet.Robot) error {
	return p.s.registry.Add(ctx, p.s.hosted(r), p.s.localFleetID())
}

func (p ros1Presence) Offline(r fleet.Robot) { p.s.registry.Remove(p.s.hosted(r)) }
