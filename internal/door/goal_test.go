package door_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

var navGoal = fleetgate.StreamKey{Component: "nav", Name: "goal", Source: fleetgate.SourceComponent}

// newGoalRobot is newRobot with a goal stream, nav/goal.
func newGoalRobot() *fleettest.Robot {
	r := newRobot()
	r.StreamList = append(r.StreamList, fleetgate.Stream{Component: "nav", Name: "goal", Type: door.GoalType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent})
	return r
}

func goal(t *testing.T, x, y float64) []byte {
	return mustMarshal(t, &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: x, Y: y}}})
}

// aliceUpload is alice's REST upload: the same person as her W3 session, so under her lease.
var aliceUpload = door.Who{User: alice.User, Path: door.PathUpload}

// goalEvents is what the robot received, in order: "goal", "cancel", or a Twist as "0,0".
func goalEvents(t *testing.T, r *fleettest.Robot) string {
	t.Helper()
	var out []string
	for _, p := range r.Published() {
		switch {
		case p.Key == navGoal && p.Cancel:
			out = append(out, "cancel")
		case p.Key == navGoal:
			out = append(out, "goal")
		case p.Key == cmdVel:
			var m catalogpb.Twist
			if err := proto.Unmarshal(p.Payload, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%g,%g", m.GetLinear().GetX(), m.GetAngular().GetZ()))
		}
	}
	return strings.Join(out, " ")
}

// takeWithGoal has alice take cmd_vel and send a goal through her upload.
func takeWithGoal(t *testing.T, d *door.Door, r *fleettest.Robot) *door.Control {
	t.Helper()
	ctl, err := d.Take(context.Background(), r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Send(context.Background(), r, navGoal, door.GoalType, goal(t, 4, 2), aliceUpload); err != nil {
		t.Fatalf("alice's goal: %v", err)
	}
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("the robot received %q, want the goal", got)
	}
	return ctl
}

func TestReleasingControlCancelsTheGoal(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newGoalRobot()
	ctl := takeWithGoal(t, d, r)
	if err := ctl.Stop(); err != nil { // release, STOP, a lost link: the session stops its control
		t.Fatal(err)
	}
	if got := goalEvents(t, r); got != "goal cancel 0,0" {
		t.Fatalf("after release the robot received %q, want the goal, its cancel and a zero", got)
	}
}

func TestTheDeadmanCancelsTheGoal(t *testing.T) {
	c := clocktest.New()
	var mu sync.Mutex
	var changes []door.Change
	d := door.New(door.Config{Clock: c, Journal: func(ch door.Change) {
		mu.Lock()
		changes = append(changes, ch)
		mu.Unlock()
	}})
	t.Cleanup(d.Close)
	r := newGoalRobot()
	ctl := takeWithGoal(t, d, r)
	// The holder is there: zeros keep the goal alive and do not reach the robot (its
	// navigation drives it; a ROS robot's must not be fought with zeros).
	for range 10 {
		c.Advance(200 * time.Millisecond)
		if err := ctl.Command(&catalogpb.Twist{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("while the holder sends zeros the robot received %q, want the goal alone", got)
	}
	// The holder falls silent: the deadman's zero and the goal's cancel.
	c.Advance(499 * time.Millisecond)
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("before the deadman the robot received %q", got)
	}
	c.Advance(time.Millisecond)
	if got := goalEvents(t, r); got != "goal 0,0 cancel" {
		t.Fatalf("after the deadman the robot received %q, want the zero and the cancel", got)
	}
	found := false
	mu.Lock()
	seen := changes
	mu.Unlock()
	for _, ch := range seen {
		found = found || (ch.Safety == door.SafetyDeadman && strings.Contains(ch.What, "cancelled the robot's goal"))
	}
	if !found {
		t.Fatalf("no deadman entry in the journal: %+v", seen)
	}
	// Control is kept: a zero now goes to the robot again, and no second cancel.
	if err := ctl.Command(&catalogpb.Twist{}); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := goalEvents(t, r); got != "goal 0,0 cancel 0,0 0,0" {
		t.Fatalf("the robot received %q", got)
	}
}

func TestDrivingByHandCancelsTheGoalFirst(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newGoalRobot()
	ctl := takeWithGoal(t, d, r)
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}}); err != nil {
		t.Fatal(err)
	}
	if got := goalEvents(t, r); got != "goal cancel 0.5,0" {
		t.Fatalf("the robot received %q, want the cancel before the motion", got)
	}
}

func TestAGoalComesOnlyFromWhoeverDrives(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newGoalRobot()
	ctx := context.Background()
	if _, err := d.Take(ctx, r, cmdVel, alice); err != nil {
		t.Fatal(err)
	}
	for _, who := range []door.Who{bob, {User: alice.User, Path: door.PathLink}} {
		err := d.Send(ctx, r, navGoal, door.GoalType, goal(t, 4, 2), who)
		if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != alice.User {
			t.Fatalf("a goal of %+v: %v, want held by alice", who, err)
		}
	}
	if got := goalEvents(t, r); got != "" {
		t.Fatalf("the robot received %q", got)
	}
}

func TestAnUploadedGoalTakesTheLeaseUntilTheDeadman(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newGoalRobot()
	ctx := context.Background()
	if err := d.Send(ctx, r, navGoal, door.GoalType, goal(t, 4, 2), bob); err != nil {
		t.Fatal(err)
	}
	if held := d.Held(robot1); len(held) != 1 || held[0].Owner != bob.User || held[0].Key != cmdVel {
		t.Fatalf("Held = %+v, want bob on cmd_vel", held)
	}
	if _, err := d.Take(ctx, r, cmdVel, alice); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("alice's Take while bob's goal runs: %v", err)
	}
	// Bob keeps it with zero uploads, then stops.
	c.Advance(300 * time.Millisecond)
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0, 0), bob); err != nil {
		t.Fatal(err)
	}
	c.Advance(300 * time.Millisecond)
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("the robot received %q", got)
	}
	c.Advance(200 * time.Millisecond)
	if got := goalEvents(t, r); got != "goal 0,0 cancel" {
		t.Fatalf("after bob's deadman the robot received %q", got)
	}
	if held := d.Held(robot1); len(held) != 0 {
		t.Fatalf("Held after the deadman = %+v", held)
	}
}

func TestClosingTheDoorCancelsTheGoal(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newGoalRobot()
	takeWithGoal(t, d, r)
	d.Close()
	if got := goalEvents(t, r); got != "goal cancel 0,0" {
		t.Fatalf("the robot received %q", got)
	}
}

func TestAGoalNeedsAStreamToStopTheRobotWith(t *testing.T) {
	d, _, _ := newDoor(t)
	r := &fleettest.Robot{ID: robot1, Name: "one", StreamList: []fleetgate.Stream{
		{Component: "nav", Name: "goal", Type: door.GoalType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
	}}
	if err := d.Send(context.Background(), r, navGoal, door.GoalType, goal(t, 1, 1), bob); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("a goal to a robot with no cmd_vel: %v, want EInvalid", err)
	}
	if got := r.Published(); len(got) != 0 {
		t.Fatalf("the robot received %+v", got)
	}
}
