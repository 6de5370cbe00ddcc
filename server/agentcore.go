package server

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/server/uplink"
)

// agentCore is a linked agent's core as its end of the link uses it (uplink.Core): the robots
// the registry holds (on an agent, every one is hosted here), the cloud operators' controls
// and uploads from the stream service (both pass the door its own sockets pass), the event
// log's outbox, and the robots' teleop settings, which the cloud's users set here.
type agentCore struct {
	robots *fleet.Registry
	*gateway.StreamService
	*eventOutbox
	settings *gateway.TeleopSettingsService
}

var (
	_ uplink.Core                 = agentCore{}
	_ uplink.TeleopSettingsKeeper = agentCore{}
)

func (c agentCore) TeleopSettingsForCloud(ctx context.Context, robotID string, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	return c.settings.TeleopSettingsForCloud(ctx, robotID, req)
}

func (c agentCore) HostedRobots() []fleet.Robot          { return c.robots.Robots() }
func (c agentCore) HostedRobotsChanged() <-chan struct{} { return c.robots.Changed() }
func (c agentCore) HostedRobot(id string) (fleet.Robot, bool) {
	return c.robots.Robot(id)
}

// demoAgentCore is the core of a demo agent (serve --demo): a simulated robot and its door,
// with no gateway of its own. Its robots take the cloud's uploads; cloud operators' live
// control needs an agent's leases, which only a real agent keeps.
type demoAgentCore struct {
	robots *fleet.Registry
	door   *door.Door
	noEvents
}

var _ uplink.Core = demoAgentCore{}

func (c demoAgentCore) HostedRobots() []fleet.Robot          { return c.robots.Robots() }
func (c demoAgentCore) HostedRobotsChanged() <-chan struct{} { return c.robots.Changed() }
func (c demoAgentCore) HostedRobot(id string) (fleet.Robot, bool) {
	return c.robots.Robot(id)
}

func (demoAgentCore) OpenControlForCloud(context.Context, string, fleetgate.StreamKey, string) (live.Input, error) {
	return nil, fleetgate.Errorf(fleetgate.EUnavailable, "a demo agent serves no teleoperation through the cloud")
}

func (demoAgentCore) HeldControls(string) []fleetgate.Held { return nil }

// UploadFromCloud passes the demo robot's door as a real agent's upload does
// (gateway.StreamService.UploadFromCloud).
func (c demoAgentCore) UploadFromCloud(ctx context.Context, robotID string, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	robot, ok := c.robots.Robot(robotID)
	if !ok {
		return fleetgate.Errorf(fleetgate.EOffline, "robot %s is not connected to this agent", robotID)
	}
	return c.door.Send(ctx, robot, key, typ, payload, door.Who{User: user, Path: door.PathLink})
}

// noEvents is the event log of a process that keeps none: nothing to forward.
type noEvents struct{}

func (noEvents) Unforwarded(context.Context, int) ([]fleetgate.Event, error) { return nil, nil }
func (noEvents) Forwarded(context.Context, []int64) error                    { return nil }
func (noEvents) Posted() <-chan struct{}                                     { return nil }
