package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// RobotReadTimeout bounds every call to a robot on behalf of a REST request: a robot that has
// not answered by then is reported unavailable (503) rather than holding the caller.
const RobotReadTimeout = time.Second

var _ fleet.Tracker = (*Gateway)(nil)

// RobotOnline records a robot that connected: its record is created or refreshed in fleet
// fleetID (and that fleet's organization). It implements fleet.Tracker.
func (g *Gateway) RobotOnline(ctx context.Context, info fleet.Info, fleetID string, at time.Time) error {
	f, err := g.store.Fleet(ctx, fleetID)
	if err != nil {
		return err
	}
	created := at
	if old, err := g.store.Robot(ctx, info.ID); err == nil {
		created = old.CreatedAt
	} else if ErrorCode(err) != ENotFound {
		return err
	}
	return g.store.SaveLiveRobot(ctx, Robot{
		ID:            info.ID,
		OrgID:         f.OrgID,
		FleetID:       f.ID,
		Name:          info.Name,
		ConfigName:    info.ConfigName,
		ConfigVersion: info.ConfigVersion,
		AgentVersion:  info.AgentVersion,
		LastSeen:      at.UTC(),
		CreatedAt:     created.UTC(),
	})
}

// RobotSeen records that a robot was connected at at. It implements fleet.Tracker.
func (g *Gateway) RobotSeen(ctx context.Context, id string, at time.Time) error {
	return g.store.TouchRobot(ctx, id, at.UTC())
}

// liveRobot authorizes act on a robot and returns its live connection: EUnavailable when it is
// not connected now.
func (g *Gateway) liveRobot(ctx context.Context, c *Caller, robotID string, act action) (Robot, fleet.Robot, error) {
	r, _, err := g.authorizeRobot(ctx, c, robotID, act)
	if err != nil {
		return Robot{}, nil, err
	}
	live, ok := g.presence.Robot(r.ID)
	if !ok {
		return Robot{}, nil, Errorf(EUnavailable, "robot %q is offline", r.Name)
	}
	return r, live, nil
}

// robotCall runs one call to a robot under RobotReadTimeout.
func robotCall[T any](ctx context.Context, r Robot, call func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, RobotReadTimeout)
	defer cancel()
	v, err := call(ctx)
	if err != nil {
		var zero T
		return zero, robotError(r, err)
	}
	return v, nil
}

// robotError turns what a robot source returned into a domain error.
func robotError(r Robot, err error) error {
	var ge *Error
	switch {
	case errors.As(err, &ge):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: EUnavailable, Message: "robot " + quote(r.Name) + " did not answer within " + RobotReadTimeout.String(), Err: err}
	case errors.Is(err, fleet.ErrOffline):
		return &Error{Code: EUnavailable, Message: "robot " + quote(r.Name) + " is offline", Err: err}
	case errors.Is(err, fleet.ErrUnavailable):
		return &Error{Code: EUnavailable, Message: err.Error(), Err: err}
	case errors.Is(err, fleet.ErrNotFound):
		return &Error{Code: ENotFound, Message: err.Error(), Err: err}
	case errors.Is(err, fleet.ErrInvalid):
		return &Error{Code: EInvalid, Message: err.Error(), Err: err}
	default:
		return Internal(err)
	}
}

func quote(s string) string { return `"` + s + `"` }
