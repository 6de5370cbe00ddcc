package door

import (
	"context"

	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// delayFor is the governor policy of a live session of robotID that begins now: the robot's
// own thresholds (Config.Delays) or the gateway's. It is read once per session, before the
// door's lock (the lookup may read the store), so a change applies from the next session.
func (d *Door) delayFor(ctx context.Context, robotID string) teleop.DelayPolicy {
	if d.delays == nil {
		return d.delay
	}
	p := d.delays(ctx, robotID)
	if p.Check() != nil {
		// A policy out of order would divide by zero or never slow down: the gateway's holds.
		return d.delay
	}
	return p.OrDefault()
}
