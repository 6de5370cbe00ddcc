package gateway_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

func callerWithToken(id string) *gateway.Caller {
	return &gateway.Caller{Token: fleetgate.APIToken{ID: id}}
}

func newStreamOpLimiter() (*gateway.StreamOpLimiter, *clocktest.Fake) {
	c := clocktest.NewAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	return gateway.NewStreamOpLimiter(gateway.StreamOpInterval, c.Now), c
}

var pose = gateway.StreamSelector{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}

// take calls Take and checks that it allows (wait 0) or refuses with exactly wait.
func take(t *testing.T, l *gateway.StreamOpLimiter, c *gateway.Caller, robotID string, sel gateway.StreamSelector, wait time.Duration) func() {
	t.Helper()
	giveBack, err := l.Take(c, robotID, sel)
	switch {
	case wait == 0 && err != nil:
		t.Fatalf("Take(%s, %s, %s) = %v, want allowed", c.Token.ID, robotID, sel, err)
	case wait > 0 && fleetgate.ErrorCode(err) != fleetgate.ERateLimited:
		t.Fatalf("Take(%s, %s, %s) = %v, want rate_limited", c.Token.ID, robotID, sel, err)
	case wait > 0 && fleetgate.RetryAfter(err) != wait:
		t.Fatalf("Take(%s, %s, %s): RetryAfter %v, want %v", c.Token.ID, robotID, sel, fleetgate.RetryAfter(err), wait)
	}
	return giveBack
}

func TestStreamOpLimiterOnePerSecond(t *testing.T) {
	l, clk := newStreamOpLimiter()
	alice := callerWithToken("alice")
	take(t, l, alice, "r1", pose, 0)
	clk.Advance(400 * time.Millisecond)
	take(t, l, alice, "r1", pose, 600*time.Millisecond)
	clk.Advance(599 * time.Millisecond)
	take(t, l, alice, "r1", pose, time.Millisecond)
	clk.Advance(time.Millisecond)
	take(t, l, alice, "r1", pose, 0) // a second after the first
	// A refused attempt does not move the window: the wait counts from the last allowed one.
	clk.Advance(300 * time.Millisecond)
	take(t, l, alice, "r1", pose, 700*time.Millisecond)
	clk.Advance(700 * time.Millisecond)
	take(t, l, alice, "r1", pose, 0)
}

func TestStreamOpLimiterKeys(t *testing.T) {
	anySource := gateway.StreamSelector{Component: "base", Name: "pose"}
	tests := []struct {
		name     string
		caller   string
		robotID  string
		sel      gateway.StreamSelector
		limited  bool
		reversed bool // the same with the two operations swapped
	}{
		{name: "same caller, robot and stream", caller: "alice", robotID: "r1", sel: pose, limited: true},
		{name: "another caller", caller: "bob", robotID: "r1", sel: pose},
		{name: "another robot", caller: "alice", robotID: "r2", sel: pose},
		{name: "another stream name", caller: "alice", robotID: "r1", sel: gateway.StreamSelector{Component: "base", Name: "odom", Source: 1}},
		{name: "another component", caller: "alice", robotID: "r1", sel: gateway.StreamSelector{Component: "arm", Name: "pose", Source: 1}},
		{name: "another source", caller: "alice", robotID: "r1", sel: gateway.StreamSelector{Component: "base", Name: "pose", Source: 2}},
		{name: "source left out", caller: "alice", robotID: "r1", sel: anySource, limited: true},
		{name: "source left out first", caller: "alice", robotID: "r1", sel: anySource, limited: true, reversed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, clk := newStreamOpLimiter()
			first, second := pose, tt.sel
			if tt.reversed {
				first = gateway.StreamSelector{Component: "base", Name: "pose", Source: 2}
			}
			take(t, l, callerWithToken("alice"), "r1", first, 0)
			clk.Advance(250 * time.Millisecond)
			want := time.Duration(0)
			if tt.limited {
				want = 750 * time.Millisecond
			}
			take(t, l, callerWithToken(tt.caller), tt.robotID, second, want)
		})
	}
}

func TestStreamOpLimiterGiveBack(t *testing.T) {
	l, clk := newStreamOpLimiter()
	alice := callerWithToken("alice")
	giveBack := take(t, l, alice, "r1", pose, 0)
	giveBack()
	later := take(t, l, alice, "r1", pose, 0) // the slot was returned
	clk.Advance(time.Second)
	latest := take(t, l, alice, "r1", pose, 0)
	// Returning a slot that a later operation took meanwhile must not free it.
	later()
	take(t, l, alice, "r1", pose, time.Second)
	latest()
	take(t, l, alice, "r1", pose, 0)
}

func TestStreamOpLimiterForgetsIdleStreams(t *testing.T) {
	l, clk := newStreamOpLimiter()
	for i := range 100 {
		take(t, l, callerWithToken("alice"), "r"+strconv.Itoa(i), pose, 0)
	}
	if n := gateway.StreamOpLimiterSize(l); n != 100 {
		t.Fatalf("%d streams remembered, want 100", n)
	}
	clk.Advance(time.Minute)
	take(t, l, callerWithToken("alice"), "r-last", pose, 0)
	if n := gateway.StreamOpLimiterSize(l); n != 1 {
		t.Errorf("%d streams remembered a minute later, want only the newest", n)
	}
}
