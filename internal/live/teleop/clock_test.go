package teleop

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when a test calls Advance.
//
// Timers that fall due within an Advance run synchronously inside it, in the caller's
// goroutine, one at a time, in due-time order (ties in the order they were armed), and while
// one runs Now reads its due time. A timer armed by a callback that falls due within the same
// Advance runs too. So when Advance returns, everything due by then has happened, and a test
// asserts on exact instants with no sleeps. The clock's lock is not held while a callback
// runs, so callbacks may arm and stop timers; code under test may also call the clock from
// other goroutines.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers []*fakeTimer // armed, not yet run or stopped
}

type fakeTimer struct {
	clock *fakeClock
	when  time.Time
	seq   uint64
	f     func()
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{clock: c, when: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

// Advance moves the clock forward by d, running every timer due by then.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		next := -1
		for i, t := range c.timers {
			if t.when.After(end) {
				continue
			}
			if next < 0 || t.when.Before(c.timers[next].when) ||
				(t.when.Equal(c.timers[next].when) && t.seq < c.timers[next].seq) {
				next = i
			}
		}
		if next < 0 {
			break
		}
		t := c.timers[next]
		c.timers = slices.Delete(c.timers, next, next+1)
		if t.when.After(c.now) {
			c.now = t.when
		}
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	c.now = end
	c.mu.Unlock()
}

// Pending is the number of armed timers.
func (c *fakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

func TestFakeClock(t *testing.T) {
	clock := newFakeClock()
	start := clock.Now()
	type fired struct {
		name string
		at   time.Duration
	}
	var got []fired
	record := func(name string) func() {
		return func() { got = append(got, fired{name, clock.Now().Sub(start)}) }
	}
	clock.AfterFunc(30*time.Millisecond, record("c"))
	clock.AfterFunc(10*time.Millisecond, record("a"))
	clock.AfterFunc(10*time.Millisecond, record("b")) // same instant: armed later, runs later
	stopped := clock.AfterFunc(20*time.Millisecond, record("stopped"))
	clock.AfterFunc(15*time.Millisecond, func() {
		record("d")()
		clock.AfterFunc(5*time.Millisecond, record("armed by d")) // due at 20 ms, inside this Advance
	})
	if !stopped.Stop() {
		t.Fatal("Stop of an armed timer = false, want true")
	}
	if stopped.Stop() {
		t.Fatal("second Stop = true, want false")
	}

	clock.Advance(29 * time.Millisecond)
	want := []fired{{"a", 10 * time.Millisecond}, {"b", 10 * time.Millisecond}, {"d", 15 * time.Millisecond}, {"armed by d", 20 * time.Millisecond}}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if now := clock.Now().Sub(start); now != 29*time.Millisecond {
		t.Fatalf("Now after Advance = start+%v, want start+29ms", now)
	}
	clock.Advance(time.Millisecond)
	if last := got[len(got)-1]; last != (fired{"c", 30 * time.Millisecond}) {
		t.Fatalf("last fired %v, want c at 30ms", last)
	}
	if n := clock.Pending(); n != 0 {
		t.Fatalf("%d timers still armed, want 0", n)
	}
}
