package store

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fleetgate/fleetgate"
)

// TestAgentRevocationMigrationKeepsAgents opens a version 1 database with an agent in it
// with every migration: the agent is still there and not revoked.
func TestAgentRevocationMigrationKeepsAgents(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleetgate.db")
	v1, err := fs.ReadFile(migrations, "migrations/0001_init.sql")
	must(t, err)
	old := mustOpenAt(t, path, fstest.MapFS{"migrations/0001_init.sql": {Data: v1}})
	f := bootstrap(t, old)
	created := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, err := old.writer.ExecContext(ctx, `INSERT INTO agents (id, org_id, fleet_id, name, key_hash, created_at, last_seen)
		VALUES ('ag-1', ?, ?, 'dock', 'key-1', ?, ?)`, f.org.ID, f.fleet.ID, created.UnixMilli(), created.Add(time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	mustClose(t, old)

	db := mustOpenAt(t, path, migrations)
	if v := schemaVersion(t, db); v != latestVersion {
		t.Errorf("schema version %d, want %d", v, latestVersion)
	}
	a, err := db.AgentByKeyHash(ctx, "key-1")
	want := fleetgate.Agent{ID: "ag-1", OrgID: f.org.ID, Name: "dock", FleetID: f.fleet.ID, KeyHash: "key-1",
		CreatedAt: created, LastSeen: created.Add(time.Hour)}
	if err != nil || a != want {
		t.Errorf("agent after migration = %+v, %v; want %+v", a, err, want)
	}
}
