package teleop

import (
	"sync"
	"time"
)

// DelayMeter estimates the delay of one controller from what its gateway can measure: the
// round trip of pings to the controller, and the age of the picture on its screen as the
// widget reports it. The estimate is the larger of the two. Safe for concurrent use.
type DelayMeter struct {
	mu        sync.Mutex
	rtt       time.Duration
	rttKnown  bool
	pingSent  time.Time // of the ping not answered yet; zero when none is out
	picture   time.Duration
	pictureAt time.Time // when the widget last reported; zero when it never did
}

// PingSent notes a ping going out at.
func (m *DelayMeter) PingSent(at time.Time) {
	m.mu.Lock()
	if m.pingSent.IsZero() {
		m.pingSent = at
	}
	m.mu.Unlock()
}

// PongAt notes the answer to the ping out, arriving at.
func (m *DelayMeter) PongAt(at time.Time) {
	m.mu.Lock()
	if !m.pingSent.IsZero() {
		m.rtt, m.rttKnown, m.pingSent = max(at.Sub(m.pingSent), 0), true, time.Time{}
	}
	m.mu.Unlock()
}

// Picture notes the widget's report of the picture's age, at.
func (m *DelayMeter) Picture(age time.Duration, at time.Time) {
	m.mu.Lock()
	m.picture, m.pictureAt = max(age, 0), at
	m.mu.Unlock()
}

// Estimate is the delay at now: the last round trip, or the wait of a ping still out when that
// is longer (a controller that stopped answering is ever later), and the picture's age when
// the widget reports it; a report older than StaleAfter counts as its own age (beyond the
// stop). known is false until a ping was answered or a picture reported.
func (m *DelayMeter) Estimate(now time.Time) (d time.Duration, known bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rttKnown {
		d, known = m.rtt, true
	}
	if !m.pingSent.IsZero() && (known || now.Sub(m.pingSent) > StaleAfter) {
		d, known = max(d, now.Sub(m.pingSent)), true
	}
	if !m.pictureAt.IsZero() {
		d, known = max(d, m.picture), true
		if since := now.Sub(m.pictureAt); since > StaleAfter {
			d = max(d, since)
		}
	}
	return d, known
}
