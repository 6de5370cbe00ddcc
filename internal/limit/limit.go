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
	// Share, when set, is told of each failure recorded here (forgiven false) and each one
	// taken back (forgiven true), after the fact: the cloud's replicas pass them to each other
	// (Apply), so that a guesser spreading attempts over replicas gets no more of them.
	Share func(key string, at time.Time, forgiven bool)

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
	now := w.now()
	if wait, blocked := w.blocked(key, now); blocked {
		w.mu.Unlock()
		return wait, true
	}
	w.record(key, now)
	w.mu.Unlock()
	w.shared(key, now, false)
	return 0, false
}

func (w *Window) shared(key string, at time.Time, forgiven bool) {
	if w.Share != nil {
		w.Share(key, at, forgiven)
	}
}

// Apply takes a failure of key at at recorded elsewhere (forgiven false), or the taking back
// of one (forgiven true), without telling Share.
func (w *Window) Apply(key string, at time.Time, forgiven bool) {
	if w.Max <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	times := w.live(key, now)
	if forgiven {
		for i := len(times) - 1; i >= 0; i-- {
			if times[i].Equal(at) {
				times = append(times[:i:i], times[i+1:]...)
				break
			}
		}
		if len(times) == 0 {
			delete(w.failures, key)
		} else {
			w.failures[key] = times
		}
		return
	}
	if !at.Add(w.Period).After(now) {
		return // out of the window already
	}
	i := len(times)
	for i > 0 && times[i-1].After(at) {
		i--
	}
	times = append(times[:i:i], append([]time.Time{at}, times[i:]...)...)
	if len(times) > w.Max {
		times = times[len(times)-w.Max:]
	}
	if w.failures == nil {
		w.failures = make(map[string][]time.Time)
	}
	w.failures[key] = times
	w.sweep(now)
}

// Forgive takes back the newest failure of key: the Attempt that turned out to succeed.
func (w *Window) Forgive(key string) {
	w.mu.Lock()
	times := w.failures[key]
	var at time.Time
	switch len(times) {
	case 0:
		w.mu.Unlock()
		return
	case 1:
		at = times[0]
		delete(w.failures, key)
	default:
		at = times[len(times)-1]
		w.failures[key] = times[:len(times)-1]
	}
	w.mu.Unlock()
	w.shared(key, at, true)
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
	now := w.now()
	w.record(key, now)
	w.mu.Unlock()
	w.shared(key, now, false)
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
