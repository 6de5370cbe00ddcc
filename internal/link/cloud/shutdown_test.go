package cloud_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
)

// TestShutdownZeroesTheCloudsOperatorsFirst: the cloud shutting down lets go of its
// operators' controls at the agent before it closes the link, so the agent has published the
// zero (here a robot that takes 150 ms to take it) by the time the cloud's Shutdown returns,
// and the process exits. Closing the link alone had the agent zero after it answered the
// close: after the cloud was gone.
func TestShutdownZeroesTheCloudsOperatorsFirst(t *testing.T) {
	w := newWorld(t)
	bot := scriptedRobot(idOne, "one")
	teleop := &slowZeroTeleop{}
	w.startAgentAt(w.srv.URL, "fga_alpha", teleop, bot)
	w.waitOnline(idOne, true, 5*time.Second)
	driven, ok := fleet.As[fleet.RemoteDriven](w.remote(idOne))
	if !ok {
		t.Fatal("a robot behind the link is not fleet.RemoteDriven")
	}
	ctl, err := driven.TakeControl(context.Background(), driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	w.acc.Shutdown()
	took := time.Since(start)
	if !teleop.zeroed() {
		t.Fatalf("the cloud's Shutdown returned after %v with the operator's robot not zeroed at the agent\n%s", took.Round(time.Millisecond), w.logs.String())
	}
	select {
	case <-ctl.Done():
	default:
		t.Error("the operator's control still open after the shutdown")
	}
	t.Logf("shutdown took %v, the zero (150 ms to publish) within it", took.Round(time.Millisecond))
}

// slowZeroTeleop grants every control; its robot takes 150 ms to take the zero.
type slowZeroTeleop struct {
	mu   sync.Mutex
	done bool
}

func (g *slowZeroTeleop) OpenControlForCloud(context.Context, string, fleetgate.StreamKey, string) (live.Input, error) {
	return slowZeroInput{g}, nil
}
func (g *slowZeroTeleop) HeldControls(string) []fleetgate.Held { return nil }
func (g *slowZeroTeleop) zeroed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done
}

type slowZeroInput struct{ g *slowZeroTeleop }

func (slowZeroInput) Stream() fleetgate.Stream {
	return fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: twist, Direction: fleetgate.Input, Source: fleetgate.SourceComponent}
}
func (in slowZeroInput) Drive(func(error)) live.Driver { return slowZeroDriver(in) }
func (slowZeroInput) Connected() bool                  { return true }
func (slowZeroInput) Release()                         {}
func (slowZeroInput) Name() string                     { return "slow zero" }

type slowZeroDriver struct{ g *slowZeroTeleop }

func (slowZeroDriver) Command(proto.Message) error { return nil }
func (d slowZeroDriver) Stop() error {
	time.Sleep(150 * time.Millisecond) // a bridge slow to take it: the zero is published after this
	d.g.mu.Lock()
	d.g.done = true
	d.g.mu.Unlock()
	return nil
}
