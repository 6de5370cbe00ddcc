package store

import (
	"cmp"
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

var _ gateway.Store = (*DB)(nil)

func notFound(what, id string) error {
	return fleetgate.Errorf(fleetgate.ENotFound, "%s %q not found", what, id)
}

// one scans a single row, turning sql.ErrNoRows into a not-found domain error.
func one(err error, what, id string) error {
	if err == sql.ErrNoRows {
		return notFound(what, id)
	}
	return wrap(err)
}

func (db *DB) Organization(ctx context.Context, id string) (fleetgate.Organization, error) {
	var o fleetgate.Organization
	err := db.reader.QueryRowContext(ctx, `SELECT id, name FROM organizations WHERE id = ?`, id).Scan(&o.ID, &o.Name)
	return o, one(err, "organization", id)
}

// DefaultOrganization is the first organization created. created_at has millisecond
// precision, so rowid (insertion order) breaks ties, never the random id.
func (db *DB) DefaultOrganization(ctx context.Context) (fleetgate.Organization, error) {
	var o fleetgate.Organization
	err := db.reader.QueryRowContext(ctx, `SELECT id, name FROM organizations ORDER BY created_at, rowid LIMIT 1`).Scan(&o.ID, &o.Name)
	return o, one(err, "organization", "default")
}

func (db *DB) CreateOrganization(ctx context.Context, o fleetgate.Organization) error {
	_, err := db.exec(ctx, `INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)`, o.ID, o.Name, time.Now().UnixMilli())
	return err
}

func (db *DB) Fleet(ctx context.Context, id string) (fleetgate.Fleet, error) {
	var f fleetgate.Fleet
	err := db.reader.QueryRowContext(ctx, `SELECT id, org_id, name FROM fleets WHERE id = ?`, id).Scan(&f.ID, &f.OrgID, &f.Name)
	return f, one(err, "fleet", id)
}

func (db *DB) FleetByName(ctx context.Context, orgID, name string) (fleetgate.Fleet, error) {
	var f fleetgate.Fleet
	err := db.reader.QueryRowContext(ctx, `SELECT id, org_id, name FROM fleets WHERE org_id = ? AND name = ?`, orgID, name).Scan(&f.ID, &f.OrgID, &f.Name)
	return f, one(err, "fleet", name)
}

// Fleets lists the fleets of orgID in creation order (rowid breaks millisecond ties): the
// first is the organization's default fleet.
func (db *DB) Fleets(ctx context.Context, orgID string) ([]fleetgate.Fleet, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT id, org_id, name FROM fleets WHERE org_id = ? ORDER BY created_at, rowid`, orgID)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []fleetgate.Fleet
	for rows.Next() {
		var f fleetgate.Fleet
		if err := rows.Scan(&f.ID, &f.OrgID, &f.Name); err != nil {
			return nil, wrap(err)
		}
		out = append(out, f)
	}
	return out, wrap(rows.Err())
}

func (db *DB) CreateFleet(ctx context.Context, f fleetgate.Fleet) error {
	_, err := db.exec(ctx, `INSERT INTO fleets (id, org_id, name, created_at) VALUES (?, ?, ?, ?)`,
		f.ID, f.OrgID, f.Name, time.Now().UnixMilli())
	return err
}

const userColumns = `id, org_id, email, name, org_admin, password_hash IS NOT NULL, disabled_at, password_must_change`

func scanUser(row rowScanner) (fleetgate.User, error) {
	var u fleetgate.User
	var disabled sql.NullInt64
	err := row.Scan(&u.ID, &u.OrgID, &u.Email, &u.Name, &u.OrgAdmin, &u.HasPassword, &disabled, &u.MustChangePassword)
	u.DisabledAt = fromMillis(disabled)
	return u, err
}

func (db *DB) User(ctx context.Context, id string) (fleetgate.User, error) {
	u, err := scanUser(db.reader.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
	return u, one(err, "user", id)
}

func (db *DB) UserByEmail(ctx context.Context, email string) (fleetgate.User, error) {
	u, err := scanUser(db.reader.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
	return u, one(err, "user", email)
}

func (db *DB) OrgAdmins(ctx context.Context, orgID string) ([]fleetgate.User, error) {
	return list(ctx, db, scanUser, `SELECT `+userColumns+` FROM users WHERE org_id = ? AND org_admin ORDER BY email`, orgID)
}

func (db *DB) CreateUser(ctx context.Context, u fleetgate.User) error {
	_, err := db.exec(ctx, `INSERT INTO users (id, org_id, email, name, org_admin, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		u.ID, u.OrgID, u.Email, u.Name, u.OrgAdmin, time.Now().UnixMilli())
	return err
}

const robotColumns = `id, org_id, fleet_id, agent_id, name, config_name, config_version, agent_version, last_seen, created_at`

func scanRobot(row rowScanner) (fleetgate.Robot, error) {
	var r fleetgate.Robot
	var lastSeen, created sql.NullInt64
	var agentID sql.NullString
	err := row.Scan(&r.ID, &r.OrgID, &r.FleetID, &agentID, &r.Name, &r.ConfigName, &r.ConfigVersion, &r.AgentVersion, &lastSeen, &created)
	r.AgentID = agentID.String
	r.LastSeen, r.CreatedAt = fromMillis(lastSeen), fromMillis(created)
	return r, err
}

func (db *DB) Robot(ctx context.Context, id string) (fleetgate.Robot, error) {
	r, err := scanRobot(db.reader.QueryRowContext(ctx, `SELECT `+robotColumns+` FROM robots WHERE id = ?`, id))
	return r, one(err, "robot", id)
}

func (db *DB) Robots(ctx context.Context, orgID string) ([]fleetgate.Robot, error) {
	return list(ctx, db, scanRobot, `SELECT `+robotColumns+` FROM robots WHERE org_id = ? ORDER BY name, id`, orgID)
}

func (db *DB) CreateRobot(ctx context.Context, r fleetgate.Robot) error {
	_, err := db.exec(ctx, `INSERT INTO robots (`+robotColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.OrgID, r.FleetID, nullString(r.AgentID), r.Name, r.ConfigName, r.ConfigVersion, r.AgentVersion, millis(r.LastSeen), millis(r.CreatedAt))
	return err
}

func (db *DB) RobotMembers(ctx context.Context, robotID string) ([]fleetgate.Membership, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT m.robot_id, m.user_id, u.email, m.permission
		FROM robot_members m JOIN users u ON u.id = m.user_id
		WHERE m.robot_id = ? ORDER BY u.email`, robotID)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := []fleetgate.Membership{}
	for rows.Next() {
		var m fleetgate.Membership
		if err := rows.Scan(&m.RobotID, &m.UserID, &m.UserEmail, &m.Role); err != nil {
			return nil, wrap(err)
		}
		out = append(out, m)
	}
	return out, wrap(rows.Err())
}

func (db *DB) UserRoles(ctx context.Context, userID string) (map[string]fleetgate.Role, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT robot_id, permission FROM robot_members WHERE user_id = ?`, userID)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := map[string]fleetgate.Role{}
	for rows.Next() {
		var id string
		var role fleetgate.Role
		if err := rows.Scan(&id, &role); err != nil {
			return nil, wrap(err)
		}
		out[id] = role
	}
	return out, wrap(rows.Err())
}

