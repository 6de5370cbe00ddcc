package sim

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

var (
	navGoal     = streamKey("nav", "goal")
	navWaypoint = streamKey("nav", "waypoint")
	navStatusK  = streamKey("nav", "status")
)

// walledHall is a 20 x 10 m hall with a wall across it at x = 10, open only at its north
// end (y from 7.5 to 10): a robot going from the west half to the east half goes round.
func walledHall() *world {
	w := newEmptyHall(20, 10)
	w.boxes = append(w.boxes, box{9.9, 0, 10.1, 7.5, ceilingHeight, kindWall})
	return w
}

func goalPayload(tb testing.TB, x, y float64) []byte {
	return mustMarshal(tb, &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"},
		Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: x, Y: y}, Orientation: &catalogpb.Quaternion{W: 1}}})
}

func sendGoal(tb testing.TB, s *Sim, key fleetgate.StreamKey, x, y float64) error {
	tb.Helper()
	return doortest.Send(context.Background(), s.robots[0], key, typePoseStamped, goalPayload(tb, x, y))
}

func statusOf(tb testing.TB, s *Sim) navStatus {
	tb.Helper()
	sample, err := s.robots[0].Read(context.Background(), navStatusK)
	if err != nil {
		tb.Fatalf("reading nav/status: %v", err)
	}
	var str catalogpb.String
	if err := proto.Unmarshal(sample.Payload, &str); err != nil {
		tb.Fatal(err)
	}
	var st navStatus
	if err := json.Unmarshal([]byte(str.Data), &st); err != nil {
		tb.Fatalf("nav/status %q: %v", str.Data, err)
	}
	return st
}

func TestThePlanGoesAroundAWall(t *testing.T) {
	w := walledHall()
	g := newPlanGrid(w)
	from, to := point{5, 3}, point{15, 3}
	path, ok := g.plan(from, to)
	if !ok {
		t.Fatal("no plan from the west half to the east half")
	}
	if path[0] != from || path[len(path)-1] != to {
		t.Fatalf("the plan runs from %v to %v, want %v to %v", path[0], path[len(path)-1], from, to)
	}
	// Every point of every segment keeps the robot off every box.
	for k := 1; k < len(path); k++ {
		a, b := path[k-1], path[k]
		for s := 0.0; s <= 1; s += 0.01 {
			x, y := a.x+(b.x-a.x)*s, a.y+(b.y-a.y)*s
			if c := w.clearance(x, y); c < robotRadius {
				t.Fatalf("the plan %v passes (%.2f, %.2f), %.2f m from a wall", path, x, y, c)
			}
		}
	}
	if l := pathLength(path); l < 14 {
		t.Fatalf("the plan is %.1f m long: it cannot have gone round the wall (%v)", l, path)
	}
	if _, ok := g.plan(from, point{10, 3}); ok {
		t.Fatal("a goal inside the wall was planned")
	}
	if _, ok := g.plan(from, point{25, 3}); ok {
		t.Fatal("a goal outside the hall was planned")
	}
}

func TestTheRobotDrivesToAGoalAroundAWall(t *testing.T) {
	s := mustNewSim(t, Config{}, walledHall())
	place(s, 0, 5, 3, 0) // facing the wall
	if err := sendGoal(t, s, navGoal, 15, 3); err != nil {
		t.Fatalf("sending the goal: %v", err)
	}
	run(s, 500*time.Millisecond)
	st := statusOf(t, s)
	if st.State != navDriving || !strings.HasPrefix(st.Text, "driving to goal, ") || st.Remaining < 12 || st.Goal == nil || *st.Goal != (navPoint{15, 3}) {
		t.Fatalf("nav/status at the start = %+v", st)
	}
	crossed := false
	for range 600 { // a minute at most
		run(s, 100*time.Millisecond)
		b := bodyOf(s, 0)
		if b.blocked {
			t.Fatalf("the robot ran into something at (%.2f, %.2f)", b.x, b.y)
		}
		if near(b.x, 10, 0.5) {
			crossed = crossed || b.y > 7.5
		}
		if statusOf(t, s).State == navReachedGoal {
			break
		}
	}
	b := bodyOf(s, 0)
	if st := statusOf(t, s); st.State != navReachedGoal || st.Text != "goal reached" {
		t.Fatalf("after a minute the robot is at (%.2f, %.2f): nav/status %+v", b.x, b.y, st)
	}
	if math.Hypot(b.x-15, b.y-3) > navReached+0.05 || !crossed {
		t.Fatalf("the robot stopped at (%.2f, %.2f) (went round the wall's end: %v)", b.x, b.y, crossed)
	}
	run(s, time.Second)
	if b := bodyOf(s, 0); b.v != 0 || b.w != 0 {
		t.Fatalf("the robot still moves at the goal: v %.2f, w %.2f", b.v, b.w)
	}
}

