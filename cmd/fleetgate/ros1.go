package main

import (
	"flag"
	"math"
	"net/url"
	"strings"

	"github.com/fleetgate/fleetgate/internal/source/ros1"
	"github.com/fleetgate/fleetgate/server"
)

// ros1Flags are the agent's ROS 1 robot flags: one robot per --ros1 master.
type ros1Flags struct {
	masters    []string
	names      []string
	poseTopic  string
	goalTopic  string
	cancel     string
	listGoal   bool // --ros1-goal-topic was given
	maxLinear  float64
	maxAngular float64
}

// maxROS1Robots bounds the masters of one agent.
const maxROS1Robots = 16

// listFlag appends each value given; a value may also list several, comma-separated (the
// form FLEETGATE_ROS1 takes).
func listFlag(dst *[]string) func(string) error {
	return func(v string) error {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*dst = append(*dst, s)
			}
		}
		return nil
	}
}

func (r *ros1Flags) register(fs *flag.FlagSet) {
	fs.Func("ros1", "URL of a ROS 1 master (http://host:11311) whose robot this agent hosts; repeat for several (ROS_IP or ROS_HOSTNAME set the address the agent advertises to ROS nodes)", listFlag(&r.masters))
	fs.Func("ros1-name", "name of the ROS 1 robot, in the order of --ros1 (default: the master's host)", listFlag(&r.names))
	fs.StringVar(&r.poseTopic, "ros1-pose-topic", ros1.DefaultPoseTopic, "the ROS 1 robots' pose topic (nav_msgs/Odometry or geometry_msgs/PoseStamped): Position metric and pose KPI")
	fs.Func("ros1-goal-topic", "the ROS 1 robots' goal topic (geometry_msgs/PoseStamped), their nav/goal stream; given, nav/goal is listed even while no node subscribes to it (default "+ros1.DefaultGoalTopic+")", func(v string) error {
		r.goalTopic, r.listGoal = v, true
		return nil
	})
	fs.StringVar(&r.cancel, "ros1-cancel-topic", ros1.DefaultCancelTopic, "the ROS 1 robots' goal cancel topic (actionlib_msgs/GoalID): a goal's lease ending cancels it there, before the zero on cmd_vel")
	fs.Float64Var(&r.maxLinear, "ros1-max-linear", ros1.DefaultMaxLinear, "the ROS 1 robots' top linear speed in m/s: drive commands are clamped to it")
	fs.Float64Var(&r.maxAngular, "ros1-max-angular", ros1.DefaultMaxAngular, "the ROS 1 robots' top turn rate in rad/s: drive commands are clamped to it")
}

func (r *ros1Flags) check() error {
	if len(r.masters) > maxROS1Robots {
		return usagef("--ros1: at most %d masters", maxROS1Robots)
	}
	if len(r.names) > len(r.masters) {
		return usagef("--ros1-name given %d times for %d --ros1 masters", len(r.names), len(r.masters))
	}
	seen := map[string]bool{}
	for _, m := range r.masters {
		u, err := url.Parse(m)
		if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return usagef("--ros1 %q must be a ROS master URI: http://host:port", m)
		}
		if seen[u.Host] {
			return usagef("--ros1 %q is given twice", m)
		}
		seen[u.Host] = true
	}
	for _, t := range []struct{ flag, topic string }{{"--ros1-pose-topic", r.poseTopic}, {"--ros1-cancel-topic", r.cancel}, {"--ros1-goal-topic", r.goalTopic}} {
		if (t.topic != "" || t.flag != "--ros1-goal-topic" || r.listGoal) && !strings.HasPrefix(t.topic, "/") {
			return usagef("%s must be a topic name starting with /", t.flag)
		}
	}
	for _, v := range []struct {
		name string
		val  float64
	}{{"--ros1-max-linear", r.maxLinear}, {"--ros1-max-angular", r.maxAngular}} {
		if !(v.val > 0) || math.IsInf(v.val, 0) || v.val > 100 {
			return usagef("%s must be a speed above 0 (and at most 100)", v.name)
		}
	}
	return nil
}

func (r *ros1Flags) config() []server.ROS1Config {
	var out []server.ROS1Config
	for i, m := range r.masters {
		c := server.ROS1Config{MasterURI: m, PoseTopic: r.poseTopic, MaxLinear: r.maxLinear, MaxAngular: r.maxAngular,
			GoalTopic: r.goalTopic, CancelTopic: r.cancel, ListGoal: r.listGoal}
		if i < len(r.names) {
			c.Name = r.names[i]
		}
		out = append(out, c)
	}
	return out
}
