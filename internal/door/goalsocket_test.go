package door_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// goalMsg is a goal frame as a goal socket decoded it.
func goalMsg(x, y float64) proto.Message {
	return &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: x, Y: y}}}
}

// keepalive is a goal socket's keepalive frame: the empty goal message.
var keepalive = &catalogpb.PoseStamped{}

// A W3 input socket on a goal stream holds the robot's motion lease, as a cmd_vel socket
// does: one controller for both, the contract's 409 for anyone else on either stream.
func TestAGoalSocketHoldsTheMotionLease(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newGoalRobot()
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, navGoal, alice)
	if err != nil {
		t.Fatal(err)
	}
	if s := ctl.Stream(); s.Key() != navGoal || s.Type != door.GoalType {
		t.Fatalf("the socket's stream = %+v, want nav/goal", s)
	}
	if held := d.Held(robot1); len(held) != 1 || held[0].Key != cmdVel || held[0].Owner != alice.User {
		t.Fatalf("Held = %+v, want alice on cmd_vel (the motion lease)", held)
	}
	carolW3 := door.Who{User: "carol@example.com", Path: door.PathW3}
	for _, key := range []fleetgate.StreamKey{cmdVel, navGoal} {
		if _, err := d.Take(ctx, r, key, carolW3); !isHeldBy(err, alice.User) {
			t.Fatalf("carol's socket on %s/%s: %v, want held by alice", key.Component, key.Name, err)
		}
	}
	// Alice's own second socket is a second controller too.
	if _, err := d.Take(ctx, r, cmdVel, alice); !isHeldBy(err, alice.User) {
		t.Fatalf("alice's cmd_vel socket beside her goal socket: %v, want 409", err)
	}
	if err := d.Send(ctx, r, navGoal, door.GoalType, goal(t, 1, 1), bob); !isHeldBy(err, alice.User) {
		t.Fatalf("bob's uploaded goal: %v, want held by alice", err)
	}
	if err := ctl.Command(goalMsg(4, 2)); err != nil {
		t.Fatal(err)
	}
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("the robot received %q, want the goal", got)
	}
	var p catalogpb.PoseStamped
	if err := proto.Unmarshal(r.Published()[0].Payload, &p); err != nil || p.GetPose().GetPosition().GetX() != 4 {
		t.Fatalf("the goal the robot received: %v %v", &p, err)
	}
	// Closing the socket (and STOP, a lost link: the session stops its control).
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := goalEvents(t, r); got != "goal cancel 0,0" {
		t.Fatalf("after the socket closed the robot received %q, want the cancel then the zero", got)
	}
	if held := d.Held(robot1); len(held) != 0 {
		t.Fatalf("Held after the socket closed = %+v", held)
	}
	// Nothing goes out on a control that has stopped.
	if err := ctl.Command(goalMsg(1, 1)); err != nil {
		t.Fatal(err)
	}
	if got := goalEvents(t, r); got != "goal cancel 0,0" {
		t.Fatalf("a goal after the stop reached the robot: %q", got)
	}
}

func isHeldBy(err error, owner string) bool {
	held, ok := fleetgate.HeldBy(err)
	return ok && held.Owner == owner
}

// The socket's keepalive frames are the holder's sign of life: they keep the goal running,
// and 500 ms after the last one (or the last goal) the deadman cancels the goal.
func TestTheGoalSocketsKeepaliveAndItsDeadman(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newGoalRobot()
	ctl, err := d.Take(context.Background(), r, navGoal, alice)
	if err != nil {
		t.Fatal(err)
	}
	// Taken but silent: nothing to cancel, nothing armed.
	c.Advance(2 * time.Second)
	if got := goalEvents(t, r); got != "" {
		t.Fatalf("an idle goal socket: the robot received %q", got)
	}
	if err := ctl.Command(goalMsg(4, 2)); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		c.Advance(400 * time.Millisecond)
		if err := ctl.Command(keepalive); err != nil {
			t.Fatal(err)
		}
	}
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("while keepalives come the robot received %q, want the goal alone", got)
	}
	c.Advance(499 * time.Millisecond)
	if got := goalEvents(t, r); got != "goal" {
		t.Fatalf("before the deadman the robot received %q", got)
	}
	c.Advance(time.Millisecond)
	if got := goalEvents(t, r); got != "goal 0,0 cancel" {
		t.Fatalf("500 ms after the last keepalive the robot received %q, want the zero and the cancel", got)
	}
	// The socket keeps control: a new goal, then silence from the goal itself.
	if err := ctl.Command(goalMsg(1, 1)); err != nil {
		t.Fatal(err)
	}
	c.Advance(500 * time.Millisecond)
	if got := goalEvents(t, r); got != "goal 0,0 cancel goal 0,0 cancel" {
		t.Fatalf("500 ms after a goal with no keepalive the robot received %q", got)
	}
}

