package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// The local gateway's outbox (entries the cloud has not confirmed) and the cloud's log of
// forwarded entries, one per (agent, origin id).
func testEventForwarding(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t)
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for _, msg := range []string{"one", "two", "three"} {
		e := fleetgate.Event{RobotID: "r", AuthorEmail: "op@example.com", Message: msg, CreatedAt: at}
		if err := db.CreateEvent(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := db.UnforwardedEvents(ctx, 2)
	if err != nil || len(pending) != 2 || pending[0].Message != "one" || pending[1].Message != "two" {
		t.Fatalf("unforwarded (2): %+v, %v", pending, err)
	}
	if err := db.MarkEventsForwarded(ctx, []int64{pending[0].ID, pending[1].ID}, at); err != nil {
		t.Fatal(err)
	}
	if pending, err = db.UnforwardedEvents(ctx, 10); err != nil || len(pending) != 1 || pending[0].Message != "three" {
		t.Fatalf("after marking: %+v, %v", pending, err)
	}

	// The cloud's side: a batch sent twice (its confirmation was lost) is kept once; another
	// agent's entry of the same origin id is its own.
	batch := []fleetgate.Event{
		{RobotID: "r", FleetID: "f", AgentID: "a1", OriginID: 1, AuthorEmail: "op@example.com", Message: "from a1", CreatedAt: at},
		{RobotID: "r", FleetID: "f", AgentID: "a1", OriginID: 2, AuthorEmail: "op@example.com", Message: "also from a1", CreatedAt: at},
	}
	for range 2 {
		if err := db.CreateAgentEvents(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateAgentEvents(ctx, []fleetgate.Event{{RobotID: "r", FleetID: "f", AgentID: "a2", OriginID: 1, AuthorEmail: "x@example.com", Message: "from a2", CreatedAt: at}}); err != nil {
		t.Fatal(err)
	}
	a1, err := db.Events(ctx, fleetgate.EventFilter{AgentID: "a1", Limit: 10})
	if err != nil || len(a1) != 2 || a1[0].Message != "also from a1" || a1[0].OriginID != 2 || a1[0].FleetID != "f" {
		t.Errorf("a1's entries: %+v, %v", a1, err)
	}
	if all, _ := db.Events(ctx, fleetgate.EventFilter{Limit: 10}); len(all) != 6 {
		t.Errorf("%d entries in all, want 6", len(all))
	}
	if f, _ := db.Events(ctx, fleetgate.EventFilter{FleetID: "f", Limit: 10}); len(f) != 3 {
		t.Errorf("%d entries of fleet f, want 3", len(f))
	}
	// Forwarded entries are the cloud's, never in its own outbox.
	if pending, _ := db.UnforwardedEvents(ctx, 10); len(pending) != 1 {
		t.Errorf("the outbox holds %d entries, want the one local entry", len(pending))
	}

	// A flight recording made for a forwarded entry: the entry goes back to the outbox with
	// its link, and the cloud's copy gains it (once: a link is never replaced).
	forwarded := a1[1]
	local, _ := db.Events(ctx, fleetgate.EventFilter{RobotID: "r", Limit: 10})
	first := local[len(local)-1] // "one", forwarded above
	if err := db.SetEventRecording(ctx, first.ID, "rec-1"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetEventRecording(ctx, 1<<40, "rec-x"); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("linking a missing entry: %v", err)
	}
	pending, _ = db.UnforwardedEvents(ctx, 10)
	if len(pending) != 2 || pending[0].ID != first.ID || pending[0].RecordingID != "rec-1" {
		t.Fatalf("the outbox after linking: %+v", pending)
	}
	for _, rec := range []string{"rec-1", "rec-2", ""} {
		again := forwarded
		again.ID, again.RecordingID = 0, rec
		if err := db.CreateAgentEvents(ctx, []fleetgate.Event{again}); err != nil {
			t.Fatal(err)
		}
	}
	a1, _ = db.Events(ctx, fleetgate.EventFilter{AgentID: "a1", Limit: 10})
	if len(a1) != 2 || a1[1].RecordingID != "rec-1" || a1[1].Message != forwarded.Message {
		t.Errorf("the cloud's copy after the entry came again linked: %+v", a1)
	}
}

func testConcurrentCreateEvent(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	const writers, perWriter = 8, 50

	var wg sync.WaitGroup
	ids := make(chan int64, writers*perWriter)
	errs := make(chan error, writers*perWriter+writers)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				e := fleetgate.Event{RobotID: fmt.Sprintf("robot-%d", w), AuthorEmail: "a@example.com",
					Message: fmt.Sprintf("event %d", i), CreatedAt: time.Now()}
				if err := db.CreateEvent(ctx, &e); err != nil {
					errs <- err
					continue
				}
				ids <- e.ID
			}
		})
	}
	// Readers run beside the writers: WAL lets them, and they must not see SQLITE_BUSY.
	for range 2 {
		wg.Go(func() {
			for range 20 {
				if _, err := db.Events(ctx, fleetgate.EventFilter{RobotID: "", Limit: 50}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(ids)
	close(errs)
	for err := range errs {
		t.Errorf("concurrent access: %v", err)
	}
	seen := map[int64]bool{}
	for id := range ids {
		if id <= 0 || seen[id] {
			t.Errorf("event id %d is zero or repeated", id)
		}
		seen[id] = true
	}
	if len(seen) != writers*perWriter {
		t.Errorf("%d distinct ids, want %d", len(seen), writers*perWriter)
	}
	all, err := db.Events(ctx, fleetgate.EventFilter{RobotID: "", Limit: 10 * writers * perWriter})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != writers*perWriter {
		t.Errorf("stored %d events, want %d", len(all), writers*perWriter)
	}
}
