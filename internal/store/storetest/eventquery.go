package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// The event log as data: every filter of GET /apigateway/v2/events, and paging newest first
// by creation time (an agent's entry stored late still sorts by when it was written).
func testEventQuery(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t)
	t0 := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	post := func(e fleetgate.Event) fleetgate.Event {
		t.Helper()
		if err := db.CreateEvent(ctx, &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	var all []fleetgate.Event // as written, oldest first
	for i := range 12 {
		e := fleetgate.Event{RobotID: []string{"r1", "r2", "r3"}[i%3], AuthorEmail: []string{"ann@example.com", "bob@example.com"}[i%2],
			Message: fmt.Sprintf("entry %d", i), CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		switch i {
		case 4:
			e.Type, e.Severity, e.Message = fleetgate.EventTeleop, fleetgate.SeverityWarning, "Deadman: 50% of the PALLET_load"
		case 7:
			e.Type, e.Severity, e.RecordingID = fleetgate.EventRecording, fleetgate.SeverityError, "rec-7"
		}
		all = append(all, post(e))
	}
	// An agent's entry written first and stored last.
	late := fleetgate.Event{RobotID: "r1", AgentID: "a1", OriginID: 1, AuthorEmail: "ann@example.com", Message: "written offline",
		CreatedAt: t0.Add(-time.Hour), Type: fleetgate.EventAlert, Severity: fleetgate.SeverityWarning}
	if err := db.CreateAgentEvents(ctx, []fleetgate.Event{late}); err != nil {
		t.Fatal(err)
	}

	messages := func(f fleetgate.EventFilter) []string {
		t.Helper()
		if f.Limit == 0 {
			f.Limit = 100
		}
		got, err := db.Events(ctx, f)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		out := make([]string, len(got))
		for i, e := range got {
			out[i] = e.Message
		}
		return out
	}
	check := func(name string, f fleetgate.EventFilter, want ...string) {
		t.Helper()
		if got := messages(f); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	check("robots r2 and r3 from 08:07", fleetgate.EventFilter{RobotIDs: []string{"r2", "r3"}, From: t0.Add(7 * time.Minute)},
		"entry 11", "entry 10", "entry 8", "entry 7")
	check("no robot may be seen", fleetgate.EventFilter{RobotIDs: []string{}})
	check("author, before 08:04", fleetgate.EventFilter{Author: "bob@example.com", To: t0.Add(4 * time.Minute)}, "entry 3", "entry 1")
	check("text, any case, % and _ as themselves", fleetgate.EventFilter{Text: "50% OF the pallet_"}, "Deadman: 50% of the PALLET_load")
	check("a % alone is no wildcard", fleetgate.EventFilter{Text: "%"}, "Deadman: 50% of the PALLET_load")
	check("type", fleetgate.EventFilter{Type: fleetgate.EventRecording}, "entry 7")
	check("severity", fleetgate.EventFilter{Severity: fleetgate.SeverityWarning}, "Deadman: 50% of the PALLET_load", "written offline")
	check("agent", fleetgate.EventFilter{AgentID: "a1"}, "written offline")

	got, err := db.Events(ctx, fleetgate.EventFilter{Type: fleetgate.EventRecording, Limit: 1})
	if err != nil || len(got) != 1 || got[0].RecordingID != "rec-7" || got[0].Severity != fleetgate.SeverityError {
		t.Errorf("the recording's entry: %+v, %v", got, err)
	}
	if first := messages(fleetgate.EventFilter{Limit: 1}); first[0] != "entry 11" {
		t.Errorf("the newest entry is %q, want entry 11", first)
	}
	if e, _ := db.Events(ctx, fleetgate.EventFilter{RobotID: "r2", Limit: 1}); e[0].Type != fleetgate.EventNote || e[0].Severity != fleetgate.SeverityInfo {
		t.Errorf("an entry posted without them is %q/%q, want note/info", e[0].Type, e[0].Severity)
	}

	// Pages of 5, each after the last entry of the one before, list every entry once, newest
	// first, the late agent's entry last (by when it was written).
	var paged []string
	f := fleetgate.EventFilter{Limit: 5}
	for range 10 {
		page, err := db.Events(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			paged = append(paged, e.Message)
		}
		if len(page) < f.Limit {
			break
		}
		last := page[len(page)-1]
		f.After = &fleetgate.EventCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	want := []string{}
	for i := len(all) - 1; i >= 0; i-- {
		want = append(want, all[i].Message)
	}
	want = append(want, "written offline")
	if !slices.Equal(paged, want) {
		t.Errorf("paged: %q\nwant   %q", paged, want)
	}

	// Entries written in the same millisecond page by id.
	same := t0.Add(time.Hour)
	for i := range 3 {
		post(fleetgate.Event{RobotID: "r9", AuthorEmail: "ann@example.com", Message: fmt.Sprintf("same %d", i), CreatedAt: same})
	}
	p1, _ := db.Events(ctx, fleetgate.EventFilter{RobotID: "r9", Limit: 2})
	p2, _ := db.Events(ctx, fleetgate.EventFilter{RobotID: "r9", Limit: 2, After: &fleetgate.EventCursor{CreatedAt: p1[1].CreatedAt, ID: p1[1].ID}})
	if len(p1) != 2 || len(p2) != 1 || p1[0].Message != "same 2" || p1[1].Message != "same 1" || p2[0].Message != "same 0" {
		t.Errorf("same millisecond: %+v then %+v", p1, p2)
	}
}
