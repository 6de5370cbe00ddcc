-- A robot's own thresholds of the speed governor (milliseconds), set by an admin; a robot
-- without a row follows the gateway's --teleop-delay-* flags. They go with the robot.
CREATE TABLE robot_teleop_delays (
    robot_id   TEXT PRIMARY KEY REFERENCES robots (id) ON DELETE CASCADE,
    full_ms    BIGINT NOT NULL,
    quarter_ms BIGINT NOT NULL,
    stop_ms    BIGINT NOT NULL,
    updated_by TEXT NOT NULL DEFAULT '',
    updated_at BIGINT NOT NULL
);
