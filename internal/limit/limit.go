// Package limit counts failures per key in a sliding window, for login throttling.
package limit

import (
	"sync"
	"time"
)

// Window allows at most Max failures per key within Period. It is safe for concurrent use.
// A Max of zero or less disables the limit (the zero Window blocks nothing).
type Window struct {
	Max    int
	Period time.Duration
	Now    func() time.Time // injectable clock; time.Now when nil

	mu       sync.Mutex
	failures map[string][]time.Time
	sweepAt  time.Time
}

func (w *Window) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Blocked reports whether key has used up its failures, and how long until one expires.
func (w *Window) Blocked(key string) (time.Duration, bool) {
	if w.Max <= 0 {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.blocked(key, w.now())
}

// blocked is Blocked with w.mu held.
func (w *Window) blocked(key string, now time.Time) (time.Duration, bool) {
	times := w.live(key, now)
	if len(times) < w.Max {
		return 0, false
	}
	return max(times[0].Add(w.Period).Sub(now), time.Second), true
}

// Attempt is Blocked and Fail in one step: unless key is blocked, it records this attempt as
// a failure before the caller does its expensive check, so that attempts made in parallel
// cannot all pass Blocked before any is counted. An attempt that succeeds is taken back
// with Forgive.
func (w *Window) Attempt(key string) (time.Duration, bool) {
	if w.Max <= 0 {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if wait, blocked := w.blocked(key, now); blocked {
		return wait, true
	}
	w.record(key, now)
	return 0, false
}

// Forgive takes back the newest failure of key: the Attempt that turned out to succeed.
func (w *Window) Forgive(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	times := w.failures[key]
	switch len(times) {
	case 0:
	case 1:
		delete(w.failures, key)
	default:
		w.failures[key] = times[:len(times)-1]
	}
}

// Count is the number of failures of key within Period (at most Max).
func (w *Window) Count(key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.live(key, w.now()))
}

// Last is the time of key's newest failure within Period; false when it has none.
func (w *Window) Last(key string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	times := w.live(key, w.now())
	if len(times) == 0 {
		return time.Time{}, false
	}
	return times[len(times)-1], true
}

// Fail records a failure for key.
func (w *Window) Fail(key string) {
	if w.Max <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.record(key, w.now())
}

// record adds a failure of key at now; w.mu is held.
func (w *Window) record(key string, now time.Time) {
	if w.failures == nil {
		w.failures = make(map[string][]time.Time)
	}
	times := append(w.live(key, now), now)
	if len(times) > w.Max {
		times = times[len(times)-w.Max:] // older ones no longer matter
	}
	w.failures[key] = times
	w.sweep(now)
}

// live drops the failures of key that left the window and returns the rest.
func (w *Window) live(key string, now time.Time) []time.Time {
	times := w.failures[key]
	i := 0
	for i < len(times) && !times[i].Add(w.Period).After(now) {
		i++
	}
	if i == len(times) {
		delete(w.failures, key)
		return nil
	}
	times = times[i:]
	w.failures[key] = times
	return times
}

// sweep forgets idle keys now and then, so an attacker cycling addresses cannot grow the map
// without bound.
func (w *Window) sweep(now time.Time) {
	if now.Before(w.sweepAt) {
		return
	}
	w.sweepAt = now.Add(w.Period)
	for key := range w.failures {
		w.live(key, now)
	}
}
