package door_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
)

// TestRefusalsAreLoggedWithinARate: a client that sends refused commands in a loop gets 20
// lines at once, then one every 200 ms, and the line after a gap counts the refusals left out;
// every refusal is still refused.
func TestRefusalsAreLoggedWithinARate(t *testing.T) {
	d, clock, logs := newDoor(t)
	r := newRobot()
	refuse := func(n int) {
		t.Helper()
		for range n {
			if err := d.Send(context.Background(), r, cmdVel, twist, fleettest.TwistPayload(50, 0), bob); err == nil {
				t.Fatal("x = 50 went through")
			}
		}
	}
	lines := func() int { return strings.Count(logs.String(), "the door refused a command") }
	refuse(25)
	if n := lines(); n != 20 {
		t.Fatalf("%d lines for 25 refusals at one instant, want 20 (the burst)", n)
	}
	clock.Advance(199 * time.Millisecond)
	refuse(1)
	if n := lines(); n != 20 {
		t.Fatalf("%d lines 199 ms later, want still 20", n)
	}
	clock.Advance(time.Millisecond)
	refuse(1)
	if n := lines(); n != 21 {
		t.Fatalf("%d lines 200 ms later, want 21", n)
	}
	last := logs.String()[strings.LastIndex(logs.String(), "the door refused a command"):]
	if !strings.Contains(last, "refusals_not_logged=6") {
		t.Errorf("the line after the gap: %q, want it to count the 6 refusals left out", last)
	}
	clock.Advance(4 * time.Second) // a full bucket again, never more
	refuse(25)
	if n := lines(); n != 41 {
		t.Errorf("%d lines after a long quiet and 25 refusals, want 41 (another burst of 20)", n)
	}
	wantTwists(t, r)
}
