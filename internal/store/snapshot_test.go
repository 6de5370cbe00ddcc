package store

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fleetgate/fleetgate"
)

// countEvents reads a store file that nobody uses: how many entries, and the highest id.
func countEvents(t *testing.T, path string) (n, maxID int64) {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(path)+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT COUNT(*), COALESCE(MAX(id), 0) FROM events`).Scan(&n, &maxID); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return n, maxID
}

// A snapshot taken while a writer commits one entry after another holds exactly the entries
// committed before it began, all of them, and whatever committed while it ran, as whole
// transactions: never fewer than were acknowledged before, never more than after, no gap.
func TestSnapshotWhileWriting(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			e := fleetgate.Event{RobotID: "r-1", AuthorEmail: "a@b", Message: strings.Repeat("x", i%500), CreatedAt: time.Now()}
			if err := db.CreateEvent(ctx, &e); err != nil {
				t.Error(err)
				return
			}
			acked.Add(1)
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	// Let the writer get going, so that the snapshots race real commits.
	for deadline := time.Now().Add(10 * time.Second); acked.Load() < 200; {
		if time.Now().After(deadline) {
			t.Fatal("the writer committed fewer than 200 entries in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	for i := range 3 {
		into := filepath.Join(t.TempDir(), "snapshot.db")
		before := acked.Load()
		schema, err := Snapshot(ctx, db.Path(), into)
		after := acked.Load()
		if err != nil {
			t.Fatalf("snapshot %d: %v", i, err)
		}
		if schema != LatestSchema() {
			t.Errorf("snapshot %d: schema %d, want %d", i, schema, LatestSchema())
		}
		if st, err := os.Stat(into); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("snapshot %d: %v, mode %v; want 0600: the store holds token hashes", i, err, st.Mode())
		}
		n, maxID := countEvents(t, into)
		if n < before || n > after || maxID != n {
			t.Errorf("snapshot %d: %d entries (highest id %d); %d were acknowledged before it and %d after", i, n, maxID, before, after)
		}
	}
}

// A backup by a newer fleetgate of an older gateway's store migrates neither the store nor
// the copy: the gateway that owns it does that when it is upgraded.
func TestSnapshotLeavesAnOlderStoreAsItIs(t *testing.T) {
	older := fstest.MapFS{}
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	for _, name := range files[:len(files)-1] {
		b, _ := fs.ReadFile(migrations, name)
		older[name] = &fstest.MapFile{Data: b}
	}
	path := filepath.Join(t.TempDir(), "fleetgate.db")
	db := mustOpenAt(t, path, older) // the older gateway, running
	ctx := context.Background()
	into := filepath.Join(t.TempDir(), "snapshot.db")
	schema, err := Snapshot(ctx, path, into)
	if err != nil {
		t.Fatal(err)
	}
	if schema != LatestSchema()-1 {
		t.Errorf("the copy has schema %d, want the store's own %d", schema, LatestSchema()-1)
	}
	if v, err := db.SchemaVersion(ctx); err != nil || v != LatestSchema()-1 {
		t.Errorf("the store's schema is %d (%v) after the snapshot, want %d as before", v, err, LatestSchema()-1)
	}
}

func TestSnapshotOfNoStore(t *testing.T) {
	dir := t.TempDir()
	if _, err := Snapshot(context.Background(), filepath.Join(dir, "typo.db"), filepath.Join(dir, "copy.db")); err == nil {
		t.Fatal("a snapshot of a missing file succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a snapshot of a missing file left %v", entries)
	}
}

func TestCheckFile(t *testing.T) {
	ctx := context.Background()
	newStore := func(t *testing.T, change func(db *DB)) string {
		path := filepath.Join(t.TempDir(), "fleetgate.db")
		db := mustOpenAt(t, path, migrations)
		if change != nil {
			change(db)
		}
		mustClose(t, db)
		return path
	}
	t.Run("a store of this fleetgate", func(t *testing.T) {
		if schema, err := CheckFile(ctx, newStore(t, nil)); err != nil || schema != LatestSchema() {
			t.Errorf("schema %d, %v; want %d", schema, err, LatestSchema())
		}
	})
	t.Run("a store of a newer fleetgate", func(t *testing.T) {
		path := newStore(t, func(db *DB) {
			if _, err := db.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, LatestSchema()+1); err != nil {
				t.Fatal(err)
			}
		})
		if _, err := CheckFile(ctx, path); err == nil || !strings.Contains(err.Error(), "newer than this fleetgate knows") {
			t.Errorf("CheckFile: %v; want a refusal naming a newer fleetgate", err)
		}
	})
	t.Run("a SQLite file that is no store", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "other.db")
		other, err := sql.Open("sqlite", fileURI(path))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
			t.Fatal(err)
		}
		other.Close()
		if _, err := CheckFile(ctx, path); err == nil || !strings.Contains(err.Error(), "not a fleetgate store") {
			t.Errorf("CheckFile: %v; want not a fleetgate store", err)
		}
	})
	t.Run("a damaged file", func(t *testing.T) {
		path := newStore(t, nil)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := 4096; i < len(b); i++ { // every page but the header's
			b[i] ^= 0x5a
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := CheckFile(ctx, path); err == nil {
			t.Error("CheckFile accepted a damaged file")
		}
	})
}

// A backup run as root of a stopped gateway's store creates its -wal and -shm files: they get
// the store's owner, so the gateway, started as its own user meanwhile, can open them.
func TestSnapshotSidecarsKeepTheStoresOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test gives files to another user: run it as root (CI does)")
	}
	const nobody = 65534
	path := filepath.Join(t.TempDir(), "fleetgate.db")
	mustClose(t, mustOpenAt(t, path, migrations))
	for _, name := range []string{path + "-wal", path + "-shm"} { // as root made them
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := giveSidecarsTheOwnerOf(path); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path + "-wal", path + "-shm"} {
		st, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if s := st.Sys().(*syscall.Stat_t); s.Uid != nobody || s.Gid != nobody {
			t.Errorf("%s belongs to %d:%d, want the store's %d:%d", name, s.Uid, s.Gid, nobody, nobody)
		}
	}
}
