package web

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// Supervisors are the fleets' supervisors (gateway.SupervisorService), who take control from
// anyone as organization admins do.
type Supervisors interface {
	MayOverride(ctx context.Context, c *gateway.Caller, robotID string) (bool, error)
	Supervisors(ctx context.Context, c *gateway.Caller, fleetID string) ([]fleetgate.Supervisor, error)
	GrantSupervisor(ctx context.Context, c *gateway.Caller, fleetID, email string) (fleetgate.Supervisor, error)
	RevokeSupervisor(ctx context.Context, c *gateway.Caller, fleetID, email string) error
}

// mayOverride says whether the operate page offers the caller to take robotID over: an
// organization admin, or a supervisor of its fleet (the door's check is the one that counts).
func (p *Panel) mayOverride(ctx context.Context, caller *gateway.Caller, robotID string) bool {
	if caller.User.OrgAdmin {
		return true
	}
	if p.supervisors == nil {
		return false
	}
	ok, err := p.supervisors.MayOverride(ctx, caller, robotID)
	if err != nil {
		p.log.Warn("whether a user supervises a robot's fleet could not be read", "robot", robotID, "err", err)
	}
	return ok
}

// fleetSupervisors are each fleet's supervisors for the admin page; nil without the service.
func (p *Panel) fleetSupervisors(ctx context.Context, caller *gateway.Caller, fleets []fleetgate.Fleet) ([]views.FleetSupervisors, error) {
	if p.supervisors == nil {
		return nil, nil
	}
	out := make([]views.FleetSupervisors, 0, len(fleets))
	for _, f := range fleets {
		list, err := p.supervisors.Supervisors(ctx, caller, f.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, views.FleetSupervisors{Fleet: f, Supervisors: list})
	}
	return out, nil
}

func (p *Panel) grantSupervisor(c echo.Context) error {
	if p.supervisors == nil {
		return echo.ErrNotFound
	}
	_, err := p.supervisors.GrantSupervisor(c.Request().Context(), Caller(c), c.FormValue("fleet"), c.FormValue("email"))
	return p.adminResult(c, "supervisors", nil, err)
}

func (p *Panel) revokeSupervisor(c echo.Context) error {
	if p.supervisors == nil {
		return echo.ErrNotFound
	}
	err := p.supervisors.RevokeSupervisor(c.Request().Context(), Caller(c), c.FormValue("fleet"), c.FormValue("email"))
	return p.adminResult(c, "supervisors", nil, err)
}
