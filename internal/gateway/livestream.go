package gateway

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/video"
)

// Input command types W3 accepts: the contract names these two, and a goal stream's
// (an extension: a socket of goals under the robot's motion lease, internal/door).
var liveInputTypes = map[string]bool{
	"Platform.Messages.geometry_msgs.Twist":                  true,
	"Platform.Messages.ackermann_msgs.AckermannDriveStamped": true,
	door.GoalType: true,
}

var (
	actWatch  = action{minRole: fleetgate.RoleOperator, what: "watch live streams"}
	actDrive  = action{minRole: fleetgate.RoleOperator, acts: true, what: "drive robots"}
	actHolder = action{minRole: fleetgate.RoleOperator, what: "see who controls this robot"}
)

// OpenLiveOutput makes the checks of a W3 output request that come after authentication and
// before the upgrade: 404 (robot unknown or invisible), 501 (a local-fleet robot hosted by
// another agent). The stream itself is resolved after the upgrade (Output.Subscribe: the
// contract closes 1008 or 1011 then). Role: Operator; a read-only (kiosk) token watches too.
func (ss *StreamService) OpenLiveOutput(ctx context.Context, c *Caller, robotID string, sel StreamSelector) (live.Output, error) {
	r, err := ss.openLive(ctx, c, robotID, actWatch)
	if err != nil {
		return nil, err
	}
	robot, online := ss.presence.Robot(r.ID)
	if !online {
		robot = nil // reported after the upgrade (1011)
	}
	return liveOutput{ss: ss, robot: r, live: robot, sel: sel}, nil
}

// drivable refuses a stream a live session cannot drive: an output (404), or an input of a
// type other than Twist or Ackermann (400), or on W3 (goals true) a goal stream. The
// Foxglove route takes no goals: its clients publish on a channel, with no keepalive.
func drivable(r fleetgate.Robot, s fleetgate.Stream, sel StreamSelector, goals bool) error {
	if s.Direction != fleetgate.Input {
		return fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no input stream %s", r.Name, sel)
	}
	if s.Type == door.GoalType && goals {
		return nil
	}
	if !liveInputTypes[s.Type] || s.Type == door.GoalType {
		return fleetgate.Errorf(fleetgate.EInvalid, "stream %s takes %s; input streams take only Twist or AckermannDriveStamped", sel, s.Type)
	}
	return nil
}

// OpenLiveInput makes the checks of a W3 input request, after authentication and before the
// upgrade, in the contract's order: 400 (a type or source input cannot have), 404 (robot
// unknown, invisible or offline; input stream or type unresolved), 501 (hosted by another
// agent), 409 (the stream is driven by someone else: one controller per target, check and set
// in one step; the error names the owner and since when). The lease is the returned Input's
// until its Release. Role: Operator, and a token that may act.
func (ss *StreamService) OpenLiveInput(ctx context.Context, c *Caller, robotID string, sel StreamSelector) (live.Input, error) {
	r, robot, s, err := ss.inputTarget(ctx, c, robotID, sel)
	if err != nil {
		return nil, err
	}
	if rd, ok := fleet.As[fleet.RemoteDriven](robot); ok {
		return ss.takeRemoteControl(ctx, c, r, robot, rd, s, sel)
	}
	ctl, err := ss.door.Take(ctx, robot, s.Key(), door.Who{User: c.User.Email, Path: door.PathW3})
	return ss.liveInput(r, robot, sel, ctl, err)
}

