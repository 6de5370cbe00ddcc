package store

import (
	"context"
	"database/sql"

	"github.com/fleetgate/fleetgate"
)

// GrantSupervisor makes a user a supervisor of a fleet; granted again, the grant is kept as
// it was.
func (db *DB) GrantSupervisor(ctx context.Context, s fleetgate.Supervisor) error {
	_, err := db.exec(ctx, `INSERT INTO fleet_supervisors (fleet_id, user_id, granted_by, granted_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (fleet_id, user_id) DO NOTHING`, s.FleetID, s.UserID, s.GrantedBy, millis(s.GrantedAt))
	return err
}

// RevokeSupervisor ends a user's grant for a fleet; ENotFound when there was none.
func (db *DB) RevokeSupervisor(ctx context.Context, fleetID, userID string) error {
	res, err := db.exec(ctx, `DELETE FROM fleet_supervisors WHERE fleet_id = ? AND user_id = ?`, fleetID, userID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fleetgate.Errorf(fleetgate.ENotFound, "user %s is not a supervisor of fleet %s", userID, fleetID)
	}
	return nil
}

// Supervisors lists a fleet's supervisors, by email.
func (db *DB) Supervisors(ctx context.Context, fleetID string) ([]fleetgate.Supervisor, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT s.fleet_id, s.user_id, u.email, s.granted_by, s.granted_at
		FROM fleet_supervisors s JOIN users u ON u.id = s.user_id WHERE s.fleet_id = ? ORDER BY u.email`, fleetID)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := []fleetgate.Supervisor{}
	for rows.Next() {
		var s fleetgate.Supervisor
		var at sql.NullInt64
		if err := rows.Scan(&s.FleetID, &s.UserID, &s.UserEmail, &s.GrantedBy, &at); err != nil {
			return nil, wrap(err)
		}
		s.GrantedAt = fromMillis(at)
		out = append(out, s)
	}
	return out, wrap(rows.Err())
}

// Supervises reports whether a user is a supervisor of a fleet.
func (db *DB) Supervises(ctx context.Context, userID, fleetID string) (bool, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM fleet_supervisors WHERE user_id = ? AND fleet_id = ?`, userID, fleetID).Scan(&n)
	return n > 0, wrap(err)
}