func (db *DB) SetMembership(ctx context.Context, m fleetgate.Membership) error {
	if m.Role == fleetgate.RoleNone {
		_, err := db.exec(ctx, `DELETE FROM robot_members WHERE robot_id = ? AND user_id = ?`, m.RobotID, m.UserID)
		return err
	}
	_, err := db.exec(ctx, `INSERT INTO robot_members (robot_id, user_id, permission) VALUES (?, ?, ?)
		ON CONFLICT (robot_id, user_id) DO UPDATE SET permission = excluded.permission`, m.RobotID, m.UserID, m.Role)
	return err
}

const apiTokenColumns = `id, user_id, name, scope, COALESCE(fleet_id, ''), hash, created_at, last_used_at, revoked_at`

func scanAPIToken(row rowScanner) (fleetgate.APIToken, error) {
	var t fleetgate.APIToken
	var created, used, revoked sql.NullInt64
	err := row.Scan(&t.ID, &t.UserID, &t.Name, &t.Scope, &t.FleetID, &t.Hash, &created, &used, &revoked)
	t.CreatedAt, t.LastUsedAt, t.RevokedAt = fromMillis(created), fromMillis(used), fromMillis(revoked)
	return t, err
}

func insertAPIToken(ctx context.Context, tx *writeTx, t fleetgate.APIToken) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (id, user_id, name, scope, fleet_id, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Name, t.Scope, nullString(t.FleetID), t.Hash, millis(t.CreatedAt))
	return err
}

