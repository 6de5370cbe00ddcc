-- The event log as data (GET /apigateway/v2/events): each entry has a type and a severity
-- (an entry from before them is a note, of info), may name the recording it made, and is
-- listed newest first by its creation time (the cloud stores an agent's entries when they
-- arrive, which may be long after they were written): events_time serves the listings of
-- many robots in that order, events_robot_time those of one (and replaces events_robot).
ALTER TABLE events ADD COLUMN entry_type TEXT NOT NULL DEFAULT 'note';
ALTER TABLE events ADD COLUMN severity TEXT NOT NULL DEFAULT 'info';
ALTER TABLE events ADD COLUMN recording_id TEXT;
CREATE INDEX events_time ON events (created_at, id);
CREATE INDEX events_robot_time ON events (robot_id, created_at, id);
DROP INDEX events_robot;
