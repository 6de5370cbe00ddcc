// Package store keeps fleetgate's durable state in SQLite (modernc, no cgo): one writer
// connection with immediate transactions, a small read pool, WAL and synchronous=FULL so
// that a committed write survives a crash or power cut.
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
	"time"

	"github.com/fleetgate/fleetgate/internal/gateway"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// readPoolSize is small on purpose: modernc connections are heavy and reads are short.
const readPoolSize = 4

// DB is the store. Writes go through the single writer connection, so SQLite never
// returns SQLITE_BUSY between our own writers; reads use a separate pool.
type DB struct {
	path   string
	writer *sql.DB
	reader *sql.DB
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
	db := &DB{path: abs, writer: writer}
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
	db.reader = reader
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
	return errors.Join(db.reader.Close(), db.writer.Close())
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// migrate applies, each in its own transaction, the numbered migrations not yet applied.
// A database from a newer fleetgate (a version we do not know) is refused, not damaged.
func (db *DB) migrate(ctx context.Context, fsys fs.FS) error {
	if _, err := db.writer.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	var current int
	if err := db.writer.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("store: reading schema version: %w", err)
	}
	files, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(files)
	latest := 0
	for _, name := range files {
		version, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("store: migration %s has no number", name)
		}
		latest = version
		if version <= current {
			continue
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if err := db.write(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, millis(time.Now()))
			return err
		}); err != nil {
			return fmt.Errorf("store: migration %s: %w", name, err)
		}
	}
	if current > latest {
		return fmt.Errorf("store: %s has schema version %d, newer than this fleetgate knows (%d); run a newer fleetgate", db.path, current, latest)
	}
	return nil
}

// SchemaVersion is the newest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.reader.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// write runs fn in an immediate transaction on the writer connection. The commit returns
// once the WAL is synced (synchronous=FULL), so a nil error means the write is on disk.
func (db *DB) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// exec runs one write statement.
func (db *DB) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := db.write(ctx, func(tx *sql.Tx) (err error) {
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, wrap(err)
}

// wrap turns driver errors into domain errors: a constraint violation is a conflict,
// anything else internal.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var ge *gateway.Error
	if errors.As(err, &ge) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return gateway.Errorf(gateway.ENotFound, "not found")
	}
	if strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return &gateway.Error{Code: gateway.EConflict, Message: "already exists", Err: err}
	}
	return gateway.Internal(err)
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
