-- Resources only organization admins see (fleet.Resource.AdminOnly): the agent's own log.
-- Logs recorded before this version are marked by their name.
ALTER TABLE resources ADD COLUMN admin_only INTEGER NOT NULL DEFAULT 0;
UPDATE resources SET admin_only = 1 WHERE name IN ('fleetgate.log', 'fleetgate.log.1');
