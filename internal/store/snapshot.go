package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Snapshot writes a consistent copy of the SQLite store at path into a new file, into, while
// the gateway that owns the store goes on writing: SQLite's VACUUM INTO reads one
// transaction's view of the database (a WAL reader never blocks the writer, nor the writer
// it), so the copy holds every transaction committed before it began and none after. The
// store is opened as it is, without migrations, and nothing is written to it: a newer
// fleetgate backing up an older running gateway leaves the schema as that gateway has it.
// The copy is checked (CheckFile) and its schema version returned.
func Snapshot(ctx context.Context, path, into string) (schema int, err error) {
	// Opening would create a missing file: a typo in the path must not back up nothing.
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	// Read-only connections cannot VACUUM INTO (the copy is attached with the source's
	// flags); this one never writes to the source all the same.
	db, err := sql.Open("sqlite", fileURI(abs)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: opening %s: %w", path, err)
	}
	defer conn.Close()
	// The first read creates the WAL's -wal and -shm files when no gateway runs there. As
	// root (a backup by an operator), they would be root's, and a gateway started as its
	// own user meanwhile could not open them: give them the store's owner.
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(new(int)); err != nil {
		return 0, fmt.Errorf("store: reading %s: %w", path, err)
	}
	if err := giveSidecarsTheOwnerOf(abs); err != nil {
		return 0, err
	}
	// VACUUM INTO writes into an empty file as it finds it: made here, it is the owner's
	// only (the store holds token hashes).
	f, err := os.OpenFile(into, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	f.Close()
	if _, err := conn.ExecContext(ctx, `VACUUM INTO ?`, into); err != nil {
		return 0, fmt.Errorf("store: copying %s: %w", path, err)
	}
	conn.Close()
	if err := db.Close(); err != nil {
		return 0, err
	}
	return CheckFile(ctx, into)
}

// giveSidecarsTheOwnerOf gives the SQLite files beside the database at path (-wal, -shm) the
// database file's owner, when this process may (root) and they differ.
func giveSidecarsTheOwnerOf(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	owner, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		side, err := os.Stat(path + suffix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		if s, ok := side.Sys().(*syscall.Stat_t); ok && (s.Uid != owner.Uid || s.Gid != owner.Gid) {
			if err := os.Chown(path+suffix, int(owner.Uid), int(owner.Gid)); err != nil {
				return fmt.Errorf("store: giving %s%s its database's owner: %w", path, suffix, err)
			}
		}
	}
	return nil
}

// CheckFile checks a store file that no process uses (a snapshot, or one restored from a
// backup) and returns its schema version: SQLite's quick_check must pass, and the schema must
// be one this fleetgate can open (older ones are migrated forward when a gateway opens them;
// a newer one needs a newer fleetgate). The file is opened read-only and immutable: nothing
// is written beside it.
func CheckFile(ctx context.Context, path string) (schema int, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(abs); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	db, err := sql.Open("sqlite", fileURI(abs)+"?mode=ro&immutable=1")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var result string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&result); err != nil {
		return 0, fmt.Errorf("store: checking %s: %w", path, err)
	}
	if result != "ok" {
		return 0, fmt.Errorf("store: %s is damaged: %s", path, result)
	}
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&schema); err != nil {
		return 0, fmt.Errorf("store: %s is not a fleetgate store: %w", path, err)
	}
	if latest := LatestSchema(); schema > latest {
		return schema, fmt.Errorf("store: %s has schema version %d, newer than this fleetgate knows (%d); use a newer fleetgate", path, schema, latest)
	}
	return schema, nil
}

// LatestSchema is the schema version this fleetgate's migrations bring a SQLite store to.
func LatestSchema() int {
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	latest := 0
	for _, name := range files {
		if v, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0]); err == nil {
			latest = max(latest, v)
		}
	}
	return latest
}

// fileURI is path as SQLite's URI filename, escaped as dsn escapes it.
func fileURI(path string) string { return "file:" + (&url.URL{Path: path}).EscapedPath() }
