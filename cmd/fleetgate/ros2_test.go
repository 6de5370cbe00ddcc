//go:build ros2

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
	"github.com/fleetgate/fleetgate/internal/source/ros2/ros2test"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// These tests run `fleetgate agent --ros2` (built with -tags ros2) against two ROS 2 robots
// that share no code with fleetgate: one on Cyclone DDS with idlc-generated types, one on
// Fast DDS with fastddsgen-generated types (internal/ros2/ros2test/peer). Each test runs in a
// network namespace of its own.

type ros2Peer struct {
	name, path string
	domain     int
}

func ros2Peers(t *testing.T) []ros2Peer {
	p := ros2test.Build(t)
	return []ros2Peer{{"cyclone", p.Cyclone, 21}, {"fastdds", p.FastDDS, 22}}
}

// ros2Agent starts `fleetgate agent --ros2` and returns it with a bearer token and the API
// base URL of its robot named name, once online.
func ros2Agent(t *testing.T, domain int, name string, extra ...string) (*process, string, string) {
	t.Helper()
	args := append([]string{"agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--ros2", "--ros2-domain", strconv.Itoa(domain), "--ros2-name", name}, extra...)
	p := start(t, nil, args...)
	bearer := login(t, p.URL, testToken)
	return p, bearer, waitRobot(t, p.URL, bearer, name)
}

func waitRobot(t *testing.T, base, bearer, name string) string {
	t.Helper()
	var robot string
	rostest.Eventually(t, 30*time.Second, "the ROS 2 robot "+name+" is online", func() bool {
		var list struct {
			RobotDataList []struct {
				BasicData struct{ ID, Name string }
				IsOnline  bool
			}
		}
		if api(t, "GET", base+"/apigateway/v2/robots", bearer, &list) != 200 {
			return false
		}
		for _, r := range list.RobotDataList {
			if r.BasicData.Name == name && r.IsOnline {
				robot = base + "/apigateway/v2/robots/" + r.BasicData.ID
				return true
			}
		}
		return false
	})
	return robot
}

// agentURL is the base URL of the agent of a robot's API URL.
func agentURL(robot string) string {
	base, _, _ := strings.Cut(robot, "/apigateway/")
	return base
}

func ros2Query(topic string, extra string) string {
	return "streamName=" + url.QueryEscape(topic) + "&source=3" + extra
}

// checkPeerScan checks a LaserScan from a peer field by field (common.h).
func checkPeerScan(t *testing.T, m *catalogpb.LaserScan) {
	t.Helper()
	if m.GetHeader().GetFrameId() != "laser" || m.GetHeader().GetStamp().GetSec() < 1600000000 || m.AngleMin != -1.5 || m.AngleMax != 1.5 ||
		m.AngleIncrement != float32(3.0)/359 || m.TimeIncrement != 0.0001 || m.ScanTime != 0.1 || m.RangeMin != 0.1 || m.RangeMax != 30 {
		t.Errorf("scan header and scalars: %v %v %v %v %v %v %v %v", m.Header, m.AngleMin, m.AngleMax, m.AngleIncrement, m.TimeIncrement, m.ScanTime, m.RangeMin, m.RangeMax)
	}
	if len(m.Ranges) != 360 || len(m.Intensities) != 360 {
		t.Fatalf("scan of %d ranges, %d intensities", len(m.Ranges), len(m.Intensities))
	}
	for i := range 360 {
		if m.Ranges[i] != 1+float32(i)*0.01 || (i > 0 && m.Intensities[i] != float32(i)) {
			t.Fatalf("scan element %d: %v %v", i, m.Ranges[i], m.Intensities[i])
		}
	}
}

func checkPeerImage(t *testing.T, m *catalogpb.CompressedImage, size int) {
	t.Helper()
	if m.GetHeader().GetFrameId() != "camera" || m.Format != "jpeg" || len(m.Data) != size {
		t.Fatalf("image %v %q of %d bytes, want %d", m.Header, m.Format, len(m.Data), size)
	}
	seq := m.Data[0]
	for i, b := range m.Data {
		if b != byte(i*7+int(seq)) {
			t.Fatalf("image byte %d is %d, want %d", i, b, byte(i*7+int(seq)))
		}
	}
}

