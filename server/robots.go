package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/source/sim"
)

// SimConfig configures the simulated robots an agent hosts.
type SimConfig struct {
	Count      int           // robots to simulate; 0: none
	Seed       int64         // the world and start poses are deterministic for a seed
	CmdTimeout time.Duration // brake to a stop when no command arrived for this long
	ClockStrip bool          // burn each picture's capture time into it (sim.Config.ClockStrip)
}

// keepSeenPeriod is how often connected robots' lastTimeSeen is written.
const keepSeenPeriod = 30 * time.Second

// LogFile is the agent's own log file inside its data directory, offered as a resource.
func LogFile(dataDir string) string { return filepath.Join(dataDir, "fleetgate.log") }

// maxLogFile is the size past which the log file is rotated (once, to .1) at start.
const maxLogFile = 8 << 20

// openLogFile opens the agent's log file for appending, rotating an old large one.
func openLogFile(dataDir string) (*os.File, error) {
	path := LogFile(dataDir)
	if st, err := os.Stat(path); err == nil && st.Size() > maxLogFile {
		if err := os.Rename(path, path+".1"); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}

// teeLog makes the server log to its log file as well as where it logged before.
func (s *Server) teeLog() error {
	f, err := openLogFile(s.cfg.DataDir)
	if err != nil {
		return fmt.Errorf("opening the log file: %w", err)
	}
	s.logFile = f
	s.log = slog.New(slog.NewMultiHandler(s.log.Handler(), slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})))
	return nil
}

// startRobots starts the robot sources of this gateway and registers their robots. They run
// until ctx ends. Every robot goes through s.cams.decorate, which adds the cameras configured
// for it; the agent's own camera robot comes last.
func (s *Server) startRobots(ctx context.Context) error {
	rec, err := s.openRecorder(s.cfg.DataDir)
	if err != nil {
		return err
	}
	s.recorder = rec
	// Closers run newest first: the recordings end before the robot sources stop, as
	// "agent shutdown" rather than as robots gone offline.
	defer func() { s.closers = append(s.closers, rec.Close) }()
	if err := s.startSim(ctx); err != nil {
		return err
	}
	if err := s.startROS1(ctx); err != nil {
		return err
	}
	if err := s.startROS2(ctx); err != nil {
		return err
	}
	return s.startCameraHost(ctx)
}

// startSim starts the simulated robots.
func (s *Server) startSim(ctx context.Context) error {
	if s.cfg.Sim.Count <= 0 {
		return nil
	}
	simulation, err := sim.Start(ctx, sim.Config{
		Count:        s.cfg.Sim.Count,
		Seed:         s.cfg.Sim.Seed,
		CmdTimeout:   s.cfg.Sim.CmdTimeout,
		DataDir:      s.cfg.DataDir,
		LogFile:      LogFile(s.cfg.DataDir),
		AgentVersion: s.cfg.Version,
		Host:         hoststat.New(s.cfg.DataDir),
		Logger:       s.log.With("source", "sim"),
		ClockStrip:   s.cfg.Sim.ClockStrip,
	})
	if err != nil {
		return fmt.Errorf("starting the simulation: %w", err)
	}
	robots := make([]fleet.Robot, 0, len(simulation.Robots()))
	for _, r := range simulation.Robots() {
		robots = append(robots, s.hosted(r))
	}
	s.closers = append(s.closers, func() {
		for _, r := range robots {
			s.registry.Remove(r)
		}
		simulation.Close()
	})
	for _, r := range robots {
		if err := s.registry.Add(ctx, r, s.localFleetID()); err != nil {
			return fmt.Errorf("registering simulated robot %s: %w", r.Info().Name, err)
		}
	}
	return nil
}

// localFleetID is the fleet robots hosted by this process join: an agent's robots are
// local-fleet. (The cloud hosts none itself; agents bring theirs over the link.)
func (s *Server) localFleetID() string { return fleetgate.LocalFleetID }

var _ gateway.Presence = (*fleet.Registry)(nil)

// tracker forwards the registry's presence records to the gateway core, which is built after
// the registry (the core needs the registry as its Presence).
type tracker struct{ s *Server }

func (t tracker) RobotOnline(ctx context.Context, info fleetgate.Info, home fleet.Home, at time.Time) error {
	return t.s.gw.RobotOnline(ctx, info, home, at)
}

func (t tracker) RobotSeen(ctx context.Context, id string, at time.Time) error {
	return t.s.gw.RobotSeen(ctx, id, at)
}

// hosted is robot r as this agent hosts it: with the cameras configured for it
// (--camera ROBOT/NAME=URL), and recordable (the recorder outermost, so that its recordings
// take the cameras too). Each layer keeps one wrapper per robot, so the same r is always
// the same hosted robot (the registry removes what it added).
func (s *Server) hosted(r fleet.Robot) fleet.Robot {
	return s.recorder.Wrap(s.cams.decorate(r))
}
