package video

import (
	"testing"
	"time"
)

// TestAdapterStepsDownAndUp: with a clock the test moves, a stream that skips pictures steps
// down the ladder (bitrate, then frame rate, then resolution), one rung a second; once every
// picture goes for stepUpAfter it climbs back, and a climb that fails at once waits twice as
// long before the next.
func TestAdapterStepsDownAndUp(t *testing.T) {
	a := newAdapterClock(NewAdapter(0))
	tick := a.second
	for want := 1; want < len(Ladder); want++ {
		if !tick(10, 5) || a.Rung() != want {
			t.Fatalf("after skips: rung %d, want %d", a.Rung(), want)
		}
	}
	if tick(10, 5) || a.Rung() != len(Ladder)-1 {
		t.Fatalf("below the last rung: %d", a.Rung())
	}
	last := Ladder[len(Ladder)-1]
	if last.Width == 0 || last.MaxRate == 0 || last.Bitrate >= DefaultBitrate || !last.KeyframesOnly {
		t.Fatalf("the last rung %+v lowers not bitrate, rate and size", last)
	}
	// Clean seconds: nothing moves before stepUpAfter, then one rung up.
	for range int(stepUpAfter/adaptEvery) - 1 {
		if tick(15, 0) {
			t.Fatalf("stepped up after less than %v clean", stepUpAfter)
		}
	}
	if !tick(15, 0) || a.Rung() != len(Ladder)-2 {
		t.Fatalf("no step up after %v clean: rung %d", stepUpAfter, a.Rung())
	}
	// The new rung fails at once: down again, and the next climb waits twice as long.
	if !tick(10, 5) || a.Rung() != len(Ladder)-1 {
		t.Fatalf("a failing rung did not step down: %d", a.Rung())
	}
	for range int(2*stepUpAfter/adaptEvery) - 1 {
		if tick(15, 0) {
			t.Fatalf("climbed again before %v", 2*stepUpAfter)
		}
	}
	if !tick(15, 0) {
		t.Fatal("no climb after twice the wait")
	}
}

// TestAdapterFitsTheBudget: a live budget starts the stream on the best rung whose bitrate
// fits it, and it never climbs above that rung.
func TestAdapterFitsTheBudget(t *testing.T) {
	if a := NewAdapter(0); a.Rung() != 0 {
		t.Fatalf("no budget: rung %d", a.Rung())
	}
	a := NewAdapter(30_000) // 240 kbit/s
	if got := Ladder[a.Rung()].bitrate(); got > 240_000 || a.Rung() == 0 {
		t.Fatalf("a 240 kbit/s budget starts at rung %d (%d bit/s)", a.Rung(), got)
	}
	top := a.Rung()
	c := newAdapterClock(a)
	for range 30 {
		c.second(15, 0)
	}
	if a.Rung() != top {
		t.Fatalf("climbed above the budget's rung: %d, top %d", a.Rung(), top)
	}
}

// TestAdapterHoldsWhileTheRungChanges: the skips of the pictures that go while the new rung's
// encoder starts (the old rung's) neither step the stream down again nor count as the new
// rung's clean time; a step up that fails within probeFails of its first picture still
// doubles the wait, however long the change took.
func TestAdapterHoldsWhileTheRungChanges(t *testing.T) {
	a := newAdapterClock(NewAdapter(0))
	second := a.second
	if !second(10, 5) || a.Rung() != 1 {
		t.Fatalf("rung %d after skips, want 1", a.Rung())
	}
	// Two seconds of the old rung's skipped pictures while rung 1's encoder starts.
	for range 2 {
		a.now = a.now.Add(adaptEvery)
		a.Count(10, 5)
		a.Hold(a.now)
	}
	if second(15, 0) || a.Rung() != 1 {
		t.Fatalf("rung %d after the change, want 1: the old rung's skips stepped it", a.Rung())
	}
	for range int(stepUpAfter/adaptEvery) - 2 {
		if second(15, 0) {
			t.Fatalf("stepped up after less than %v of the new rung's pictures", stepUpAfter)
		}
	}
	if !second(15, 0) || a.Rung() != 0 {
		t.Fatalf("no step up after %v clean: rung %d", stepUpAfter, a.Rung())
	}
	// The step up's encoder takes longer than probeFails to start; its pictures then skip.
	for range 4 {
		a.now = a.now.Add(adaptEvery)
		a.Hold(a.now)
	}
	if !second(10, 5) || a.Rung() != 1 || a.upAfter != 2*stepUpAfter {
		t.Fatalf("a step up failing at its first second: rung %d, wait %v; want 1 and %v", a.Rung(), a.upAfter, 2*stepUpAfter)
	}
}

// adapterClock is an Adapter on a clock the test moves, a decision a second.
type adapterClock struct {
	*Adapter
	now time.Time
}

func newAdapterClock(a *Adapter) *adapterClock {
	c := &adapterClock{Adapter: a, now: time.Unix(1000, 0)}
	a.Decide(c.now)
	return c
}

// second counts a second's pictures that went and were skipped, and decides: whether the rung moved.
func (c *adapterClock) second(sent, skipped int) bool {
	c.now = c.now.Add(adaptEvery)
	c.Count(sent, skipped)
	return c.Decide(c.now)
}
