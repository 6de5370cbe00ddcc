package cloud

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// agentClock is the link's own estimate of how far its agent's clock is from the cloud's, so
// the times an agent stamps (a sample's, a KPI's) are read on the cloud's clock: a site whose
// clock is 30 s ahead must not show its pictures 30 s in the future, nor hand a stale one to a
// new viewer as live (fleet.Topic's freshness), nor one behind show every picture 30 s old.
//
// Each heartbeat carries the agent's time of sending; sent less received is the offset less the
// heartbeat's one-way delay, so the largest of the last clockWindow (the fastest crossing)
// is the estimate, short of the offset by at most the link's shortest one-way delay. Clocks
// within clockAgreement of each other are taken as agreeing: an estimate that small is not
// told from the delay itself, and correcting by it would only move ages by the delay.
type agentClock struct {
	log    *slog.Logger
	diffs  [clockWindow]time.Duration // sent less received of the last heartbeats (reader goroutine only)
	n      int
	offset atomic.Int64 // nanoseconds the agent's clock is ahead of the cloud's; 0: agreeing or not known yet
}

const (
	// clockWindow heartbeats (a minute at the 5 s interval) make the estimate: a clock that
	// is set again is followed within it.
	clockWindow = 12
	// clockAgreement is the difference below which the clocks are taken as agreeing.
	clockAgreement = 500 * time.Millisecond
)

// heartbeat takes a heartbeat the agent sent at sent (its clock) and the cloud received at
// received (the cloud's).
func (c *agentClock) heartbeat(sent, received time.Time) {
	if sent.IsZero() {
		return
	}
	c.diffs[c.n%clockWindow] = sent.Sub(received)
	c.n++
	est := c.diffs[0]
	for _, d := range c.diffs[1:min(c.n, clockWindow)] {
		est = max(est, d)
	}
	if est.Abs() < clockAgreement {
		est = 0
	}
	if old := time.Duration(c.offset.Swap(int64(est))); (old-est).Abs() >= clockAgreement && c.log != nil {
		// An admin sees a site whose clock is off (its NTP broken): the cloud corrects its
		// times, the site's own panel and logs do not.
		c.log.Warn("agent clock differs from the cloud's; its times are corrected on the cloud", "ahead", est.Round(time.Millisecond))
	}
}

// toCloud is agent time t on the cloud's clock; the zero time stays zero.
func (c *agentClock) toCloud(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Add(-time.Duration(c.offset.Load()))
}
