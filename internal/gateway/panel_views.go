package gateway

import (
	"context"
	"slices"
)

// Reads the panel's pages need beyond the API's, with the API's permission checks.

// RobotRow is a robot as the panel's fleet table shows it.
type RobotRow struct {
	Robot           Robot
	FleetName       string
	Online          bool
	UpdateAvailable bool // the robot's agent is older than LatestAgentVersion
	// AgentName is the agent that announced the robot over the agent link; empty for the
	// robots this gateway hosts itself.
	AgentName string
}

// RobotTable lists the robots the caller may see with their fleet, by name.
func (g *Gateway) RobotTable(ctx context.Context, c *Caller) ([]RobotRow, error) {
	robots, err := g.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	fleets, err := g.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(fleets))
	for _, f := range fleets {
		names[f.ID] = f.Name
	}
	agentNames := map[string]string{}
	if slices.ContainsFunc(robots, func(r Robot) bool { return r.AgentID != "" }) {
		agents, err := g.store.Agents(ctx, c.User.OrgID)
		if err != nil {
			return nil, err
		}
		for _, a := range agents {
			agentNames[a.ID] = a.Name
		}
	}
	out := make([]RobotRow, 0, len(robots))
	for _, r := range robots {
		row := RobotRow{Robot: r, FleetName: names[r.FleetID], Online: g.presence.Online(r.ID), AgentName: agentNames[r.AgentID]}
		if row.Online {
			r.LastSeen = g.now().UTC()
			row.Robot.LastSeen = r.LastSeen
		}
		row.UpdateAvailable = r.AgentVersion != "" && g.latest != "" && r.AgentVersion != g.latest
		out = append(out, row)
	}
	return out, nil
}

// LatestAgentVersion is the newest agent version this gateway knows of.
func (g *Gateway) LatestAgentVersion() string { return g.latest }

// RobotRole is the caller's role on a robot it may see (ENotFound otherwise).
func (g *Gateway) RobotRole(ctx context.Context, c *Caller, robotID string) (Role, error) {
	_, role, err := g.authorizeRobot(ctx, c, robotID, actView)
	return role, err
}

// RobotEvents is the newest event-log entries of a robot the caller may see.
func (g *Gateway) RobotEvents(ctx context.Context, c *Caller, robotID string, limit int) ([]Event, error) {
	r, _, err := g.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 200
	}
	return g.store.Events(ctx, EventFilter{RobotID: r.ID, Limit: limit})
}

// KioskTokens lists the read-scoped fleet tokens of the caller (an org admin), valid ones.
func (g *Gateway) KioskTokens(ctx context.Context, c *Caller) ([]APIToken, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	toks, err := g.store.APITokens(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(toks, func(t APIToken) bool {
		return t.Scope != ScopeRead || t.FleetID == "" || !t.RevokedAt.IsZero()
	}), nil
}

// FleetForKiosk checks that the caller may show fleet fleetID on a kiosk: it is the fleet
// of the caller's token, or any fleet of the organization for an unrestricted caller.
func (g *Gateway) FleetForKiosk(ctx context.Context, c *Caller, fleetID string) (Fleet, error) {
	notFound := Errorf(ENotFound, "fleet %q not found", fleetID)
	f, err := g.store.Fleet(ctx, fleetID)
	if ErrorCode(err) == ENotFound {
		return Fleet{}, notFound
	} else if err != nil {
		return Fleet{}, err
	}
	if f.OrgID != c.User.OrgID || (c.Token.FleetID != "" && c.Token.FleetID != f.ID) {
		return Fleet{}, notFound
	}
	return f, nil
}
