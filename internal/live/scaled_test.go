package live_test

import (
	"context"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
)

// askedOutput is an Output that records the options it was subscribed with.
type askedOutput struct{ opts *fleetgate.SubscribeOptions }

func (askedOutput) RobotID() string { return "r1" }

func (o askedOutput) Subscribe(_ context.Context, opts fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error) {
	*o.opts = opts
	return fleetgate.Stream{Name: "front"}, nil, nil
}

// TestScaled: a scaled output asks its source for the width, keeps the viewer's other
// options, and is a feed of its own for each width.
func TestScaled(t *testing.T) {
	var got fleetgate.SubscribeOptions
	full := askedOutput{&got}
	small, smaller := live.Scaled(full, 640), live.Scaled(full, 320)
	if ids := map[string]bool{full.RobotID(): true, small.RobotID(): true, smaller.RobotID(): true}; len(ids) != 3 {
		t.Errorf("feeds %q, %q and %q: want three apart", full.RobotID(), small.RobotID(), smaller.RobotID())
	}
	if small.RobotID() != live.Scaled(full, 640).RobotID() {
		t.Error("two viewers of one width get two feeds")
	}
	s, _, err := small.Subscribe(context.Background(), fleetgate.SubscribeOptions{MaxWidth: 1920, MaxRate: 5, Downsample: true})
	if err != nil || s.Name != "front" {
		t.Fatalf("Subscribe: %v, %v", s, err)
	}
	if got.MaxWidth != 640 || got.MaxRate != 5 || !got.Downsample {
		t.Errorf("the source was asked %+v, want MaxWidth 640 and the rest as given", got)
	}
}
