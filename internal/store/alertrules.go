package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fleetgate/fleetgate"
)

const webhookColumns = `id, fleet_id, name, url, secret, created_at`

func scanWebhook(row rowScanner) (fleetgate.Webhook, error) {
	var h fleetgate.Webhook
	var created sql.NullInt64
	err := row.Scan(&h.ID, &h.FleetID, &h.Name, &h.URL, &h.Secret, &created)
	h.CreatedAt = fromMillis(created)
	return h, err
}

// CreateWebhook stores a fleet's webhook.
func (db *DB) CreateWebhook(ctx context.Context, h fleetgate.Webhook) error {
	_, err := db.exec(ctx, `INSERT INTO alert_webhooks (`+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		h.ID, h.FleetID, h.Name, h.URL, h.Secret, millis(h.CreatedAt))
	return err
}

// Webhook is one webhook; ENotFound when there is none.
func (db *DB) Webhook(ctx context.Context, id string) (fleetgate.Webhook, error) {
	h, err := scanWebhook(db.reader.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM alert_webhooks WHERE id = ?`, id))
	return h, one(err, "webhook", id)
}

// Webhooks lists a fleet's webhooks in creation order.
func (db *DB) Webhooks(ctx context.Context, fleetID string) ([]fleetgate.Webhook, error) {
	return list(ctx, db, scanWebhook, `SELECT `+webhookColumns+` FROM alert_webhooks WHERE fleet_id = ? ORDER BY created_at, id`, fleetID)
}

// DeleteWebhook removes a webhook; the rules that posted to it escalate nowhere after.
func (db *DB) DeleteWebhook(ctx context.Context, id string) error {
	return db.updateOne(ctx, "webhook", id, `DELETE FROM alert_webhooks WHERE id = ?`, id)
}

const alertRuleColumns = `id, fleet_id, kind, name, source, value_key, above, threshold, critical, escalate_after_ms, webhook_id, created_at`

func scanAlertRule(row rowScanner) (fleetgate.AlertRule, error) {
	var r fleetgate.AlertRule
	var kind string
	var after int64
	var webhook sql.NullString
	var created sql.NullInt64
	err := row.Scan(&r.ID, &r.FleetID, &kind, &r.Name, &r.Source, &r.Key, &r.Above, &r.Threshold, &r.Critical, &after, &webhook, &created)
	r.Kind, r.EscalateAfter, r.WebhookID, r.CreatedAt = fleetgate.AlertKind(kind), time.Duration(after)*time.Millisecond, webhook.String, fromMillis(created)
	return r, err
}

// CreateAlertRule stores an admin's alert rule.
func (db *DB) CreateAlertRule(ctx context.Context, r fleetgate.AlertRule) error {
	_, err := db.exec(ctx, `INSERT INTO alert_rules (`+alertRuleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.FleetID, string(r.Kind), r.Name, r.Source, r.Key, r.Above, r.Threshold, r.Critical, r.EscalateAfter.Milliseconds(),
		nullString(r.WebhookID), millis(r.CreatedAt))
	return err
}

// AlertRule is one rule; ENotFound when there is none.
func (db *DB) AlertRule(ctx context.Context, id string) (fleetgate.AlertRule, error) {
	r, err := scanAlertRule(db.reader.QueryRowContext(ctx, `SELECT `+alertRuleColumns+` FROM alert_rules WHERE id = ?`, id))
	return r, one(err, "alert rule", id)
}

// AlertRules lists the rules of a fleet (every fleet: "") in creation order.
func (db *DB) AlertRules(ctx context.Context, fleetID string) ([]fleetgate.AlertRule, error) {
	if fleetID == "" {
		return list(ctx, db, scanAlertRule, `SELECT `+alertRuleColumns+` FROM alert_rules ORDER BY created_at, id`)
	}
	return list(ctx, db, scanAlertRule, `SELECT `+alertRuleColumns+` FROM alert_rules WHERE fleet_id = ? ORDER BY created_at, id`, fleetID)
}

// DeleteAlertRule removes a rule.
func (db *DB) DeleteAlertRule(ctx context.Context, id string) error {
	return db.updateOne(ctx, "alert rule", id, `DELETE FROM alert_rules WHERE id = ?`, id)
}
