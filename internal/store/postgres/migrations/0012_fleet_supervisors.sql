-- Users an organization admin made supervisors of a fleet: they take control of its robots
-- from anyone (the handover extension's override), as organization admins do. A grant goes
-- with its fleet and its user.
CREATE TABLE fleet_supervisors (
    fleet_id   TEXT NOT NULL REFERENCES fleets (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    granted_by TEXT NOT NULL DEFAULT '',
    granted_at BIGINT NOT NULL,
    PRIMARY KEY (fleet_id, user_id)
);
