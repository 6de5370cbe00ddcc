package link

import (
	"context"
	"math"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// A robot's thresholds of the speed governor on the wire (fleet.RemoteTeleopSettings, and the
// thresholds a control's grant carries: fleet.GovernedControl).

func DelaysToWire(d fleetgate.TeleopDelays) *linkpb.TeleopDelays {
	ms := func(v time.Duration) uint32 { return uint32(min(max(v.Milliseconds(), 0), math.MaxUint32)) }
	return &linkpb.TeleopDelays{FullMs: ms(d.Full), QuarterMs: ms(d.Quarter), StopMs: ms(d.Stop)}
}

func DelaysFromWire(d *linkpb.TeleopDelays) fleetgate.TeleopDelays {
	ms := func(v uint32) time.Duration { return time.Duration(v) * time.Millisecond }
	return fleetgate.TeleopDelays{Full: ms(d.GetFullMs()), Quarter: ms(d.GetQuarterMs()), Stop: ms(d.GetStopMs())}
}

func TeleopSettingsRequestToWire(r fleet.TeleopSettingsRequest) *linkpb.TeleopSettingsRequest {
	out := &linkpb.TeleopSettingsRequest{User: r.User, Role: int32(r.Role)}
	switch {
	case r.Set != nil:
		out.Action = &linkpb.TeleopSettingsRequest_Set{Set: DelaysToWire(*r.Set)}
	case r.Reset:
		out.Action = &linkpb.TeleopSettingsRequest_Reset_{Reset_: &linkpb.Empty{}}
	default:
		out.Action = &linkpb.TeleopSettingsRequest_Get{Get: &linkpb.Empty{}}
	}
	return out
}

func TeleopSettingsRequestFromWire(r *linkpb.TeleopSettingsRequest) (fleet.TeleopSettingsRequest, error) {
	out := fleet.TeleopSettingsRequest{User: r.GetUser(), Role: fleetgate.Role(r.GetRole())}
	switch a := r.GetAction().(type) {
	case *linkpb.TeleopSettingsRequest_Get:
	case *linkpb.TeleopSettingsRequest_Set:
		d := DelaysFromWire(a.Set)
		out.Set = &d
	case *linkpb.TeleopSettingsRequest_Reset_:
		out.Reset = true
	default:
		return out, fleetgate.Errorf(fleetgate.EInvalid, "teleop settings action %T is not known here; "+unknownRequest, r.GetAction())
	}
	return out, nil
}

func TeleopSettingsToWire(s fleet.TeleopSettings) *linkpb.TeleopSettings {
	out := &linkpb.TeleopSettings{Delays: DelaysToWire(s.Delays), Custom: s.Custom, UpdatedBy: s.Delays.UpdatedBy}
	if !s.Delays.UpdatedAt.IsZero() {
		out.UpdatedAt = Time(s.Delays.UpdatedAt)
	}
	return out
}

func TeleopSettingsFromWire(s *linkpb.TeleopSettings) fleet.TeleopSettings {
	d := DelaysFromWire(s.GetDelays())
	d.UpdatedBy = s.GetUpdatedBy()
	if s.GetUpdatedAt() != nil {
		d.UpdatedAt = FromTime(s.GetUpdatedAt())
	}
	return fleet.TeleopSettings{Delays: d, Custom: s.GetCustom()}
}

// TeleopSettings asks the robot's host to read or change its thresholds. A host too old to
// know the request keeps them on its own admin page: EConflict, saying so.
func (c Client) TeleopSettings(ctx context.Context, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_TeleopSettings{TeleopSettings: TeleopSettingsRequestToWire(req)}})
	if isUnknownRequest(err) {
		return fleet.TeleopSettings{}, fleetgate.Errorf(fleetgate.EConflict, "%s is of an older build that keeps the robot's teleop delays on its own admin page: set them there, or upgrade it", c.Peer)
	}
	if err != nil {
		return fleet.TeleopSettings{}, err
	}
	if resp.GetTeleopSettings() == nil {
		return fleet.TeleopSettings{}, c.unexpected(resp)
	}
	return TeleopSettingsFromWire(resp.GetTeleopSettings()), nil
}

// teleopSettings serves the request on a cloud replica that holds the robot's link (a
// replica that does not forwarded it): the robot hands it on to its agent.
func teleopSettings(ctx context.Context, robot fleet.Robot, op *linkpb.TeleopSettingsRequest) (*linkpb.Response, error) {
	rts, ok := fleet.As[fleet.RemoteTeleopSettings](robot)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EConflict, "robot %s keeps no teleop delays that this side can reach", robot.Info().Name)
	}
	req, err := TeleopSettingsRequestFromWire(op)
	if err != nil {
		return nil, err
	}
	s, err := rts.TeleopSettings(ctx, req)
	if err != nil {
		return nil, err
	}
	return &linkpb.Response{Result: &linkpb.Response_TeleopSettings{TeleopSettings: TeleopSettingsToWire(s)}}, nil
}

// Granted is the answer to a take_control that was granted, with the thresholds the control
// is governed by when the granting side said them (fleet.GovernedControl).
func Granted(g fleet.Governed) *linkpb.Response {
	resp := &linkpb.Response{Result: &linkpb.Response_Granted{Granted: &linkpb.Empty{}}}
	if d, ok := g.Delays(); ok {
		resp.Delays = DelaysToWire(d)
	}
	return resp
}

// GrantedDelays are the thresholds a grant said (fleet.Governed's zero: none, an older agent).
func GrantedDelays(resp *linkpb.Response) fleet.Governed {
	if resp.GetDelays() == nil {
		return fleet.Governed{}
	}
	return fleet.GovernedBy(DelaysFromWire(resp.GetDelays()))
}

// GovernedOf is what control c's grant said of its thresholds, for a grant handed on.
func GovernedOf(c fleet.RemoteControl) fleet.Governed {
	if gc, ok := c.(fleet.GovernedControl); ok {
		if d, said := gc.Delays(); said {
			return fleet.GovernedBy(d)
		}
	}
	return fleet.Governed{}
}
