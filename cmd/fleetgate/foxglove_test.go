//go:build unix

package main

// The Foxglove route (/apigateway/v2/robots/{robotId}/foxglove, docs/foxglove.md) as Foxglove
// itself uses it: Foxglove's own client library (@foxglove/ws-protocol's FoxgloveClient, pinned
// in package.json) in Node, through the cloud to a simulated robot behind an agent.

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
)

func TestFoxgloveClientThroughTheCloud(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "fox")
	agent := startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", t.TempDir(),
		"--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "2", "--cloud", cloud.URL)
	robots := localRobots(t, agent.URL, 2)
	bearer := login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "the agent's robots online on the cloud", func() bool {
		return robotsOnline(cloud.URL, bearer, robots, true)
	})
	robot := twistRobot(t, agent.URL, robots)
	route := "ws" + strings.TrimPrefix(cloud.URL, "http") + "/apigateway/v2/robots/" + robot + "/foxglove"

	// The API token in the URL, as one pastes it into Foxglove's "Open connection" dialog.
	watcher := startFoxgloveClient(t, "", "watch", route+"?access_token="+testToken, "/camera/image", "/base/pose", "/base/command")

	t.Run("channels with their schemas, camera and pose decoded with them", func(t *testing.T) {
		channels := map[string]foxgloveEvent{}
		var camera, pose int
		watcher.until(t, 20*time.Second, "3 camera images and 3 poses", func(e foxgloveEvent) bool {
			switch {
			case e.Event == "channel":
				channels[e.Topic] = e
			case e.Event == "message" && e.Topic == "/camera/image":
				var img struct {
					Format  string
					FrameID string `json:"frameId"`
					Data    struct {
						Bytes int
						Head  string
					}
				}
				decode(t, e.Message, &img)
				if img.Format != "jpeg" || img.Data.Head != "ffd8ff" || img.Data.Bytes < 1000 || img.FrameID == "" {
					t.Errorf("camera message decoded as %+v; want a JPEG with its frame", img)
				}
				camera++
			case e.Event == "message" && e.Topic == "/base/pose":
				var p struct {
					Header struct {
						FrameID string `json:"frameId"`
					}
				}
				decode(t, e.Message, &p)
				if p.Header.FrameID != "map" {
					t.Errorf("pose decoded as %s; want a PoseStamped in map", e.Message)
				}
				pose++
			}
			return camera >= 3 && pose >= 3
		})
		want := map[string]string{"/camera/image": "foxglove.CompressedImage", "/base/pose": "Platform.Messages.geometry_msgs.PoseStamped",
			"/base/odom": "Platform.Messages.nav_msgs.Odometry", "/depth/points": "Platform.Messages.sensor_msgs.PointCloud2"}
		for topic, schema := range want {
			if c, ok := channels[topic]; !ok || c.SchemaName != schema || c.Encoding != "protobuf" || c.SchemaEncoding != "protobuf" {
				t.Errorf("channel %s: %+v; want protobuf %s", topic, c, schema)
			}
		}
		if _, ok := channels["/base/cmd_vel"]; ok {
			t.Error("the input stream /base/cmd_vel is advertised as a channel to subscribe to")
		}
	})

	t.Run("a wrong token is refused before the upgrade", func(t *testing.T) {
		c := startFoxgloveClient(t, "", "watch", route+"?access_token=fgt_WrongToken0123456789abcdefghijk", "/base/pose")
		e := c.next(t, 10*time.Second)
		if e.Event != "refused" || e.Status != 401 {
			t.Errorf("got %+v; want a 401", e)
		}
	})

	t.Run("the local gateway serves the same route", func(t *testing.T) {
		local := "ws" + strings.TrimPrefix(agent.URL, "http") + "/apigateway/v2/robots/" + robot + "/foxglove?access_token=" + testToken
		c := startFoxgloveClient(t, "", "watch", local, "/camera/image")
		c.until(t, 20*time.Second, "a camera image on the local gateway", func(e foxgloveEvent) bool {
			return e.Event == "message" && e.Topic == "/camera/image"
		})
		c.close()
	})

	// A bearer token in the subprotocol, as a client that keeps it out of URLs sends it.
	driver := startFoxgloveClient(t, bearer, "drive", route, "/base/cmd_vel", "3")

	t.Run("a Twist published through the door: clamped, and the simulator obeys", func(t *testing.T) {
		driver.until(t, 10*time.Second, "the channel advertised", func(e foxgloveEvent) bool {
			if e.Event == "status" {
				t.Fatalf("the driver was told: %s", e.Text)
			}
			return e.Event == "advertised"
		})
		// 3 rad/s asked, the robot declares 1.5: its command stream shows what reached it.
		watcher.until(t, 10*time.Second, "a command of 1.5 rad/s at the robot", func(e foxgloveEvent) bool {
			if e.Event != "message" || e.Topic != "/base/command" {
				return false
			}
			var cmd struct{ Angular struct{ Z float64 } }
			decode(t, e.Message, &cmd)
			if cmd.Angular.Z > 1.5 {
				t.Fatalf("the robot was commanded %g rad/s; its limit is 1.5", cmd.Angular.Z)
			}
			return cmd.Angular.Z == 1.5
		})
		local := login(t, agent.URL, testToken)
		waitFor(t, 5*time.Second, "the robot turning", func() bool { return odom(t, agent.URL, local, robot).w > 1.4 })
	})

	t.Run("a second publisher is refused while the first holds the lease", func(t *testing.T) {
		second := startFoxgloveClient(t, "", "drive", route+"?access_token="+testToken, "/base/cmd_vel", "-1")
		second.until(t, 10*time.Second, "the refusal", func(e foxgloveEvent) bool {
			return e.Event == "status" && e.Level == 2 && strings.Contains(e.Text, "driven by admin@localhost")
		})
		if n := controlsHeld(t, cloud.URL, bearer, robot); n != 1 {
			t.Errorf("%d controls held; want the first publisher's alone", n)
		}
		second.close()
	})

	t.Run("the publisher gone: the zero, the lease free", func(t *testing.T) {
		driver.close()
		local := login(t, agent.URL, testToken)
		waitFor(t, 3*time.Second, "the robot stopped", func() bool { return math.Abs(odom(t, agent.URL, local, robot).w) < 0.01 })
		waitFor(t, 5*time.Second, "the lease free", func() bool { return controlsHeld(t, cloud.URL, bearer, robot) == 0 })
	})
}

