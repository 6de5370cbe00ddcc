package rosgraph

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// Goals: a ROS robot's navigation (move_base, Nav2) listens for a goal pose on a topic of its
// own; the robot lists it as the stream nav/goal, which the door holds under the robot's
// motion lease like cmd_vel, and a goal's cancel goes to CancelTopic.

// goalKey is the stream a ROS robot's goals arrive on (without its source).
var goalKey = fleetgate.StreamKey{Component: "nav", Name: "goal"}

// goalType is the ROS type of a goal.
const goalType = "geometry_msgs/PoseStamped"

// goalCancel is the cancel of every goal as a ROS writes it.
type goalCancel struct {
	rosType string // as the robot's ROS names it
	msg     []byte // serialised as its transport writes it
	codec   func() (*rosmsg.Codec, error)
}

var cancels = map[fleetgate.SourceType]goalCancel{
	// actionlib_msgs/GoalID with a zero stamp and an empty id: actionlib cancels every goal
	// on it. ROS 1 serialisation: stamp.secs, stamp.nsecs, the id's length.
	fleetgate.SourceROS1: {"actionlib_msgs/GoalID", make([]byte, 4+4+4),
		func() (*rosmsg.Codec, error) { return rosmsg.SpecCodec("actionlib_msgs/GoalID") }},
	// action_msgs/msg/GoalInfo with a zero goal id and a zero stamp: what an action's
	// cancel_goal service takes to cancel every goal (action_msgs/srv/CancelGoal). CDR, little
	// endian: the encapsulation header, the 16 bytes of the UUID, sec, nanosec.
	fleetgate.SourceROS2: {"action_msgs/msg/GoalInfo", append([]byte{0, 1, 0, 0}, make([]byte, 16+4+4)...),
		func() (*rosmsg.Codec, error) { return rosmsg.SpecCodecROS2("action_msgs/GoalInfo") }},
}

// goalTopic is the topic of nav/goal, when the robot lists it: the graph's GoalTopic, or the
// configured one the graph does not have yet.
func (r *Robot) goalTopic(g map[string]Topic) (Topic, bool) {
	if r.cfg.GoalTopic == "" {
		return Topic{}, false
	}
	typ := goalType
	if r.cfg.Source == fleetgate.SourceROS2 {
		typ = "geometry_msgs/msg/PoseStamped"
	}
	t, ok := g[r.cfg.GoalTopic]
	if ok && msgType(t.Type) != goalType {
		return Topic{}, false // a topic of that name that takes something else: not a goal
	}
	if !ok && !r.cfg.ListGoal {
		return Topic{}, false
	}
	// Listed as an input whoever else publishes it (a person's RViz).
	return Topic{Name: r.cfg.GoalTopic, Type: typ, Direction: fleetgate.Input}, true
}

// cancel sends the cancel of every goal to CancelTopic.
func (r *Robot) cancel(ctx context.Context) error {
	if err := r.offline(); err != nil {
		return err
	}
	if r.cfg.CancelTopic == "" {
		return fleetgate.Errorf(fleetgate.EUnavailable, "robot %s has no cancel topic: only the zero on its drive topic stops its goal", r.cfg.Info.Name)
	}
	g, err := r.topics(ctx)
	if err != nil {
		return err
	}
	out, t, err := r.cancelOutbound(ctx)
	if err != nil {
		return err
	}
	c := cancels[r.cfg.Source]
	if err := out.w.Write(append([]byte(nil), c.msg...)); err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "publishing to %s: %v", t.Name, err)
	}
	if _, ok := g[t.Name]; !ok {
		// Sent all the same (a subscriber may be on its way), but said: a stock Nav2 has no
		// such topic, and its goal goes on after the zero (docs/ros2.md).
		return fleetgate.Errorf(fleetgate.EUnavailable, "robot %s: no node subscribes to the cancel topic %s, so nothing cancels its goal; only the zero on its drive topic follows", r.cfg.Info.Name, t.Name)
	}
	return nil
}

// cancelOutbound is the writer of CancelTopic, made on first use: with the first goal (see
// Publish), so that a cancel finds its subscribers connected.
func (r *Robot) cancelOutbound(ctx context.Context) (*outbound, Topic, error) {
	c := cancels[r.cfg.Source]
	t := Topic{Name: r.cfg.CancelTopic, Type: c.rosType, Direction: fleetgate.Input}
	out, err := r.outboundWith(ctx, t, c.codec)
	return out, t, err
}

// readyCancel makes the cancel's writer when a goal goes. A ROS 1 subscriber connects a
// while after a new publisher registers (the master tells it, it asks the publisher for a
// connection: on a loaded robot computer over a second, seen in this package's tests), and a
// message published before that reaches nobody once its linger is over; a cancel made only
// when the operator stops could be lost, and the robot go on to its goal. Made with the goal,
// its connections are up by the time a cancel is needed. A failure is the cancel's to report.
func (r *Robot) readyCancel(ctx context.Context, t Topic) {
	if r.cfg.CancelTopic == "" || t.Name != r.cfg.GoalTopic {
		return
	}
	if _, _, err := r.cancelOutbound(ctx); err != nil {
		r.log.Warn("the goal's cancel topic cannot be published yet; the next cancel tries again", "topic", r.cfg.CancelTopic, "err", err)
	}
}
