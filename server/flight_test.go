package server

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/record"
)

// The door's safety changes trigger the robot's flight recorder (named after the rule), its
// other changes do not, and the commands it sent fill the buffer.
func TestDoorSafetyTriggersTheFlightRecorder(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rec, err := record.Open(record.Config{Dir: t.TempDir(), Logger: log, Flight: record.FlightConfig{Buffer: time.Minute, After: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	s := &Server{log: log, journal: newJournal(log), recorder: rec}
	robot := rec.Wrap(&fleettest.Robot{ID: "6f1e0c1a-0000-4000-8000-000000000001", Name: "one"})
	key := fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
	sent := time.Now().Add(-time.Second)
	s.commandSent(robot.Info().ID, key, "Platform.Messages.geometry_msgs.Twist", fleettest.TwistPayload(0.5, 0), sent)
	s.doorChanged(door.Change{RobotID: robot.Info().ID, Key: key, What: "took control of base/cmd_vel (W3)"})
	s.doorChanged(door.Change{RobotID: robot.Info().ID, Key: key, What: "refused ...", Refusal: true, Safety: door.SafetySpeedRefusal})
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := robot.Recordings(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Trigger == door.SafetySpeedRefusal {
			// It starts with the buffer's oldest sample: the command.
			if !list[0].StartTime.Equal(sent.UTC().Truncate(time.Millisecond)) {
				t.Errorf("the recording starts at %v; the command was sent at %v", list[0].StartTime, sent)
			}
			break
		}
		if len(list) > 1 || time.Now().After(deadline) {
			t.Fatalf("recordings %+v: want one, of the speed refusal", list)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(s.journal.queue); n != 2 {
		t.Errorf("%d entries journalled, want both changes", n)
	}
}

// An alert raised for a robot recorded here triggers its flight recorder, named after the
// alert; an acknowledgement or a clearing does not, and each is an entry.
func TestARaisedAlertTriggersTheFlightRecorder(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rec, err := record.Open(record.Config{Dir: t.TempDir(), Logger: log, Flight: record.FlightConfig{Buffer: time.Minute, After: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	s := &Server{log: log, journal: newJournal(log), recorder: rec}
	robot := rec.Wrap(&fleettest.Robot{ID: "6f1e0c1a-0000-4000-8000-000000000002", Name: "two"})
	blocked := fleetgate.OpenAlert{Alert: fleetgate.Alert{Kind: fleetgate.AlertBlocked, Words: "blocked"}, RobotID: robot.Info().ID, Since: time.Now()}
	s.alertChanged(alert.Change{What: alert.Acknowledged, Alert: blocked, At: time.Now()})
	s.alertChanged(alert.Change{What: alert.Cleared, Alert: blocked, At: time.Now()})
	s.alertChanged(alert.Change{What: alert.Raised, Alert: blocked, At: time.Now()})
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := robot.Recordings(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Trigger == "alert: blocked" {
			break
		}
		if len(list) > 1 || time.Now().After(deadline) {
			t.Fatalf("recordings %+v: want one, of the raised alert", list)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(s.journal.queue); n != 3 {
		t.Errorf("%d entries journalled, want the three changes", n)
	}
}