func checkPeerCloud(t *testing.T, m *catalogpb.PointCloud2, points int) {
	t.Helper()
	if m.GetHeader().GetFrameId() != "lidar" || m.Height != 1 || m.Width != uint32(points) || m.PointStep != 16 ||
		m.RowStep != uint32(16*points) || m.IsBigendian || !m.IsDense || len(m.Data) != 16*points {
		t.Fatalf("cloud %v %dx%d step %d row %d be %v dense %v, %d bytes", m.Header, m.Height, m.Width, m.PointStep, m.RowStep, m.IsBigendian, m.IsDense, len(m.Data))
	}
	for k, n := range []string{"x", "y", "z", "intensity"} {
		if f := m.Fields[k]; f.Name != n || f.Offset != uint32(4*k) || f.Datatype != 7 || f.Count != 1 {
			t.Errorf("cloud field %d: %v", k, f)
		}
	}
	seq := m.Data[0]
	for i, b := range m.Data {
		if b != byte(i*13+int(seq)) {
			t.Fatalf("cloud byte %d is %d, want %d", i, b, byte(i*13+int(seq)))
		}
	}
}

func checkPeerOdom(t *testing.T, m *catalogpb.Odometry) {
	t.Helper()
	if m.GetHeader().GetFrameId() != "odom" || m.ChildFrameId != "base_link" || len(m.GetPose().GetCovariance()) != 36 || len(m.GetTwist().GetCovariance()) != 36 {
		t.Fatalf("odometry %v", m)
	}
	q := m.Pose.Pose.GetOrientation()
	if math.Abs(q.GetZ()*q.GetZ()+q.GetW()*q.GetW()-1) > 1e-9 || m.Pose.Pose.GetPosition().GetY() != 0 {
		t.Errorf("odometry pose %v", m.Pose.Pose)
	}
	for i := range 36 {
		if m.Pose.Covariance[i] != float64(i)*0.5 || m.Twist.Covariance[i] != -float64(i) {
			t.Fatalf("odometry covariance %d: %v %v", i, m.Pose.Covariance[i], m.Twist.Covariance[i])
		}
	}
}

