-- Secrets every process on this database shares (the download signing key of the cloud's
-- replicas), by name; made once by whichever process needs one first.
CREATE TABLE shared_secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
