//go:build ros2

package ros2

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/ros2/ros2test"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

var navGoal = fleetgate.StreamKey{Component: "nav", Name: "goal", Source: fleetgate.SourceROS2}

// startGoalSource starts the source in domain and returns its robot "bot", online.
func startGoalSource(t *testing.T, domain int, cfg Config) fleet.Robot {
	t.Helper()
	pres := &presence{online: map[string]fleet.Robot{}}
	cfg.Domain, cfg.Name, cfg.DataDir, cfg.Presence = domain, "bot", t.TempDir(), pres
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	src, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	rostest.Eventually(t, 20*time.Second, "the robot is online", func() bool { return pres.robot("bot") != nil })
	return pres.robot("bot")
}

// goalStreams waits for the robot to list the streams named want, and returns its streams.
func goalStreams(t *testing.T, r fleet.Robot, want ...string) map[string]fleetgate.Stream {
	t.Helper()
	var byName map[string]fleetgate.Stream
	rostest.Eventually(t, 10*time.Second, "the robot lists "+strings.Join(want, ", "), func() bool {
		st, err := r.Streams(context.Background())
		if err != nil {
			return false
		}
		byName = map[string]fleetgate.Stream{}
		for _, s := range st {
			name := s.Name
			if s.Component != "" {
				name = s.Component + "/" + s.Name
			}
			byName[name] = s
		}
		for _, w := range want {
			if _, ok := byName[w]; !ok {
				return false
			}
		}
		return true
	})
	return byName
}

// A ROS 2 robot whose navigation subscribes to goal_pose (each peer as Nav2, and as
// the bridge that passes the cancel on to Nav2's action) lists nav/goal; a goal sent through
// the door arrives as a PoseStamped, and releasing control sends the cancel of every goal
// (a zero GoalInfo) and then the zero on cmd_vel.
func TestGoalAndItsCancelReachTheROS2Robot(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2test.Build(t)
	for _, p := range []struct {
		name, path string
		domain     int
	}{{"cyclone", peers.Cyclone, 31}, {"fastdds", peers.FastDDS, 33}} {
		t.Run(p.name, func(t *testing.T) { goalAndCancel(t, p.path, p.domain) })
	}
}

func goalAndCancel(t *testing.T, peerPath string, domain int) {
	peer := ros2test.Start(t, peerPath, "--domain", strconv.Itoa(domain), "--nav", "--image-hz", "0", "--cloud-hz", "0", "--scan-hz", "0")
	r := startGoalSource(t, domain, Config{})
	streams := goalStreams(t, r, "nav/goal", "/goal_pose", "/goal_pose/cancel", "/cmd_vel")
	if s := streams["nav/goal"]; s.Type != door.GoalType || s.Direction != fleetgate.Input || s.Source != fleetgate.SourceROS2 {
		t.Fatalf("nav/goal is listed as %+v", s)
	}
	d := door.New(door.Config{})
	t.Cleanup(d.Close)
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, fleetgate.StreamKey{Name: "/cmd_vel", Source: fleetgate.SourceROS2}, door.Who{User: "op@example.com", Path: door.PathW3})
	if err != nil {
		t.Fatal(err)
	}
	goal, _ := proto.Marshal(&catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"},
		Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 4, Y: 2}, Orientation: &catalogpb.Quaternion{W: 1}}})
	if err := d.Send(ctx, r, navGoal, door.GoalType, goal, door.Who{User: "op@example.com", Path: door.PathUpload}); err != nil {
		t.Fatal(err)
	}
	peer.Wait(t, "goal 4.000 2.000 map", 10*time.Second)
	if n := peer.Count("cancel"); n != 0 {
		t.Fatalf("%d cancels before control was released", n)
	}
	from := len(peer.Lines())
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	peer.WaitFrom(t, from, "cancel 0 0 0", 10*time.Second)
	peer.WaitFrom(t, from, "cmd_vel 0 0 0 0 0 0", 10*time.Second)
}

// Nav2 as it comes has no cancel topic: a goal still goes out when goal_pose is configured
// (--ros2-goal-topic), and the cancel, sent all the same, is reported as reaching nobody.
func TestACancelNobodyHearsIsSaid(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2test.Build(t)
	ros2test.Start(t, peers.Cyclone, "--domain", "32", "--image-hz", "0", "--cloud-hz", "0", "--scan-hz", "0")
	var logs logtest.Buffer
	r := startGoalSource(t, 32, Config{ListGoal: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	goalStreams(t, r, "nav/goal", "/cmd_vel")
	d := door.New(door.Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(d.Close)
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, fleetgate.StreamKey{Name: "/cmd_vel", Source: fleetgate.SourceROS2}, door.Who{User: "op@example.com", Path: door.PathW3})
	if err != nil {
		t.Fatal(err)
	}
	goal, _ := proto.Marshal(&catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Orientation: &catalogpb.Quaternion{W: 1}}})
	if err := d.Send(ctx, r, navGoal, door.GoalType, goal, door.Who{User: "op@example.com", Path: door.PathUpload}); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	rostest.Eventually(t, 10*time.Second, "the log says nobody hears the cancel", func() bool {
		return strings.Contains(logs.String(), "no node subscribes to the cancel topic /goal_pose/cancel")
	})
}