// A goal the robot refuses ends the session with the robot's words (EInvalid: 1008), and is
// logged as a refusal; a robot that cannot be reached is EUnavailable (1011).
func TestAGoalTheRobotRefuses(t *testing.T) {
	d, _, logs := newDoor(t)
	r := newGoalRobot()
	ctl, err := d.Take(context.Background(), r, navGoal, alice)
	if err != nil {
		t.Fatal(err)
	}
	r.Lock()
	r.PublishErr = fleetgate.Errorf(fleetgate.EInvalid, "no path reaches (40, 40)")
	r.Unlock()
	if err := ctl.Command(goalMsg(40, 40)); !fleetgate.Is(err, fleetgate.EInvalid) || !strings.Contains(err.Error(), "no path reaches") {
		t.Fatalf("a refused goal: %v, want EInvalid in the robot's words", err)
	}
	if !strings.Contains(logs.String(), "no path reaches") {
		t.Fatalf("the refusal was not logged: %s", logs)
	}
	r.Lock()
	r.PublishErr = context.DeadlineExceeded
	r.Unlock()
	if err := ctl.Command(goalMsg(1, 1)); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("a goal that did not reach the robot: %v, want EUnavailable", err)
	}
}

// The handover extension works for a goal socket as for a cmd_vel socket: a goal socket asks
// a cmd_vel holder and drives goals once granted; a supervisor takes the lease from it, the
// goal cancelled and the robot zeroed first.
func TestAGoalSocketIsHandedOver(t *testing.T) {
	d := newHandoverDoor(t)
	r := newGoalRobot()
	ctx := context.Background()
	alic := take(t, d, r, alice, true)
	var asked *door.Control
	var askErr error
	var wg sync.WaitGroup
	wg.Go(func() { asked, askErr = d.Request(ctx, r, navGoal, carol) })
	if n := <-alic.notices; n.Kind != door.NoticeRequested || n.By != carol.User {
		t.Fatalf("alice was told %+v", n)
	}
	if err := alic.ctl.Answer(true); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if askErr != nil {
		t.Fatal(askErr)
	}
	if s := asked.Stream(); s.Key() != navGoal {
		t.Fatalf("carol's granted control is on %+v, want nav/goal", s.Key())
	}
	if err := asked.Command(goalMsg(4, 2)); err != nil {
		t.Fatal(err)
	}
	car := watch(asked, true)
	if _, err := d.Override(ctx, r, cmdVel, boss); err != nil {
		t.Fatal(err)
	}
	if err := <-car.lost; !strings.Contains(err.Error(), "taken by "+boss.User) {
		t.Fatalf("carol's goal socket ended with %v", err)
	}
	if got := goalEvents(t, r); got != "0,0 goal cancel 0,0" {
		t.Fatalf("the robot received %q, want alice's zero, carol's goal, its cancel and her zero", got)
	}
}

// gatedRobot holds each goal on its way to the robot until the test lets it go.
type gatedRobot struct {
	*fleettest.Robot
	onTheWay chan struct{}
	letGo    chan struct{}
}

func (g *gatedRobot) Publish(ctx context.Context, cmd door.Command) error {
	if _, cancel := cmd.Cancels(); !cancel {
		if key, _, _, err := cmd.Open(); err == nil && key == navGoal {
			g.onTheWay <- struct{}{}
			<-g.letGo
		}
	}
	return g.Robot.Publish(ctx, cmd)
}

// A goal on its way when the socket closes: the cancel never overtakes it, so no goal is left
// running after its lease's last cancel.
func TestNoGoalOutlivesItsSocket(t *testing.T) {
	d, _, _ := newDoor(t)
	r := &gatedRobot{Robot: newGoalRobot(), onTheWay: make(chan struct{}), letGo: make(chan struct{})}
	ctl, err := d.Take(context.Background(), r, navGoal, alice)
	if err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() { sent <- ctl.Command(goalMsg(4, 2)) }()
	<-r.onTheWay
	stopped := make(chan error, 1)
	go func() { stopped <- ctl.Stop() }()
	select {
	case <-stopped:
		t.Fatalf("the socket's stop went out while its goal was on its way: the robot received %q", goalEvents(t, r.Robot))
	case <-time.After(100 * time.Millisecond): // the stop waits for the goal, however long
	}
	close(r.letGo)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if got := goalEvents(t, r.Robot); got != "goal cancel 0,0" {
		t.Fatalf("the robot received %q, want the goal, then its cancel and the zero", got)
	}
}

// A robot with no drivable stream takes no goal socket: nothing could stop it with a zero.
func TestAGoalSocketNeedsAStreamToStopTheRobotWith(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newGoalRobot()
	r.StreamList = r.StreamList[1:]
	if _, err := d.Take(context.Background(), r, navGoal, alice); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("a goal socket on a robot with no cmd_vel: %v, want EInvalid", err)
	}
}
