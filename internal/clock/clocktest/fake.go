// Package clocktest is a clock.Clock for tests that moves only when the test says so.
package clocktest

import (
	"slices"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/clock"
)

// Fake is a clock.Clock that moves only when a test calls Advance.
//
// Timers that fall due within an Advance run synchronously inside it, in the caller's
// goroutine, one at a time, in due-time order (ties in the order they were armed), and while
// one runs Now reads its due time. A timer armed by a callback that falls due within the same
// Advance runs too. So when Advance returns, everything due by then has happened, and a test
// asserts on exact instants with no sleeps. The clock's lock is not held while a callback
// runs, so callbacks may arm and stop timers; code under test may also call the clock from
// other goroutines.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers []*fakeTimer // armed, not yet run or stopped
}

type fakeTimer struct {
	clock *Fake
	when  time.Time
	seq   uint64
	f     func()
}

// New returns a Fake set to a fixed instant.
func New() *Fake { return NewAt(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// NewAt returns a Fake set to t.
func NewAt(t time.Time) *Fake { return &Fake{now: t} }

func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Fake) AfterFunc(d time.Duration, f func()) clock.Timer {
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
func (c *Fake) Advance(d time.Duration) {
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

// PendingAt is the number of armed timers due exactly at t.
func (c *Fake) PendingAt(t time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, tm := range c.timers {
		if tm.when.Equal(t) {
			n++
		}
	}
	return n
}

// Pending is the number of armed timers.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
