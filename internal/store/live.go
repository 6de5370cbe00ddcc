package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fleetgate/fleetgate"
)

// SaveLiveRobot records a robot that just connected: a new row, or the existing row's fleet,
// name, configuration, agent version and last_seen brought up to date. The organization is
// the fleet's.
func (db *DB) SaveLiveRobot(ctx context.Context, r fleetgate.Robot) error {
	_, err := db.exec(ctx, `INSERT INTO robots (`+robotColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, fleet_id = excluded.fleet_id,
			agent_id = excluded.agent_id,
			name = excluded.name, config_name = excluded.config_name,
			config_version = excluded.config_version, agent_version = excluded.agent_version,
			last_seen = excluded.last_seen`,
		r.ID, r.OrgID, r.FleetID, nullString(r.AgentID), r.Name, r.ConfigName, r.ConfigVersion, r.AgentVersion, millis(r.LastSeen), millis(r.CreatedAt))
	return err
}

// TouchRobot sets a robot's last_seen.
func (db *DB) TouchRobot(ctx context.Context, id string, at time.Time) error {
	res, err := db.exec(ctx, `UPDATE robots SET last_seen = ? WHERE id = ?`, millis(at), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("robot", id)
	}
	return nil
}

// CountAgentRobots counts the robot records agent agentID holds (its robots, online or not).
func (db *DB) CountAgentRobots(ctx context.Context, agentID string) (int, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM robots WHERE agent_id = ?`, agentID).Scan(&n)
	return n, wrap(err)
}

// DeleteRobotIfUnseenSince removes robot id with its memberships and resource records if it
// was last seen before cutoff (never seen: created before cutoff), and reports whether it
// did. The check is in the same statement as the delete: a robot that connects meanwhile
// (its last_seen moves to now) stays.
func (db *DB) DeleteRobotIfUnseenSince(ctx context.Context, id string, cutoff time.Time) (bool, error) {
	res, err := db.exec(ctx, `DELETE FROM robots WHERE id = ? AND COALESCE(last_seen, created_at) < ?`, id, millis(cutoff))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap(err)
	}
	return n > 0, nil
}

const resourceColumns = `id, robot_id, name, mime_type, file_type, size, sha256, path, created_at, admin_only`

// SaveResource records (or refreshes) what a download link points at.
func (db *DB) SaveResource(ctx context.Context, r fleetgate.ResourceRecord) error {
	_, err := db.exec(ctx, `INSERT INTO resources (`+resourceColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET robot_id = excluded.robot_id, name = excluded.name,
			mime_type = excluded.mime_type, file_type = excluded.file_type, size = excluded.size,
			sha256 = excluded.sha256, path = excluded.path, created_at = excluded.created_at,
			admin_only = excluded.admin_only`,
		r.ID, r.RobotID, r.Name, r.MIMEType, r.FileType, r.Size, r.SHA256, r.Path, millis(r.CreatedAt), r.AdminOnly)
	return err
}

// Resource returns the record of resource id.
func (db *DB) Resource(ctx context.Context, id string) (fleetgate.ResourceRecord, error) {
	r, err := scanResource(db.reader.QueryRowContext(ctx, `SELECT `+resourceColumns+` FROM resources WHERE id = ?`, id))
	return r, one(err, "resource", id)
}

// scanResource reads a row of resourceColumns.
func scanResource(row rowScanner) (fleetgate.ResourceRecord, error) {
	var r fleetgate.ResourceRecord
	var created sql.NullInt64
	err := row.Scan(&r.ID, &r.RobotID, &r.Name, &r.MIMEType, &r.FileType, &r.Size, &r.SHA256, &r.Path, &created, &r.AdminOnly)
	r.CreatedAt = fromMillis(created)
	return r, err
}
