package gateway

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
)

// The handover extension of W3 input (docs/api.md, "Handing control over"): a holder that
// answers requests for its control, an operator who asks for a held stream, and an
// organization admin who takes it from anyone. The door on the gateway that hosts the robot
// moves the lease; for a robot another process governs (behind the agent link, or on another
// replica, seen from the cloud) this gateway only carries the request to that door
// (fleet.RemoteHandover) and the notices and answers back and forth (remoteInput). A
// governing process that does not hand over (no RemoteHandover): 501.

// OpenHandoverInput is OpenLiveInput for a client of the extension: the same checks and 409,
// and the holder is then asked for its control (the session answers). With override, an
// organization admin or a supervisor of the robot's fleet (SupervisorService) takes the stream
// from whoever holds it (the holder's zero first); anybody else is 403.
func (ss *StreamService) OpenHandoverInput(ctx context.Context, c *Caller, robotID string, sel StreamSelector, override bool) (live.Input, error) {
	r, robot, s, err := ss.inputTarget(ctx, c, robotID, sel)
	if err != nil {
		return nil, err
	}
	if override {
		// An organization admin, or a supervisor of the robot's fleet; for a robot behind an
		// agent the agent's door trusts this check, as it trusts the cloud's roles.
		if ok, err := ss.robots.supervises(ctx, c, r); err != nil {
			return nil, err
		} else if !ok {
			return nil, errNotSupervisor
		}
	}
	if rd, ok := fleet.As[fleet.RemoteDriven](robot); ok {
		h, handsOver := rd.(fleet.RemoteHandover)
		if !handsOver {
			if override {
				return nil, errHandoverRemote(r)
			}
			return ss.takeRemoteControl(ctx, c, r, robot, rd, s, sel)
		}
		return ss.takeRemoteControlMode(ctx, c, r, robot, h, s, sel, fleet.ControlMode{Override: override, Answers: true}, RobotReadTimeout)
	}
	who := door.Who{User: c.User.Email, Path: door.PathW3, Supervisor: override}
	var ctl *door.Control
	if override {
		ctl, err = ss.door.Override(ctx, robot, s.Key(), who)
	} else {
		ctl, err = ss.door.Take(ctx, robot, s.Key(), who)
	}
	return ss.liveInput(r, robot, sel, ctl, err)
}

// AskLiveInput checks a W3 input request that asks the holder for its stream (the checks of
// OpenLiveInput but the 409), and returns the request, which waits on the socket after the
// upgrade: a free stream is taken at once.
func (ss *StreamService) AskLiveInput(ctx context.Context, c *Caller, robotID string, sel StreamSelector) (live.Ask, error) {
	r, robot, s, err := ss.inputTarget(ctx, c, robotID, sel)
	if err != nil {
		return nil, err
	}
	if rd, ok := fleet.As[fleet.RemoteDriven](robot); ok {
		h, handsOver := rd.(fleet.RemoteHandover)
		if !handsOver {
			return nil, errHandoverRemote(r)
		}
		return func(ctx context.Context) (live.Input, error) {
			// The holder's door answers within its AnswerTimeout; the rest is the way there.
			return ss.takeRemoteControlMode(ctx, c, r, robot, h, s, sel, fleet.ControlMode{Ask: true, Answers: true}, door.AnswerTimeout+RobotReadTimeout)
		}, nil
	}
	who := door.Who{User: c.User.Email, Path: door.PathW3}
	return func(ctx context.Context) (live.Input, error) {
		ctl, err := ss.door.Request(ctx, robot, s.Key(), who)
		if err != nil {
			if fleetgate.Is(err, fleetgate.EConflict) {
				return nil, err // the door's words: who refused, or why nobody can answer
			}
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, robotError(r, err)
		}
		return &liveInput{ss: ss, robot: r, live: robot, ctl: ctl}, nil
	}, nil
}

// supervises reports whether c may take control from another operator: an organization admin
// with a token that may act. (Roles are granted per robot, not per fleet: there is no fleet
// role to grant this to yet.)
var errNotSupervisor = fleetgate.Errorf(fleetgate.EForbidden, "only an organization admin or a supervisor of the robot's fleet takes control from another operator")

func errHandoverRemote(r fleetgate.Robot) error {
	return fleetgate.Errorf(fleetgate.ENotImplemented, "robot %q is driven through its agent: asking for or taking over control is done on its local gateway", r.Name)
}

// Watch tells f of requests for this control (live.Answerer).
func (in *liveInput) Watch(f func(live.Notice)) {
	in.ctl.Watch(func(n door.Notice) {
		switch n.Kind {
		case door.NoticeRequested, door.NoticeWithdrawn, door.NoticeExpired:
			f(live.Notice{Kind: string(n.Kind), By: n.By, Since: n.Since})
		}
		// Handed and taken end the session, whose close reason says it (OnLost).
	})
}

// Answer grants or refuses the pending request for this control (live.Answerer).
func (in *liveInput) Answer(grant bool) error { return in.ctl.Answer(grant) }

// Watch tells f of requests for this control, which the robot's own door tells this gateway
// (live.Answerer); a control its governing process does not let answer hears of none.
func (in *remoteInput) Watch(f func(live.Notice)) {
	if a, ok := in.ctl.(fleet.RemoteAnswerer); ok {
		a.Watch(func(n fleet.ControlNotice) { f(live.Notice{Kind: n.Kind, By: n.By, Since: n.Since}) })
	}
}

// Answer hands the holder's answer to the robot's own door (live.Answerer).
func (in *remoteInput) Answer(grant bool) error {
	a, ok := in.ctl.(fleet.RemoteAnswerer)
	if !ok {
		return fleetgate.Errorf(fleetgate.EInvalid, "this stream cannot be handed over from here")
	}
	return a.Answer(grant)
}
