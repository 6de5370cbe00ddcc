package door

import (
	"context"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// GoalType is the type of a goal stream: an input stream that takes a pose to drive to (the
// simulator's nav/goal and nav/waypoint, a ROS robot's move_base_simple/goal or goal_pose),
// in the map frame, metres.
const GoalType = "Platform.Messages.geometry_msgs.PoseStamped"

// A goal is held under the robot's motion lease, the lease of its drivable stream (cmd_vel):
// one lease covers both, so a goal comes only from whoever drives the robot, or takes the
// stream as an upload would when nobody does. Sending it arms the lease's deadman like a
// command; the holder keeps it alive with zero commands (which the door does not pass on
// while a goal is under way: the robot drives itself, and a ROS robot's navigation must not
// be fought with zeros). Everything that ends driving ends the goal with a cancel, before
// the zero: control released, the session's STOP, a lost link, the deadman, a failed
// publish, the gateway stopping, a handover. A motion command drives by hand: the goal is
// cancelled first.

// goals are the goal streams a lease sent a goal on, to cancel when it ends.
type goals struct {
	mu   sync.Mutex
	keys []fleetgate.StreamKey
}

func (g *goals) add(key fleetgate.StreamKey) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range g.keys {
		if k == key {
			return
		}
	}
	g.keys = append(g.keys, key)
}

func (g *goals) any() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.keys) > 0
}

func (g *goals) take() []fleetgate.StreamKey {
	g.mu.Lock()
	defer g.mu.Unlock()
	keys := g.keys
	g.keys = nil
	return keys
}

// cancelGoals sends the robot the cancel of every goal l sent; it reports whether there was
// one. A cancel that does not arrive is logged: the zero that follows still stops a robot
// that takes commands.
func (l *lease) cancelGoals() bool {
	keys := l.goals.take()
	for _, key := range keys {
		ctx, cancel := context.WithTimeout(context.Background(), l.d.callTimeout)
		err := l.driven.Publish(ctx, sealCancel(key))
		cancel()
		if err != nil {
			l.d.log.log.Error("the cancel of a goal did not reach the robot", "robot", l.target.robotID, "stream", key.Component+"/"+key.Name, "err", err)
		}
	}
	return len(keys) > 0
}

// stop ends l's driving: the goals' cancel, then the controller's zero.
func (l *lease) stop() error {
	l.cancelGoals()
	return l.ctl.Stop()
}

// byHand takes a motion command of the holder while a goal may be under way: a zero keeps
// the lease alive and goes no further (it reports true: the command is taken), anything else
// cancels the goals and goes on to the controller (false).
func (l *lease) byHand(m proto.Message) bool {
	if !l.goals.any() {
		return false
	}
	if teleop.IsZero(m) {
		return l.ctl.Touch()
	}
	if l.cancelGoals() {
		l.d.tell(l, "drove by hand, cancelling the goal, on")
	}
	return false
}

// sendGoal sends who's goal on the robot's goal stream under the robot's motion lease.
func (d *Door) sendGoal(ctx context.Context, robot fleet.Robot, driven Driven, goal fleetgate.Stream, payload []byte, who Who) error {
	motion, err := d.motionStream(ctx, robot, goal)
	if err != nil {
		return err
	}
	t := target{robotID: robot.Info().ID, key: motion.Key()}
	for range 3 {
		l, stale, err := d.uploadLease(t, driven, motion, who)
		if err != nil {
			d.log.refused(robot, goal.Key(), who, fleetgate.ErrorMessage(err))
			return err
		}
		if stale != nil {
			stale.stop()
		}
		// Noted before it goes out: a deadman that fires meanwhile cancels it.
		l.goals.add(goal.Key())
		if !l.ctl.Touch() {
			continue // the lease ended meanwhile (its deadman): a new one
		}
		pctx, cancel := context.WithTimeout(ctx, d.callTimeout)
		err = d.publish(pctx, driven, t.robotID, goal.Key(), GoalType, payload)
		cancel()
		if err != nil {
			return publishError(robot, goal, err)
		}
		d.tell(l, "sent a goal on "+goal.Component+"/"+goal.Name+" under the control of")
		return nil
	}
	return fleetgate.Errorf(fleetgate.EUnavailable, "the robot %q is changing hands; try again", robot.Info().Name)
}

// motionStream is the drivable stream whose lease covers goal: in goal's component when the
// robot has one there, else the robot's first. A robot with no drivable stream takes no
// goals through the door: nothing could stop it with a zero.
func (d *Door) motionStream(ctx context.Context, robot fleet.Robot, goal fleetgate.Stream) (fleetgate.Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, d.callTimeout)
	defer cancel()
	streams, err := robot.Streams(ctx)
	if err != nil {
		return fleetgate.Stream{}, err
	}
	var found *fleetgate.Stream
	for i, s := range streams {
		if s.Direction != fleetgate.Input || !teleop.InputTypeAllowed(s.Type) {
			continue
		}
		if found == nil || (s.Component == goal.Component && found.Component != goal.Component) {
			found = &streams[i]
		}
	}
	if found == nil {
		return fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "robot %q has no Twist or Ackermann input stream: a goal needs one, to stop the robot with", robot.Info().Name)
	}
	return *found, nil
}
