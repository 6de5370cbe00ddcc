package ros2

import (
	"testing"

	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
)

func TestNames(t *testing.T) {
	for dds, want := range map[string]string{
		"rt/cmd_vel": "/cmd_vel", "rt/robot1/scan": "/robot1/scan", "rq/add_two_intsRequest": "", "ros_discovery_info": "", "rt/": "",
	} {
		if got := topicOfDDS(dds); got != want {
			t.Errorf("topicOfDDS(%q) = %q, want %q", dds, got, want)
		}
	}
	if ddsTopic("/robot1/scan") != "rt/robot1/scan" {
		t.Error(ddsTopic("/robot1/scan"))
	}
	for dds, want := range map[string]string{
		"sensor_msgs::msg::dds_::LaserScan_": "sensor_msgs/msg/LaserScan",
		"my_pkg::msg::dds_::Thing_":          "my_pkg/msg/Thing",
		"sensor_msgs::msg::LaserScan":        "",
		"example::srv::dds_::Add_Request_":   "",
		"Foo":                                "",
	} {
		if got := rosType(dds); got != want {
			t.Errorf("rosType(%q) = %q, want %q", dds, got, want)
		}
		if want != "" && ddsType(want) != dds {
			t.Errorf("ddsType(%q) = %q, want %q", want, ddsType(want), dds)
		}
	}
	for _, bad := range []string{"action_msgs/GoalInfo", "/msg/X", "pkg/msg/", "a/msg/b/c"} {
		if got := ddsType(bad); got != "" {
			t.Errorf("ddsType(%q) = %q, want none", bad, got)
		}
	}
	if inNS("/", "goal_pose") != "/goal_pose" || inNS("/robot1", "goal_pose/cancel") != "/robot1/goal_pose/cancel" {
		t.Error(inNS("/", "goal_pose"), inNS("/robot1", "goal_pose/cancel"))
	}
}

// Topics go to the robot of their namespace: explicitly, the longest given namespace; else a
// namespace with cmd_vel or odom is a robot and the rest is the root's.
func TestNamespaces(t *testing.T) {
	topics := []string{"/odom", "/scan", "/camera/image/compressed", "/robot1/cmd_vel", "/robot1/scan", "/robot2/odom",
		"/robot2/arm/joint_states", "/rosout", "/parameter_events", "/lonely/thing"}
	graph := map[string]*topicState{}
	for _, n := range topics {
		graph[n] = &topicState{name: n, writers: map[[16]byte]dds.Endpoint{}, readers: map[[16]byte]dds.Endpoint{}}
	}
	auto := &Source{topics: graph}
	explicit := &Source{topics: graph, cfg: Config{Robots: []RobotSpec{{"one", "/robot1"}, {"arm", "/robot2/arm"}, {"rest", "/"}}}}
	tests := []struct {
		src   *Source
		topic string
		ns    string
	}{
		{auto, "/odom", "/"},
		{auto, "/camera/image/compressed", "/"},
		{auto, "/robot1/scan", "/robot1"},
		{auto, "/robot2/arm/joint_states", "/robot2"},
		{auto, "/lonely/thing", "/"},
		{auto, "/rosout", ""},
		{explicit, "/robot1/cmd_vel", "/robot1"},
		{explicit, "/robot2/arm/joint_states", "/robot2/arm"},
		{explicit, "/robot2/odom", "/"},
		{explicit, "/parameter_events", ""},
	}
	for _, tc := range tests {
		got, ok := tc.src.namespaceLocked(tc.topic)
		if !ok {
			got = ""
		}
		if got != tc.ns {
			t.Errorf("%s (explicit %v): namespace %q, want %q", tc.topic, tc.src == explicit, got, tc.ns)
		}
	}
}

// A reader matches every publisher: reliable only if all are, transient-local only if all are.
func TestReaderQoSFollowsPublishers(t *testing.T) {
	w := func(id byte, reliable, tl bool) dds.Endpoint {
		return dds.Endpoint{GUID: [16]byte{id}, Type: "nav_msgs::msg::dds_::Odometry_", Writer: true, QoS: dds.QoS{Reliable: reliable, TransientLocal: tl}}
	}
	cases := []struct {
		name    string
		writers []dds.Endpoint
		want    dds.QoS
	}{
		{"one reliable", []dds.Endpoint{w(1, true, false)}, dds.QoS{Reliable: true, Depth: 1}},
		{"one best effort", []dds.Endpoint{w(1, false, false)}, dds.QoS{Depth: 1}},
		{"mixed", []dds.Endpoint{w(1, true, true), w(2, false, true)}, dds.QoS{TransientLocal: true, Depth: 1}},
		{"latched", []dds.Endpoint{w(1, true, true)}, dds.QoS{Reliable: true, TransientLocal: true, Depth: 1}},
	}
	for _, c := range cases {
		ts := &topicState{name: "/odom", ddsType: "nav_msgs::msg::dds_::Odometry_", writers: map[[16]byte]dds.Endpoint{}, readers: map[[16]byte]dds.Endpoint{}}
		for _, e := range c.writers {
			ts.writers[e.GUID] = e
		}
		s := &Source{topics: map[string]*topicState{"/odom": ts}}
		got := s.topicsOf("/")["/odom"]
		if got.qos != c.want || got.direction != "output" {
			t.Errorf("%s: %+v %s, want %+v", c.name, got.qos, got.direction, c.want)
		}
	}
}
