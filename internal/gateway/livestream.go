package gateway

import (
	"context"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Input command types W3 accepts: the contract names only these two.
var liveInputTypes = map[string]bool{
	"Platform.Messages.geometry_msgs.Twist":                  true,
	"Platform.Messages.ackermann_msgs.AckermannDriveStamped": true,
}

var (
	actWatch  = action{minRole: RoleOperator, what: "watch live streams"}
	actDrive  = action{minRole: RoleOperator, acts: true, what: "drive robots"}
	actHolder = action{minRole: RoleOperator, what: "see who controls this robot"}
)

// LiveStreamRequest is what a W3 upgrade asks for.
type LiveStreamRequest struct {
	Input  bool
	Stream StreamSelector
}

// LiveStream is a W3 request that passed the checks before the upgrade.
type LiveStream struct {
	Robot Robot
	Live  fleet.Robot
	// Stream is the resolved input stream; outputs are resolved after the upgrade.
	Stream fleet.Stream
	// Camera marks an ad-hoc camera of the query (OpenCameraStream): Live is that camera,
	// not the robot, and its frames are this socket's alone.
	Camera bool
}

// StillConnected reports whether ls's robot is still online through the connection ls was
// opened on (a robot that reconnected is a new connection).
func (g *Gateway) StillConnected(ls LiveStream) bool {
	live, ok := g.presence.Robot(ls.Robot.ID)
	return ok && live == ls.Live
}

// OpenLiveStream makes the checks of a W3 request that come after authentication and before
// the upgrade, in the contract's order: 404 (robot unknown or invisible, input stream or
// type unresolved), 501 (a local-fleet robot hosted by another agent). The 409 of a held
// input target is the live engine's, checked last by the caller. Role: Operator watches and
// drives; a read-only (kiosk) token only watches.
func (g *Gateway) OpenLiveStream(ctx context.Context, c *Caller, robotID string, req LiveStreamRequest) (LiveStream, error) {
	act := actWatch
	if req.Input {
		act = actDrive
		if req.Stream.Type != "" && !liveInputTypes[req.Stream.Type] {
			return LiveStream{}, Errorf(EInvalid, "input streams take only Twist or AckermannDriveStamped, not %s", req.Stream.Type)
		}
		if req.Stream.Source > fleet.SourceROS2 {
			return LiveStream{}, Errorf(EInvalid, "input is accepted on source types 1 to 3 only")
		}
	}
	r, _, err := g.authorizeRobot(ctx, c, robotID, act)
	if err != nil {
		return LiveStream{}, err
	}
	if g.hostedElsewhere(r) {
		return LiveStream{}, Errorf(ENotImplemented, "robot %q is hosted by another agent of the local fleet; live stream tunnelling is not implemented", r.Name)
	}
	live, online := g.presence.Robot(r.ID)
	if !req.Input {
		if !online {
			live = nil // the output side reports the offline robot after the upgrade (1011)
		}
		return LiveStream{Robot: r, Live: live}, nil
	}
	if !online {
		return LiveStream{}, Errorf(ENotFound, "the input stream cannot be resolved: robot %q is offline", r.Name)
	}
	s, err := g.resolveStream(ctx, r, live, req.Stream)
	if err != nil {
		if ErrorCode(err) == EUnavailable {
			err = Errorf(ENotFound, "the input stream cannot be resolved: %s", ErrorMessage(err))
		}
		return LiveStream{}, err
	}
	if s.Direction != fleet.Input {
		return LiveStream{}, Errorf(ENotFound, "robot %q has no input stream %s", r.Name, req.Stream)
	}
	if !liveInputTypes[s.Type] {
		return LiveStream{}, Errorf(EInvalid, "stream %s takes %s; input streams take only Twist or AckermannDriveStamped", req.Stream, s.Type)
	}
	return LiveStream{Robot: r, Live: live, Stream: s}, nil
}

// ResolveOutput finds the output stream a W3 output socket asked for, after the upgrade.
func (g *Gateway) ResolveOutput(ctx context.Context, ls LiveStream, sel StreamSelector) (fleet.Stream, error) {
	if ls.Live == nil {
		return fleet.Stream{}, Errorf(EUnavailable, "robot %q is offline", ls.Robot.Name)
	}
	s, err := g.resolveStream(ctx, ls.Robot, ls.Live, sel)
	if err != nil {
		return fleet.Stream{}, err
	}
	if s.Direction == fleet.Input {
		return fleet.Stream{}, Errorf(EInvalid, "stream %s is an input stream", sel)
	}
	return s, nil
}

// hostedElsewhere reports whether r is a member of the local fleet that this gateway does
// not host: on a local gateway every local-fleet robot is its own, so this is true only for
// robots announced by another agent of the same fleet, which the live socket cannot tunnel.
func (g *Gateway) hostedElsewhere(r Robot) bool {
	return r.FleetID == LocalFleetID && r.AgentID != "" && r.AgentID != g.agentID
}

// StillValid re-checks a socket's bearer token: sockets outlive requests, and a revoked or
// expired token must end them.
func (g *Gateway) StillValid(ctx context.Context, bearer string) error {
	_, err := g.Authenticate(ctx, bearer)
	return err
}

// AuthorizeControls checks that the caller may see who holds robotID's input streams.
func (g *Gateway) AuthorizeControls(ctx context.Context, c *Caller, robotID string) (Robot, error) {
	r, _, err := g.authorizeRobot(ctx, c, robotID, actHolder)
	return r, err
}