// rosAccel publishes a type outside the catalog (geometry_msgs/Accel), relayed as ROS 1 bytes.
const rosAccel = `
import rospy
from geometry_msgs.msg import Accel
rospy.init_node('accel')
acc = Accel()
acc.linear.x, acc.angular.z = 3.25, -1.0
pub = rospy.Publisher('/accel', Accel, queue_size=1)
print('ready', flush=True)
r = rospy.Rate(5)
while not rospy.is_shutdown():
    pub.publish(acc)
    r.sleep()
`

// A ROS 1 topic of a type outside the catalog, through the cloud: the cloud asks the agent for
// the type's definition over the link, and Foxglove gets a ros1/ros1msg channel with it.
func TestFoxgloveROS1DefinitionThroughTheCloud(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Python(t, rosAccel) // returns once it publishes
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "rosfox")
	agent := startLogged(t, "agent", append(m.Env(), "ROS_IP=127.0.0.1", "FLEETGATE_AGENT_KEY="+key), "agent", "--data", t.TempDir(),
		"--listen", "127.0.0.1:0", "--admin-token", testToken, "--ros1", m.URI, "--ros1-name", "rosbot", "--cloud", cloud.URL)
	var robot string
	waitFor(t, 20*time.Second, "the ROS robot on the agent", func() bool {
		robot = robotIDsByName(agent.URL, login(t, agent.URL, testToken))["rosbot"]
		return robot != ""
	})
	bearer := login(t, cloud.URL, testToken)
	waitFor(t, 20*time.Second, "the ROS robot online on the cloud", func() bool {
		return robotsOnline(cloud.URL, bearer, []string{robot}, true)
	})
	route := "ws" + strings.TrimPrefix(cloud.URL, "http") + "/apigateway/v2/robots/" + robot + "/foxglove?access_token=" + testToken
	watcher := startFoxgloveClient(t, "", "watch", route, "/accel")
	var channel foxgloveEvent
	watcher.until(t, 30*time.Second, "an Accel message on /accel", func(e foxgloveEvent) bool {
		switch {
		case e.Event == "status" && strings.Contains(e.Text, "/accel"):
			t.Fatalf("/accel is not a channel: %s", e.Text)
		case e.Event == "channel" && e.Topic == "/accel":
			channel = e
		case e.Event == "message" && e.Topic == "/accel":
			var msg struct {
				Bytes int
				Hex   string
			}
			decode(t, e.Message, &msg)
			if want := hex.EncodeToString(rawAccel()); msg.Hex != want {
				t.Errorf("/accel message %s; want the ROS 1 bytes %s", msg.Hex, want)
			}
			return true
		}
		return false
	})
	if channel.Encoding != "ros1" || channel.SchemaEncoding != "ros1msg" || channel.SchemaName != "geometry_msgs/Accel" {
		t.Errorf("channel /accel: %+v; want ros1 geometry_msgs/Accel with a ros1msg schema", channel)
	}
	// rospy's definition: the type's fields, then each type it embeds.
	if !strings.Contains(channel.Schema, "Vector3  linear") || !strings.Contains(channel.Schema, "MSG: geometry_msgs/Vector3") {
		t.Errorf("schema of /accel:\n%s\nwant geometry_msgs/Accel's definition", channel.Schema)
	}
}