func TestWaypointsAreDrivenInTurn(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	place(s, 0, 3, 3, 0)
	if err := sendGoal(t, s, navWaypoint, 8, 3); err != nil {
		t.Fatal(err)
	}
	if err := sendGoal(t, s, navWaypoint, 8, 7); err != nil {
		t.Fatal(err)
	}
	run(s, 100*time.Millisecond)
	if st := statusOf(t, s); len(st.Waypoints) != 1 || st.Waypoints[0] != (navPoint{8, 7}) || !strings.HasSuffix(st.Text, "(then 1 more)") {
		t.Fatalf("nav/status with two waypoints = %+v", st)
	}
	passedFirst := false
	for range 400 {
		run(s, 100*time.Millisecond)
		b := bodyOf(s, 0)
		passedFirst = passedFirst || math.Hypot(b.x-8, b.y-3) < 0.3
		if statusOf(t, s).State == navReachedGoal {
			break
		}
	}
	b := bodyOf(s, 0)
	if math.Hypot(b.x-8, b.y-7) > navReached+0.05 || !passedFirst {
		t.Fatalf("the robot ended at (%.2f, %.2f), first waypoint passed: %v", b.x, b.y, passedFirst)
	}
}

func TestAGoalNoWayLeadsToIsRefused(t *testing.T) {
	s := mustNewSim(t, Config{}, walledHall())
	place(s, 0, 5, 3, 0)
	for _, g := range []point{{10, 3}, {40, 3}, {0.1, 3}} {
		if err := sendGoal(t, s, navGoal, g.x, g.y); !fleetgate.Is(err, fleetgate.EInvalid) {
			t.Fatalf("a goal at %v: %v, want EInvalid", g, err)
		}
	}
	bad := mustMarshal(t, &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "odom"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 6, Y: 3}}})
	if err := doortest.Send(context.Background(), s.robots[0], navGoal, typePoseStamped, bad); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("a goal in the odom frame: %v, want EInvalid", err)
	}
	run(s, time.Second)
	if b := bodyOf(s, 0); b.x != 5 || b.y != 3 || statusOf(t, s).State != navIdle {
		t.Fatalf("a refused goal moved the robot to (%.2f, %.2f) or changed its status (%+v)", b.x, b.y, statusOf(t, s))
	}
}

func TestDrivingByHandCancelsTheGoal(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	place(s, 0, 3, 3, 0)
	if err := sendGoal(t, s, navGoal, 15, 3); err != nil {
		t.Fatal(err)
	}
	run(s, time.Second)
	command(t, s, 0, 0, 0) // a zero is the holder's keepalive: it changes nothing
	run(s, 200*time.Millisecond)
	if st := statusOf(t, s); st.State != navDriving {
		t.Fatalf("after a zero command: %+v", st)
	}
	command(t, s, 0, 0, 1)
	run(s, 100*time.Millisecond)
	// The door cancels the goal before the command goes on (and the robot would on its own).
	if st := statusOf(t, s); st.State != navCancelled || st.Text != "goal cancelled" {
		t.Fatalf("after a turn command: %+v", st)
	}
	run(s, 2*time.Second) // the command times out: the robot stands
	if b := bodyOf(s, 0); b.v != 0 || b.w != 0 {
		t.Fatalf("the robot still moves after its goal was cancelled: v %.2f, w %.2f", b.v, b.w)
	}
}

func TestTheRobotCrossesTheWarehouse(t *testing.T) {
	s := mustNewSim(t, Config{Seed: 1}, nil)
	start := bodyOf(s, 0)
	goal := point{27, 17.4} // the north aisle, far east
	if math.Hypot(start.x-goal.x, start.y-goal.y) < 8 {
		goal = point{3, 1.85}
	}
	if err := sendGoal(t, s, navGoal, goal.x, goal.y); err != nil {
		t.Fatal(err)
	}
	for range 1200 {
		run(s, 100*time.Millisecond)
		if statusOf(t, s).State != navDriving {
			break
		}
	}
	b := bodyOf(s, 0)
	if st := statusOf(t, s); st.State != navReachedGoal {
		t.Fatalf("from (%.1f, %.1f) to %v: the robot is at (%.2f, %.2f), nav/status %+v", start.x, start.y, goal, b.x, b.y, st)
	}
}

func TestACarLikeRobotDrivesToAGoalAroundAWall(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2}, walledHall())
	place(s, 0, 2, 8, 0) // the other robot, out of the way
	place(s, 1, 5, 3, 0)
	car := s.robots[1]
	if car.input.Type != typeAckermann {
		t.Fatal("robot 1 is not the car-like one")
	}
	if err := doortest.Send(context.Background(), car, navGoal, typePoseStamped, goalPayload(t, 15, 3)); err != nil {
		t.Fatal(err)
	}
	for range 900 {
		run(s, 100*time.Millisecond)
		if b := bodyOf(s, 1); b.blocked {
			t.Fatalf("the car ran into something at (%.2f, %.2f)", b.x, b.y)
		}
		if car.snapshotNav() != navDriving {
			break
		}
	}
	b := bodyOf(s, 1)
	if st := car.snapshotNav(); st != navReachedGoal || math.Hypot(b.x-15, b.y-3) > navCarReach+0.05 {
		t.Fatalf("the car ended %s at (%.2f, %.2f)", st, b.x, b.y)
	}
}

// snapshotNav is the robot's nav state now.
func (r *robot) snapshotNav() string {
	r.sim.mu.Lock()
	defer r.sim.mu.Unlock()
	return r.nav.state
}