func (db *DB) CreateAPIToken(ctx context.Context, t fleetgate.APIToken) error {
	return wrap(db.write(ctx, func(tx *writeTx) error { return insertAPIToken(ctx, tx, t) }))
}

func (db *DB) APITokenByHash(ctx context.Context, hash string) (fleetgate.APIToken, error) {
	t, err := scanAPIToken(db.reader.QueryRowContext(ctx, `SELECT `+apiTokenColumns+` FROM api_tokens WHERE hash = ?`, hash))
	return t, one(err, "API token", "")
}

func (db *DB) APITokens(ctx context.Context, userID string) ([]fleetgate.APIToken, error) {
	return list(ctx, db, scanAPIToken, `SELECT `+apiTokenColumns+` FROM api_tokens WHERE user_id = ? ORDER BY created_at, id`, userID)
}

// RevokeAPIToken marks the token revoked and deletes the bearer tokens minted from it.
func (db *DB) RevokeAPIToken(ctx context.Context, id string, at time.Time) error {
	return wrap(db.write(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, millis(at), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("API token", id)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM bearer_tokens WHERE api_token_id = ?`, id)
		return err
	}))
}

func (db *DB) TouchAPIToken(ctx context.Context, id string, at time.Time) error {
	_, err := db.exec(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, millis(at), id)
	return err
}

func (db *DB) CreateBearerToken(ctx context.Context, t fleetgate.BearerToken) error {
	_, err := db.exec(ctx, `INSERT INTO bearer_tokens (hash, api_token_id, expires_at, created_at) VALUES (?, ?, ?, ?)`,
		t.Hash, t.APITokenID, millis(t.ExpiresAt), millis(t.CreatedAt))
	return err
}

func (db *DB) BearerToken(ctx context.Context, hash string) (fleetgate.BearerToken, fleetgate.APIToken, error) {
	var bt fleetgate.BearerToken
	var expires, created sql.NullInt64
	row := db.reader.QueryRowContext(ctx, `SELECT b.hash, b.api_token_id, b.expires_at, b.created_at,
		t.id, t.user_id, t.name, t.scope, COALESCE(t.fleet_id, ''), t.hash, t.created_at, t.last_used_at, t.revoked_at
		FROM bearer_tokens b JOIN api_tokens t ON t.id = b.api_token_id WHERE b.hash = ?`, hash)
	var t fleetgate.APIToken
	var tCreated, tUsed, tRevoked sql.NullInt64
	err := row.Scan(&bt.Hash, &bt.APITokenID, &expires, &created,
		&t.ID, &t.UserID, &t.Name, &t.Scope, &t.FleetID, &t.Hash, &tCreated, &tUsed, &tRevoked)
	if err != nil {
		return bt, t, one(err, "bearer token", "")
	}
	bt.ExpiresAt, bt.CreatedAt = fromMillis(expires), fromMillis(created)
	t.CreatedAt, t.LastUsedAt, t.RevokedAt = fromMillis(tCreated), fromMillis(tUsed), fromMillis(tRevoked)
	return bt, t, nil
}

func (db *DB) DeleteExpiredBearerTokens(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.exec(ctx, `DELETE FROM bearer_tokens WHERE expires_at <= ?`, millis(now))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (db *DB) CreateAgent(ctx context.Context, a fleetgate.Agent) error {
	// The casts type the parameters for PostgreSQL, which cannot infer them in a SELECT list.
	res, err := db.exec(ctx, `INSERT INTO agents (id, org_id, fleet_id, name, key_hash, created_at)
		SELECT CAST(? AS TEXT), org_id, id, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT) FROM fleets WHERE id = ?`,
		a.ID, a.Name, a.KeyHash, millis(a.CreatedAt), a.FleetID)
	if fleetgate.ErrorCode(err) == fleetgate.EConflict {
		return fleetgate.Errorf(fleetgate.EConflict, "an agent named %q already exists", a.Name)
	} else if err != nil {
		return err
	}
	// INSERT ... SELECT inserts nothing, without an error, when the fleet is unknown.
	if n, err := res.RowsAffected(); err != nil {
		return wrap(err)
	} else if n == 0 {
		return notFound("fleet", a.FleetID)
	}
	return nil
}

func (db *DB) CreateEvent(ctx context.Context, e *fleetgate.Event) error {
	e.Type, e.Severity = cmp.Or(e.Type, fleetgate.EventNote), cmp.Or(e.Severity, fleetgate.SeverityInfo)
	return wrap(db.write(ctx, func(tx *writeTx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO events (robot_id, fleet_id, user_id, author_email, message, created_at, entry_type, severity, recording_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, e.RobotID, nullString(e.FleetID), nullString(e.UserID), e.AuthorEmail, e.Message, millis(e.CreatedAt),
			string(e.Type), string(e.Severity), nullString(e.RecordingID)).Scan(&e.ID)
	}))
}

// CreateAgentEvents stores entries an agent forwarded, in one transaction: an entry already
// stored (the same agent and origin id, sent again after a lost acknowledgement) is kept as
// it is, except that it gains the recording it names when it had none (the agent sends an
// entry again once its flight recording exists: SetEventRecording).
func (db *DB) CreateAgentEvents(ctx context.Context, events []fleetgate.Event) error {
	return wrap(db.write(ctx, func(tx *writeTx) error {
		for _, e := range events {
			if _, err := tx.ExecContext(ctx, `INSERT INTO events (robot_id, fleet_id, user_id, author_email, message, created_at, agent_id, origin_id, entry_type, severity, recording_id)
				VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (agent_id, origin_id) WHERE agent_id IS NOT NULL DO UPDATE SET recording_id = excluded.recording_id
				WHERE events.recording_id IS NULL AND excluded.recording_id IS NOT NULL`, e.RobotID, nullString(e.FleetID), e.AuthorEmail, e.Message, millis(e.CreatedAt), e.AgentID, e.OriginID,
				string(cmp.Or(e.Type, fleetgate.EventNote)), string(cmp.Or(e.Severity, fleetgate.SeverityInfo)), nullString(e.RecordingID)); err != nil {
				return err
			}
		}
		return nil
	}))
}

// UnforwardedEvents lists, oldest first, up to limit entries posted here that the cloud has
// not yet confirmed.
func (db *DB) UnforwardedEvents(ctx context.Context, limit int) ([]fleetgate.Event, error) {
	return db.events(ctx, `WHERE forwarded_at IS NULL AND agent_id IS NULL ORDER BY id LIMIT ?`, limit)
}

// SetEventRecording links entry id to the recording made for it (a flight recording of a post
// with record=true). The entry goes back to the outbox, so that a linked agent sends it again
// and the cloud's copy gains the link.
func (db *DB) SetEventRecording(ctx context.Context, id int64, recordingID string) error {
	return wrap(db.write(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE events SET recording_id = ?, forwarded_at = NULL WHERE id = ?`, nullString(recordingID), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("event", strconv.FormatInt(id, 10))
		}
		return nil
	}))
}

