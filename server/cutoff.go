package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// cutOffReason is what the agents let go and /healthz are told while a replica is cut off.
const cutOffReason = "this replica reaches neither NATS nor the database: link to another replica"

// cutOffCheck is how often a replica checks that it still reaches NATS or its store, and how
// long a ping of the store may take.
const cutOffCheck = time.Second

// cutOffWatch tells whether this replica of the cloud is cut off: it reaches neither the bus
// nor the store (a partition of its own). Such a replica can neither claim, fence nor record
// anything, and the agents it keeps are unreachable from every other replica: it lets them go
// (they link to another) and fails its health check (haproxy sends its clients elsewhere)
// until either is back. With only one of the two lost (NATS down for every replica, or the
// database restarting) it keeps its agents and serves from memory: the others are in the same
// state, and its agents have nowhere better to go. Both lost for every replica at once lets
// every agent go: they link again when either returns.
type cutOffWatch struct {
	busUp   func() bool
	pingDB  func(ctx context.Context) error
	letGo   func(reason string) int // closes the agent links, returns how many
	log     *slog.Logger
	cut     atomic.Bool
	checked atomic.Int64 // rounds done, for tests
}

// run checks every cutOffCheck until ctx ends.
func (w *cutOffWatch) run(ctx context.Context) {
	t := time.NewTicker(cutOffCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check(ctx)
		}
	}
}

// check is one round: the store is pinged only while the bus is away.
func (w *cutOffWatch) check(ctx context.Context) {
	defer w.checked.Add(1)
	cut := false
	var dbErr error
	if !w.busUp() {
		pctx, cancel := context.WithTimeout(ctx, cutOffCheck)
		dbErr = w.pingDB(pctx)
		cancel()
		cut = dbErr != nil && ctx.Err() == nil
	}
	was := w.cut.Swap(cut)
	switch {
	case cut:
		// Every round: an agent that linked meanwhile (it cannot claim without NATS, but
		// the rule costs nothing to keep) goes too.
		if n := w.letGo(cutOffReason); n > 0 || !was {
			w.log.Warn("cut off from NATS and the database: letting this replica's agents go to another and failing /healthz until either is back",
				"agents_let_go", n, "db_err", dbErr)
		}
	case was:
		w.log.Info("NATS or the database reachable again: this replica serves agents and passes /healthz again")
	}
}

// CutOff reports whether the replica is cut off now.
func (w *cutOffWatch) CutOff() bool { return w != nil && w.cut.Load() }