// Through a replica that does not hold the agent's link, the definition comes from the holding
// replica (which asked the agent): rospy's /rosout, a rosgraph_msgs/Log, is a ros1msg channel.
func TestFoxgloveROS1DefinitionThroughAnotherReplica(t *testing.T) {
	w := newDoorsWorld(t)
	var rosbot string
	for _, r := range w.robots {
		if r.name == "rosbot" {
			rosbot = r.id
		}
	}
	route := "ws" + strings.TrimPrefix(w.r2.URL, "http") + "/apigateway/v2/robots/" + rosbot + "/foxglove?access_token=" + testToken
	watcher := startFoxgloveClient(t, "", "watch", route)
	watcher.until(t, 30*time.Second, "/rosout as a ros1msg channel", func(e foxgloveEvent) bool {
		if e.Event == "status" && strings.Contains(e.Text, "/rosout") {
			t.Fatalf("/rosout is not a channel: %s", e.Text)
		}
		if e.Event != "channel" || e.Topic != "/rosout" {
			return false
		}
		if e.Encoding != "ros1" || e.SchemaEncoding != "ros1msg" || e.SchemaName != "rosgraph_msgs/Log" ||
			!strings.Contains(e.Schema, "MSG: std_msgs/Header") {
			t.Errorf("channel /rosout: %+v; want ros1 rosgraph_msgs/Log with its ros1msg definition", e)
		}
		return true
	})
}

// foxgloveEvent is a line of testdata/foxglove-client.mjs.
type foxgloveEvent struct {
	Event          string
	Topic          string
	SchemaName     string
	Encoding       string
	SchemaEncoding string
	Schema         string          // channel: a text schema (a ROS message definition)
	Message        json.RawMessage // decoded with the channel's schema, as JSON
	Status         int             // refused: the HTTP status
	Level          int             // status
	Text           string          // status, error
	Body           string
}

func decode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

// foxgloveClient is a Node process running testdata/foxglove-client.mjs.
type foxgloveClient struct {
	stdin  io.WriteCloser
	events chan foxgloveEvent
	done   chan struct{}
}

// startFoxgloveClient runs the client; token, when set, goes in the subprotocol. It is stopped
// (its standard input closed, then killed) at cleanup.
func startFoxgloveClient(t *testing.T, token string, args ...string) *foxgloveClient {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is required (scripts/test.sh installs it, and npm ci the client library)")
	}
	script, _ := filepath.Abs("testdata/foxglove-client.mjs")
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Env = cleanEnv()
	if token != "" {
		cmd.Env = append(cmd.Env, "FOXGLOVE_TOKEN="+token)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &foxgloveClient{stdin: stdin, events: make(chan foxgloveEvent, 4096), done: make(chan struct{})}
	go func() {
		defer close(c.events)
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var e foxgloveEvent
			if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
				e = foxgloveEvent{Event: "unparsed", Body: lines.Text()}
			}
			c.events <- e
		}
	}()
	go func() {
		cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-c.done
		}
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("foxglove client %v stderr:\n%s", args[:2], stderr.String())
		}
	})
	return c
}

// close ends the client as a user closing Foxglove does: its socket closes.
func (c *foxgloveClient) close() { c.stdin.Close() }

func (c *foxgloveClient) next(t *testing.T, within time.Duration) foxgloveEvent {
	t.Helper()
	select {
	case e, ok := <-c.events:
		if !ok {
			t.Fatal("the foxglove client exited")
		}
		return e
	case <-time.After(within):
		t.Fatalf("nothing from the foxglove client in %v", within)
	}
	return foxgloveEvent{}
}

// until reads events until done says so; an error or a close on the way fails the test.
func (c *foxgloveClient) until(t *testing.T, within time.Duration, what string, done func(foxgloveEvent) bool) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case e, ok := <-c.events:
			if !ok {
				t.Fatalf("the foxglove client exited before %s", what)
			}
			if e.Event == "error" || e.Event == "close" || e.Event == "refused" || e.Event == "unparsed" {
				t.Fatalf("before %s: %+v", what, e)
			}
			if done(e) {
				return
			}
		case <-deadline:
			t.Fatalf("no %s within %v", what, within)
		}
	}
}
