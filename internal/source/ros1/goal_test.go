package ros1

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// moveBaseScript stands in for move_base: it subscribes to the goal, the cancel and cmd_vel,
// and prints each.
const moveBaseScript = `
import rospy
from geometry_msgs.msg import PoseStamped, Twist
from actionlib_msgs.msg import GoalID
rospy.init_node('move_base')
def goal(m):
    print('goal %.3f %.3f %s' % (m.pose.position.x, m.pose.position.y, m.header.frame_id), flush=True)
def cancel(m):
    print('cancel [%s] %d' % (m.id, m.stamp.secs), flush=True)
def cmd(m):
    print('cmd %.3f %.3f' % (m.linear.x, m.angular.z), flush=True)
rospy.Subscriber('/move_base_simple/goal', PoseStamped, goal)
rospy.Subscriber('/move_base/cancel', GoalID, cancel)
rospy.Subscriber('/cmd_vel', Twist, cmd)
print('ready', flush=True)
rospy.spin()
`

var navGoal = fleetgate.StreamKey{Component: "nav", Name: "goal", Source: fleetgate.SourceROS1}

func TestAGoalAndItsCancelReachMoveBase(t *testing.T) {
	m := rostest.StartMaster(t)
	bot := m.Python(t, moveBaseScript)
	r, _, logs := startRobot(t, m, Config{})
	// The goal topic exists (move_base subscribes): the robot lists nav/goal.
	streams := streamsOf(t, r, "goal", "/cmd_vel")
	if s := streams["goal"]; s.Component != "nav" || s.Type != door.GoalType || s.Direction != fleetgate.Input {
		t.Fatalf("nav/goal is listed as %+v", s)
	}
	d := door.New(door.Config{})
	t.Cleanup(d.Close)
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, key("/cmd_vel"), door.Who{User: "op@example.com", Path: door.PathW3})
	if err != nil {
		t.Fatal(err)
	}
	// The operator drives first (a command sent while a goal runs cancels the goal): every
	// 50 ms, a driver's pace, until move_base has one (a ROS 1 subscriber connects a while
	// after our first message, which reaches nobody).
	drove := false
	for deadline := time.Now().Add(10 * time.Second); !drove && time.Now().Before(deadline); {
		if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.3}}); err != nil {
			t.Fatal(err)
		}
		_, err := bot.WaitLine(50*time.Millisecond, func(l string) bool { return l == "cmd 0.300 0.000" })
		drove = err == nil
	}
	if !drove {
		t.Fatal("move_base never got a drive command")
	}
	// The driver lets go: the deadman's zero, before the goal (after it, it would be taken for
	// the release's zero below).
	if _, err := bot.WaitLine(10*time.Second, func(l string) bool { return l == "cmd 0.000 0.000" }); err != nil {
		t.Fatalf("the deadman's zero: %v", err)
	}
	goal, _ := proto.Marshal(&catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"},
		Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 4, Y: 2}, Orientation: &catalogpb.Quaternion{W: 1}}})
	if err := d.Send(ctx, r, navGoal, door.GoalType, goal, door.Who{User: "op@example.com", Path: door.PathUpload}); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.WaitLine(10*time.Second, func(l string) bool { return l == "goal 4.000 2.000 map" }); err != nil {
		t.Fatal(err)
	}
	// Releasing control: the cancel of every goal, then the zero on cmd_vel. Both reach
	// move_base; in which order it prints them is not ours to say (two topics, two TCPROS
	// connections made at first use, one callback thread each in rospy): the door's tests
	// hold the order in which they are published.
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"cancel [] 0": false, "cmd 0.000 0.000": false}
	for range want {
		l, err := bot.WaitLine(10*time.Second, func(l string) bool { seen, ok := want[l]; return ok && !seen })
		if err != nil {
			t.Fatalf("%v: move_base got %v (true: received); the agent's log:\n%s\nmove_base's:\n%s", err, want, logs, bot.Stderr())
		}
		want[l] = true
	}
}

func TestAConfiguredGoalTopicIsListedBeforeAnyoneSubscribes(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, robotScript)
	r, _, _ := startRobot(t, m, Config{GoalTopic: "/goal", ListGoal: true})
	if s := streamsOf(t, r, "goal", "/odom")["goal"]; s.Component != "nav" || s.Type != door.GoalType {
		t.Fatalf("nav/goal is listed as %+v", s)
	}
	// Without the topic and not configured: no goals.
	r2, _, _ := startRobot(t, m, Config{Name: "other"})
	streams := streamsOf(t, r2, "/odom")
	for name, s := range streams {
		if strings.Contains(name, "goal") {
			t.Fatalf("a robot without a goal topic lists %+v", s)
		}
	}
}
