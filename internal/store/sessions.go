package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Sessions is the web panel's session store (it implements scs.CtxStore without importing
// scs). Only the SHA-256 of a session token is kept, so a copy of the database opens no
// session.
type Sessions struct {
	db  *DB
	now func() time.Time
}

// Sessions returns the session store over db; now is its clock (time.Now when nil), which
// decides what has expired.
func (db *DB) Sessions(now func() time.Time) *Sessions {
	if now == nil {
		now = time.Now
	}
	return &Sessions{db: db, now: now}
}

func (s *Sessions) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s *Sessions) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

func (s *Sessions) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// FindCtx returns the data of a live session; an unknown or expired one is not found.
func (s *Sessions) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := s.db.reader.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token_hash = ? AND expiry > ?`,
		gateway.HashSecret(token), s.now().UnixMilli()).Scan(&b)
	if err == sql.ErrNoRows {
		return nil, false, nil
	} else if err != nil {
		return nil, false, wrap(err)
	}
	return b, true, nil
}

func (s *Sessions) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	_, err := s.db.exec(ctx, `INSERT INTO sessions (token_hash, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT (token_hash) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`,
		gateway.HashSecret(token), b, expiry.UnixMilli())
	return err
}

func (s *Sessions) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.db.exec(ctx, `DELETE FROM sessions WHERE token_hash = ?`, gateway.HashSecret(token))
	return err
}

// DeleteExpired removes expired sessions and socket tokens; the server runs it now and then.
func (s *Sessions) DeleteExpired(ctx context.Context) (int64, error) {
	now := s.now().UnixMilli()
	var n int64
	err := s.db.write(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expiry <= ?`, now)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		// A used socket token lives with its session; an unused one dies at its expiry.
		_, err = tx.ExecContext(ctx, `DELETE FROM socket_tokens WHERE (used_at IS NULL AND expires_at <= ?)
			OR session_hash NOT IN (SELECT token_hash FROM sessions)`, now)
		return err
	})
	return n, wrap(err)
}

// SessionExpiry is when the session with this token hash expires; ENotFound when there is
// none (logged out, or swept).
func (db *DB) SessionExpiry(ctx context.Context, hash string) (time.Time, error) {
	var expiry sql.NullInt64
	err := db.reader.QueryRowContext(ctx, `SELECT expiry FROM sessions WHERE token_hash = ?`, hash).Scan(&expiry)
	return fromMillis(expiry), one(err, "session", "")
}
