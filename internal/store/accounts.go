package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// The accounts and robot settings the web panel manages (gateway.AccountStore).

var _ gateway.AccountStore = (*DB)(nil)

// PasswordHash is the user's encoded password hash, "" when the user has none.
func (db *DB) PasswordHash(ctx context.Context, userID string) (string, error) {
	var h sql.NullString
	err := db.reader.QueryRowContext(ctx, `SELECT password_hash FROM users WHERE id = ?`, userID).Scan(&h)
	return h.String, one(err, "user", userID)
}

// SetPasswordHash replaces the user's password hash; mustChange marks a generated password,
// to be changed at the next login.
func (db *DB) SetPasswordHash(ctx context.Context, userID, hash string, mustChange bool) error {
	return db.updateOne(ctx, "user", userID, `UPDATE users SET password_hash = ?, password_must_change = ? WHERE id = ?`, nullString(hash), mustChange, userID)
}

// Users lists the users of an organization by email.
func (db *DB) Users(ctx context.Context, orgID string) ([]fleetgate.User, error) {
	return list(ctx, db, scanUser, `SELECT `+userColumns+` FROM users WHERE org_id = ? ORDER BY email`, orgID)
}

// SetUserDisabled disables a user at at, or enables them again when at is zero.
func (db *DB) SetUserDisabled(ctx context.Context, userID string, at time.Time) error {
	return db.updateOne(ctx, "user", userID, `UPDATE users SET disabled_at = ? WHERE id = ?`, millis(at), userID)
}

// RenameRobot sets a robot's display name.
func (db *DB) RenameRobot(ctx context.Context, id, name string) error {
	return db.updateOne(ctx, "robot", id, `UPDATE robots SET name = ? WHERE id = ?`, name, id)
}

// DeleteRobot removes a robot with its memberships and resource records; its event-log
// entries stay (the log outlives the robots it names).
func (db *DB) DeleteRobot(ctx context.Context, id string) error {
	return db.updateOne(ctx, "robot", id, `DELETE FROM robots WHERE id = ?`, id)
}

// APIToken returns one API token by id.
func (db *DB) APIToken(ctx context.Context, id string) (fleetgate.APIToken, error) {
	t, err := scanAPIToken(db.reader.QueryRowContext(ctx, `SELECT `+apiTokenColumns+` FROM api_tokens WHERE id = ?`, id))
	return t, one(err, "API token", id)
}

// updateOne runs a write that must touch exactly one row: none is ENotFound.
func (db *DB) updateOne(ctx context.Context, what, id, query string, args ...any) error {
	res, err := db.exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return wrap(err)
	} else if n == 0 {
		return notFound(what, id)
	}
	return nil
}
