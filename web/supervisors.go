package web

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
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
