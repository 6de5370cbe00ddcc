// Package alert keeps the alerts a gateway derives as things that happen: an alert is raised
// when it first appears in a robot's derived alerts, stays open while it is derived, is
// acknowledged by someone, and is cleared when it is derived no more. Each of these is a
// Change the tracker hands to its journal (the event log), and an open alert nobody
// acknowledged within its rule's time is due for escalation (a webhook).
package alert

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
)

// What a Change is.
type What string

const (
	Raised       What = "raised"
	Acknowledged What = "acknowledged"
	Cleared      What = "cleared"
)

// Change is one step in an alert's life.
type Change struct {
	What  What
	Alert fleetgate.OpenAlert
	At    time.Time
}

type key struct {
	robot string
	kind  fleetgate.AlertKind
}

// Tracker holds the open alerts of the robots a gateway watches. It is safe for concurrent
// use; the journal is called outside its lock, in the order the changes happened.
type Tracker struct {
	now     func() time.Time
	journal func(Change)

	mu   sync.Mutex
	open map[key]*fleetgate.OpenAlert
	// order serialises the journal calls of concurrent Observe and Acknowledge calls.
	order sync.Mutex
}

// New returns a tracker on the clock now that reports every change to journal (nil: none).
func New(now func() time.Time, journal func(Change)) *Tracker {
	if journal == nil {
		journal = func(Change) {}
	}
	return &Tracker{now: now, journal: journal, open: map[key]*fleetgate.OpenAlert{}}
}

// Observe takes the robot's alerts as derived now, all of them: those not open yet are
// raised, open ones missing from alerts are cleared, and the others keep their start and
// acknowledgement (their words are updated: "no fresh data for 12 s" grows).
func (t *Tracker) Observe(robotID, fleetID string, alerts []fleetgate.Alert) {
	t.order.Lock()
	defer t.order.Unlock()
	now := t.now()
	var changes []Change
	t.mu.Lock()
	seen := map[fleetgate.AlertKind]bool{}
	for _, a := range alerts {
		seen[a.Kind] = true
		k := key{robotID, a.Kind}
		if o, ok := t.open[k]; ok {
			o.Alert, o.FleetID = a, fleetID
			continue
		}
		o := &fleetgate.OpenAlert{RobotID: robotID, FleetID: fleetID, Alert: a, Since: now}
		t.open[k] = o
		changes = append(changes, Change{What: Raised, Alert: *o, At: now})
	}
	for k, o := range t.open {
		if k.robot == robotID && !seen[k.kind] {
			delete(t.open, k)
			changes = append(changes, Change{What: Cleared, Alert: *o, At: now})
		}
	}
	t.mu.Unlock()
	// Clearings come from a map: sorted, so the log reads the same every time.
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Or(cmp.Compare(whatRank[a.What], whatRank[b.What]), cmp.Compare(a.Alert.Kind, b.Alert.Kind))
	})
	for _, c := range changes {
		t.journal(c)
	}
}

var whatRank = map[What]int{Raised: 0, Acknowledged: 1, Cleared: 2}

// Forget drops the open alerts of robots not in keep, without clearing them (a robot removed
// from the gateway: its alerts end with it, and no entry is written of a robot that is gone).
func (t *Tracker) Forget(keep func(robotID string) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.open {
		if !keep(k.robot) {
			delete(t.open, k)
		}
	}
}

// Open lists the open alerts of robotID (all robots: ""), the oldest first.
func (t *Tracker) Open(robotID string) []fleetgate.OpenAlert {
	t.mu.Lock()
	var out []fleetgate.OpenAlert
	for k, o := range t.open {
		if robotID == "" || k.robot == robotID {
			out = append(out, *o)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b fleetgate.OpenAlert) int {
		return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.RobotID, b.RobotID), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// Acknowledge records that who acknowledged robotID's open alert of kind. ENotFound when no
// such alert is open; an alert acknowledged already keeps its first acknowledgement (and
// answers it, with no second change).
func (t *Tracker) Acknowledge(robotID string, kind fleetgate.AlertKind, who string) (fleetgate.OpenAlert, error) {
	t.order.Lock()
	defer t.order.Unlock()
	t.mu.Lock()
	o, ok := t.open[key{robotID, kind}]
	if !ok {
		t.mu.Unlock()
		return fleetgate.OpenAlert{}, fleetgate.Errorf(fleetgate.ENotFound, "no %s alert is open on this robot", kind)
	}
	if o.Acknowledged() {
		a := *o
		t.mu.Unlock()
		return a, nil
	}
	o.AckBy, o.AckAt = who, t.now()
	a := *o
	t.mu.Unlock()
	t.journal(Change{What: Acknowledged, Alert: a, At: a.AckAt})
	return a, nil
}

// Due returns the open alerts that nobody acknowledged within after(alert) (false: the alert
// is never escalated) and that were not escalated yet, and marks them escalated: each alert
// is returned once in its life.
func (t *Tracker) Due(after func(fleetgate.OpenAlert) (time.Duration, bool)) []fleetgate.OpenAlert {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []fleetgate.OpenAlert
	for _, o := range t.open {
		if o.Acknowledged() || !o.Escalated.IsZero() {
			continue
		}
		if d, ok := after(*o); ok && !now.Before(o.Since.Add(d)) {
			o.Escalated = now
			out = append(out, *o)
		}
	}
	slices.SortFunc(out, func(a, b fleetgate.OpenAlert) int { return a.Since.Compare(b.Since) })
	return out
}
