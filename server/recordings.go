package server

import (
	"fmt"
	"path/filepath"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/record"
)

// RecordingsDir is where an agent keeps its recordings.
func RecordingsDir(dataDir string) string { return filepath.Join(dataDir, "recordings") }

// openRecorder opens the agent's recorder, finalising the recordings that a crash left
// open. It closes (stopping and completing running recordings) before the robot sources
// stop, so that they end as "agent shutdown", not as robots gone offline.
func (s *Server) openRecorder(dataDir string) (*record.Recorder, error) {
	rec, err := record.Open(record.Config{
		Dir: RecordingsDir(dataDir), Quota: s.cfg.RecordingsQuota, RobotQuota: s.cfg.RecordingsRobotQuota, Logger: s.log, Library: "fleetgate " + s.cfg.Version,
		Journal: s.journal.addRecording,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the recordings: %w", err)
	}
	return rec, nil
}

// recordable wraps the robots of a source so the recorder can record them.
func recordable(rec *record.Recorder, robots []fleet.Robot) []fleet.Robot {
	out := make([]fleet.Robot, len(robots))
	for i, r := range robots {
		out[i] = rec.Wrap(r)
	}
	return out
}
