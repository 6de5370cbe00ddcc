package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
)

// TestCutOffNeedsBothLost: a replica lets its agents go only while it reaches neither NATS
// nor the database; one of them lost (an outage every replica shares) keeps them, and either
// back ends the cut.
func TestCutOffNeedsBothLost(t *testing.T) {
	var busUp, dbUp atomic.Bool
	var letGo atomic.Int64
	w := &cutOffWatch{
		busUp: busUp.Load,
		pingDB: func(context.Context) error {
			if dbUp.Load() {
				return nil
			}
			return errors.New("dial tcp: network is unreachable")
		},
		letGo: func(string) int { letGo.Add(1); return 1 },
		log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	steps := []struct {
		bus, db bool
		cut     bool
	}{
		{true, true, false},
		{false, true, false}, // NATS down for everyone: serve from memory
		{true, false, false}, // the database restarting: the same
		{false, false, true}, // partitioned: let go
		{false, false, true},
		{false, true, false}, // the database back
		{false, false, true},
		{true, false, false}, // NATS back
	}
	for i, s := range steps {
		busUp.Store(s.bus)
		dbUp.Store(s.db)
		before := letGo.Load()
		w.check(context.Background())
		if w.CutOff() != s.cut {
			t.Errorf("step %d (bus %t, database %t): cut off %t, want %t", i, s.bus, s.db, w.CutOff(), s.cut)
		}
		if let := letGo.Load() > before; let != s.cut {
			t.Errorf("step %d (bus %t, database %t): agents let go %t, want %t", i, s.bus, s.db, let, s.cut)
		}
	}
}
