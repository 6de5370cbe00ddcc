package record

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
)

// The recorder tells its journal (the event log's recording entries) when a recording starts
// and when its file is complete, with the recording's id and the times on its clock.
func TestJournalOfARecording(t *testing.T) {
	clock := clocktest.NewAt(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	var told []Milestone
	cfg := testConfig(t)
	cfg.Clock = clock
	cfg.Journal = func(m Milestone) {
		mu.Lock()
		told = append(told, m)
		mu.Unlock()
	}
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, Duration: 4 * time.Second})
	emitWritten(t, robot, raw, r.ID, poseKey, typePose, posePayload(1))
	clock.Advance(4 * time.Second)
	waitFinished(t, robot, r.ID)
	// The end is told once the recording's state is saved, just after the list shows it.
	waitFor(t, "the end told to the journal", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(told) >= 2
	})

	mu.Lock()
	defer mu.Unlock()
	if len(told) != 2 {
		t.Fatalf("the journal was told %+v, want the start and the end", told)
	}
	begin, end := told[0], told[1]
	if begin.Recording != r.ID || end.Recording != r.ID || begin.RobotID != raw.Info().ID || end.Failed {
		t.Errorf("milestones %+v, want recording %s of robot %s, not failed", told, r.ID, raw.Info().ID)
	}
	if !strings.HasSuffix(begin.What, "started (1 streams)") || !strings.Contains(end.What, "finished: 4s") || !strings.Contains(end.What, "1 messages") {
		t.Errorf("words: %q, %q", begin.What, end.What)
	}
	if !begin.At.Equal(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)) || !end.At.Equal(begin.At.Add(4*time.Second)) {
		t.Errorf("times %v, %v: want the start and 4 s later on the recorder's clock", begin.At, end.At)
	}
}
