-- An agent whose key leaked is revoked, not deleted: its robots keep their agent_id and
-- history. NULL means the key is valid.
ALTER TABLE agents ADD COLUMN revoked_at INTEGER;
