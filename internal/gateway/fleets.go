package gateway

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/fleetgate/fleetgate"
	"github.com/google/uuid"
)

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
func (rs *RobotService) VisibleFleets(ctx context.Context, c *Caller) ([]FleetSummary, error) {
	fleets, err := rs.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	robots, err := rs.visibleRobots(ctx, c)
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

// OrgFleets lists the fleets of the caller's organization (those its token may see).
func (rs *RobotService) OrgFleets(ctx context.Context, c *Caller) ([]fleetgate.Fleet, error) {
	fleets, err := rs.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	if c.Token.FleetID != "" {
		fleets = slices.DeleteFunc(fleets, func(f fleetgate.Fleet) bool { return f.ID != c.Token.FleetID })
	}
	return fleets, nil
}

// defaultOrgFleet resolves a fleet of the default organization by id or name; empty means
// the organization's first fleet.
func (rs *RobotService) defaultOrgFleet(ctx context.Context, fleet string) (fleetgate.Organization, fleetgate.Fleet, error) {
	org, err := rs.defaultOrg(ctx)
	if err != nil {
		return fleetgate.Organization{}, fleetgate.Fleet{}, err
	}
	if fleet == "" {
		fleets, err := rs.store.Fleets(ctx, org.ID)
		if err != nil {
			return fleetgate.Organization{}, fleetgate.Fleet{}, err
		}
		if len(fleets) == 0 {
			return fleetgate.Organization{}, fleetgate.Fleet{}, fleetgate.Errorf(fleetgate.ENotFound, "organization %q has no fleet", org.Name)
		}
		return org, fleets[0], nil
	}
	f, err := rs.findFleet(ctx, org.ID, fleet)
	return org, f, err
}

// defaultOrg is the default organization, with a hint for the operator of an empty store.
func (rs *RobotService) defaultOrg(ctx context.Context) (fleetgate.Organization, error) {
	org, err := rs.store.DefaultOrganization(ctx)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.Organization{}, fleetgate.Errorf(fleetgate.ENotFound, "the data directory has no organization yet; start the server once to bootstrap it")
	}
	return org, err
}

// Fleets lists the fleets of the default organization; the first is its default fleet.
func (rs *RobotService) Fleets(ctx context.Context) ([]fleetgate.Fleet, error) {
	org, err := rs.defaultOrg(ctx)
	if err != nil {
		return nil, err
	}
	return rs.store.Fleets(ctx, org.ID)
}

// EnsureFleet returns the fleet of the default organization with this id or name, creating
// a fleet of that name when there is none; created says which.
func (rs *RobotService) EnsureFleet(ctx context.Context, fleet string) (f fleetgate.Fleet, created bool, err error) {
	fleet = strings.TrimSpace(fleet)
	if fleet == "" {
		return fleetgate.Fleet{}, false, fleetgate.Errorf(fleetgate.EInvalid, "fleet name is required")
	}
	org, f, err := rs.defaultOrgFleet(ctx, fleet)
	if fleetgate.ErrorCode(err) != fleetgate.ENotFound || org.ID == "" {
		return f, false, err
	}
	f = fleetgate.Fleet{ID: uuid.NewString(), OrgID: org.ID, Name: fleet}
	if err := rs.store.CreateFleet(ctx, f); err != nil {
		return fleetgate.Fleet{}, false, err
	}
	return f, true, nil
}

// findFleet resolves a fleet of orgID by id, then by name.
func (rs *RobotService) findFleet(ctx context.Context, orgID, fleet string) (fleetgate.Fleet, error) {
	f, err := rs.store.Fleet(ctx, fleet)
	if err == nil && f.OrgID == orgID {
		return f, nil
	} else if err != nil && fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		return fleetgate.Fleet{}, err
	}
	f, err = rs.store.FleetByName(ctx, orgID, fleet)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.Fleet{}, fleetgate.Errorf(fleetgate.ENotFound, "no fleet %q", fleet)
	}
	return f, err
}

// FleetForKiosk checks that the caller may show fleet fleetID on a kiosk: it is the fleet
// of the caller's token, or any fleet of the organization for an unrestricted caller.
func (rs *RobotService) FleetForKiosk(ctx context.Context, c *Caller, fleetID string) (fleetgate.Fleet, error) {
	return rs.visibleFleet(ctx, c, fleetID)
}

// visibleFleet finds fleet fleetID if it is a fleet of the caller's organization within its
// token's fleet restriction. Any other fleet is ENotFound, unknown or not: a fleet the caller
// may not use is never revealed.
func (rs *RobotService) visibleFleet(ctx context.Context, c *Caller, fleetID string) (fleetgate.Fleet, error) {
	notFound := fleetgate.Errorf(fleetgate.ENotFound, "fleet %q not found", fleetID)
	if fleetID == "" {
		return fleetgate.Fleet{}, notFound
	}
	f, err := rs.store.Fleet(ctx, fleetID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.Fleet{}, notFound
	} else if err != nil {
		return fleetgate.Fleet{}, err
	}
	if f.OrgID != c.User.OrgID || (c.Token.FleetID != "" && c.Token.FleetID != f.ID) {
		return fleetgate.Fleet{}, notFound
	}
	return f, nil
}
