package alert_test

import (
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
)

type journal struct {
	mu      sync.Mutex
	changes []alert.Change
}

func (j *journal) add(c alert.Change) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.changes = append(j.changes, c)
}

func (j *journal) take() []alert.Change {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.changes
	j.changes = nil
	return out
}

var (
	battery = fleetgate.Alert{Kind: fleetgate.AlertBattery, Words: "battery low (15 %)"}
	blocked = fleetgate.Alert{Kind: fleetgate.AlertBlocked, Critical: true, Words: "blocked"}
)

func wantChanges(t *testing.T, got []alert.Change, want ...string) {
	t.Helper()
	var names []string
	for _, c := range got {
		names = append(names, string(c.What)+" "+string(c.Alert.Kind))
	}
	if len(names) != len(want) {
		t.Fatalf("changes = %q, want %q", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("changes = %q, want %q", names, want)
		}
	}
}

// TestAnAlertIsRaisedStaysOpenAndClears: the first observation that derives an alert raises
// it (at the clock's instant), later ones keep its start while updating its words, and the
// first one without it clears it; each step is one change, and nothing else is.
func TestAnAlertIsRaisedStaysOpenAndClears(t *testing.T) {
	clk := clocktest.New()
	start := clk.Now()
	var j journal
	tr := alert.New(clk.Now, j.add)

	tr.Observe("r1", "f1", []fleetgate.Alert{battery})
	wantChanges(t, j.take(), "raised battery")

	clk.Advance(30 * time.Second)
	lower := battery
	lower.Words = "battery low (12 %)"
	tr.Observe("r1", "f1", []fleetgate.Alert{lower, blocked})
	wantChanges(t, j.take(), "raised blocked")
	open := tr.Open("r1")
	if len(open) != 2 || open[0].Kind != fleetgate.AlertBattery || !open[0].Since.Equal(start) || open[0].Words != lower.Words {
		t.Fatalf("open = %+v, want battery since the start with the new words first", open)
	}
	if !open[1].Since.Equal(start.Add(30 * time.Second)) {
		t.Errorf("blocked since %v, want start+30s", open[1].Since.Sub(start))
	}

	clk.Advance(time.Minute)
	tr.Observe("r1", "f1", []fleetgate.Alert{blocked})
	got := j.take()
	wantChanges(t, got, "cleared battery")
	if !got[0].At.Equal(start.Add(90*time.Second)) || !got[0].Alert.Since.Equal(start) {
		t.Errorf("cleared at %v since %v, want at start+90s since the start", got[0].At, got[0].Alert.Since)
	}
	tr.Observe("r2", "f1", nil)
	if got := j.take(); len(got) != 0 {
		t.Errorf("another robot's observation changed %v", got)
	}
	if n := len(tr.Open("")); n != 1 {
		t.Errorf("%d alerts open, want 1 (blocked)", n)
	}
}

// TestAcknowledgeIsKeptOnceAndAnsweredForUnknownAlerts: an acknowledgement records who and
// when, once (a second answers the first and writes nothing); an alert that is not open is
// ENotFound; a cleared and raised-again alert needs a new acknowledgement.
func TestAcknowledgeIsKeptOnceAndAnsweredForUnknownAlerts(t *testing.T) {
	clk := clocktest.New()
	var j journal
	tr := alert.New(clk.Now, j.add)
	tr.Observe("r1", "f1", []fleetgate.Alert{blocked})
	j.take()

	if _, err := tr.Acknowledge("r1", fleetgate.AlertBattery, "op@x"); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Fatalf("acknowledging an alert that is not open: %v, want not_found", err)
	}
	clk.Advance(5 * time.Second)
	a, err := tr.Acknowledge("r1", fleetgate.AlertBlocked, "op@x")
	if err != nil || a.AckBy != "op@x" || !a.AckAt.Equal(clk.Now()) {
		t.Fatalf("Acknowledge = %+v, %v", a, err)
	}
	wantChanges(t, j.take(), "acknowledged blocked")
	clk.Advance(5 * time.Second)
	again, err := tr.Acknowledge("r1", fleetgate.AlertBlocked, "other@x")
	if err != nil || again.AckBy != "op@x" || !again.AckAt.Equal(a.AckAt) {
		t.Fatalf("second Acknowledge = %+v, %v; want the first kept", again, err)
	}
	if got := j.take(); len(got) != 0 {
		t.Fatalf("a second acknowledgement wrote %v", got)
	}

	tr.Observe("r1", "f1", nil)
	tr.Observe("r1", "f1", []fleetgate.Alert{blocked})
	wantChanges(t, j.take(), "cleared blocked", "raised blocked")
	if open := tr.Open("r1"); len(open) != 1 || open[0].Acknowledged() {
		t.Fatalf("raised again: %+v, want open and not acknowledged", open)
	}
}

