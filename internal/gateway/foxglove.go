package gateway

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
)

// OpenFoxglove makes the checks of a request for the Foxglove WebSocket route
// (/apigateway/v2/robots/{robotId}/foxglove) after authentication and before the upgrade: 404
// (robot unknown or invisible), 501 (a local-fleet robot hosted by another agent). Role:
// Operator, to watch; driving (the protocol's clientPublish) needs a token that may act too,
// checked again each time the client advertises a channel. The robot may be offline: the
// session says so and lists its streams once it is back.
func (ss *StreamService) OpenFoxglove(ctx context.Context, c *Caller, robotID string) (live.Foxglove, error) {
	r, err := ss.openLive(ctx, c, robotID, actWatch)
	if err != nil {
		return nil, err
	}
	_, _, mayNot := ss.robots.authorizeRobot(ctx, c, robotID, actDrive)
	return &foxgloveRobot{ss: ss, c: c, robot: r, mayPublish: mayNot == nil}, nil
}

// foxgloveRobot is a robot authorised for a Foxglove session: live.Foxglove. It finds the
// robot's connection at each call, since a session outlives a robot's reconnection.
type foxgloveRobot struct {
	ss         *StreamService
	c          *Caller
	robot      fleetgate.Robot
	mayPublish bool
}

func (f *foxgloveRobot) RobotID() string   { return f.robot.ID }
func (f *foxgloveRobot) RobotName() string { return f.robot.Name }
func (f *foxgloveRobot) MayPublish() bool  { return f.mayPublish }

// live is the robot's connection now.
func (f *foxgloveRobot) live() (fleet.Robot, error) {
	robot, ok := f.ss.presence.Robot(f.robot.ID)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is offline", f.robot.Name)
	}
	return robot, nil
}

func (f *foxgloveRobot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	robot, err := f.live()
	if err != nil {
		return nil, err
	}
	return robotCall(ctx, f.robot, robot.Streams)
}

// Definition asks the robot's source for its definition of a type outside the catalog
// (fleet.MessageDefinitions: a ROS 1 robot's topics, here or behind the agent link, whose
// agent is asked; a topic nobody follows yet is followed briefly to learn it). A robot that
// gives none (the simulator, a ROS 2 robot) is ENotFound, one whose agent is older than the
// link's definition request ENotImplemented.
func (f *foxgloveRobot) Definition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	robot, err := f.live()
	if err != nil {
		return "", "", err
	}
	defs, ok := fleet.As[fleet.MessageDefinitions](robot)
	if !ok {
		return "", "", fleetgate.Errorf(fleetgate.ENotFound, "the robot's source gives no message definitions")
	}
	type definition struct{ encoding, text string }
	d, err := robotCall(ctx, f.robot, func(ctx context.Context) (definition, error) {
		enc, text, err := defs.MessageDefinition(ctx, key)
		return definition{enc, text}, err
	})
	if fleetgate.Is(err, fleetgate.ENotFound) && key.Source == fleetgate.SourceROS1 {
		unknown := err
		d, err = robotCall(ctx, f.robot, func(ctx context.Context) (definition, error) {
			enc, text, err := learnROS1Definition(ctx, robot, defs, key, unknown)
			return definition{enc, text}, err
		})
	}
	return d.encoding, d.text, err
}

// rosDefinitionWait bounds how long a Foxglove session follows a ROS 1 topic to learn its
// type's definition (within RobotReadTimeout too): the session lists every stream each
// refresh, within one deadline, so a silent publisher must not hold up the others.
const rosDefinitionWait = time.Second

// rosDefinitionPoll is how often the definition is asked for meanwhile (through the cloud,
// each time a round trip to the agent).
const rosDefinitionPoll = 50 * time.Millisecond

// learnROS1Definition follows ROS 1 topic key until its definition is known: a publisher
// sends it in the connection header when a subscriber connects, so a topic nobody follows
// has none yet. Through the cloud the subscription makes the agent connect. A publisher that
// sends none in time leaves the source's own answer (unknown, then the last one asked).
func learnROS1Definition(ctx context.Context, robot fleet.Robot, defs fleet.MessageDefinitions, key fleetgate.StreamKey, unknown error) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, rosDefinitionWait)
	defer cancel()
	sub, err := robot.Subscribe(ctx, key, fleetgate.SubscribeOptions{})
	if err != nil {
		return "", "", err
	}
	defer sub.Close()
	tick := time.NewTicker(rosDefinitionPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", "", unknown
		case <-tick.C:
		}
		enc, text, err := defs.MessageDefinition(ctx, key)
		switch {
		case err == nil:
			return enc, text, nil
		case fleetgate.Is(err, fleetgate.ENotFound):
			unknown = err
		case ctx.Err() != nil:
			return "", "", unknown
		default:
			return "", "", err
		}
	}
}

// Output is stream s as a W3 output request names it; it is resolved again when subscribed.
func (f *foxgloveRobot) Output(s fleetgate.Stream) live.Output {
	robot, _ := f.ss.presence.Robot(f.robot.ID)
	return liveOutput{ss: f.ss, robot: f.robot, live: robot,
		sel: StreamSelector{Component: s.Component, Name: s.Name, Source: s.Source, Type: s.Type}}
}

// Publish takes control of input stream key for a Foxglove client's channel, with the same
// checks as a W3 input socket (OpenLiveInput): the caller may drive, the stream is an input of
// a command type, and its one lease is the caller's (fleetgate.HeldError otherwise), at this
// gateway's door for a robot hosted here, or at the robot's agent (whose door governs it) for
// one behind the link.
func (f *foxgloveRobot) Publish(ctx context.Context, key fleetgate.StreamKey) (live.Input, error) {
	r, _, err := f.ss.robots.authorizeRobot(ctx, f.c, f.robot.ID, actDrive)
	if err != nil {
		return nil, err
	}
	robot, err := f.live()
	if err != nil {
		return nil, err
	}
	sel := StreamSelector{Component: key.Component, Name: key.Name, Source: key.Source}
	s, err := f.ss.resolveStream(ctx, r, robot, sel)
	if err != nil {
		return nil, err
	}
	if err := drivable(r, s, sel, false); err != nil {
		return nil, err
	}
	if rd, ok := fleet.As[fleet.RemoteDriven](robot); ok {
		return f.ss.takeRemoteControl(ctx, f.c, r, robot, rd, s, sel)
	}
	ctl, err := f.ss.door.Take(ctx, robot, s.Key(), door.Who{User: f.c.User.Email, Path: door.PathFoxglove})
	if err != nil {
		return nil, robotError(r, err)
	}
	return &liveInput{ss: f.ss, robot: r, live: robot, ctl: ctl}, nil
}
