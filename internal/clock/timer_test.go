package clock_test

import (
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
)

// TestChanTimerOnAFakeClock: a channel timer of the fake clock fires exactly at its due
// instant, inside the Advance that reaches it, with that instant; a stopped one never fires.
func TestChanTimerOnAFakeClock(t *testing.T) {
	c := clocktest.New()
	start := c.Now()
	timer := clock.NewTimer(c, 10*time.Millisecond)
	stopped := clock.NewTimer(c, 5*time.Millisecond)
	if n := c.PendingAt(start.Add(10 * time.Millisecond)); n != 1 {
		t.Fatalf("%d timers due at 10 ms, want 1", n)
	}
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer = false, want true")
	}
	c.Advance(9 * time.Millisecond)
	select {
	case at := <-timer.C:
		t.Fatalf("fired at start+%v, before its time", at.Sub(start))
	case <-stopped.C:
		t.Fatal("a stopped timer fired")
	default:
	}
	c.Advance(time.Millisecond)
	select {
	case at := <-timer.C:
		if at != start.Add(10*time.Millisecond) {
			t.Errorf("fired with start+%v, want start+10ms", at.Sub(start))
		}
	default:
		t.Fatal("not fired when Advance reached its instant")
	}
	if timer.Stop() {
		t.Error("Stop after firing = true, want false")
	}
	c.Advance(time.Hour)
	select {
	case <-stopped.C:
		t.Error("a stopped timer fired later")
	default:
	}
}

// TestChanTimerOnTheRealClock: the wall clock's timer fires, once.
func TestChanTimerOnTheRealClock(t *testing.T) {
	start := time.Now()
	timer := clock.NewTimer(clock.Real(), time.Millisecond)
	select {
	case at := <-timer.C:
		if at.Before(start.Add(time.Millisecond)) {
			t.Errorf("fired %v after start, want at least 1ms", at.Sub(start))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the real clock's timer did not fire")
	}
}
