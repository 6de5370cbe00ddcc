// Package postgres opens fleetgate's store on a PostgreSQL server, for a cloud gateway
// whose state outlives one machine and is shared by its replicas. The queries are the
// store's own (internal/store); this package brings the driver (pgx, pure Go), the
// PostgreSQL schema and the lock that lets replicas start together on one database.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/fleetgate/fleetgate/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// setupLock is a transaction-level advisory lock (released at commit or rollback, so a
// crashed replica never leaves it held) on a key of our own: the bytes of "fltgate\x01".
const setupLock = `SELECT pg_advisory_xact_lock(7380401876718871809)`

// Pool sizes per process: a replica's queries are short, and several replicas share the
// server's max_connections (100 by default). Every open connection may stay idle: with fewer
// idle than open, a burst (thousands of agents linking) closes and reopens connections all
// the time, and each new one is a PostgreSQL process started and authenticated (the cluster
// benchmark saw links come up at 4 a second that way).
const (
	maxOpenConns = 16
	maxIdleConns = maxOpenConns
)

// CheckURL says what is wrong with s as the URL of a PostgreSQL database, if anything:
// only its scheme is checked here, the rest when Open connects.
func CheckURL(s string) error {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return nil
	}
	return errors.New("--db must be a PostgreSQL URL (postgres://user@host:port/database); leave it out for SQLite in the data directory")
}

// Open connects to the database at rawURL (postgres://user:password@host:port/db?...; the
// libpq variables PGPASSWORD and others fill what it leaves out), migrates it forward and
// returns the store over it.
func Open(ctx context.Context, rawURL string) (*store.DB, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	name := Redacted(rawURL)
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", name, err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connecting to %s: %w", name, err)
	}
	return store.OpenBackend(ctx, store.Backend{Name: name, DB: db, Migrations: migrations, LockSetup: setupLock})
}

// Redacted is rawURL without its password, for messages and logs.
func Redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
