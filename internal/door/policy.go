package door

import (
	"context"

	"github.com/fleetgate/fleetgate"
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

// sessionPolicy is the policy of who's session of robotID: the robot's for a governed path,
// none for the others (uploads and Foxglove). Read before the door's lock.
func (d *Door) sessionPolicy(ctx context.Context, robotID string, who Who) teleop.DelayPolicy {
	if !who.Path.governed() {
		return teleop.DelayPolicy{}
	}
	return d.delayFor(ctx, robotID)
}

// governor starts following the delay of who's session, which begins now (nil for a path
// that is not governed): every lease of a live session gets one, taken, granted or overridden,
// but a goal socket's (goal not nil), whose robot drives itself: a late picture does not slow
// a goal.
func (d *Door) governor(who Who, p teleop.DelayPolicy, goal *fleetgate.Stream) *teleop.Governor {
	if !who.Path.governed() || goal != nil {
		return nil
	}
	return teleop.NewGovernor(d.clock, p)
}