// inputTarget is the checks of a W3 input request up to the lease: the robot, online, and its
// input stream, drivable.
func (ss *StreamService) inputTarget(ctx context.Context, c *Caller, robotID string, sel StreamSelector) (fleetgate.Robot, fleet.Robot, fleetgate.Stream, error) {
	if sel.Type != "" && !liveInputTypes[sel.Type] {
		return fleetgate.Robot{}, nil, fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "input streams take only Twist, AckermannDriveStamped or a goal (PoseStamped), not %s", sel.Type)
	}
	if sel.Source > fleetgate.SourceROS2 {
		return fleetgate.Robot{}, nil, fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "input is accepted on source types 1 to 3 only")
	}
	r, err := ss.openLive(ctx, c, robotID, actDrive)
	if err != nil {
		return fleetgate.Robot{}, nil, fleetgate.Stream{}, err
	}
	robot, online := ss.presence.Robot(r.ID)
	if !online {
		return fleetgate.Robot{}, nil, fleetgate.Stream{}, fleetgate.Errorf(fleetgate.ENotFound, "the input stream cannot be resolved: robot %q is offline", r.Name)
	}
	s, err := ss.resolveStream(ctx, r, robot, sel)
	if err != nil {
		if fleetgate.ErrorCode(err) == fleetgate.EUnavailable {
			err = fleetgate.Errorf(fleetgate.ENotFound, "the input stream cannot be resolved: %s", fleetgate.ErrorMessage(err))
		}
		return fleetgate.Robot{}, nil, fleetgate.Stream{}, err
	}
	if err := drivable(r, s, sel, true); err != nil {
		return fleetgate.Robot{}, nil, fleetgate.Stream{}, err
	}
	return r, robot, s, nil
}

// liveInput is the Input of a control the door gave (or the door's refusal, in W3's words).
func (ss *StreamService) liveInput(r fleetgate.Robot, robot fleet.Robot, sel StreamSelector, ctl *door.Control, err error) (*liveInput, error) {
	if held, ok := fleetgate.HeldBy(err); ok {
		return nil, heldError(sel, held.Owner, held.Since)
	} else if err != nil {
		return nil, robotError(r, err)
	}
	return &liveInput{ss: ss, robot: r, live: robot, ctl: ctl}, nil
}

// heldError is the 409 of a stream somebody else drives, naming them and since when.
func heldError(sel StreamSelector, owner string, since time.Time) error {
	return &fleetgate.Error{Code: fleetgate.EConflict, Owner: owner, Since: since,
		Message: "stream " + sel.String() + " is controlled by " + owner + " since " + since.UTC().Format(time.RFC3339)}
}

// openLive is the robot checks both directions share: 404, then 501.
func (ss *StreamService) openLive(ctx context.Context, c *Caller, robotID string, act action) (fleetgate.Robot, error) {
	r, _, err := ss.robots.authorizeRobot(ctx, c, robotID, act)
	if err != nil {
		return fleetgate.Robot{}, err
	}
	if ss.hostedElsewhere(r) {
		return fleetgate.Robot{}, fleetgate.Errorf(fleetgate.ENotImplemented, "robot %q is hosted by another agent of the local fleet; live stream tunnelling is not implemented", r.Name)
	}
	return r, nil
}

// liveOutput is an authorised output request: live.Output.
type liveOutput struct {
	ss    *StreamService
	robot fleetgate.Robot
	live  fleet.Robot // nil: offline when the request came
	sel   StreamSelector
}

func (o liveOutput) RobotID() string { return o.robot.ID }

// Subscribe's errors are coded as live.Output says: the resolution's own (a stream that does
// not resolve, a robot that does not answer), and a robot that cannot follow a stream it lists.
func (o liveOutput) Subscribe(ctx context.Context, opts fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error) {
	if o.live == nil {
		return fleetgate.Stream{}, nil, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is offline", o.robot.Name)
	}
	s, err := o.ss.resolveStream(ctx, o.robot, o.live, o.sel)
	if err != nil {
		return fleetgate.Stream{}, nil, err
	}
	if s.Direction == fleetgate.Input {
		return fleetgate.Stream{}, nil, fleetgate.Errorf(fleetgate.ENotFound, "stream %s is an input stream", o.sel)
	}
	if err := o.ss.checkCodec(s, opts.Codec); err != nil {
		return fleetgate.Stream{}, nil, err
	}
	sub, err := o.ss.video.Subscribe(ctx, o.robot.ID, o.live, s.Key(), opts)
	if err != nil {
		return fleetgate.Stream{}, nil, cannotFollow(err)
	}
	return s, sub, nil
}

// Video is the gateway's H.264 encoders, which the agent link's end shares.
func (ss *StreamService) Video() *video.Encoders { return ss.video }