// Each peer's scan, 1 MiB camera (best effort), 4 MiB cloud (reliable), odometry and battery
// arrive over W3 intact, field by field; REST reads and the metrics read them too.
func TestROS2TopicsThroughTheAgent(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	for _, peer := range ros2Peers(t) {
		t.Run(peer.name, func(t *testing.T) {
			ros2test.Start(t, peer.path, "--domain", strconv.Itoa(peer.domain), "--cloud-hz", "2", "--image-hz", "5")
			_, bearer, robot := ros2Agent(t, peer.domain, "bot")
			streams := waitStreams(t, robot, bearer, "/scan", "/camera/image/compressed", "/points", "/odom", "/battery_state", "/cmd_vel")
			for name, want := range map[string]string{
				"/scan": "Platform.Messages.sensor_msgs.LaserScan", "/camera/image/compressed": "Platform.Messages.sensor_msgs.CompressedImage",
				"/points": "Platform.Messages.sensor_msgs.PointCloud2", "/odom": "Platform.Messages.nav_msgs.Odometry",
				"/battery_state": "Platform.Messages.sensor_msgs.BatteryState", "/cmd_vel": "Platform.Messages.geometry_msgs.Twist",
			} {
				dir := "output"
				if name == "/cmd_vel" {
					dir = "input"
				}
				if s := streams[name]; s.StreamType != want || s.Direction != dir || s.StreamSourceType != 3 || s.ComponentName != "" {
					t.Errorf("%s: %+v", name, s)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			read := func(topic, extra string, m proto.Message) {
				t.Helper()
				ws := dialROSW3(t, ctx, robot, bearer, ros2Query(topic, extra))
				env := envelope(t, ctx, ws)
				if env.DataType != string(m.ProtoReflect().Descriptor().FullName()) || env.StreamName != topic || env.Source != 3 {
					t.Fatalf("envelope %s %s %d", env.DataType, env.StreamName, env.Source)
				}
				if err := proto.Unmarshal(env.Data, m); err != nil {
					t.Fatal(err)
				}
				ws.Close(websocket.StatusNormalClosure, "")
			}
			var scan catalogpb.LaserScan
			read("/scan", "", &scan)
			checkPeerScan(t, &scan)
			var img catalogpb.CompressedImage
			read("/camera/image/compressed", "", &img)
			checkPeerImage(t, &img, 1<<20)
			var cloud catalogpb.PointCloud2
			read("/points", "&withoutDownSampling=true", &cloud)
			checkPeerCloud(t, &cloud, (4<<20)/16)
			var odom catalogpb.Odometry
			read("/odom", "", &odom)
			checkPeerOdom(t, &odom)

			var rest catalogpb.Odometry
			var out struct{ RobotStream string }
			q := url.Values{"streamName": {"/odom"}, "source": {"3"}, "componentName": {""}}
			if s := api(t, "GET", robot+"/stream?"+q.Encode(), bearer, &out); s != 200 {
				t.Fatalf("REST read of /odom: %d", s)
			}
			if err := protojson.Unmarshal([]byte(out.RobotStream), &rest); err != nil {
				t.Fatal(err)
			}
			checkPeerOdom(t, &rest)

			var battery struct {
				Metric struct{ Value float64 }
			}
			if s := api(t, "GET", robot+"/metric/4", bearer, &battery); s != 200 || battery.Metric.Value != 75 {
				t.Errorf("battery metric: %d %+v", s, battery)
			}
			var pos struct {
				Metric struct{ Value string }
			}
			if s := api(t, "GET", robot+"/metric/18", bearer, &pos); s != 200 || !strings.Contains(pos.Metric.Value, `"frame":"odom"`) {
				t.Errorf("position metric: %d %+v", s, pos)
			}

			// W2: the robot's pose and battery KPIs, once a second.
			kpis, _, err := websocket.Dial(ctx, kpiSocketURL(agentURL(robot), "local-fleet"), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
			if err != nil {
				t.Fatal(err)
			}
			defer kpis.CloseNow()
			seen := map[string]bool{}
			for !seen["pose"] || !seen["battery"] {
				_, b, err := kpis.Read(ctx)
				if err != nil {
					t.Fatalf("KPI frames: %v (seen %v)", err, seen)
				}
				var frame struct {
					Updates []struct {
						Metric struct {
							Name     string
							DataType string
							Value    json.RawMessage
						}
					}
				}
				if err := json.Unmarshal(b, &frame); err != nil {
					t.Fatal(err)
				}
				for _, u := range frame.Updates {
					switch u.Metric.Name {
					case "battery":
						seen["battery"] = string(u.Metric.Value) == "75"
					case "pose":
						seen["pose"] = strings.Contains(string(u.Metric.Value), `"orientation"`)
					}
				}
			}
		})
	}
}

// peerCmd is a cmd_vel line of a peer with the time it arrived.
type peerCmd struct {
	at     time.Time
	lx, az float64
}

func nextPeerCmd(t *testing.T, p *ros2test.Proc, from *int) peerCmd {
	t.Helper()
	l, i := p.WaitFrom(t, *from, "cmd_vel ", 10*time.Second)
	*from = i + 1
	f := strings.Fields(l)
	lx, _ := strconv.ParseFloat(f[1], 64)
	az, _ := strconv.ParseFloat(f[6], 64)
	return peerCmd{p.At(i), lx, az}
}

// A Twist over W3 reaches each peer on rt/cmd_vel, clamped; silence gives the zero 500 ms
// (+50 ms) after the last command; closing the socket gives it at once; upload-stream
// publishes too.
func TestROS2Teleop(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	for _, peer := range ros2Peers(t) {
		t.Run(peer.name, func(t *testing.T) {
			base := ros2test.Start(t, peer.path, "--domain", strconv.Itoa(peer.domain), "--image-hz", "0", "--cloud-hz", "0")
			agent, bearer, robot := ros2Agent(t, peer.domain, "bot", "--ros2-max-linear", "0.8")
			if s := waitStreams(t, robot, bearer, "/cmd_vel")["/cmd_vel"]; s.Direction != "input" || s.StreamType != "Platform.Messages.geometry_msgs.Twist" {
				t.Fatalf("/cmd_vel: %+v", s)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			drive := dialROSW3(t, ctx, robot, bearer, ros2Query("/cmd_vel", "&direction=input&format=json"))
			drive.CloseRead(ctx) // its pings answered: the governor holds a controller it cannot measure
			send := func(lx, az float64) {
				t.Helper()
				if err := drive.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"linear":{"x":%g},"angular":{"z":%g}}`, lx, az)); err != nil {
					t.Fatal(err)
				}
			}
			for range 20 {
				send(2, 0.5)
				time.Sleep(50 * time.Millisecond)
			}
			from := 0
			if first := nextPeerCmd(t, base, &from); first.lx != 0.8 || first.az != 0.5 {
				t.Errorf("first command at the peer: %+v (2 m/s clamped to 0.8)", first)
			}
			var gaps []time.Duration
			for round := 0; round < 3; round++ {
				if round > 0 {
					for range 10 {
						send(0.5, 0)
						time.Sleep(50 * time.Millisecond)
					}
				}
				var last peerCmd
				for {
					c := nextPeerCmd(t, base, &from)
					if c.lx == 0 && c.az == 0 && !last.at.IsZero() {
						gaps = append(gaps, c.at.Sub(last.at))
						break
					}
					last = c
				}
				if g := gaps[len(gaps)-1]; g < 450*time.Millisecond {
					t.Fatalf("zero %v after the last command: early", g)
				} else if g <= 550*time.Millisecond {
					break
				}
			}
			t.Logf("deadman zero after the last command reached the peer: %v", gaps)
			if best := slices.Min(gaps); best > 550*time.Millisecond {
				t.Errorf("zero %v after the last command at best, want 500 ms (+ at most 50 ms)", best)
			}
			for range 5 {
				send(0.3, 0)
				time.Sleep(50 * time.Millisecond)
			}
			for {
				if c := nextPeerCmd(t, base, &from); c.lx == 0.3 {
					break
				}
			}
			closed := time.Now()
			drive.Close(websocket.StatusNormalClosure, "done")
			for {
				c := nextPeerCmd(t, base, &from)
				if c.lx == 0 && c.az == 0 {
					gap := c.at.Sub(closed)
					t.Logf("zero %v after the close", gap)
					if gap > 200*time.Millisecond {
						t.Errorf("zero %v after closing the socket, want at once", gap)
					}
					break
				}
			}
			body := `{"componentName":"","streamName":"/cmd_vel","source":"3","dataType":"Platform.Messages.geometry_msgs.Twist","streamJson":"{\"linear\":{\"x\":0.125}}"}`
			if status, out := postJSON(t, robot+"/upload-stream", bearer, body); status != 200 {
				t.Fatalf("upload-stream: %d %s", status, out)
			}
			for {
				if c := nextPeerCmd(t, base, &from); c.lx == 0.125 {
					break
				}
			}
			// Shutdown while driving: the zero reaches the robot before the agent leaves
			// the graph.
			drive = dialROSW3(t, ctx, robot, bearer, ros2Query("/cmd_vel", "&direction=input&format=json"))
			drive.CloseRead(ctx) // answers the agent's close (1001) at shutdown
			for range 5 {
				send(0.4, 0)
				time.Sleep(50 * time.Millisecond)
			}
			for {
				if c := nextPeerCmd(t, base, &from); c.lx == 0.4 {
					break
				}
			}
			agent.cmd.Process.Signal(syscall.SIGTERM)
			if code := agent.wait(t, 15*time.Second); code != 0 {
				t.Errorf("SIGTERM: exit code %d", code)
			}
			for { // the commands already on their way, then the zero (else: no zero within 10 s)
				if c := nextPeerCmd(t, base, &from); c.lx == 0 && c.az == 0 {
					break
				}
			}
		})
	}
}

// Without --ros2-robot, each namespace with cmd_vel or odom is a robot of its own; with it,
// robots are named as given.
func TestROS2Namespaces(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2Peers(t)
	const domain = 23
	quiet := []string{"--domain", strconv.Itoa(domain), "--image-hz", "0", "--cloud-hz", "0"}
	ros2test.Start(t, peers[0].path, append(quiet, "--ns", "/robot1")...)
	ros2test.Start(t, peers[1].path, append(quiet, "--ns", "/robot2")...)
	p := start(t, nil, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--ros2", "--ros2-domain", strconv.Itoa(domain), "--ros2-name", "root")
	bearer := login(t, p.URL, testToken)
	two := waitRobot(t, p.URL, bearer, "robot2")
	one := waitRobot(t, p.URL, bearer, "robot1")
	for robot, ns := range map[string]string{one: "/robot1", two: "/robot2"} {
		streams := waitStreams(t, robot, bearer, ns+"/odom", ns+"/scan", ns+"/cmd_vel")
		for name := range streams {
			if !strings.HasPrefix(name, ns+"/") {
				t.Errorf("robot of %s lists %s", ns, name)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var odom catalogpb.Odometry
	if err := proto.Unmarshal(envelope(t, ctx, dialROSW3(t, ctx, two, bearer, ros2Query("/robot2/odom", ""))).Data, &odom); err != nil {
		t.Fatal(err)
	}
	checkPeerOdom(t, &odom)
	var list struct {
		RobotDataList []struct{ BasicData struct{ Name string } }
	}
	api(t, "GET", p.URL+"/apigateway/v2/robots", bearer, &list)
	if len(list.RobotDataList) != 2 {
		t.Errorf("robots %+v, want robot1 and robot2 only (the root namespace has no topics)", list.RobotDataList)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t, 15*time.Second)

	q, bearer, named := ros2Agent(t, domain, "left", "--ros2-robot", "left=/robot1", "--ros2-robot", "right=/robot2")
	waitStreams(t, named, bearer, "/robot1/odom")
	waitRobot(t, q.URL, bearer, "right")
}

// A peer that stops takes its robot offline (its W3 sockets end); started again, it is found
// again and its streams flow, without restarting the agent.
func TestROS2PeerRestart(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	for _, peer := range ros2Peers(t) {
		t.Run(peer.name, func(t *testing.T) {
			args := []string{"--domain", strconv.Itoa(peer.domain), "--image-hz", "0", "--cloud-hz", "0"}
			p := ros2test.Start(t, peer.path, args...)
			_, bearer, robot := ros2Agent(t, peer.domain, "bot")
			waitStreams(t, robot, bearer, "/odom")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ws := dialROSW3(t, ctx, robot, bearer, ros2Query("/odom", ""))
			envelope(t, ctx, ws)
			p.Stop()
			online := func() bool {
				var d struct{ RobotData struct{ IsOnline bool } }
				api(t, "GET", robot, bearer, &d)
				return d.RobotData.IsOnline
			}
			rostest.Eventually(t, 15*time.Second, "the robot is offline", func() bool { return !online() })
			if _, _, err := ws.Read(ctx); err == nil {
				t.Error("the W3 socket still delivers after the robot went offline")
			}
			back := time.Now()
			ros2test.Start(t, peer.path, args...)
			rostest.Eventually(t, 15*time.Second, "the robot is online again", online)
			t.Logf("online again %v after the peer restarted", time.Since(back))
			waitStreams(t, robot, bearer, "/odom")
			ws = dialROSW3(t, ctx, robot, bearer, ros2Query("/odom", ""))
			var odom catalogpb.Odometry
			if err := proto.Unmarshal(envelope(t, ctx, ws).Data, &odom); err != nil {
				t.Fatal(err)
			}
			checkPeerOdom(t, &odom)
		})
	}
}

// Faults: a sample over --ros2-max-sample is dropped as it arrives, never reassembled, and
// Cyclone's warning of it (a reliable publisher's) reaches the agent's log (the other topics go on);
// bytes that are not the topic's type are refused with a log line; a subscriber that asks for
// transient-local durability on cmd_vel gets no commands, and the agent says why.
func TestROS2Faults(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2Peers(t)
	peer := peers[0]
	base := ros2test.Start(t, peer.path, "--domain", strconv.Itoa(peer.domain), "--image-hz", "5", "--image-reliable", "--cloud-hz", "0", "--cmd-transient-local")
	agent, bearer, robot := ros2Agent(t, peer.domain, "bot", "--ros2-max-sample", "512KiB")
	waitStreams(t, robot, bearer, "/camera/image/compressed", "/odom", "/cmd_vel")

	// A participant of the test's own writes bytes that are no LaserScan on rt/bad_scan.
	p, err := dds.Open(dds.Config{Domain: peer.domain})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w, err := p.Writer("rt/bad_scan", "sensor_msgs::msg::dds_::LaserScan_", dds.QoS{Reliable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A type outside the catalog is listed under its ROS 2 name and relayed as opaque CDR.
	opaque, err := p.Writer("rt/thing", "example_msgs::msg::dds_::Thing_", dds.QoS{Reliable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer opaque.Close()
	thing := []byte{0, 1, 0, 0, 42, 0, 0, 0, 7, 7}
	if s := waitStreams(t, robot, bearer, "/bad_scan", "/thing")["/thing"]; s.StreamType != "example_msgs/msg/Thing" || s.Direction != "output" {
		t.Errorf("/thing: %+v", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	things := dialROSW3(t, ctx, robot, bearer, ros2Query("/thing", ""))
	go func() {
		for ctx.Err() == nil {
			opaque.Write(thing)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	if env := envelope(t, ctx, things); env.DataType != "example_msgs/msg/Thing" || !bytes.Equal(env.Data, thing) {
		t.Errorf("opaque sample over W3: %s %x, want %x", env.DataType, env.Data, thing)
	}
	bad := dialROSW3(t, ctx, robot, bearer, ros2Query("/bad_scan", ""))
	img := dialROSW3(t, ctx, robot, bearer, ros2Query("/camera/image/compressed", ""))
	for range 20 {
		if err := w.Write([]byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rostest.Eventually(t, 10*time.Second, "the agent logs the malformed sample", func() bool {
		return strings.Contains(agent.Stderr(), "does not decode")
	})
	rostest.Eventually(t, 10*time.Second, "the agent logs the oversize samples", func() bool {
		return strings.Contains(agent.Stderr(), "dropping oversize")
	})
	// Nothing came through either socket, and the robot's other topics flow.
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancelShort()
	if _, _, err := bad.Read(short); err == nil {
		t.Error("a malformed sample reached W3")
	}
	if _, _, err := img.Read(short); err == nil {
		t.Error("an image over --ros2-max-sample reached W3")
	}
	var odom catalogpb.Odometry
	if err := proto.Unmarshal(envelope(t, ctx, dialROSW3(t, ctx, robot, bearer, ros2Query("/odom", ""))).Data, &odom); err != nil {
		t.Fatal(err)
	}
	checkPeerOdom(t, &odom)

	// QoS mismatch, as docs/ros2.md says: the agent's drive writer is volatile, a
	// transient-local subscriber never matches it; the agent logs it and the robot gets nothing.
	drive := dialROSW3(t, ctx, robot, bearer, ros2Query("/cmd_vel", "&direction=input&format=json"))
	drive.CloseRead(ctx) // its pings answered: the governor holds a controller it cannot measure
	for range 10 {
		if err := drive.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.5}}`)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rostest.Eventually(t, 5*time.Second, "the agent logs the QoS mismatch", func() bool {
		return strings.Contains(agent.Stderr(), "transient-local durability")
	})
	time.Sleep(500 * time.Millisecond)
	if n := base.Count("cmd_vel"); n != 0 {
		t.Errorf("a transient-local subscriber got %d commands", n)
	}
}

func TestROS2FlagErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"domain", []string{"--ros2-domain", "300"}, "--ros2-domain"},
		{"robot without namespace", []string{"--ros2-robot", "bot"}, "NAME=/namespace"},
		{"namespace twice", []string{"--ros2-robot", "a=/x,b=/x"}, "given twice"},
		{"tiny max sample", []string{"--ros2-max-sample", "10"}, "--ros2-max-sample"},
		{"no speed", []string{"--ros2-max-linear", "0"}, "--ros2-max-linear"},
		{"empty goal topic", []string{"--ros2-goal-topic", "/"}, "--ros2-goal-topic"},
		{"empty cancel topic", []string{"--ros2-cancel-topic", ""}, "--ros2-cancel-topic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, nil, append([]string{"agent", "--data", dir, "--ros2"}, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit code %d, stderr %q; want %d and %q", code, stderr, exitUsage, c.want)
			}
		})
	}
}

