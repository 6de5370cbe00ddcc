package gateway

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
)

// Teleoperation of a robot another process governs (fleet.RemoteDriven: a robot behind the
// agent link, seen from the cloud), and the agent's side of it: the agent grants the cloud's
// operators control under the same leases as its own (OpenControlForCloud).

// takeRemoteControl asks a remotely governed robot for control of stream s for the caller.
func (ss *StreamService) takeRemoteControl(ctx context.Context, c *Caller, r fleetgate.Robot, robot fleet.Robot, rd fleet.RemoteDriven, s fleetgate.Stream, sel StreamSelector) (live.Input, error) {
	ctx, cancel := context.WithTimeout(ctx, RobotReadTimeout)
	defer cancel()
	ctl, err := rd.TakeControl(ctx, s.Key(), c.User.Email)
	if held, ok := fleetgate.HeldBy(err); ok {
		return nil, heldError(sel, held.Owner, held.Since)
	} else if err != nil {
		return nil, robotError(r, err)
	}
	return &remoteInput{ss: ss, robot: r, live: robot, stream: s, ctl: ctl}, nil
}

// takeRemoteControlMode is takeRemoteControl in one of the handover extension's modes, within
// wait: the robot's own door decides; a refusal of a request comes back in its words.
func (ss *StreamService) takeRemoteControlMode(ctx context.Context, c *Caller, r fleetgate.Robot, robot fleet.Robot, h fleet.RemoteHandover, s fleetgate.Stream, sel StreamSelector, mode fleet.ControlMode, wait time.Duration) (live.Input, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ctl, err := h.TakeControlMode(ctx, s.Key(), c.User.Email, mode)
	if held, ok := fleetgate.HeldBy(err); ok && !mode.Ask {
		return nil, heldError(sel, held.Owner, held.Since)
	} else if fleetgate.Is(err, fleetgate.EConflict) || fleetgate.Is(err, fleetgate.EForbidden) {
		return nil, err // the door's words: who refused, or why nobody can answer
	} else if err != nil {
		if ctx.Err() != nil && mode.Ask {
			return nil, err
		}
		return nil, robotError(r, err)
	}
	return &remoteInput{ss: ss, robot: r, live: robot, stream: s, ctl: ctl}, nil
}

// remoteInput is an input stream whose agent governs it: commands are forwarded, and the
// agent's lease, rate cap and deadman apply to them (the trust boundary: the agent trusts the
// cloud's authorisation; the cloud trusts the agent to drive safely).
type remoteInput struct {
	ss     *StreamService
	robot  fleetgate.Robot
	live   fleet.Robot
	stream fleetgate.Stream
	ctl    fleet.RemoteControl
}

func (in *remoteInput) Stream() fleetgate.Stream { return in.stream }

// Drive hands the session's commands straight to the agent (live.Forward).
func (in *remoteInput) Drive(onFault func(error)) live.Driver { return live.Forward(in.ctl, onFault) }

func (in *remoteInput) Connected() bool {
	select {
	case <-in.ctl.Done():
		return false
	default:
	}
	robot, ok := in.ss.presence.Robot(in.robot.ID)
	return ok && robot == in.live
}

func (in *remoteInput) Release() { in.ctl.Release() }

func (in *remoteInput) Name() string {
	return in.robot.Name + " (" + in.robot.ID + ") " + in.stream.Component + "/" + in.stream.Name + " through its agent"
}

// OpenControlForCloud is the agent's side of a cloud operator's teleoperation: control of
// robot robotID's input stream key for user, at the same door as this gateway's own W3
// sockets (one controller per stream, local or cloud; the speeds, rate cap and deadman held
// here). The cloud has checked the operator's token and role; the agent trusts that decision
// and checks what it can itself: the robot is its own and online, the stream an input of a
// command type. A held stream is fleetgate.HeldError.
func (ss *StreamService) OpenControlForCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, user string) (live.Input, error) {
	return ss.OpenControlForCloudMode(ctx, robotID, key, user, fleet.ControlMode{})
}

// OpenControlForCloudMode is OpenControlForCloud in one of the handover extension's modes, at
// the same door: an override (the cloud found user an organization admin or a supervisor of
// the robot's fleet there; the agent trusts that as it trusts the cloud's role checks), or a
// request that waits for the holder's answer (a refusal is the door's conflict, in its words). Answers needs nothing here: the agent's
// end of the link watches the control when the cloud says its operator answers.
func (ss *StreamService) OpenControlForCloudMode(ctx context.Context, robotID string, key fleetgate.StreamKey, user string, mode fleet.ControlMode) (live.Input, error) {
	robot, ok := ss.presence.Robot(robotID)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is not connected to this agent", robotID)
	}
	who := door.Who{User: user, Path: door.PathCloudW3, Supervisor: mode.Override}
	var ctl *door.Control
	var err error
	switch {
	case mode.Override:
		ctl, err = ss.door.Override(ctx, robot, key, who)
	case mode.Ask:
		ctl, err = ss.door.Request(ctx, robot, key, who)
	default:
		ctl, err = ss.door.Take(ctx, robot, key, who)
	}
	if err != nil {
		return nil, err
	}
	r := fleetgate.Robot{ID: robotID, Name: robot.Info().Name}
	return &liveInput{ss: ss, robot: r, live: robot, ctl: ctl}, nil
}

// HeldControls lists who drives robotID's input streams here, for the cloud's /controls.
func (ss *StreamService) HeldControls(robotID string) []fleetgate.Held {
	return ss.door.Held(robotID)
}

// UploadFromCloud is the agent's side of an upload to the cloud (endpoint 9 or S8 there, or on
// a replica that forwarded it): user's message for robot robotID's input stream key, at the
// same door as this gateway's own uploads. The cloud has checked the user and the message;
// the door checks again what keeps the robot safe (speeds, lease, rate cap, deadman).
func (ss *StreamService) UploadFromCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	robot, ok := ss.presence.Robot(robotID)
	if !ok {
		return fleetgate.Errorf(fleetgate.EOffline, "robot %s is not connected to this agent", robotID)
	}
	if user == "" {
		user = "a cloud user" // an older cloud names none; its upload is then nobody's lease
	}
	return ss.door.Send(ctx, robot, key, typ, payload, door.Who{User: user, Path: door.PathLink})
}