// Codecs lists the codecs stream s offers here (endpoint 6's extension): none for a stream
// that is not a camera's. An agent robot's stream offers what its agent said (the cloud relays
// the agent's H.264 and encodes none of it).
func (ss *StreamService) Codecs(s fleetgate.Stream) []string {
	if s.Codecs != 0 {
		return s.Codecs.Names()
	}
	return video.Codecs(s.Type, ss.video.CanEncode())
}

// checkCodec refuses a codec that stream s does not offer: an output stream that cannot be
// resolved as asked (1008).
func (ss *StreamService) checkCodec(s fleetgate.Stream, codec string) error {
	if codec == "" {
		return nil
	}
	for _, c := range ss.Codecs(s) {
		if c == codec {
			return nil
		}
	}
	return fleetgate.Errorf(fleetgate.EInvalid, "stream %s does not offer codec %s", s.Name, codec)
}

// cannotFollow is a robot's refusal to follow a stream it lists: whatever its code, the stream
// cannot be followed now (the contract's 1011), not one that does not resolve (1008).
func cannotFollow(err error) error {
	if code := fleetgate.ErrorCode(err); code == fleetgate.ENotFound || code == fleetgate.EInvalid {
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: fleetgate.ErrorMessage(err), Err: err}
	}
	return err
}

// publishFailed is why a live input session ends whose command did not reach the robot
// (1011); cause is for logs.
func publishFailed(cause error) error {
	return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "publishing to the robot failed", Err: cause}
}

// liveInput is an authorised input request holding its control at the door: live.Input.
type liveInput struct {
	ss    *StreamService
	robot fleetgate.Robot
	live  fleet.Robot
	ctl   *door.Control
}

func (in *liveInput) Stream() fleetgate.Stream { return in.ctl.Stream() }

// Drive is the door's control: it holds each command to the robot's speeds again, paces it
// and watches the deadman.
func (in *liveInput) Drive(onFault func(error)) live.Driver {
	in.ctl.OnFault(func(err error) { onFault(publishFailed(err)) })
	// Handed over or taken by a supervisor: the door zeroed the robot already; the session
	// ends saying who has the stream now.
	in.ctl.OnLost(onFault)
	return in.ctl
}

// Policy is the governor's policy of the session at the door (the agent's end of the link
// tells the cloud's widget of it).
func (in *liveInput) Policy() (teleop.DelayPolicy, bool) { return in.ctl.Policy() }

// Connected reports whether the robot is still online through the connection the lease was
// taken on (a robot that reconnected is a new connection, driven afresh).
func (in *liveInput) Connected() bool {
	robot, ok := in.ss.presence.Robot(in.robot.ID)
	return ok && robot == in.live
}

// Release frees the stream at the door; after the session's final zero it publishes nothing
// more (a control never driven gets its zero here).
func (in *liveInput) Release() { in.ctl.Stop() }

func (in *liveInput) Name() string {
	s := in.ctl.Stream()
	return in.robot.Name + " (" + in.robot.ID + ") " + s.Component + "/" + s.Name
}

// hostedElsewhere reports whether r is a member of the local fleet that this gateway does
// not host: on a local gateway every local-fleet robot is its own, so this is true only for
// robots announced by another agent of the same fleet, which the live socket cannot tunnel.
func (ss *StreamService) hostedElsewhere(r fleetgate.Robot) bool {
	return r.FleetID == fleetgate.LocalFleetID && r.AgentID != "" && r.AgentID != ss.agentID
}

// Controls lists who drives which input stream of robotID (an extension: browsers see a
// refused upgrade only as close code 1006): this gateway's leases, or for a robot whose agent
// governs its teleoperation, the agent's.
func (ss *StreamService) Controls(ctx context.Context, c *Caller, robotID string) ([]fleetgate.Held, error) {
	r, _, err := ss.robots.authorizeRobot(ctx, c, robotID, actHolder)
	if err != nil {
		return nil, err
	}
	if robot, ok := ss.presence.Robot(r.ID); ok {
		if rd, ok := fleet.As[fleet.RemoteDriven](robot); ok {
			held, err := robotCall(ctx, r, rd.Controls)
			if err != nil {
				return nil, err
			}
			return held, nil
		}
	}
	return ss.HeldControls(r.ID), nil
}
