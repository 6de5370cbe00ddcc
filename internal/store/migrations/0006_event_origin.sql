-- Event-log entries that came over the agent link (the cloud's): the agent and the entry's
-- id in the agent's own log, one entry per pair. On an agent, forwarded_at says the entry is
-- in the cloud's log (NULL: still to send).
ALTER TABLE events ADD COLUMN agent_id TEXT;
ALTER TABLE events ADD COLUMN origin_id INTEGER;
ALTER TABLE events ADD COLUMN forwarded_at INTEGER;
CREATE UNIQUE INDEX events_origin ON events (agent_id, origin_id) WHERE agent_id IS NOT NULL;
CREATE INDEX events_unforwarded ON events (id) WHERE forwarded_at IS NULL;
