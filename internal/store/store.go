// Package store keeps fleetgate's durable state in SQL. The queries are written once, in
// the SQL that SQLite and PostgreSQL share; this package opens the default backend, SQLite
// (modernc, no cgo): one writer connection with immediate transactions, a small read pool,
// WAL and synchronous=FULL so that a committed write survives a crash or power cut.
// internal/store/postgres opens the same store on a PostgreSQL server (OpenBackend).
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fleetgate/fleetgate"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// readPoolSize is small on purpose: modernc connections are heavy and reads are short.
const readPoolSize = 4

// DB is the store. On SQLite, writes go through the single writer connection, so SQLite
// never returns SQLITE_BUSY between our own writers, and reads use a separate pool; on a
// server backend both are the same pool.
type DB struct {
	path   string
	writer pool
	reader pool
	// lockSetup runs first in the transactions of migrations and Bootstrap (see Backend).
	lockSetup string
}

// Backend is a SQL server that runs the store's queries in place of SQLite: a database that
// speaks PostgreSQL's dialect, numbered placeholders ($1) included.
type Backend struct {
	// Name names the database in messages; it must hold no password.
	Name string
	// DB is one pool for reads and writes. The store closes it.
	DB *sql.DB
	// Migrations holds the backend's numbered migrations, migrations/NNNN_name.sql.
	Migrations fs.FS
	// LockSetup is a statement that takes a lock held until the end of its transaction,
	// run first in each migration's transaction and in Bootstrap's, so that processes
	// starting together on one database apply every migration once and bootstrap once.
	// (SQLite needs none: its write transactions take the database's lock at BEGIN.)
	LockSetup string
}

// OpenBackend migrates the backend's database forward and returns the store over it.
func OpenBackend(ctx context.Context, b Backend) (*DB, error) {
	p := pool{DB: b.DB, numbered: true}
	db := &DB{path: b.Name, writer: p, reader: p, lockSetup: b.LockSetup}
	if err := db.migrate(ctx, b.Migrations); err != nil {
		b.DB.Close()
		return nil, err
	}
	return db, nil
}

// Open opens (creating if needed) the database file at path and migrates it forward.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, migrations)
}

func open(ctx context.Context, path string, migrationFS fs.FS) (*DB, error) {
	if path == "" || path == ":memory:" {
		// A :memory: database with a pool is one database per connection.
		return nil, errors.New("store: a file path is required")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	writer, err := sql.Open("sqlite", dsn(abs, false))
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxIdleTime(0)
	db := &DB{path: abs, writer: pool{DB: writer}}
	if err := db.migrate(ctx, migrationFS); err != nil {
		writer.Close()
		return nil, err
	}
	reader, err := sql.Open("sqlite", dsn(abs, true))
	if err != nil {
		writer.Close()
		return nil, err
	}
	reader.SetMaxOpenConns(readPoolSize)
	reader.SetMaxIdleConns(readPoolSize)
	db.reader = pool{DB: reader}
	return db, nil
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
	}
	// SQLite reads the DSN as a URI: the path ends at '?' or '#' and %XX is decoded, so a
	// data directory named "a#b" would silently open "a" unless the path is escaped.
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Close closes both pools.
func (db *DB) Close() error {
	if db.reader.DB == db.writer.DB {
		return db.writer.Close()
	}
	return errors.Join(db.reader.Close(), db.writer.Close())
}

// Ping checks that the store's server answers (PostgreSQL; SQLite always does).
func (db *DB) Ping(ctx context.Context) error { return db.writer.PingContext(ctx) }

// Path is the database file, or the name of a server backend's database.
func (db *DB) Path() string { return db.path }

// migrate applies, each in its own transaction, the numbered migrations not yet applied.
// A database from a newer fleetgate (a version we do not know) is refused, not damaged.
func (db *DB) migrate(ctx context.Context, fsys fs.FS) error {
	files, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(files)
	// A first look without the lock spares an up-to-date database the migrations' write
	// transactions; an error (no schema_migrations yet) means everything is to be checked.
	var seen int
	db.writer.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&seen)
	latest := 0
	for _, name := range files {
		version, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("store: migration %s has no number", name)
		}
		latest = version
		if version <= seen {
			continue
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if err := db.underMigrationLock(ctx, func(tx *writeTx, current int) error {
			if version <= current {
				return nil // applied before, maybe by another process a moment ago
			}
			// As written: a migration is in its backend's own dialect, placeholders and all.
			if _, err := tx.Tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, millis(time.Now()))
			return err
		}); err != nil {
			return fmt.Errorf("store: migration %s: %w", name, err)
		}
	}
	return db.underMigrationLock(ctx, func(_ *writeTx, current int) error {
		if current > latest {
			return fmt.Errorf("store: %s has schema version %d, newer than this fleetgate knows (%d); run a newer fleetgate", db.path, current, latest)
		}
		return nil
	})
}

