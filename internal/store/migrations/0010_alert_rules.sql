-- Alerts an operator acts on: the webhooks a fleet's escalated alerts are posted to (signed
-- with their secret, HMAC-SHA256) and the admins' rules per fleet: when an alert nobody
-- acknowledged is escalated, and the thresholds on a KPI or a metric that raise alerts of
-- their own. A fleet's rules and webhooks go with it.
CREATE TABLE alert_webhooks (
    id         TEXT PRIMARY KEY,
    fleet_id   TEXT NOT NULL REFERENCES fleets (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    url        TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX alert_webhooks_fleet ON alert_webhooks (fleet_id);
CREATE TABLE alert_rules (
    id                TEXT PRIMARY KEY,
    fleet_id          TEXT NOT NULL REFERENCES fleets (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL,
    name              TEXT NOT NULL DEFAULT '',
    source            TEXT NOT NULL DEFAULT '',
    value_key         TEXT NOT NULL DEFAULT '',
    above             INTEGER NOT NULL DEFAULT 0,
    threshold         REAL NOT NULL DEFAULT 0,
    critical          INTEGER NOT NULL DEFAULT 0,
    escalate_after_ms INTEGER NOT NULL DEFAULT 0,
    webhook_id        TEXT REFERENCES alert_webhooks (id) ON DELETE SET NULL,
    created_at        INTEGER NOT NULL
);
CREATE INDEX alert_rules_fleet ON alert_rules (fleet_id);
