-- An agent's robot records are counted each time it announces a robot it does not hold yet
-- (--agent-max-robots): an index, not a scan of every organization's robots.
CREATE INDEX robots_agent ON robots (agent_id) WHERE agent_id IS NOT NULL;
