package gateway

import (
	"context"
	"slices"

	"github.com/fleetgate/fleetgate/internal/kpi"
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

// HubView is the view as the KPI hub applies it to a subscriber's frames.
func (v KPIView) HubView() kpi.View { return kpi.View{All: v.All, Robots: v.RobotIDs} }

// OpenKPIView resolves the caller's view of fleet fleetID for a KPI socket. ENotFound when
// the fleet is unknown, of another organization, or not the one the caller's token is
// restricted to: a fleet the caller may not use is never revealed.
func (rs *RobotService) OpenKPIView(ctx context.Context, c *Caller, fleetID string) (KPIView, error) {
	f, err := rs.visibleFleet(ctx, c, fleetID)
	if err != nil {
		return KPIView{}, err
	}
	return rs.kpiView(ctx, c, f.ID)
}

func (rs *RobotService) kpiView(ctx context.Context, c *Caller, fleetID string) (KPIView, error) {
	if c.User.OrgAdmin {
		return KPIView{FleetID: fleetID, All: true}, nil
	}
	roles, err := rs.store.UserRoles(ctx, c.User.ID)
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

// OnlineFleetRobots lists the connected robots of a fleet, by name. It answers the KPI hub,
// not a caller: the hub applies each subscriber's view.
func (rs *RobotService) OnlineFleetRobots(ctx context.Context, fleetID string) ([]kpi.Robot, error) {
	f, err := rs.store.Fleet(ctx, fleetID)
	if err != nil {
		return nil, err
	}
	robots, err := rs.store.Robots(ctx, f.OrgID)
	if err != nil {
		return nil, err
	}
	var out []kpi.Robot
	for _, r := range robots {
		if r.FleetID != f.ID {
			continue
		}
		if live, ok := rs.presence.Robot(r.ID); ok {
			out = append(out, kpi.Robot{ID: r.ID, Name: r.Name, Live: live})
		}
	}
	return out, nil
}

// KPISource is the core as the KPI hub asks it (kpi.Source): the connected robots of a fleet,
// and what a socket's token may see of it now. It needs the accounts (the token) and the
// robots (the view), so it is the gateway's, for the composition root to hand to the hub.
func (g *Gateway) KPISource() kpi.Source { return kpiSource{g} }

type kpiSource struct{ g *Gateway }

func (s kpiSource) OnlineRobots(ctx context.Context, fleetID string) ([]kpi.Robot, error) {
	return s.g.OnlineFleetRobots(ctx, fleetID)
}

func (s kpiSource) Recheck(ctx context.Context, token, fleetID string) (kpi.View, error) {
	v, err := s.g.RefreshKPIView(ctx, token, fleetID)
	if err != nil {
		return kpi.View{}, err
	}
	return v.HubView(), nil
}
