package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// MustOpen opens a fresh store on a file under tb.TempDir() (never :memory:, which with a
// pool is one database per connection) and closes it when the test ends.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	return mustOpenAt(tb, filepath.Join(tb.TempDir(), "fleetgate.db"), migrations)
}

// mustOpenAt opens path with the migrations in fsys. Close is idempotent, so a test may
// close the store itself to reopen the file.
func mustOpenAt(tb testing.TB, path string, fsys fs.FS) *DB {
	tb.Helper()
	db, err := open(context.Background(), path, fsys)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustClose(tb testing.TB, db *DB) {
	tb.Helper()
	if err := db.Close(); err != nil {
		tb.Fatalf("close: %v", err)
	}
}

func TestOpenRefusesMemoryAndEmptyPath(t *testing.T) {
	for _, path := range []string{"", ":memory:"} {
		t.Run(fmt.Sprintf("%q", path), func(t *testing.T) {
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded; want an error asking for a file path")
			}
		})
	}
}

func TestOpenAppliesEmbeddedMigrations(t *testing.T) {
	db := MustOpen(t)
	v, err := db.SchemaVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v != latestVersion {
		t.Errorf("SchemaVersion = %d, want %d", v, latestVersion)
	}
	if !filepath.IsAbs(db.Path()) {
		t.Errorf("Path = %q, want an absolute path", db.Path())
	}
}

// Test migrations: notes at version 1; version 2 adds a column and a table.
const (
	migration1 = `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);`
	migration2 = `ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT 'untagged';
CREATE TABLE tags (name TEXT PRIMARY KEY);
INSERT INTO tags (name) VALUES ('untagged');`
	// The first statement succeeds, the second fails: nothing of it may remain.
	migration2Broken = `CREATE TABLE half (x INTEGER);
INSERT INTO half (x) VALUES (1);
INSERT INTO no_such_table (x) VALUES (1);`
)

func migrationsFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, body := range files {
		m["migrations/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return m
}

func schemaVersion(t *testing.T, db *DB) int {
	t.Helper()
	v, err := db.SchemaVersion(context.Background())
	if err != nil {
		t.Fatalf("SchemaVersion: %v", err)
	}
	return v
}

func tableExists(t *testing.T, db *DB, name string) bool {
	t.Helper()
	var n int
	if err := db.reader.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestMigrateForwardKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")

	v1 := migrationsFS(map[string]string{"0001_x.sql": migration1})
	db := mustOpenAt(t, path, v1)
	if got := schemaVersion(t, db); got != 1 {
		t.Fatalf("version after 0001 = %d, want 1", got)
	}
	if _, err := db.writer.ExecContext(ctx, `INSERT INTO notes (body) VALUES ('written at version 1')`); err != nil {
		t.Fatal(err)
	}
	mustClose(t, db)

	v2 := migrationsFS(map[string]string{"0001_x.sql": migration1, "0002_y.sql": migration2})
	db = mustOpenAt(t, path, v2)
	if got := schemaVersion(t, db); got != 2 {
		t.Errorf("version after 0002 = %d, want 2", got)
	}
	var body, tag string
	if err := db.reader.QueryRowContext(ctx, `SELECT body, tag FROM notes`).Scan(&body, &tag); err != nil {
		t.Fatalf("reading the version 1 row: %v", err)
	}
	if body != "written at version 1" || tag != "untagged" {
		t.Errorf("row = (%q, %q), want the version 1 body with the new column's default", body, tag)
	}
	if !tableExists(t, db, "tags") {
		t.Error("table tags of 0002 missing")
	}
	mustClose(t, db)

	// Opening again applies nothing twice.
	db = mustOpenAt(t, path, v2)
	var applied int
	if err := db.reader.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != 2 {
		t.Errorf("schema_migrations has %d rows, want 2", applied)
	}
}

func TestMigrationIsAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	v1 := migrationsFS(map[string]string{"0001_x.sql": migration1})
	mustClose(t, mustOpenAt(t, path, v1))

	broken := migrationsFS(map[string]string{"0001_x.sql": migration1, "0002_broken.sql": migration2Broken})
	if db, err := open(context.Background(), path, broken); err == nil {
		db.Close()
		t.Fatal("open with a failing migration succeeded")
	} else if !strings.Contains(err.Error(), "0002_broken.sql") {
		t.Errorf("error %q does not name the failing migration", err)
	}

	db := mustOpenAt(t, path, v1)
	if got := schemaVersion(t, db); got != 1 {
		t.Errorf("version after a failed 0002 = %d, want 1", got)
	}
	if tableExists(t, db, "half") {
		t.Error("the failed migration left its table behind")
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	v2 := migrationsFS(map[string]string{"0001_x.sql": migration1, "0002_y.sql": migration2})
	mustClose(t, mustOpenAt(t, path, v2))

	v1 := migrationsFS(map[string]string{"0001_x.sql": migration1})
	db, err := open(context.Background(), path, v1)
	if err == nil {
		db.Close()
		t.Fatal("an older fleetgate opened a version 2 database")
	}
	for _, want := range []string{"schema version 2", "newer", "(1)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	// Refused, not damaged: the newer fleetgate still opens it.
	db = mustOpenAt(t, path, v2)
	if !tableExists(t, db, "tags") || schemaVersion(t, db) != 2 {
		t.Error("the refused database changed")
	}
}

func TestMigrateRefusesNewerSchemaWithEmbeddedMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleetgate.db")
	db := mustOpenAt(t, path, migrations)
	if _, err := db.writer.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)`); err != nil {
		t.Fatal(err)
	}
	mustClose(t, db)
	if db, err := Open(context.Background(), path); err == nil {
		db.Close()
		t.Fatal("Open accepted a database at schema version 999")
	} else if !strings.Contains(err.Error(), "newer") {
		t.Errorf("error %q does not say the database is newer", err)
	}
}

func TestMigrationWithoutNumberIsRefused(t *testing.T) {
	fsys := migrationsFS(map[string]string{"0001_x.sql": migration1, "init.sql": migration2})
	db, err := open(context.Background(), filepath.Join(t.TempDir(), "m.db"), fsys)
	if err == nil {
		db.Close()
		t.Fatal("open accepted a migration without a number")
	}
}

func pragma[T any](t *testing.T, q interface {
	QueryRow(string, ...any) *sql.Row
}, name string) T {
	t.Helper()
	var v T
	if err := q.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestWriterPragmas(t *testing.T) {
	db := MustOpen(t)
	if got := pragma[string](t, db.writer, "journal_mode"); got != "wal" {
		t.Errorf("journal_mode = %q, want wal", got)
	}
	if got := pragma[int](t, db.writer, "synchronous"); got != 2 {
		t.Errorf("synchronous = %d, want 2 (FULL)", got)
	}
	if got := pragma[int](t, db.writer, "foreign_keys"); got != 1 {
		t.Errorf("foreign_keys = %d, want 1", got)
	}
	if got := pragma[int](t, db.writer, "busy_timeout"); got <= 0 {
		t.Errorf("busy_timeout = %d, want > 0", got)
	}
	if got := pragma[int](t, db.writer, "query_only"); got != 0 {
		t.Errorf("writer query_only = %d, want 0", got)
	}
	if got := db.writer.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("writer pool allows %d connections, want 1", got)
	}
}

func TestReaderPoolIsQueryOnly(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	if got := pragma[int](t, db.reader, "query_only"); got != 1 {
		t.Errorf("reader query_only = %d, want 1", got)
	}
	if got := pragma[int](t, db.reader, "foreign_keys"); got != 1 {
		t.Errorf("reader foreign_keys = %d, want 1", got)
	}
	if got := pragma[int](t, db.reader, "busy_timeout"); got <= 0 {
		t.Errorf("reader busy_timeout = %d, want > 0", got)
	}
	if n := db.reader.Stats().MaxOpenConnections; n < 2 || n > 4 {
		t.Errorf("read pool of %d connections, want 2-4", n)
	}
	if _, err := db.reader.ExecContext(ctx, `INSERT INTO events (robot_id, author_email, message, created_at) VALUES ('r', 'a@b', 'm', 1)`); err == nil {
		t.Error("a write through the read pool succeeded")
	}
	events, err := db.Events(ctx, fleetgate.EventFilter{RobotID: "", Limit: 10})
	if err != nil || len(events) != 0 {
		t.Errorf("Events = %v, %v; want none", events, err)
	}
}

// TestWritesTakeTheLockAtBegin checks _txlock=immediate: a write transaction holds the
// write lock from BEGIN, so it can never fail later on a lock upgrade.
func TestWritesTakeTheLockAtBegin(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	other, err := sql.Open("sqlite", "file:"+db.Path()+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil {
		conn.ExecContext(ctx, "ROLLBACK")
		t.Fatal("another connection took the write lock while a store transaction was open: BEGIN is deferred")
	} else if !strings.Contains(err.Error(), "locked") && !strings.Contains(err.Error(), "busy") {
		t.Errorf("error = %v, want SQLITE_BUSY", err)
	}
}

func TestDataSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleetgate.db")
	db := mustOpenAt(t, path, migrations)
	f := bootstrap(t, db)
	robot := fleetgate.Robot{ID: "r-1", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "atlas", CreatedAt: time.Now()}
	if err := db.CreateRobot(ctx, robot); err != nil {
		t.Fatal(err)
	}
	e := fleetgate.Event{RobotID: robot.ID, AuthorEmail: f.admin.Email, Message: "on disk", CreatedAt: time.Now()}
	if err := db.CreateEvent(ctx, &e); err != nil {
		t.Fatal(err)
	}
	mustClose(t, db)

	db = mustOpenAt(t, path, migrations)
	if _, err := db.Robot(ctx, robot.ID); err != nil {
		t.Errorf("robot after reopen: %v", err)
	}
	events, err := db.Events(ctx, fleetgate.EventFilter{RobotID: robot.ID, Limit: 10})
	if err != nil || len(events) != 1 || events[0].Message != "on disk" || events[0].ID != e.ID {
		t.Errorf("events after reopen = %+v, %v; want the one event", events, err)
	}
	if _, err := db.APITokenByHash(ctx, f.token.Hash); err != nil {
		t.Errorf("bootstrap token after reopen: %v", err)
	}
}

func TestWrapKeepsDomainErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"no rows", sql.ErrNoRows, fleetgate.ENotFound},
		{"domain error", fleetgate.Errorf(fleetgate.EForbidden, "no"), fleetgate.EForbidden},
		{"wrapped domain error", fmt.Errorf("ctx: %w", fleetgate.Errorf(fleetgate.EInvalid, "bad")), fleetgate.EInvalid},
		{"unique", errors.New("constraint failed: UNIQUE constraint failed: users.email (2067)"), fleetgate.EConflict},
		{"PostgreSQL unique violation", fmt.Errorf("insert: %w", sqlStateError("23505")), fleetgate.EConflict},
		{"PostgreSQL NUL in text", sqlStateError("22021"), fleetgate.EInvalid},
		{"PostgreSQL number out of range", sqlStateError("22003"), fleetgate.EInvalid},
		{"PostgreSQL query cancelled", sqlStateError("57014"), fleetgate.EInternal},
		{"PostgreSQL disk full", sqlStateError("53100"), fleetgate.EUnavailable},
		{"no space left on the device", fmt.Errorf("write: %w", syscall.ENOSPC), fleetgate.EUnavailable},
		{"other", errors.New("disk I/O error"), fleetgate.EInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fleetgate.ErrorCode(wrap(tt.err)); got != tt.want {
				t.Errorf("ErrorCode(wrap(%v)) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// sqlStateError is an error as pgx's *pgconn.PgError shows itself to wrap.
type sqlStateError string

func (e sqlStateError) Error() string    { return "ERROR: something (SQLSTATE " + string(e) + ")" }
func (e sqlStateError) SQLState() string { return string(e) }

// TestOpenUnusualPaths: SQLite reads the DSN as a URI, so '#', '?' and '%' in a data
// directory must be escaped or the database silently lands somewhere else.
func TestOpenUnusualPaths(t *testing.T) {
	for _, name := range []string{"with space", "hash#x", "question?x", "percent%41x", "percent%zz", "colon:x"} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "fleetgate.db")
			db := mustOpenAt(t, path, migrations)
			e := fleetgate.Event{RobotID: "r", AuthorEmail: "a@b", Message: name, CreatedAt: time.Now()}
			if err := db.CreateEvent(context.Background(), &e); err != nil {
				t.Fatal(err)
			}
			mustClose(t, db)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("database not at %s: %v", path, err)
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("files beside the data directory: %v", entries)
			}
			db = mustOpenAt(t, path, migrations)
			if events, err := db.Events(context.Background(), fleetgate.EventFilter{RobotID: "r", Limit: 1}); err != nil || len(events) != 1 || events[0].Message != name {
				t.Errorf("after reopen: %+v, %v", events, err)
			}
		})
	}
}

// latestVersion is the number of the newest migration in migrations/.
const latestVersion = 12

// fixture is a bootstrapped store's first records.
type fixture struct {
	org   fleetgate.Organization
	fleet fleetgate.Fleet
	admin fleetgate.User
	token fleetgate.APIToken
}

func bootstrap(t *testing.T, db *DB) fixture {
	t.Helper()
	f := fixture{
		org:   fleetgate.Organization{ID: "org-1", Name: "default"},
		fleet: fleetgate.Fleet{ID: "fleet-1", OrgID: "org-1", Name: "main"},
		admin: fleetgate.User{ID: "user-admin", OrgID: "org-1", Email: "admin@localhost", Name: "Administrator", OrgAdmin: true},
		token: fleetgate.APIToken{ID: "tok-1", UserID: "user-admin", Name: "bootstrap", Scope: fleetgate.ScopeFull,
			Hash: gateway.HashSecret("secret-1"), CreatedAt: time.Now().UTC().Truncate(time.Millisecond)},
	}
	must(t, db.Bootstrap(context.Background(), f.org, f.fleet, f.admin, f.token))
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAFullDiskIsUnavailableInWords: a write SQLite cannot make for want of room (here its
// max_page_count, as a full disk gives SQLITE_FULL) answers EUnavailable naming the disk with
// a Retry-After, not an internal error; once there is room the same write is stored.
func TestAFullDiskIsUnavailableInWords(t *testing.T) {
	db := MustOpen(t)
	f := bootstrap(t, db)
	ctx := context.Background()
	var pages int
	if err := db.writer.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	e := fleetgate.Event{RobotID: "r", UserID: f.admin.ID, AuthorEmail: f.admin.Email, Message: strings.Repeat("x", 64<<10),
		CreatedAt: time.Now().UTC(), Type: fleetgate.EventNote, Severity: fleetgate.SeverityInfo}
	err := db.CreateEvent(ctx, &e)
	if fleetgate.ErrorCode(err) != fleetgate.EUnavailable || !strings.Contains(fleetgate.ErrorMessage(err), "disk is full") || fleetgate.RetryAfter(err) <= 0 {
		t.Fatalf("an event on a full disk: %v (code %q, message %q, retry after %v); want unavailable, naming the disk, with a wait",
			err, fleetgate.ErrorCode(err), fleetgate.ErrorMessage(err), fleetgate.RetryAfter(err))
	}
	if _, err := db.writer.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateEvent(ctx, &e); err != nil {
		t.Fatalf("the event once there is room: %v", err)
	}
}
