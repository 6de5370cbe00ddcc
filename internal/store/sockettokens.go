package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fleetgate/fleetgate"
)

func (db *DB) CreateSocketToken(ctx context.Context, t fleetgate.SocketToken) error {
	_, err := db.exec(ctx, `INSERT INTO socket_tokens (hash, user_id, api_token_id, session_hash, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, t.Hash, t.UserID, nullString(t.APITokenID), t.SessionHash, millis(t.ExpiresAt), millis(t.CreatedAt))
	return err
}

func (db *DB) SocketToken(ctx context.Context, hash string) (fleetgate.SocketToken, error) {
	return scanSocketToken(db.reader.QueryRowContext(ctx, `SELECT `+socketTokenColumns+` FROM socket_tokens WHERE hash = ?`, hash))
}

// UseSocketToken marks an unused, unexpired socket token used at at, in one statement so
// that two upgrades racing with one token cannot both win. A token that is unknown, used or
// expired is ENotFound.
func (db *DB) UseSocketToken(ctx context.Context, hash string, at time.Time) (fleetgate.SocketToken, error) {
	var t fleetgate.SocketToken
	err := db.write(ctx, func(tx *writeTx) error {
		var err error
		t, err = scanSocketToken(tx.QueryRowContext(ctx, `UPDATE socket_tokens SET used_at = ?
			WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING `+socketTokenColumns, millis(at), hash, millis(at)))
		return err
	})
	return t, wrap(err)
}

const socketTokenColumns = `hash, user_id, COALESCE(api_token_id, ''), session_hash, expires_at, used_at, created_at`

func scanSocketToken(row rowScanner) (fleetgate.SocketToken, error) {
	var t fleetgate.SocketToken
	var expires, used, created sql.NullInt64
	err := row.Scan(&t.Hash, &t.UserID, &t.APITokenID, &t.SessionHash, &expires, &used, &created)
	t.ExpiresAt, t.UsedAt, t.CreatedAt = fromMillis(expires), fromMillis(used), fromMillis(created)
	return t, one(err, "socket token", "")
}
