package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// The queries are written once, with SQLite's placeholders (? and ?N), in the SQL that
// SQLite and PostgreSQL share. The few words that differ are kept out of them by the
// schemas instead: PostgreSQL's tables that need an insertion order have a column named
// rowid, booleans are tested as such (WHERE org_admin), RETURNING replaces
// LastInsertId. What remains is the placeholders, rewritten here for a server backend.

// pool is a database handle whose queries are rewritten to the backend's placeholders.
type pool struct {
	*sql.DB
	numbered bool // $1, $2 ... (PostgreSQL) instead of ?
}

func (p pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, placeholders(query, p.numbered), args...)
}

func (p pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.DB.QueryRowContext(ctx, placeholders(query, p.numbered), args...)
}

func (p pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.DB.ExecContext(ctx, placeholders(query, p.numbered), args...)
}

// writeTx is a write transaction whose queries are rewritten like pool's.
type writeTx struct {
	*sql.Tx
	numbered bool
}

func (tx *writeTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.Tx.QueryRowContext(ctx, placeholders(query, tx.numbered), args...)
}

func (tx *writeTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.Tx.ExecContext(ctx, placeholders(query, tx.numbered), args...)
}

// placeholders rewrites ? to $1, $2 ... in order and ?N to $N when numbered; our queries
// hold no ? inside string literals.
func placeholders(query string, numbered bool) string {
	if !numbered || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			b.WriteByte(query[i])
			continue
		}
		b.WriteByte('$')
		if i+1 < len(query) && query[i+1] >= '0' && query[i+1] <= '9' {
			continue // ?N: the digits follow as they are
		}
		n++
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
