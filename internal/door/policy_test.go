package door_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// A robot's own thresholds govern its sessions in place of the gateway's: at 600 ms, past
// this robot's full-speed 100 ms and short of its quarter at 1.1 s, the limit is half
// (the gateway's defaults would allow 65%); another robot keeps the gateway's, and a policy
// out of order falls back to them.
func TestTheDoorGovernsByARobotsOwnDelays(t *testing.T) {
	c := clocktest.New()
	asked := map[string]int{}
	d := door.New(door.Config{Clock: c, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Delays: func(_ context.Context, robotID string) teleop.DelayPolicy {
			asked[robotID]++
			switch robotID {
			case robot1:
				return teleop.DelayPolicy{Full: 100 * time.Millisecond, Quarter: 1100 * time.Millisecond, Stop: 1500 * time.Millisecond}
			case "out-of-order":
				return teleop.DelayPolicy{Full: time.Second, Quarter: 500 * time.Millisecond, Stop: 2 * time.Second}
			}
			return teleop.DelayPolicy{}
		}})
	t.Cleanup(d.Close)

	r := newRobot()
	ctl, err := d.Take(context.Background(), r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	ctl.Observe(600 * time.Millisecond)
	if err := ctl.Command(fullStick()); err != nil {
		t.Fatal(err)
	}
	wantLinear(t, twistsOf(t, r), 0.625)
	if l := ctl.Limit(); l.Why != "picture 0.6 s late: 63% speed" {
		t.Fatalf("Limit().Why = %q, want the robot's own 63%%", l.Why)
	}
	// Beyond this robot's stop (1.5 s), short of the gateway's (2 s): held at zero.
	ctl.Observe(1600 * time.Millisecond)
	if l := ctl.Limit(); l.Scale != 0 || l.Why != "picture 1.6 s late: stopped" {
		t.Fatalf("beyond the robot's stop: %+v", l)
	}
	if asked[robot1] != 1 {
		t.Fatalf("the robot's policy was asked %d times for one session, want once", asked[robot1])
	}
	ctl.Stop()

	for _, id := range []string{"another", "out-of-order"} {
		other := newRobot()
		other.ID = id
		ctl, err := d.Take(context.Background(), other, cmdVel, alice)
		if err != nil {
			t.Fatal(err)
		}
		ctl.Observe(600 * time.Millisecond)
		if l := ctl.Limit(); l.Why != "picture 0.6 s late: 65% speed" {
			t.Errorf("robot %s: Limit().Why = %q, want the gateway's 65%%", id, l.Why)
		}
		ctl.Stop()
	}
}

// A session that got its control by a grant or a supervisor's override is governed like a
// taken one, by the robot's own thresholds (it drove at full speed whatever its delay).
func TestAGrantedOrOverriddenSessionIsGoverned(t *testing.T) {
	h := &handoverDoor{clock: clocktest.New()}
	h.Door = door.New(door.Config{Clock: h.clock, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Delays: func(context.Context, string) teleop.DelayPolicy {
			return teleop.DelayPolicy{Full: 100 * time.Millisecond, Quarter: 1100 * time.Millisecond, Stop: 1500 * time.Millisecond}
		}})
	t.Cleanup(h.Close)
	r := newRobot()
	alic := take(t, h, r, alice, true)
	a := request(h, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	if err := alic.ctl.Answer(true); err != nil {
		t.Fatal(err)
	}
	granted, err := a.answer(t)
	if err != nil {
		t.Fatal(err)
	}
	granted.Observe(600 * time.Millisecond)
	if l := granted.Limit(); l.Why != "picture 0.6 s late: 63% speed" {
		t.Fatalf("the granted session's limit: %+v, want the robot's own 63%%", l)
	}
	granted.Watch(func(door.Notice) {})
	overridden, err := h.Override(context.Background(), r, cmdVel, boss)
	if err != nil {
		t.Fatal(err)
	}
	overridden.Observe(1600 * time.Millisecond)
	if l := overridden.Limit(); l.Scale != 0 || l.Why != "picture 1.6 s late: stopped" {
		t.Fatalf("the supervisor's session beyond the robot's stop: %+v", l)
	}
}
