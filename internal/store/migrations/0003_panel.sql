-- The web panel: users log in with a password (users.password_hash, argon2id, already in
-- 0001), an org admin can disable a user without deleting their history, and the panel
-- mints single-use tokens for the browser's WebSocket upgrades.

-- NULL while the user may log in.
ALTER TABLE users ADD COLUMN disabled_at INTEGER;

-- A socket token opens one WebSocket upgrade within 60 s (used_at is set by that upgrade);
-- the socket it opened stays authorised while the panel session it was minted for lives
-- (session_hash, the sessions row) and, for kiosks, while the API token does.
CREATE TABLE socket_tokens (
    hash         TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    api_token_id TEXT REFERENCES api_tokens (id) ON DELETE CASCADE,
    session_hash TEXT NOT NULL,
    expires_at   INTEGER NOT NULL,
    used_at      INTEGER,
    created_at   INTEGER NOT NULL
);
CREATE INDEX socket_tokens_expiry ON socket_tokens (expires_at);
