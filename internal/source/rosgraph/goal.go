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

// The ROS types of a goal and of its cancel.
const (
	goalType   = "geometry_msgs/PoseStamped"
	cancelType = "actionlib_msgs/GoalID"
)

// cancelAll is an actionlib_msgs/GoalID as ROS 1 serialises it, with a zero stamp and an
// empty id: actionlib cancels every goal on it.
var cancelAll = make([]byte, 4+4+4) // stamp.secs, stamp.nsecs, the id's length

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
	t := Topic{Name: r.cfg.CancelTopic, Type: cancelType, Direction: fleetgate.Input}
	out, err := r.outboundWith(ctx, t, func() (*rosmsg.Codec, error) { return rosmsg.SpecCodec(cancelType) })
	if err != nil {
		return err
	}
	if err := out.w.Write(append([]byte(nil), cancelAll...)); err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "publishing to %s: %v", t.Name, err)
	}
	return nil
}
