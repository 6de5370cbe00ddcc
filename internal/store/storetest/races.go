package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// testRacesHaveOneWinner: what must happen once happens once when callers race, as replicas
// on one database do: a socket token opens one upgrade, an agent is revoked once, an entry
// an agent sends twice at once is stored once.
func testRacesHaveOneWinner(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	now := time.Now().UTC().Truncate(time.Millisecond)
	const racers = 8
	// race runs fn in racers goroutines released together and returns their errors.
	race := func(fn func() error) []error {
		errs := make([]error, racers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				<-start
				errs[i] = fn()
			})
		}
		close(start)
		wg.Wait()
		return errs
	}
	winners := func(what string, errs []error, loserCode string) {
		t.Helper()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else if fleetgate.ErrorCode(err) != loserCode {
				t.Errorf("%s: a loser got %v, want %s", what, err, loserCode)
			}
		}
		if won != 1 {
			t.Errorf("%s: %d winners, want 1", what, won)
		}
	}

	must(t, db.CreateSocketToken(ctx, fleetgate.SocketToken{Hash: "raced", UserID: f.admin.ID, SessionHash: "s", ExpiresAt: now.Add(time.Minute), CreatedAt: now}))
	winners("UseSocketToken", race(func() error { _, err := db.UseSocketToken(ctx, "raced", now); return err }), fleetgate.ENotFound)

	addAgents(t, db, f.fleet, now, "dock")
	winners("RevokeAgent", race(func() error { return db.RevokeAgent(ctx, "ag-dock", now) }), fleetgate.EConflict)

	entry := fleetgate.Event{RobotID: "r", FleetID: f.fleet.ID, AuthorEmail: "op@example.com", Message: "once", CreatedAt: now, AgentID: "ag-dock", OriginID: 7}
	for i, err := range race(func() error { return db.CreateAgentEvents(ctx, []fleetgate.Event{entry}) }) {
		if err != nil {
			t.Errorf("CreateAgentEvents %d: %v", i, err)
		}
	}
	events, err := db.Events(ctx, fleetgate.EventFilter{AgentID: "ag-dock", Limit: 10})
	must(t, err)
	if len(events) != 1 {
		t.Errorf("%d entries stored for one entry sent %d times at once, want 1", len(events), racers)
	}
}
