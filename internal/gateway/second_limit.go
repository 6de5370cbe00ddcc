package gateway

import (
	"fmt"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
)

// StreamOpInterval is the second convention's stream operation limit: one operation a
// second for each caller, robot and stream.
const StreamOpInterval = time.Second

// streamOpSweep is how often idle entries are forgotten, so that the map does not grow with
// every stream a caller ever touched.
const streamOpSweep = time.Minute

// StreamOpLimiter spaces stream operations: at most one per interval for each caller (its
// API token, so every bearer token minted from one API token shares it), robot and stream.
// It is safe for concurrent use.
type StreamOpLimiter struct {
	interval time.Duration
	now      func() time.Time

	mu sync.Mutex
	// last holds, per named stream, when an operation last took its slot, by the source the
	// request gave (0: none given).
	last    map[streamOpKey]map[fleetgate.SourceType]time.Time
	sweepAt time.Time
}

type streamOpKey struct {
	tokenID, robotID, component, name string
}

// NewStreamOpLimiter returns a limiter of one operation per interval on the clock now.
func NewStreamOpLimiter(interval time.Duration, now func() time.Time) *StreamOpLimiter {
	if now == nil {
		now = time.Now
	}
	return &StreamOpLimiter{interval: interval, now: now, last: map[streamOpKey]map[fleetgate.SourceType]time.Time{}}
}

// Take claims the slot of an operation by c on the stream sel of robot robotID. While the
// slot is taken it returns an ERateLimited error whose RetryAfter is the time left.
// giveBack returns the slot, for an operation refused before it reached the stream.
//
// A selector without a source may name a stream of any source, so it conflicts with every
// source of that component and name, and a selector with one conflicts with the source-less
// form too: leaving out the source cannot double the rate. Two sources of one name (a
// topic seen over ROS 1 and ROS 2) are two streams and limited apart.
func (l *StreamOpLimiter) Take(c *Caller, robotID string, sel StreamSelector) (giveBack func(), err error) {
	key := streamOpKey{tokenID: c.Token.ID, robotID: robotID, component: sel.Component, name: sel.Name}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	var wait time.Duration
	for source, at := range l.last[key] {
		if sel.Source != 0 && source != 0 && source != sel.Source {
			continue
		}
		wait = max(wait, at.Add(l.interval).Sub(now))
	}
	if wait > 0 {
		return nil, &fleetgate.Error{
			Code:       fleetgate.ERateLimited,
			Message:    fmt.Sprintf("at most one operation per %v on stream %s of robot %q; retry in %v", l.interval, sel, robotID, wait),
			RetryAfter: wait,
		}
	}
	sources := l.last[key]
	if sources == nil {
		sources = map[fleetgate.SourceType]time.Time{}
		l.last[key] = sources
	}
	sources[sel.Source] = now
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		// Only this operation's own mark: a later one may hold the slot by now.
		if at, ok := l.last[key][sel.Source]; ok && at.Equal(now) {
			delete(l.last[key], sel.Source)
			if len(l.last[key]) == 0 {
				delete(l.last, key)
			}
		}
	}, nil
}

// sweep drops the marks that no longer block anything, at most once per streamOpSweep.
func (l *StreamOpLimiter) sweep(now time.Time) {
	if now.Before(l.sweepAt) {
		return
	}
	l.sweepAt = now.Add(streamOpSweep)
	for key, sources := range l.last {
		for source, at := range sources {
			if !at.Add(l.interval).After(now) {
				delete(sources, source)
			}
		}
		if len(sources) == 0 {
			delete(l.last, key)
		}
	}
}

// size is the number of streams with a mark, for tests of the sweep.
func (l *StreamOpLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.last)
}
