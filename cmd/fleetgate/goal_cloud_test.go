package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// linkedSim is a cloud and an agent of one simulated robot linked to it, with the admin's
// bearers on both, once the robot is online on the cloud.
type linkedSim struct {
	cloud, agent           *loggedProcess
	cloudDir               string // the cloud's data directory (addUser writes there)
	adminCloud, adminLocal string
	robot                  string
}

// startLinkedSim starts a linkedSim whose agent is named agentName on the cloud.
func startLinkedSim(t *testing.T, agentName string) linkedSim {
	t.Helper()
	l := linkedSim{cloudDir: t.TempDir()}
	l.cloud = startLogged(t, "cloud", nil, "serve", "--data", l.cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, l.cloudDir, agentName)
	l.agent = startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "1", "--cloud", l.cloud.URL)
	l.adminCloud = login(t, l.cloud.URL, testToken)
	l.adminLocal = login(t, l.agent.URL, testToken)
	l.robot = localRobots(t, l.agent.URL, 1)[0]
	waitFor(t, 15*time.Second, "sim-1 online on the cloud", func() bool { return robotsOnline(l.cloud.URL, l.adminCloud, []string{l.robot}, true) })
	return l
}

// goalSocket is sim-1's W3 input socket on its goal stream, in JSON.
const goalSocket = "componentName=nav&streamName=goal&source=1&direction=input&format=json"

// TestGoalSocketThroughTheCloud: a cloud operator's W3 input socket on the simulator's
// nav/goal reaches the agent's door over the link (docs/api.md, "Goals"): the robot drives
// to the goal while the socket's keepalives come, the socket holds the robot's motion lease
// (a local operator's cmd_vel socket is 409), and closing the socket cancels the goal.
func TestGoalSocketThroughTheCloud(t *testing.T) {
	site := startLinkedSim(t, "goals")
	cloud, agent, adminCloud, adminLocal, robot := site.cloud, site.agent, site.adminCloud, site.adminLocal, site.robot

	// Every start pose has 3 m of open floor ahead: a goal 2.5 m ahead is driven to at once,
	// and takes more than 3 s at the simulator's 0.7 m/s.
	x, y, heading := simPose(t, agent.URL, adminLocal, robot)
	conn := dialW3(t, cloud.URL, adminCloud, robot, goalSocket)
	defer conn.CloseNow()
	go drain(conn) // the socket's pings are answered while it is read
	send(t, conn, fmt.Sprintf(`{"header":{"frameId":"map"},"pose":{"position":{"x":%g,"y":%g}}}`, x+2.5*math.Cos(heading), y+2.5*math.Sin(heading)))
	alive, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond) // the client's keepalive pace, well within the deadman
		defer tick.Stop()
		for {
			select {
			case <-alive.Done():
				return
			case <-tick.C:
				if conn.Write(alive, websocket.MessageText, []byte(`{}`)) != nil {
					return
				}
			}
		}
	}()
	waitFor(t, 5*time.Second, "nav/status driving", func() bool { return navState(t, agent.URL, adminLocal, robot) == "driving" })
	var held struct {
		Controls []struct{ StreamName, Owner string }
	}
	getJSON(agent.URL+"/apigateway/v2/robots/"+robot+"/controls", adminLocal, &held)
	if len(held.Controls) != 1 || held.Controls[0].StreamName != "cmd_vel" || held.Controls[0].Owner != "admin@localhost via the cloud" {
		t.Fatalf("the agent's controls while the goal socket drives: %+v, want the cloud operator on cmd_vel", held.Controls)
	}
	if status, body := refusedW3(t, agent.URL, adminLocal, robot, "componentName=base&streamName=cmd_vel&source=1&direction=input"); status != http.StatusConflict {
		t.Fatalf("a local cmd_vel socket while the cloud's goal socket drives: %d %s, want 409", status, body)
	}
	// Still driving, a second later: the keepalives crossed the link to the agent's deadman.
	time.Sleep(time.Second)
	if st := navState(t, agent.URL, adminLocal, robot); st != "driving" {
		t.Fatalf("nav/status %q a second later, want the goal still under way", st)
	}
	stop()
	closed := time.Now()
	conn.Close(websocket.StatusNormalClosure, "")
	waitFor(t, 5*time.Second, "nav/status cancelled", func() bool { return navState(t, agent.URL, adminLocal, robot) == "cancelled" })
	if took := time.Since(closed); took > 2*time.Second {
		t.Errorf("the goal was cancelled %v after the socket closed", took)
	}
	waitFor(t, 5*time.Second, "the motion lease free", func() bool { return controlsHeld(t, agent.URL, adminLocal, robot) == 0 })

	// A goal the agent's door refuses (off the map) closes the cloud's socket as the local
	// gateway closes it: 1008, in the robot's words.
	refused := dialW3(t, cloud.URL, adminCloud, robot, goalSocket)
	defer refused.CloseNow()
	send(t, refused, `{"header":{"frameId":"map"},"pose":{"position":{"x":1000,"y":1000}}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	for err == nil {
		_, _, err = refused.Read(ctx)
	}
	if code := websocket.CloseStatus(err); code != websocket.StatusPolicyViolation {
		t.Errorf("a goal off the map through the cloud: %v, want 1008 as on the local gateway", err)
	}
}

// simPose is the robot's position and heading from its odometry.
func simPose(t *testing.T, base, bearer, robot string) (x, y, heading float64) {
	t.Helper()
	var read struct{ RobotStream string }
	if s := getJSON(base+"/apigateway/v2/robots/"+robot+"/stream?componentName=base&streamName=odom&source=1&streamType=Platform.Messages.nav_msgs.Odometry", bearer, &read); s != 200 {
		t.Fatalf("odometry: %d", s)
	}
	var o struct {
		Pose struct {
			Pose struct {
				Position    struct{ X, Y float64 }
				Orientation struct{ Z, W float64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(read.RobotStream), &o); err != nil {
		t.Fatal(err)
	}
	p := o.Pose.Pose
	return p.Position.X, p.Position.Y, 2 * math.Atan2(p.Orientation.Z, p.Orientation.W)
}

// navState is the state nav/status says now ("" when it cannot be read).
func navState(t *testing.T, base, bearer, robot string) string {
	var read struct{ RobotStream string }
	if getJSON(base+"/apigateway/v2/robots/"+robot+"/stream?componentName=nav&streamName=status&source=1&streamType=Platform.Messages.std_msgs.String", bearer, &read) != 200 {
		return ""
	}
	var str struct{ Data string }
	var st struct{ State string }
	if json.Unmarshal([]byte(read.RobotStream), &str) != nil || json.Unmarshal([]byte(str.Data), &st) != nil {
		return ""
	}
	return st.State
}
