-- Times are INTEGER Unix milliseconds (UTC); NULL means never.

CREATE TABLE organizations (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
);

CREATE TABLE fleets (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name          TEXT NOT NULL DEFAULT '',
    org_admin     INTEGER NOT NULL DEFAULT 0,
    password_hash TEXT,
    created_at    INTEGER NOT NULL
);

CREATE TABLE agents (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    fleet_id   TEXT NOT NULL REFERENCES fleets (id),
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_seen  INTEGER,
    UNIQUE (org_id, name)
);

CREATE TABLE robots (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    fleet_id       TEXT NOT NULL REFERENCES fleets (id),
    agent_id       TEXT REFERENCES agents (id),
    name           TEXT NOT NULL,
    config_name    TEXT NOT NULL DEFAULT '',
    config_version TEXT NOT NULL DEFAULT '',
    agent_version  TEXT NOT NULL DEFAULT '',
    last_seen      INTEGER,
    created_at     INTEGER NOT NULL
);
CREATE INDEX robots_org ON robots (org_id);

CREATE TABLE robot_members (
    robot_id   TEXT NOT NULL REFERENCES robots (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    permission INTEGER NOT NULL CHECK (permission BETWEEN 0 AND 3),
    PRIMARY KEY (robot_id, user_id)
);
CREATE INDEX robot_members_user ON robot_members (user_id);

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    scope        TEXT NOT NULL CHECK (scope IN ('full', 'read')),
    fleet_id     TEXT REFERENCES fleets (id),
    hash         TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE bearer_tokens (
    hash         TEXT PRIMARY KEY,
    api_token_id TEXT NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    expires_at   INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX bearer_tokens_expiry ON bearer_tokens (expires_at);
CREATE INDEX bearer_tokens_api_token ON bearer_tokens (api_token_id);

-- The event log outlives the robots it names: no foreign keys.
CREATE TABLE events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    robot_id     TEXT NOT NULL,
    fleet_id     TEXT,
    user_id      TEXT,
    author_email TEXT NOT NULL,
    message      TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX events_robot ON events (robot_id, id);

CREATE TABLE resources (
    id         TEXT PRIMARY KEY,
    robot_id   TEXT NOT NULL REFERENCES robots (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    mime_type  TEXT NOT NULL,
    file_type  TEXT NOT NULL DEFAULT '',
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL DEFAULT '',
    path       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX resources_robot ON resources (robot_id);

-- Panel sessions (scs): token_hash is the SHA-256 of the session cookie value.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    data       BLOB NOT NULL,
    expiry     INTEGER NOT NULL
);
CREATE INDEX sessions_expiry ON sessions (expiry);