// TestDueEscalatesUnacknowledgedAlertsOnceAtTheirTime: an alert is due exactly when its
// rule's time has passed since it was raised, once; an acknowledged one and one without a
// rule never are.
func TestDueEscalatesUnacknowledgedAlertsOnceAtTheirTime(t *testing.T) {
	clk := clocktest.New()
	tr := alert.New(clk.Now, nil)
	tr.Observe("r1", "f1", []fleetgate.Alert{battery, blocked})
	tr.Observe("r2", "f1", []fleetgate.Alert{blocked})
	after := func(a fleetgate.OpenAlert) (time.Duration, bool) {
		return 2 * time.Minute, a.Kind == fleetgate.AlertBlocked // battery has no rule
	}
	if _, err := tr.Acknowledge("r2", fleetgate.AlertBlocked, "op@x"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2*time.Minute - time.Millisecond)
	if due := tr.Due(after); len(due) != 0 {
		t.Fatalf("due before its time: %+v", due)
	}
	clk.Advance(time.Millisecond)
	due := tr.Due(after)
	if len(due) != 1 || due[0].RobotID != "r1" || due[0].Kind != fleetgate.AlertBlocked || !due[0].Escalated.Equal(clk.Now()) {
		t.Fatalf("due = %+v, want r1's blocked alert, escalated now", due)
	}
	clk.Advance(time.Hour)
	if due := tr.Due(after); len(due) != 0 {
		t.Fatalf("escalated twice: %+v", due)
	}
}

// TestForgetDropsWithoutClearing: a robot that left the gateway takes its alerts with it,
// with no entry of a clearing that did not happen.
func TestForgetDropsWithoutClearing(t *testing.T) {
	var j journal
	tr := alert.New(clocktest.New().Now, j.add)
	tr.Observe("r1", "f1", []fleetgate.Alert{battery})
	tr.Observe("r2", "f1", []fleetgate.Alert{battery})
	j.take()
	tr.Forget(func(id string) bool { return id == "r2" })
	if open := tr.Open(""); len(open) != 1 || open[0].RobotID != "r2" {
		t.Fatalf("open = %+v, want r2's only", open)
	}
	if got := j.take(); len(got) != 0 {
		t.Fatalf("Forget wrote %v", got)
	}
}

// TestConcurrentObserversWriteEachChangeOnce: sweeps and acknowledgements from many
// goroutines (the sweep, the pages, the API) raise each alert once and acknowledge it once.
func TestConcurrentObserversWriteEachChangeOnce(t *testing.T) {
	clk := clocktest.New()
	var j journal
	tr := alert.New(clk.Now, j.add)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Go(func() {
			tr.Observe("r1", "f1", []fleetgate.Alert{battery, blocked})
			tr.Acknowledge("r1", fleetgate.AlertBlocked, "op@x")
		})
	}
	wg.Wait()
	wantChanges(t, j.take(), "raised battery", "raised blocked", "acknowledged blocked")
}
