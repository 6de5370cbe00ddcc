package gateway

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Store is the durable storage of the whole core: every service's store, and the one write
// across them that starts an empty store. Lookups return ENotFound errors for missing rows.
// Implementations: internal/store (SQLite) and internal/store/postgres.
type Store interface {
	AccountStore
	RobotStore
	AgentStore
	EventStore
	AlertStore
	TeleopDelayStore

	// Bootstrap writes the first organization, fleet, admin and API token in one
	// transaction; EConflict when the store is not empty.
	Bootstrap(ctx context.Context, org fleetgate.Organization, fleet fleetgate.Fleet, admin fleetgate.User, token fleetgate.APIToken) error
}

// Presence knows the robots connected now. The registry of live robots (fleet.Registry)
// implements it.
type Presence interface {
	Online(robotID string) bool
	Robot(robotID string) (fleet.Robot, bool)
}

// NobodyOnline is the Presence of a gateway with no robot sources.
type NobodyOnline struct{}

func (NobodyOnline) Online(string) bool               { return false }
func (NobodyOnline) Robot(string) (fleet.Robot, bool) { return nil, false }
