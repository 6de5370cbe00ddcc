package gateway_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// The event log's read API sees what the panel sees: the entries of the robots a caller may
// see, and a robot or fleet they may not see is not found.
func TestQueryEventsVisibility(t *testing.T) {
	w := newWorld(t)
	admin := w.callers["org admin"]
	for _, r := range []fleetgate.Robot{w.r1, w.r2, w.r3} {
		_, err := w.g.PostEvent(w.ctx, admin, gateway.PostEventInput{RobotID: r.ID, Message: "on " + r.Name})
		w.must(err)
	}
	_, err := w.g.PostEvent(w.ctx, w.callers["other admin"], gateway.PostEventInput{RobotID: w.x1.ID, Message: "on x1"})
	w.must(err)

	for caller, want := range map[string][]string{
		"org admin":                  {"on r3", "on r2", "on r1"},
		"operator":                   {"on r1"},
		"admin":                      {"on r3", "on r1"},
		"none":                       {},
		"stray":                      {},
		"other admin":                {"on x1"},
		"fleet-restricted org admin": {"on r3"},
		"read-only operator":         {"on r1"},
	} {
		rows, next, err := w.g.QueryEvents(w.ctx, w.callers[caller], fleetgate.EventFilter{})
		if err != nil || next != nil || !slices.Equal(messagesOf(rows), want) {
			t.Errorf("%s sees %q (next %v, %v), want %q", caller, messagesOf(rows), next, err, want)
		}
	}

	operator := w.callers["operator"]
	for name, f := range map[string]fleetgate.EventFilter{
		"a robot the operator may not see": {RobotID: w.r2.ID},
		"another organization's robot":     {RobotID: w.x1.ID},
		"another organization's fleet":     {FleetID: w.otherFleet.ID},
	} {
		_, _, err := w.g.QueryEvents(w.ctx, operator, f)
		wantCode(t, name, err, fleetgate.ENotFound)
	}
	// A fleet keeps the entries of its robots (r3 is in "second").
	rows, _, err := w.g.QueryEvents(w.ctx, admin, fleetgate.EventFilter{FleetID: w.second.ID})
	if err != nil || !slices.Equal(messagesOf(rows), []string{"on r3"}) {
		t.Errorf("fleet second: %q, %v", messagesOf(rows), err)
	}
	for _, limit := range []int{-1, gateway.MaxEventPage + 1} {
		_, _, err := w.g.QueryEvents(w.ctx, admin, fleetgate.EventFilter{Limit: limit})
		wantCode(t, fmt.Sprintf("limit %d", limit), err, fleetgate.EInvalid)
	}
}

// Pages follow each other by their cursor, each entry once, and the last has none.
func TestQueryEventsPages(t *testing.T) {
	w := newWorld(t)
	admin := w.callers["org admin"]
	for i := range 5 {
		w.clock.Advance(time.Second)
		_, err := w.g.PostEvent(w.ctx, admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: fmt.Sprint("entry ", i),
			Type: fleetgate.EventAlert, Severity: fleetgate.SeverityWarning})
		w.must(err)
	}
	var got []string
	f := fleetgate.EventFilter{Limit: 2}
	for page := 0; ; page++ {
		rows, next, err := w.g.QueryEvents(w.ctx, admin, f)
		w.must(err)
		got = append(got, messagesOf(rows)...)
		if (next == nil) != (page == 2) {
			t.Fatalf("page %d: next %v", page, next)
		}
		if next == nil {
			break
		}
		f.After = next
	}
	if want := []string{"entry 4", "entry 3", "entry 2", "entry 1", "entry 0"}; !slices.Equal(got, want) {
		t.Errorf("pages: %q, want %q", got, want)
	}
	rows, _, err := w.g.QueryEvents(w.ctx, admin, fleetgate.EventFilter{Type: fleetgate.EventAlert, Severity: fleetgate.SeverityWarning, Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].RobotName != "r1" || rows[0].Author != "admin@localhost" {
		t.Errorf("the newest alert: %+v, %v", rows, err)
	}
	_, err = w.g.PostEvent(w.ctx, admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: "x", Type: "gossip"})
	wantCode(t, "an unknown type", err, fleetgate.EInvalid)
	_, err = w.g.PostEvent(w.ctx, admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: "x", Severity: "dire"})
	wantCode(t, "an unknown severity", err, fleetgate.EInvalid)
}

func messagesOf(rows []fleetgate.EventRow) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.Message)
	}
	return out
}