// The agent's reader follows its publishers' QoS: a camera published reliable is read
// reliable; when a best-effort publisher of it joins, the reader is made again best-effort
// (a reliable reader would never match it) and the viewer stays connected: after the
// reliable publisher leaves, its frames come from the best-effort one.
func TestROS2QoSFollowsPublishers(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2Peers(t)
	const domain = 24
	camera := []string{"--domain", strconv.Itoa(domain), "--image-hz", "10", "--image-bytes", "20000", "--cloud-hz", "0", "--scan-hz", "0"}
	reliable := ros2test.Start(t, peers[0].path, append(camera, "--image-reliable")...)
	agent, bearer, robot := ros2Agent(t, domain, "bot")
	waitStreams(t, robot, bearer, "/camera/image/compressed")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ws := dialROSW3(t, ctx, robot, bearer, ros2Query("/camera/image/compressed", ""))
	var img catalogpb.CompressedImage
	if err := proto.Unmarshal(envelope(t, ctx, ws).Data, &img); err != nil {
		t.Fatal(err)
	}
	checkPeerImage(t, &img, 20000)
	ros2test.Start(t, peers[1].path, camera...) // best effort
	rostest.Eventually(t, 10*time.Second, "the reader follows the best-effort publisher", func() bool {
		return strings.Contains(agent.Stderr(), "reader follows its publishers' QoS")
	})
	reliable.Stop()
	time.Sleep(time.Second) // frames of the reliable publisher still in flight are read first
	for range 5 {
		var img catalogpb.CompressedImage
		if err := proto.Unmarshal(envelope(t, ctx, ws).Data, &img); err != nil {
			t.Fatal(err)
		}
		checkPeerImage(t, &img, 20000)
	}
}
