package door

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// GoalType is the type of a goal stream: an input stream that takes a pose to drive to (the
// simulator's nav/goal and nav/waypoint, a ROS robot's move_base_simple/goal or goal_pose),
// in the map frame, metres.
const GoalType = teleop.GoalType

// A goal is held under the robot's motion lease, the lease of its drivable stream (cmd_vel):
// one lease covers both, so a goal comes only from whoever drives the robot, or takes the
// stream as an upload would when nobody does. Sending it arms the lease's deadman like a
// command; the holder keeps it alive with zero commands (which the door does not pass on
// while a goal is under way: the robot drives itself, and a ROS robot's navigation must not
// be fought with zeros). Everything that ends driving ends the goal with a cancel, before
// the zero: control released, the session's STOP, a lost link, the deadman, a failed
// publish, the gateway stopping, a handover. A motion command drives by hand: the goal is
// cancelled first.
//
// A goal socket (a W3 input socket on a goal stream, here or through the cloud: Take with a
// goal stream's key) holds the motion lease as a cmd_vel socket does; each of its frames is a
// goal, and its keepalive (the empty message, teleop.IsKeepalive) is what the zero command is
// to a cmd_vel socket: the holder's sign of life, which the deadman waits for. A browser
// answers pings even from a frozen page, and a ping measures only the way to the gateway the
// socket reached; the client's own frame crosses every hop to this door.

// goals are the goal streams a lease sent a goal on, to cancel when it ends.
type goals struct {
	// out is held while a goal goes out and while the goals are cancelled: a cancel never
	// overtakes a goal on its way to the robot, and once the lease has stopped (ended) no goal
	// follows its last cancel.
	out   sync.Mutex
	ended bool

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
	l.goals.out.Lock()
	defer l.goals.out.Unlock()
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
	l.goals.out.Lock()
	l.goals.ended = true
	l.goals.out.Unlock()
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
		sent, err := l.sendGoal(ctx, goal.Key(), payload)
		if !sent {
			continue // the lease ended meanwhile (its deadman): a new one
		}
		if err != nil {
			return publishError(robot, goal, err)
		}
		d.tell(l, "sent a goal on "+goal.Component+"/"+goal.Name+" under the control of")
		return nil
	}
	return fleetgate.Errorf(fleetgate.EUnavailable, "the robot %q is changing hands; try again", robot.Info().Name)
}

// sendGoal sends payload on l's robot's goal stream key under l: noted first, so whatever
// ends the lease cancels it, and the deadman re-armed. sent is false when l has ended (the
// caller needs a new lease, or its session is ending); err is the robot's.
func (l *lease) sendGoal(ctx context.Context, key fleetgate.StreamKey, payload []byte) (sent bool, err error) {
	l.goals.out.Lock()
	defer l.goals.out.Unlock()
	if l.goals.ended {
		return false, nil
	}
	l.goals.add(key)
	if !l.ctl.Touch() {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, l.d.callTimeout)
	defer cancel()
	return true, l.d.publish(ctx, l.driven, l.target.robotID, key, GoalType, payload)
}

// sendGoal is one frame of a goal socket (Command): the keepalive re-arms the deadman, any
// other frame is a goal for the control's goal stream. A goal the robot refuses (another
// frame, a point no path reaches: EInvalid) is a refusal, logged and journalled, and ends the
// session with the robot's words, as a command beyond the limits does.
func (c *Control) sendGoal(m proto.Message) error {
	if m == nil || string(m.ProtoReflect().Descriptor().FullName()) != GoalType {
		return fmt.Errorf("door: a goal that is not a %s", GoalType)
	}
	l := c.l
	if teleop.IsKeepalive(m) {
		l.ctl.Touch()
		return nil
	}
	payload, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	key := c.goal.Key()
	sent, err := l.sendGoal(context.Background(), key, payload)
	if fleetgate.Is(err, fleetgate.EInvalid) {
		l.d.log.refusedSafety(l.target.robotID, l.robotName, key, l.who, fleetgate.ErrorMessage(err), "")
		return err
	} else if err != nil {
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "publishing the goal to the robot failed", Err: err}
	}
	if sent {
		l.d.tell(l, "sent a goal on "+key.Component+"/"+key.Name+" under the control of")
	}
	return nil
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
