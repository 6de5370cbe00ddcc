package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// RobotReadTimeout bounds every call to a robot on behalf of a REST request: a robot that has
// not answered by then is reported unavailable (503) rather than holding the caller.
const RobotReadTimeout = time.Second

// StreamReadWait bounds endpoint 7's wait for a stream's first sample when the stream has none
// yet (a camera starting, a quiet topic): a robot that answers but whose stream stays quiet
// this long is ENoSample. Robots that do not answer are told apart by the sources and the link
// (offline, unreachable agent: 503 at once).
const StreamReadWait = 5 * time.Second

var _ fleet.Tracker = (*Gateway)(nil)

// RobotOnline records a robot that connected: its record is created or refreshed. A robot of
// this process (home.AgentID empty) joins home.FleetID. A robot an agent announced joins the
// agent's fleet when it is new and keeps its fleet when it exists (an admin may have moved
// it); it must belong to the agent's organization: a robot id of another organization is
// EConflict, so no agent can take over a robot it does not own. It implements fleet.Tracker.
func (rs *RobotService) RobotOnline(ctx context.Context, info fleetgate.Info, home fleet.Home, at time.Time) error {
	f, err := rs.store.Fleet(ctx, home.FleetID)
	if err != nil {
		return err
	}
	created, fleetID := at, f.ID
	old, err := rs.store.Robot(ctx, info.ID)
	known := err == nil
	switch {
	case known:
		created = old.CreatedAt
		if home.AgentID != "" {
			if old.OrgID != f.OrgID {
				return fleetgate.Errorf(fleetgate.EConflict, "robot %s belongs to another organization", info.ID)
			}
			if err := rs.mayMoveToAgent(ctx, old, home.AgentID); err != nil {
				return err
			}
			fleetID = old.FleetID
		}
	case fleetgate.ErrorCode(err) != fleetgate.ENotFound:
		return err
	}
	if home.AgentID != "" && (!known || old.AgentID != home.AgentID) {
		if err := rs.agentHasRoom(ctx, home.AgentID); err != nil {
			return err
		}
	}
	return rs.store.SaveLiveRobot(ctx, fleetgate.Robot{
		ID:            info.ID,
		OrgID:         f.OrgID,
		FleetID:       fleetID,
		AgentID:       home.AgentID,
		Name:          info.Name,
		ConfigName:    info.ConfigName,
		ConfigVersion: info.ConfigVersion,
		AgentVersion:  info.AgentVersion,
		LastSeen:      at.UTC(),
		CreatedAt:     created.UTC(),
	})
}

// mayMoveToAgent refuses robot r to agent agentID while another agent that may still connect
// hosts it: one agent's key must not take over another's robots. A robot moves when its
// agent's key is revoked (a replaced machine) or its agent is gone.
func (rs *RobotService) mayMoveToAgent(ctx context.Context, r fleetgate.Robot, agentID string) error {
	if r.AgentID == "" || r.AgentID == agentID {
		return nil
	}
	holder, err := rs.store.Agent(ctx, r.AgentID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	if holder.RevokedAt.IsZero() {
		return fleetgate.Errorf(fleetgate.EConflict, "robot %s is hosted by agent %q; revoke that agent's key to move the robot", r.ID, holder.Name)
	}
	return nil
}

// DefaultAgentMaxRobots is how many robot records one agent may hold unless configured.
const DefaultAgentMaxRobots = 100

// agentHasRoom refuses a robot new to agent agentID once the agent holds agentMaxRobots robot
// records, counting those offline: records are permanent, and without a bound one agent key
// could add robots to the store for ever (each link may announce other ids). An admin removes
// the records of robots that are gone (RemoveStaleRobots) to make room.
func (rs *RobotService) agentHasRoom(ctx context.Context, agentID string) error {
	n, err := rs.store.CountAgentRobots(ctx, agentID)
	if err != nil {
		return err
	}
	if n >= rs.agentMaxRobots {
		return fleetgate.Errorf(fleetgate.EConflict,
			"refused: this agent already has %d robots recorded on the cloud, the most one agent may register (the cloud's --agent-max-robots); "+
				"an admin can remove those not online for %d days (fleetgate robots remove --stale %dd, or the panel's Administration page)",
			n, fleetgate.StaleRobotDays, fleetgate.StaleRobotDays)
	}
	return nil
}

// RobotSeen records that a robot was connected at at. It implements fleet.Tracker.
func (rs *RobotService) RobotSeen(ctx context.Context, id string, at time.Time) error {
	return rs.store.TouchRobot(ctx, id, at.UTC())
}

// liveRobot authorizes act on a robot and returns its live connection: EUnavailable when it is
// not connected now.
func (rs *RobotService) liveRobot(ctx context.Context, c *Caller, robotID string, act action) (fleetgate.Robot, fleet.Robot, error) {
	r, _, err := rs.authorizeRobot(ctx, c, robotID, act)
	if err != nil {
		return fleetgate.Robot{}, nil, err
	}
	live, ok := rs.presence.Robot(r.ID)
	if !ok {
		return fleetgate.Robot{}, nil, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is offline", r.Name)
	}
	return r, live, nil
}

// robotCall runs one call to a robot under RobotReadTimeout.
func robotCall[T any](ctx context.Context, r fleetgate.Robot, call func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, RobotReadTimeout)
	defer cancel()
	v, err := call(ctx)
	if err != nil {
		var zero T
		return zero, robotError(r, err)
	}
	return v, nil
}

// robotError is the core's answer for what a robot source returned: the source's own domain
// error, except that a robot that is not there (offline, or silent past the caller's
// deadline) is unavailable, by name; any other error is internal.
func robotError(r fleetgate.Robot, err error) error {
	var ge *fleetgate.Error
	switch {
	case fleetgate.Is(err, fleetgate.EOffline):
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "robot " + quote(r.Name) + " is offline", Err: err}
	case errors.As(err, &ge):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "robot " + quote(r.Name) + " did not answer within " + RobotReadTimeout.String(), Err: err}
	default:
		return fleetgate.Internal(err)
	}
}

func quote(s string) string { return `"` + s + `"` }
