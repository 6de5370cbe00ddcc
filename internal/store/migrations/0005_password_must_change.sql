-- A password an admin generated (a new account, a reset) is changed at its first login.
ALTER TABLE users ADD COLUMN password_must_change INTEGER NOT NULL DEFAULT 0;
