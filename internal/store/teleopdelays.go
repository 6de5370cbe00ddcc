package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fleetgate/fleetgate"
)

// TeleopDelays is a robot's own governor thresholds; ENotFound when it follows the gateway's.
func (db *DB) TeleopDelays(ctx context.Context, robotID string) (fleetgate.TeleopDelays, error) {
	d := fleetgate.TeleopDelays{RobotID: robotID}
	var full, quarter, stop int64
	var updated sql.NullInt64
	err := db.reader.QueryRowContext(ctx, `SELECT full_ms, quarter_ms, stop_ms, updated_by, updated_at FROM robot_teleop_delays WHERE robot_id = ?`,
		robotID).Scan(&full, &quarter, &stop, &d.UpdatedBy, &updated)
	d.Full, d.Quarter, d.Stop = time.Duration(full)*time.Millisecond, time.Duration(quarter)*time.Millisecond, time.Duration(stop)*time.Millisecond
	d.UpdatedAt = fromMillis(updated)
	return d, one(err, "teleop settings of robot", robotID)
}

// SetTeleopDelays stores a robot's own thresholds, replacing any it had.
func (db *DB) SetTeleopDelays(ctx context.Context, d fleetgate.TeleopDelays) error {
	_, err := db.exec(ctx, `INSERT INTO robot_teleop_delays (robot_id, full_ms, quarter_ms, stop_ms, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (robot_id) DO UPDATE SET full_ms = excluded.full_ms, quarter_ms = excluded.quarter_ms, stop_ms = excluded.stop_ms,
		updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		d.RobotID, d.Full.Milliseconds(), d.Quarter.Milliseconds(), d.Stop.Milliseconds(), d.UpdatedBy, millis(d.UpdatedAt))
	return err
}

// ClearTeleopDelays returns a robot to the gateway's thresholds (none set is no error).
func (db *DB) ClearTeleopDelays(ctx context.Context, robotID string) error {
	_, err := db.exec(ctx, `DELETE FROM robot_teleop_delays WHERE robot_id = ?`, robotID)
	return err
}