// MarkEventsForwarded records that the cloud stored entries ids.
func (db *DB) MarkEventsForwarded(ctx context.Context, ids []int64, at time.Time) error {
	return wrap(db.write(ctx, func(tx *writeTx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE events SET forwarded_at = ? WHERE id = ? AND forwarded_at IS NULL`, millis(at), id); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Events lists the newest entries matching f (empty fields match all), newest first: by
// creation time, then id.
func (db *DB) Events(ctx context.Context, f fleetgate.EventFilter) ([]fleetgate.Event, error) {
	where, args := eventWhere(f)
	return db.events(ctx, where+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, f.Limit)...)
}

// eventWhere is the WHERE clause of f, with its arguments in order (plain ? placeholders,
// so that a clause can be left out).
func eventWhere(f fleetgate.EventFilter) (string, []any) {
	var conds []string
	var args []any
	eq := func(column, value string) {
		if value != "" {
			conds = append(conds, column+" = ?")
			args = append(args, value)
		}
	}
	eq("robot_id", f.RobotID)
	eq("fleet_id", f.FleetID)
	eq("agent_id", f.AgentID)
	eq("author_email", f.Author)
	eq("entry_type", string(f.Type))
	eq("severity", string(f.Severity))
	switch {
	case f.RobotIDs == nil:
	case len(f.RobotIDs) == 0:
		conds = append(conds, "1 = 0")
	case len(f.RobotIDs) == 1:
		conds = append(conds, "robot_id = ?") // events_robot_time gives one robot's entries in order
		args = append(args, f.RobotIDs[0])
	default:
		// The robots a caller may see are most of an organization's: the entries are read in
		// order from events_time and each is checked, never all of them sorted for a page.
		// robot_id || '' keeps both backends' planners off the robot index, whose rows of
		// several robots would have to be sorted first.
		conds = append(conds, "robot_id || '' IN (?"+strings.Repeat(", ?", len(f.RobotIDs)-1)+")")
		for _, id := range f.RobotIDs {
			args = append(args, id)
		}
	}
	if !f.From.IsZero() {
		conds = append(conds, "created_at >= ?")
		args = append(args, millis(f.From))
	}
	if !f.To.IsZero() {
		conds = append(conds, "created_at < ?")
		args = append(args, millis(f.To))
	}
	if f.Text != "" {
		// LOWER on both sides: SQLite's LIKE ignores the case of ASCII only, PostgreSQL's none.
		conds = append(conds, `LOWER(message) LIKE ? ESCAPE '\'`)
		args = append(args, "%"+likeEscaper.Replace(strings.ToLower(f.Text))+"%")
	}
	if f.After != nil {
		at := millis(f.After.CreatedAt)
		conds = append(conds, "(created_at, id) < (?, ?)") // a row value: the index seeks to it
		args = append(args, at, f.After.ID)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "WHERE " + strings.Join(conds, " AND "), args
}

// likeEscaper makes a text match itself in a LIKE pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func (db *DB) events(ctx context.Context, where string, args ...any) ([]fleetgate.Event, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT id, robot_id, COALESCE(fleet_id, ''), COALESCE(user_id, ''), author_email, message, created_at,
		COALESCE(agent_id, ''), COALESCE(origin_id, 0), entry_type, severity, COALESCE(recording_id, '') FROM events `+where, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []fleetgate.Event
	for rows.Next() {
		var e fleetgate.Event
		var created sql.NullInt64
		if err := rows.Scan(&e.ID, &e.RobotID, &e.FleetID, &e.UserID, &e.AuthorEmail, &e.Message, &created, &e.AgentID, &e.OriginID,
			&e.Type, &e.Severity, &e.RecordingID); err != nil {
			return nil, wrap(err)
		}
		e.CreatedAt = fromMillis(created)
		out = append(out, e)
	}
	return out, wrap(rows.Err())
}

func (db *DB) Bootstrap(ctx context.Context, org fleetgate.Organization, fleet fleetgate.Fleet, admin fleetgate.User, token fleetgate.APIToken) error {
	now := time.Now().UnixMilli()
	return wrap(db.write(ctx, func(tx *writeTx) error {
		if err := db.takeSetupLock(ctx, tx); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM organizations`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fleetgate.Errorf(fleetgate.EConflict, "the store is already bootstrapped")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)`, org.ID, org.Name, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fleets (id, org_id, name, created_at) VALUES (?, ?, ?, ?)`, fleet.ID, org.ID, fleet.Name, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO users (id, org_id, email, name, org_admin, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			admin.ID, org.ID, admin.Email, admin.Name, admin.OrgAdmin, now); err != nil {
			return err
		}
		return insertAPIToken(ctx, tx, token)
	}))
}
