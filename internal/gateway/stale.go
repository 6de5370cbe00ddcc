package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/fleetgate/fleetgate"
)

// StaleRobotAge is fleetgate.StaleRobotDays as a duration.
const StaleRobotAge = fleetgate.StaleRobotDays * 24 * time.Hour

// MinStaleAge is the shortest absence RemoveStaleRobots accepts. A connected robot's record is
// refreshed every 30 s, so any age well above that never catches one online; a day also keeps
// a slip (30m for 30d) from removing the robots of a site that merely lost power.
const MinStaleAge = 24 * time.Hour

// staleSince reports whether robot r was not online since cutoff: last seen before it, or
// never seen and recorded before it.
func staleSince(r fleetgate.Robot, cutoff time.Time) bool {
	at := r.LastSeen
	if at.IsZero() {
		at = r.CreatedAt
	}
	return at.Before(cutoff)
}

// StaleRobots lists the robots of the caller's organization not online for age (organization
// admins only).
func (rs *RobotService) StaleRobots(ctx context.Context, c *Caller, age time.Duration) ([]fleetgate.Robot, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	list, _, err := rs.staleRobots(ctx, c.User.OrgID, age)
	return list, err
}

// RemoveStaleRobots removes the records of the robots of the caller's organization not online
// for age (organization admins only), with their memberships and resource records; their
// event-log entries stay. It returns the robots removed, each also in an audit line.
func (rs *RobotService) RemoveStaleRobots(ctx context.Context, c *Caller, age time.Duration) ([]fleetgate.Robot, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	return rs.removeStale(ctx, c.User.OrgID, age, c.User.Email, false)
}

// PruneStaleRobots is RemoveStaleRobots for the command line (whoever may open the store),
// on the default organization; with dryRun it only lists what it would remove.
func (rs *RobotService) PruneStaleRobots(ctx context.Context, age time.Duration, dryRun bool) ([]fleetgate.Robot, error) {
	org, err := rs.store.DefaultOrganization(ctx)
	if err != nil {
		return nil, err
	}
	return rs.removeStale(ctx, org.ID, age, "the command line", dryRun)
}

func (rs *RobotService) staleRobots(ctx context.Context, orgID string, age time.Duration) ([]fleetgate.Robot, time.Time, error) {
	if age < MinStaleAge {
		return nil, time.Time{}, fleetgate.Errorf(fleetgate.EInvalid, "a robot counts as stale after %s at the least, not %s", days(MinStaleAge), age)
	}
	cutoff := rs.now().Add(-age)
	robots, err := rs.store.Robots(ctx, orgID)
	if err != nil {
		return nil, time.Time{}, err
	}
	var out []fleetgate.Robot
	for _, r := range robots {
		if staleSince(r, cutoff) && !rs.presence.Online(r.ID) {
			out = append(out, r)
		}
	}
	return out, cutoff, nil
}

func (rs *RobotService) removeStale(ctx context.Context, orgID string, age time.Duration, by string, dryRun bool) ([]fleetgate.Robot, error) {
	list, cutoff, err := rs.staleRobots(ctx, orgID, age)
	if err != nil || dryRun {
		return list, err
	}
	var removed []fleetgate.Robot
	for _, r := range list {
		// A robot that connected since it was listed has a fresh last_seen, and stays.
		ok, err := rs.store.DeleteRobotIfUnseenSince(ctx, r.ID, cutoff)
		if err != nil {
			return removed, err
		}
		if ok {
			removed = append(removed, r)
			rs.logRemoved(r, by, "not online for "+days(age))
		}
	}
	return removed, nil
}

// days says an age in days when it is whole days, else as Go writes durations.
func days(d time.Duration) string {
	switch n := d / (24 * time.Hour); {
	case d%(24*time.Hour) != 0:
		return d.String()
	case n == 1:
		return "1 day"
	default:
		return fmt.Sprintf("%d days", n)
	}
}
