package uplink

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// Core is the agent's core as its end of the link uses it: the robots this process hosts, the
// ways in to their input streams that the cloud's operators take (each through the agent's
// door), and the local event log the link forwards. The composition root implements it over
// the gateway; the link never sees the registry or the door.
type Core interface {
	Robots
	Controls
	Events
}

// Robots are the robots this process hosts, which the link announces and answers for.
type Robots interface {
	// HostedRobots lists them.
	HostedRobots() []fleet.Robot
	// HostedRobotsChanged is signalled once the list changes after the call; take it before
	// reading the list, so that no change goes unannounced.
	HostedRobotsChanged() <-chan struct{}
	// HostedRobot is robot robotID when this process hosts it and it is online.
	HostedRobot(robotID string) (fleet.Robot, bool)
}

// Controls are the cloud operators' ways to the hosted robots' input streams. The cloud has
// checked the operator; the agent checks everything that keeps the robot safe (the door's
// lease, speeds, rate cap and deadman), whatever the cloud did.
type Controls interface {
	// OpenControlForCloud takes control of robotID's input stream key for user; a stream
	// somebody drives is fleetgate.HeldError.
	OpenControlForCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, user string) (live.Input, error)
	// HeldControls lists who drives robotID's input streams.
	HeldControls(robotID string) []fleetgate.Held
	// UploadFromCloud hands one message for an input stream, which user uploaded to the
	// cloud (endpoint 9 or S8), to the agent's door.
	UploadFromCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, typ string, payload []byte, user string) error
}

// HandsOver is a Core whose door hands control over (the handover extension of W3 input,
// docs/api.md): a core without it takes every cloud control as OpenControlForCloud does.
type HandsOver interface {
	// OpenControlForCloudMode is OpenControlForCloud in one of the extension's modes
	// (fleet.ControlMode): an override by a supervisor the cloud vouches for, a control whose
	// cloud operator answers requests for it, or a request that waits for the holder's answer
	// until ctx ends (a refusal is a conflict in the door's words, not a HeldError).
	OpenControlForCloudMode(ctx context.Context, robotID string, key fleetgate.StreamKey, user string, mode fleet.ControlMode) (live.Input, error)
}

// Events is the local gateway's event log as the link forwards it: the entries posted here
// that the cloud has not confirmed, in order, and a signal when one is posted.
type Events interface {
	// Unforwarded lists up to limit entries the cloud has not confirmed, oldest first.
	Unforwarded(ctx context.Context, limit int) ([]fleetgate.Event, error)
	// Forwarded records that the cloud stored entries ids.
	Forwarded(ctx context.Context, ids []int64) error
	// Posted is signalled (without blocking) when an entry is posted.
	Posted() <-chan struct{}
}

// Governed is a control (live.Input) whose door said the governor's policy it holds the
// control to: the grant tells the cloud, whose widget then shows the agent's limit.
type Governed interface {
	Policy() (teleop.DelayPolicy, bool)
}

// TeleopSettingsKeeper is a Core that keeps its robots' thresholds of the speed governor
// (gateway.TeleopSettingsService): the cloud's users read and change them here, where the
// door governs by them. A core without it answers the cloud's request as unknown.
type TeleopSettingsKeeper interface {
	// TeleopSettingsForCloud carries out req, a cloud user's, for hosted robot robotID: the
	// keeper checks the role the cloud found, and writes a change to the event log.
	TeleopSettingsForCloud(ctx context.Context, robotID string, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error)
}
