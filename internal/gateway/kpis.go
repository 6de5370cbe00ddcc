package gateway

import (
	"cmp"
	"context"
	"slices"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// The fleet custom KPI socket (W1 on the cloud, W2 on the local gateway) and the fleet list
// that tells its clients which fleet ids exist. The KPI hub decides nothing about
// visibility: it asks here.

// KPIView is what a caller may see of a fleet's custom KPIs: every robot of the fleet (org
// admins), or the robots it holds a role on.
type KPIView struct {
	FleetID string
	All     bool
	// RobotIDs are the robots the caller has a role on, in any fleet (the hub keeps only
	// those of FleetID); when !All.
	RobotIDs []string
}

// OpenKPIView resolves the caller's view of fleet fleetID for a KPI socket. ENotFound when
// the fleet is unknown, of another organization, or not the one the caller's token is
// restricted to: a fleet the caller may not use is never revealed.
func (g *Gateway) OpenKPIView(ctx context.Context, c *Caller, fleetID string) (KPIView, error) {
	notFound := Errorf(ENotFound, "fleet %q not found", fleetID)
	if fleetID == "" {
		return KPIView{}, notFound
	}
	f, err := g.store.Fleet(ctx, fleetID)
	if ErrorCode(err) == ENotFound {
		return KPIView{}, notFound
	} else if err != nil {
		return KPIView{}, err
	}
	if f.OrgID != c.User.OrgID || (c.Token.FleetID != "" && c.Token.FleetID != f.ID) {
		return KPIView{}, notFound
	}
	return g.kpiView(ctx, c, f.ID)
}

// RefreshKPIView re-authenticates a KPI socket's bearer token and resolves its view again:
// sockets outlive requests, so a revoked or expired token (EUnauthorized) must end them, and
// a membership added or removed must change what they see.
func (g *Gateway) RefreshKPIView(ctx context.Context, bearer, fleetID string) (KPIView, error) {
	c, err := g.Authenticate(ctx, bearer)
	if err != nil {
		return KPIView{}, err
	}
	// The fleet's organization and the token's fleet restriction cannot change; the
	// socket passed OpenKPIView once.
	return g.kpiView(ctx, c, fleetID)
}

func (g *Gateway) kpiView(ctx context.Context, c *Caller, fleetID string) (KPIView, error) {
	if c.User.OrgAdmin {
		return KPIView{FleetID: fleetID, All: true}, nil
	}
	roles, err := g.store.UserRoles(ctx, c.User.ID)
	if err != nil {
		return KPIView{}, err
	}
	v := KPIView{FleetID: fleetID, RobotIDs: make([]string, 0, len(roles))}
	for id, role := range roles {
		if role >= actView.minRole {
			v.RobotIDs = append(v.RobotIDs, id)
		}
	}
	slices.Sort(v.RobotIDs)
	return v, nil
}

// OnlineRobot is a robot of a fleet that is connected now.
type OnlineRobot struct {
	ID   string
	Name string
	Live fleet.Robot
}

// OnlineFleetRobots lists the connected robots of a fleet, by name. It answers the KPI hub,
// not a caller: the hub applies each subscriber's view.
func (g *Gateway) OnlineFleetRobots(ctx context.Context, fleetID string) ([]OnlineRobot, error) {
	f, err := g.store.Fleet(ctx, fleetID)
	if err != nil {
		return nil, err
	}
	robots, err := g.store.Robots(ctx, f.OrgID)
	if err != nil {
		return nil, err
	}
	var out []OnlineRobot
	for _, r := range robots {
		if r.FleetID != f.ID {
			continue
		}
		if live, ok := g.presence.Robot(r.ID); ok {
			out = append(out, OnlineRobot{ID: r.ID, Name: r.Name, Live: live})
		}
	}
	return out, nil
}

// FleetSummary is a fleet as the fleet list shows it.
type FleetSummary struct {
	ID   string
	Name string
	// Robots counts the fleet's robots the caller may see, online or not.
	Robots int
}

// VisibleFleets lists the fleets of the caller's organization (only the one its token is
// restricted to, if any), by name, each with the number of its robots the caller may see.
// Every fleet of the organization is listed, as the KPI socket accepts any of them.
func (g *Gateway) VisibleFleets(ctx context.Context, c *Caller) ([]FleetSummary, error) {
	fleets, err := g.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	robots, err := g.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, r := range robots {
		counts[r.FleetID]++
	}
	out := make([]FleetSummary, 0, len(fleets))
	for _, f := range fleets {
		if c.Token.FleetID != "" && c.Token.FleetID != f.ID {
			continue
		}
		out = append(out, FleetSummary{ID: f.ID, Name: f.Name, Robots: counts[f.ID]})
	}
	slices.SortFunc(out, func(a, b FleetSummary) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}
