package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/gateway"
)

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
				e := gateway.Event{RobotID: fmt.Sprintf("robot-%d", w), AuthorEmail: "a@example.com",
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
				if _, err := db.Events(ctx, gateway.EventFilter{RobotID: "", Limit: 50}); err != nil {
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
	all, err := db.Events(ctx, gateway.EventFilter{RobotID: "", Limit: 10 * writers * perWriter})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != writers*perWriter {
		t.Errorf("stored %d events, want %d", len(all), writers*perWriter)
	}
}
