package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/store"
	"github.com/fleetgate/fleetgate/internal/store/postgres"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/internal/store/storetest"
)

// latestVersion is the newest migration in migrations/ (the same number as SQLite's).
const latestVersion = 12

func mustOpen(tb testing.TB, url string) *store.DB {
	tb.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatalf("postgres.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// TestPostgres runs the store's conformance suite and the PostgreSQL-specific tests on one
// server, each test on a database of its own.
func TestPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	t.Run("conformance", func(t *testing.T) {
		storetest.Run(t, func(tb testing.TB) *store.DB { return mustOpen(tb, srv.NewDatabase(tb)) })
	})
	t.Run("concurrent migrations", func(t *testing.T) { testConcurrentMigrations(t, srv) })
	t.Run("reopen", func(t *testing.T) { testReopen(t, srv) })
	t.Run("text PostgreSQL cannot hold", func(t *testing.T) { testTextItCannotHold(t, srv) })
	t.Run("newer schema refused", func(t *testing.T) { testNewerSchemaRefused(t, srv) })
}

// testNewerSchemaRefused: a database a newer fleetgate migrated is refused, not damaged.
func testNewerSchemaRefused(t *testing.T, srv *pgtest.Server) {
	ctx := context.Background()
	url := srv.NewDatabase(t)
	db := mustOpen(t, url)
	if _, err := db.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, latestVersion+1, 1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if again, err := postgres.Open(ctx, url); err == nil {
		again.Close()
		t.Fatal("a database of a newer schema was opened")
	} else if !strings.Contains(err.Error(), "newer than this fleetgate knows") {
		t.Errorf("error %v, want one saying the schema is newer", err)
	}
}

// testTextItCannotHold: SQLite stores any bytes, PostgreSQL's text neither NUL nor invalid
// UTF-8 (JSON can carry a NUL, a query string anything): the caller's mistake, never a 500.
func testTextItCannotHold(t *testing.T, srv *pgtest.Server) {
	ctx := context.Background()
	db := mustOpen(t, srv.NewDatabase(t))
	e := fleetgate.Event{RobotID: "r", AuthorEmail: "a@example.com", Message: "nul \x00 inside", CreatedAt: time.Now()}
	if err := db.CreateEvent(ctx, &e); fleetgate.ErrorCode(err) != fleetgate.EInvalid {
		t.Errorf("CreateEvent with a NUL: %v (code %q), want invalid", err, fleetgate.ErrorCode(err))
	}
	if _, err := db.UserByEmail(ctx, "\xff@example.com"); fleetgate.ErrorCode(err) != fleetgate.EInvalid {
		t.Errorf("UserByEmail with invalid UTF-8: %v (code %q), want invalid", err, fleetgate.ErrorCode(err))
	}
}

// testConcurrentMigrations starts replicas together on an empty database: every one opens
// it, and the schema is made once.
func testConcurrentMigrations(t *testing.T, srv *pgtest.Server) {
	url := srv.NewDatabase(t)
	const replicas = 4
	var wg sync.WaitGroup
	dbs := make([]*store.DB, replicas)
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Go(func() { dbs[i], errs[i] = postgres.Open(context.Background(), url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
			continue
		}
		defer dbs[i].Close()
	}
	if t.Failed() {
		return
	}
	ctx := context.Background()
	var applied int
	if err := dbs[0].QueryRow(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != latestVersion-5 {
		t.Errorf("%d rows in schema_migrations, want %d (0006 to %04d applied once each)", applied, latestVersion-5, latestVersion)
	}
	for i, db := range dbs {
		if v, err := db.SchemaVersion(ctx); err != nil || v != latestVersion {
			t.Errorf("replica %d: SchemaVersion = %d, %v; want %d", i, v, err, latestVersion)
		}
	}
}

// testReopen: a second start on a migrated database applies nothing and keeps the data.
func testReopen(t *testing.T, srv *pgtest.Server) {
	ctx := context.Background()
	url := srv.NewDatabase(t)
	db := mustOpen(t, url)
	if _, err := db.Exec(ctx, `INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)`, "o", "kept", 1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = mustOpen(t, url)
	var name string
	if err := db.QueryRow(ctx, `SELECT name FROM organizations WHERE id = ?`, "o").Scan(&name); err != nil || name != "kept" {
		t.Errorf("after reopening: %q, %v", name, err)
	}
}