// underMigrationLock runs fn in a write transaction that holds the backend's migration lock
// (SQLite's immediate transaction is one already), with the schema version read under it.
func (db *DB) underMigrationLock(ctx context.Context, fn func(tx *writeTx, current int) error) error {
	return db.write(ctx, func(tx *writeTx) error {
		if err := db.takeSetupLock(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		var current int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return fmt.Errorf("store: reading schema version: %w", err)
		}
		return fn(tx, current)
	})
}

func (db *DB) takeSetupLock(ctx context.Context, tx *writeTx) error {
	if db.lockSetup == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, db.lockSetup); err != nil {
		return fmt.Errorf("store: taking the setup lock: %w", err)
	}
	return nil
}

// Exec runs one statement in a write transaction, and QueryRow one read, in the store's SQL
// (placeholders as in its queries): for tests and diagnostics that need a column the domain
// types do not show. The rest of fleetgate uses the typed methods.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.exec(ctx, query, args...)
}

// QueryRow: see Exec.
func (db *DB) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return db.reader.QueryRowContext(ctx, query, args...)
}

// SchemaVersion is the newest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.reader.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// write runs fn in an immediate transaction on the writer connection. The commit returns
// once the WAL is synced (synchronous=FULL), so a nil error means the write is on disk.
func (db *DB) write(ctx context.Context, fn func(tx *writeTx) error) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(&writeTx{Tx: tx, numbered: db.writer.numbered}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// exec runs one write statement.
func (db *DB) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := db.write(ctx, func(tx *writeTx) (err error) {
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, wrap(err)
}

// wrap turns driver errors into domain errors: a unique violation is a conflict, a value
// the database cannot hold (PostgreSQL's data exceptions: a NUL or invalid UTF-8 in text,
// a number out of range) is the caller's mistake, anything else internal.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var ge *fleetgate.Error
	if errors.As(err, &ge) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fleetgate.Errorf(fleetgate.ENotFound, "not found")
	}
	if diskFull(err) {
		// Not a fault of ours and not the caller's: the write can be tried again once an
		// admin has made room, which the words say (issue 32's full disk).
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "the gateway's disk is full: nothing was stored; free space on its data directory", RetryAfter: diskFullRetry, Err: err}
	}
	state := sqlState(err)
	if state == "23505" || strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return &fleetgate.Error{Code: fleetgate.EConflict, Message: "already exists", Err: err}
	}
	if strings.HasPrefix(state, "22") {
		return &fleetgate.Error{Code: fleetgate.EInvalid, Message: "a value cannot be stored: text must be UTF-8 without NUL characters, numbers within range", Err: err}
	}
	return fleetgate.Internal(err)
}

// diskFullRetry is the Retry-After of a write refused for a full disk: room is made by a
// person, not within seconds.
const diskFullRetry = 30 * time.Second

// diskFull reports whether err is the database's disk being full: SQLite's SQLITE_FULL (13,
// the low byte of its extended codes; modernc's *sqlite.Error has a Code method, so no driver
// is imported here), PostgreSQL's disk_full (53100), or the system's ENOSPC.
func diskFull(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code()&0xff == sqliteFull {
		return true
	}
	return sqlState(err) == "53100" || errors.Is(err, syscall.ENOSPC)
}

const sqliteFull = 13

// sqlState is the SQLSTATE code of a PostgreSQL error ("" for any other): pgx's
// *pgconn.PgError has a SQLState method, so no driver is imported here.
func sqlState(err error) string {
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		return state.SQLState()
	}
	return ""
}

func millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMillis(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// rowScanner is a *sql.Row or *sql.Rows, as the scan functions take them.
type rowScanner interface{ Scan(...any) error }

// list runs a read query and scans each row with scan.
func list[T any](ctx context.Context, db *DB, scan func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, wrap(err)
		}
		out = append(out, v)
	}
	return out, wrap(rows.Err())
}
