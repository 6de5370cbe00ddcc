package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

const agentColumns = `id, org_id, fleet_id, name, key_hash, created_at, last_seen, revoked_at`

func scanAgent(row rowScanner) (fleetgate.Agent, error) {
	var a fleetgate.Agent
	var created, seen, revoked sql.NullInt64
	err := row.Scan(&a.ID, &a.OrgID, &a.FleetID, &a.Name, &a.KeyHash, &created, &seen, &revoked)
	a.CreatedAt, a.LastSeen, a.RevokedAt = fromMillis(created), fromMillis(seen), fromMillis(revoked)
	return a, err
}

// AgentByKeyHash finds the agent whose key hashes to hash, revoked or not. The not-found
// message names no hash: it may end up in front of whoever presented the key.
func (db *DB) AgentByKeyHash(ctx context.Context, hash string) (fleetgate.Agent, error) {
	a, err := scanAgent(db.reader.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE key_hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return fleetgate.Agent{}, fleetgate.Errorf(fleetgate.ENotFound, "no agent has this key")
	}
	return a, wrap(err)
}

func (db *DB) Agent(ctx context.Context, id string) (fleetgate.Agent, error) {
	a, err := scanAgent(db.reader.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE id = ?`, id))
	return a, one(err, "agent", id)
}

// Agents lists the agents of orgID, revoked ones included, by name.
func (db *DB) Agents(ctx context.Context, orgID string) ([]fleetgate.Agent, error) {
	return list(ctx, db, scanAgent, `SELECT `+agentColumns+` FROM agents WHERE org_id = ? ORDER BY name, id`, orgID)
}

// maxIDsPerQuery bounds the placeholders of one IN list (SQLite allows 32,766).
const maxIDsPerQuery = 500

// ActiveAgents returns those of ids that name an agent whose key is not revoked, in one query
// per maxIDsPerQuery of them: each replica re-checks all its linked agents every second.
func (db *DB) ActiveAgents(ctx context.Context, ids []string) ([]string, error) {
	var active []string
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), maxIDsPerQuery)]
		ids = ids[len(chunk):]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		query := `SELECT id FROM agents WHERE revoked_at IS NULL AND id IN (?` + strings.Repeat(`, ?`, len(chunk)-1) + `)`
		found, err := list(ctx, db, func(row rowScanner) (string, error) {
			var id string
			return id, row.Scan(&id)
		}, query, args...)
		if err != nil {
			return nil, err
		}
		active = append(active, found...)
	}
	return active, nil
}

// RevokeAgent marks the agent's key revoked at at. The first revocation time stays: a second
// revocation is EConflict, decided inside the write transaction so that of two concurrent
// revocations exactly one succeeds.
func (db *DB) RevokeAgent(ctx context.Context, id string, at time.Time) error {
	return wrap(db.write(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE agents SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, millis(at), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 {
			return nil
		}
		var name string
		err = tx.QueryRowContext(ctx, `SELECT name FROM agents WHERE id = ?`, id).Scan(&name)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("agent", id)
		} else if err != nil {
			return err
		}
		return fleetgate.Errorf(fleetgate.EConflict, "agent %q is already revoked", name)
	}))
}

// TouchAgent sets an agent's last_seen; ENotFound for an unknown agent.
func (db *DB) TouchAgent(ctx context.Context, id string, at time.Time) error {
	res, err := db.exec(ctx, `UPDATE agents SET last_seen = ? WHERE id = ?`, millis(at), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("agent", id)
	}
	return nil
}

// SyncedResources lists the resources of robotID that this gateway holds a verified copy of
// (path set), newest first; rowid, the order of first recording, breaks ties.
func (db *DB) SyncedResources(ctx context.Context, robotID string) ([]fleetgate.ResourceRecord, error) {
	return list(ctx, db, scanResource, `SELECT `+resourceColumns+` FROM resources
		WHERE robot_id = ? AND path <> '' AND path <> ? ORDER BY created_at DESC, rowid DESC`, robotID, gateway.DeletedPath)
}

// MarkResourceDeleted marks the archived resource id deleted; false when it is not archived
// (any more).
func (db *DB) MarkResourceDeleted(ctx context.Context, id string) (bool, error) {
	res, err := db.exec(ctx, `UPDATE resources SET path = ? WHERE id = ? AND path = ?`, gateway.DeletedPath, id, gateway.ArchivedPath)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ArchivedRecordings lists the archived MCAP files of every robot with the robot's
// organization, fleet and name, oldest first (rowid breaks ties).
func (db *DB) ArchivedRecordings(ctx context.Context) ([]gateway.ArchivedRecording, error) {
	return list(ctx, db, func(row rowScanner) (gateway.ArchivedRecording, error) {
		var a gateway.ArchivedRecording
		var created sql.NullInt64
		err := row.Scan(&a.ID, &a.RobotID, &a.Name, &a.MIMEType, &a.FileType, &a.Size, &a.SHA256, &a.Path, &created, &a.AdminOnly,
			&a.OrgID, &a.FleetID, &a.RobotName)
		a.CreatedAt = fromMillis(created)
		return a, err
	}, `SELECT r.id, r.robot_id, r.name, r.mime_type, r.file_type, r.size, r.sha256, r.path, r.created_at, r.admin_only,
		b.org_id, b.fleet_id, b.name
		FROM resources r JOIN robots b ON b.id = r.robot_id
		WHERE r.path = ? AND r.mime_type = ? ORDER BY r.created_at, r.rowid`, gateway.ArchivedPath, "application/mcap")
}
