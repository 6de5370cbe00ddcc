package door_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

func fullStick() *catalogpb.Twist {
	return &catalogpb.Twist{Linear: &catalogpb.Vector3{X: 1}, Angular: &catalogpb.Vector3{Z: 1.5}}
}

// wantLinear checks the linear speeds the robot received, within float32-free rounding.
func wantLinear(t *testing.T, got [][2]float64, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("the robot received %v, want linear speeds %v", got, want)
	}
	for i := range got {
		if math.Abs(got[i][0]-want[i]) > 1e-9 {
			t.Fatalf("the robot received %v, want linear speeds %v", got, want)
		}
	}
}

// A live session's commands are held to the share of the limits its operator's delay allows.
func TestTheGovernorScalesALiveSessionsCommands(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newRobot()
	ctl, err := d.Take(context.Background(), r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	// Not measured yet: full speed for the first second.
	if err := ctl.Command(fullStick()); err != nil {
		t.Fatal(err)
	}
	ctl.Observe(600 * time.Millisecond)
	c.Advance(teleop.DefaultMinInterval)
	if err := ctl.Command(fullStick()); err != nil {
		t.Fatal(err)
	}
	got := twistsOf(t, r)
	wantLinear(t, got, 1, 0.65)
	if math.Abs(got[1][1]-1.5*0.65) > 1e-9 {
		t.Fatalf("angular speed at 600 ms: %v, want %v", got[1][1], 1.5*0.65)
	}
	if l := ctl.Limit(); l.Why != "picture 0.6 s late: 65% speed" {
		t.Fatalf("Limit().Why = %q", l.Why)
	}
	// Beyond the stop the commands become zero.
	ctl.Observe(2100 * time.Millisecond)
	c.Advance(teleop.DefaultMinInterval)
	if err := ctl.Command(fullStick()); err != nil {
		t.Fatal(err)
	}
	wantLinear(t, twistsOf(t, r), 1, 0.65, 0)
	if l := ctl.Limit(); l.Scale != 0 || l.Why != "picture 2.1 s late: stopped" {
		t.Fatalf("Limit() = %+v", l)
	}
}

// A session that never measures, or stops measuring, is held at zero at once, between
// commands: the robot does not drive on for the deadman's half second.
func TestTheGovernorHoldsAnUnmeasuredSession(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newRobot()
	ctl, err := d.Take(context.Background(), r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // within the deadman, so nothing but the governor stops the robot
		if err := ctl.Command(fullStick()); err != nil {
			t.Fatal(err)
		}
		c.Advance(teleop.UnknownGrace / 3)
	}
	if err := ctl.Command(fullStick()); err != nil {
		t.Fatal(err)
	}
	c.Advance(teleop.UnknownGrace - 2*(teleop.UnknownGrace/3) - time.Millisecond)
	// 999 ms: still full speed.
	if l := ctl.Limit(); l.Scale != 1 {
		t.Fatalf("within the first second: %+v", l)
	}
	wantLinear(t, twistsOf(t, r), 1, 1, 1)
	c.Advance(time.Millisecond)
	if l := ctl.Limit(); l.Scale != 0 || l.Why != "delay not measured: stopped" {
		t.Fatalf("after the first second, never measured: %+v", l)
	}
	wantLinear(t, twistsOf(t, r), 1, 1, 1, 0) // the zero went out when the verdict turned
	ctl.Limit()
	wantLinear(t, twistsOf(t, r), 1, 1, 1, 0) // once
	// Measured again: it drives; then silent for 2 s: held again.
	ctl.Observe(100 * time.Millisecond)
	if err := ctl.Command(fullStick()); err != nil {
		t.Fatal(err)
	}
	wantLinear(t, twistsOf(t, r), 1, 1, 1, 0, 1)
	for range 5 { // commands keep coming, the measurements do not
		c.Advance(teleop.StaleAfter / 5)
		if err := ctl.Command(fullStick()); err != nil {
			t.Fatal(err)
		}
	}
	wantLinear(t, twistsOf(t, r), 1, 1, 1, 0, 1, 1, 1, 1, 1, 1)
	c.Advance(time.Millisecond)
	if l := ctl.Limit(); l.Scale != 0 {
		t.Fatalf("a stale measurement: %+v", l)
	}
	if got := twistsOf(t, r); got[len(got)-1][0] != 0 {
		t.Fatalf("not held after a stale measurement: %v", got)
	}
}

// Uploads are not governed: their clients cannot be measured, and they end with the deadman.
func TestTheGovernorLeavesUploadsAlone(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newRobot()
	c.Advance(5 * time.Second)
	if err := d.Send(context.Background(), r, cmdVel, twist, fleettest.TwistPayload(1, 0), door.Who{User: "bob@example.com", Path: door.PathUpload}); err != nil {
		t.Fatal(err)
	}
	wantLinear(t, twistsOf(t, r), 1)
}
