package server

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/record"
)

// RecordingsDir is where an agent keeps its recordings.
func RecordingsDir(dataDir string) string { return filepath.Join(dataDir, "recordings") }

// openRecorder opens the agent's recorder, finalising the recordings that a crash left
// open. It closes (stopping and completing running recordings) before the robot sources
// stop, so that they end as "agent shutdown", not as robots gone offline.
func (s *Server) openRecorder(dataDir string) (*record.Recorder, error) {
	agent, _ := os.Hostname()
	rec, err := record.Open(record.Config{
		Dir: RecordingsDir(dataDir), Quota: s.cfg.RecordingsQuota, RobotQuota: s.cfg.RecordingsRobotQuota, Logger: s.log, Library: "fleetgate " + s.cfg.Version,
		Journal: s.journal.addRecording,
		Fleet:   fleetgate.LocalFleetID, Agent: agent, Version: s.cfg.Version,
		Flight: record.FlightConfig{Buffer: s.cfg.FlightBuffer, MaxBytes: s.cfg.FlightBufferMax, After: s.cfg.FlightAfter},
		Video:  s.video,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the recordings: %w", err)
	}
	return rec, nil
}

// doorChanged is the door's journal: the change becomes an entry of the event log, and one a
// safety rule made (a speed refusal, the deadman stopping a moving robot) triggers the robot's
// flight recorder.
func (s *Server) doorChanged(c door.Change) {
	s.journal.add(c)
	if c.Safety == "" || s.recorder == nil {
		return
	}
	// The trigger writes the recording's description to disk: the door does not wait for it.
	go func() {
		if _, err := s.recorder.Trigger(c.RobotID, c.Safety, ""); err != nil && !fleetgate.Is(err, fleetgate.EUnavailable) {
			s.log.Warn("the flight recorder did not record", "robot_id", c.RobotID, "trigger", c.Safety, "err", err)
		}
	}()
}

// commandSent is the door's Published: the flight recorder keeps the commands that went out.
func (s *Server) commandSent(robotID string, key fleetgate.StreamKey, typ string, payload []byte, at time.Time) {
	if s.recorder != nil {
		s.recorder.Command(robotID, key, typ, payload, at)
	}
}

// recordable wraps the robots of a source so the recorder can record them.
func recordable(rec *record.Recorder, robots []fleet.Robot) []fleet.Robot {
	out := make([]fleet.Robot, len(robots))
	for i, r := range robots {
		out[i] = rec.Wrap(r)
	}
	return out
}
