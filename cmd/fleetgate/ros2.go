package main

import (
	"flag"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fleetgate/fleetgate/internal/source/ros2"
	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
	"github.com/fleetgate/fleetgate/server"
)

// ros2Flags are the agent's ROS 2 flags: --ros2 makes it a gateway to the ROS 2 graph of its
// network (a binary built with `make agent-ros2`).
type ros2Flags struct {
	enabled    bool
	domain     int
	iface      string
	peers      []string
	xml        string
	robots     []string
	name       string
	poseTopic  string
	goalTopic  string
	cancel     string
	listGoal   bool // --ros2-goal-topic was given
	maxSample  byteSize
	maxLinear  float64
	maxAngular float64
}

func (r *ros2Flags) register(fs *flag.FlagSet) {
	domain := 0
	if d, err := strconv.Atoi(os.Getenv("ROS_DOMAIN_ID")); err == nil {
		domain = d
	}
	r.maxSample = byteSize(dds.DefaultMaxSample)
	fs.BoolVar(&r.enabled, "ros2", false, "host the robots of the ROS 2 graph of this network (DDS; needs a binary built with make agent-ros2)")
	fs.IntVar(&r.domain, "ros2-domain", domain, "the ROS 2 domain id (default: ROS_DOMAIN_ID, else 0)")
	fs.StringVar(&r.iface, "ros2-interface", "", "network interface (name or address) DDS uses; default: Cyclone DDS chooses")
	fs.Func("ros2-peers", "unicast DDS discovery peers (host or host:port), comma-separated or repeated, beside multicast", listFlag(&r.peers))
	fs.StringVar(&r.xml, "ros2-config", "", "more Cyclone DDS configuration: XML elements that go inside <Domain>")
	fs.Func("ros2-robot", "a ROS 2 robot as NAME=/namespace (repeat for several); default: one robot per namespace that has cmd_vel or odom, the rest the root's", listFlag(&r.robots))
	fs.StringVar(&r.name, "ros2-name", "", "name of the robot of the root namespace (default: the host name)")
	fs.StringVar(&r.poseTopic, "ros2-pose-topic", ros2.DefaultPoseTopic, "pose topic, relative to each robot's namespace (nav_msgs/Odometry or geometry_msgs/PoseStamped): Position metric and pose KPI")
	fs.Func("ros2-goal-topic", "the ROS 2 robots' goal topic (geometry_msgs/msg/PoseStamped), relative to each namespace: their nav/goal stream; given, nav/goal is listed even while no node subscribes to it (default "+ros2.DefaultGoalTopic+", Nav2's)", func(v string) error {
		r.goalTopic, r.listGoal = v, true
		return nil
	})
	fs.StringVar(&r.cancel, "ros2-cancel-topic", ros2.DefaultCancelTopic, "the ROS 2 robots' goal cancel topic (action_msgs/msg/GoalInfo), relative to each namespace: a goal's lease ending cancels it there, before the zero on cmd_vel; Nav2 has none of its own (docs/ros2.md)")
	fs.Var(&r.maxSample, "ros2-max-sample", "largest ROS 2 sample taken, e.g. 64MiB; larger ones are dropped as they arrive, never reassembled")
	fs.Float64Var(&r.maxLinear, "ros2-max-linear", ros2.DefaultMaxLinear, "the ROS 2 robots' top linear speed in m/s: drive commands are clamped to it")
	fs.Float64Var(&r.maxAngular, "ros2-max-angular", ros2.DefaultMaxAngular, "the ROS 2 robots' top turn rate in rad/s: drive commands are clamped to it")
}

func (r *ros2Flags) check() error {
	if !r.enabled {
		return nil
	}
	if !dds.Available {
		return usagef("--ros2: %v", dds.ErrNotBuilt)
	}
	if r.domain < 0 || r.domain > 232 {
		return usagef("--ros2-domain must be between 0 and 232")
	}
	seen := map[string]bool{}
	for _, spec := range r.robots {
		name, ns, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" || !strings.HasPrefix(ns, "/") {
			return usagef("--ros2-robot %q must be NAME=/namespace", spec)
		}
		if seen[ns] {
			return usagef("--ros2-robot: namespace %s is given twice", ns)
		}
		seen[ns] = true
	}
	for _, t := range []struct{ flag, topic string }{{"--ros2-goal-topic", r.goalTopic}, {"--ros2-cancel-topic", r.cancel}} {
		if strings.Trim(t.topic, "/") == "" && (t.flag != "--ros2-goal-topic" || r.listGoal) {
			return usagef("%s must name a topic", t.flag)
		}
	}
	if r.maxSample < 1024 || r.maxSample > 1<<31 {
		return usagef("--ros2-max-sample must be between 1KiB and 2GiB")
	}
	for _, v := range []struct {
		name string
		val  float64
	}{{"--ros2-max-linear", r.maxLinear}, {"--ros2-max-angular", r.maxAngular}} {
		if !(v.val > 0) || math.IsInf(v.val, 0) || v.val > 100 {
			return usagef("%s must be a speed above 0 (and at most 100)", v.name)
		}
	}
	return nil
}

func (r *ros2Flags) config() *server.ROS2Config {
	if !r.enabled {
		return nil
	}
	c := &server.ROS2Config{
		Domain: r.domain, Interface: r.iface, Peers: r.peers, XML: r.xml, MaxSample: int(r.maxSample),
		Name: r.name, PoseTopic: r.poseTopic, GoalTopic: r.goalTopic, CancelTopic: r.cancel, ListGoal: r.listGoal, MaxLinear: r.maxLinear, MaxAngular: r.maxAngular,
	}
	for _, spec := range r.robots {
		name, ns, _ := strings.Cut(spec, "=")
		c.Robots = append(c.Robots, ros2.RobotSpec{Name: strings.TrimSpace(name), Namespace: ns})
	}
	return c
}
