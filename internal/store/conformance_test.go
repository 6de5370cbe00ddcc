package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fleetgate/fleetgate/internal/store"
	"github.com/fleetgate/fleetgate/internal/store/storetest"
)

// TestSQLite runs the store's conformance suite on SQLite, each test on a new file.
func TestSQLite(t *testing.T) {
	storetest.Run(t, func(tb testing.TB) *store.DB {
		db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "fleetgate.db"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return db
	})
}
