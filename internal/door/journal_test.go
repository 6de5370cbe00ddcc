package door_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The door journals every change of a stream's control (the event log's teleop entries):
// a session's take and release, an upload's take and its end by the deadman, a refusal with
// its reason, and the gateway's stop.
func TestDoorJournalsControlChanges(t *testing.T) {
	c := clocktest.New()
	var mu sync.Mutex
	var changes []door.Change
	d := door.New(door.Config{Clock: c, Journal: func(ch door.Change) {
		mu.Lock()
		changes = append(changes, ch)
		mu.Unlock()
	}})
	r := newRobot()
	ctx := context.Background()
	want := func(step string, lines ...string) {
		t.Helper()
		mu.Lock()
		got := changes
		changes = nil
		mu.Unlock()
		var what []string
		for _, ch := range got {
			what = append(what, ch.Who.User+": "+ch.What)
			if ch.RobotID != robot1 || ch.Key != cmdVel || !ch.At.Equal(c.Now()) {
				t.Errorf("%s: change %+v, want robot %s, stream base/cmd_vel, at %v", step, ch, robot1, c.Now())
			}
		}
		if strings.Join(what, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s: journal\n%s\nwant\n%s", step, strings.Join(what, "\n"), strings.Join(lines, "\n"))
		}
	}

	ctl, err := d.Take(ctx, r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	want("take", "alice@example.com: took control of base/cmd_vel (W3)")
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("bob's upload while alice drives: %v", err)
	}
	want("a refusal", "bob@example.com: refused a command for base/cmd_vel (upload-stream): stream base/cmd_vel is controlled by alice@example.com since 2026-03-01T12:00:00Z")
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 50}}); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("alice's x = 50: %v", err)
	}
	want("a session's command beyond 10x", "alice@example.com: refused a command for base/cmd_vel (W3): linear.x 50 m/s is beyond 10x the robot's limit of 1 m/s")
	d.Refused(r, cmdVel, bob, fleetgate.Errorf(fleetgate.EInvalid, "linear.x 60 m/s is beyond 10x the robot's limit of 1 m/s"))
	want("an edge's refusal", "bob@example.com: refused a command for base/cmd_vel (upload-stream): linear.x 60 m/s is beyond 10x the robot's limit of 1 m/s")
	ctl.Stop()
	want("release", "alice@example.com: released base/cmd_vel (W3)")

	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); err != nil {
		t.Fatal(err)
	}
	want("an upload", "bob@example.com: took control of base/cmd_vel (upload-stream)")
	c.Advance(500 * time.Millisecond)
	want("the deadman", "bob@example.com: the deadman stopped the robot (no command for 500ms) and released base/cmd_vel (upload-stream)")
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(50, 0), bob); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("x = 50: %v", err)
	}
	mu.Lock()
	refusal := changes
	changes = nil
	mu.Unlock()
	if len(refusal) != 1 || !refusal[0].Refusal || !strings.Contains(refusal[0].What, "50") {
		t.Errorf("the refusal of x = 50: %+v, want one naming the value", refusal)
	}

	if _, err := d.Take(ctx, r, cmdVel, alice); err != nil {
		t.Fatal(err)
	}
	want("take again", "alice@example.com: took control of base/cmd_vel (W3)")
	d.Close()
	want("the gateway stops", "alice@example.com: the gateway stopped: zeroed and released base/cmd_vel (W3)")
}

// The changes a safety rule made say so (the flight recorder's triggers): a speed refusal,
// and the deadman stopping a session's moving robot, not one that a zero stopped; a command
// that reached the robot is told to Published, one refused is not.
func TestDoorTellsSafetyChangesAndCommands(t *testing.T) {
	c := clocktest.New()
	var mu sync.Mutex
	var safety []string
	var published [][]byte
	d := door.New(door.Config{Clock: c,
		Journal: func(ch door.Change) {
			mu.Lock()
			defer mu.Unlock()
			if ch.Safety != "" {
				safety = append(safety, ch.Safety+": "+ch.What)
			}
		},
		Published: func(robotID string, key fleetgate.StreamKey, typ string, payload []byte, at time.Time) {
			mu.Lock()
			defer mu.Unlock()
			if robotID == robot1 && key == cmdVel && typ == twist && at.Equal(c.Now()) {
				published = append(published, payload)
			}
		}})
	r := newRobot()
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}})
	ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 50}})
	c.Advance(time.Second) // silence while moving: the deadman stops the robot
	ctl.Command(&catalogpb.Twist{})
	c.Advance(time.Second) // silence after a zero: nothing to tell
	ctl.Stop()
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(60, 0), bob); err == nil {
		t.Fatal("an upload of x = 60 went through")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"speed refusal: refused a command for base/cmd_vel (W3): linear.x 50 m/s is beyond 10x the robot's limit of 1 m/s",
		"deadman: the deadman stopped the moving robot (no command for 500ms) on base/cmd_vel (W3)",
		"speed refusal: refused a command for base/cmd_vel (upload-stream): linear.x 60 m/s is beyond 10x the robot's limit of 1 m/s",
	}
	if strings.Join(safety, "\n") != strings.Join(want, "\n") {
		t.Errorf("safety changes\n%s\nwant\n%s", strings.Join(safety, "\n"), strings.Join(want, "\n"))
	}
	// 0.5, the deadman's zero, the zero, the deadman's zero after it, Stop's zero: what the
	// robot took.
	if got := len(published); got != len(r.Published()) || got < 3 {
		t.Errorf("Published was told %d commands; the robot took %d", got, len(r.Published()))
	}
}
