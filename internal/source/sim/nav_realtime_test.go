package sim

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The safety rules of goals in real time, as an operator meets them: the door on the real
// clock, the simulation running. The door's own tests check the same rules on an injected
// clock to the millisecond.

var (
	driver   = door.Who{User: "op@example.com", Path: door.PathW3}
	uploader = door.Who{User: "op@example.com", Path: door.PathUpload}
)

// nextNav waits for the next nav/status on sub, within d.
func nextNav(t *testing.T, sub *fleet.Subscription, d time.Duration) navStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	sample, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("no nav/status within %v: %v", d, err)
	}
	var str catalogpb.String
	var st navStatus
	if err := proto.Unmarshal(sample.Payload, &str); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(str.Data), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitNav waits until nav/status says state, within d, and returns when it did.
func waitNav(t *testing.T, sub *fleet.Subscription, state string, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := nextNav(t, sub, time.Until(deadline))
		if st.State == state {
			return time.Now()
		}
		if st.State != navDriving && st.State != navIdle { // idle: the status before the goal
			t.Fatalf("nav/status %+v while waiting for %s", st, state)
		}
	}
}

// driveToAGoal starts a simulation, takes control of its robot and sends it a goal 2.5 m
// ahead (its start pose has 3 m of open floor there), and waits until it drives.
func driveToAGoal(t *testing.T) (*Sim, *door.Door, *door.Control, *fleet.Subscription) {
	t.Helper()
	s := startSim(t, context.Background(), Config{Count: 1, Seed: 3})
	r := s.Robots()[0]
	d := door.New(door.Config{})
	t.Cleanup(d.Close)
	ctl, err := d.Take(context.Background(), r, cmdVel, driver)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := r.Subscribe(context.Background(), navStatusK, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	b := bodyOf(s, 0)
	x, y := b.x+2.5*math.Cos(b.theta), b.y+2.5*math.Sin(b.theta)
	if err := d.Send(context.Background(), r, navGoal, typePoseStamped, goalPayload(t, x, y), uploader); err != nil {
		t.Fatal(err)
	}
	waitNav(t, sub, navDriving, 5*time.Second)
	return s, d, ctl, sub
}

// waitStill waits until the robot stands, within d.
func waitStill(t *testing.T, s *Sim, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if b := bodyOf(s, 0); b.v == 0 && b.w == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the robot still moves %v after its goal was cancelled", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRealTimeReleasingControlStopsTheGoal(t *testing.T) {
	s, _, ctl, sub := driveToAGoal(t)
	// Under way at speed (the holder there, sending zeros): stopping it is the point.
	for bodyOf(s, 0).v < 0.2 {
		if err := ctl.Command(&catalogpb.Twist{}); err != nil {
			t.Fatal(err)
		}
		if st := nextNav(t, sub, 2*time.Second); st.State != navDriving {
			t.Fatalf("nav/status %+v before the robot gathered speed", st)
		}
	}
	released := time.Now()
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	if at := waitNav(t, sub, navCancelled, 2*time.Second); at.Sub(released) > time.Second {
		t.Errorf("the goal was cancelled %v after control was released", at.Sub(released))
	}
	waitStill(t, s, 2*time.Second)
}

func TestRealTimeTheDeadmanStopsTheGoal(t *testing.T) {
	s, _, ctl, sub := driveToAGoal(t)
	// The holder's zeros keep it going.
	tick := time.NewTicker(100 * time.Millisecond)
	for range 8 {
		<-tick.C
		if err := ctl.Command(&catalogpb.Twist{}); err != nil {
			t.Fatal(err)
		}
	}
	tick.Stop()
	last := time.Now()
	if st := nextNav(t, sub, time.Second); st.State != navDriving {
		t.Fatalf("while the holder sends zeros: %+v", st)
	}
	at := waitNav(t, sub, navCancelled, 3*time.Second)
	if silent := at.Sub(last); silent < 450*time.Millisecond {
		t.Errorf("the goal was cancelled %v after the last command, before the deadman's 500 ms", silent)
	}
	waitStill(t, s, 2*time.Second)
}
