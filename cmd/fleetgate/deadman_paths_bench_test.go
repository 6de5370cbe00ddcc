//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
)

// BenchmarkDeadmanThroughTheCloud is make deadman's second half: the faults of an operator who
// drives through the cloud, measured at the ROS robot's driver as BenchmarkDeadman does. The
// agent (--ros1) links through a proxy to replica r1 of a two-replica cloud (PostgreSQL,
// NATS); the operator drives on r1 (through the agent link) or on r2 (through NATS to r1,
// then the link). Every zero comes from the agent's door: the cloud only lets go.
func BenchmarkDeadmanThroughTheCloud(b *testing.B) {
	trials := envInt("FLEETGATE_TRIALS", 100)
	m := rostest.StartMaster(b)
	received := driverMarks(b, m)
	pg := pgtest.Start(b)
	db := pg.NewDatabase(b)
	nats := natstest.Start(b)
	replicas := startReplicas(b, 2, db, nats.URL())
	r1, r2 := replicas[0], replicas[1]
	proxy := startProxy(b, strings.TrimPrefix(r1.URL, "http://"))
	key := addAgentTo(b, db, "deadman")
	agent := startLogged(b, "agent", append(m.Env(), "ROS_IP=127.0.0.1"), "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "0", "--ros1", m.URI, "--ros1-name", "rosbot", "--cloud", "http://"+proxy.addr(), "--agent-key", key)
	localBearer := login(b, agent.URL, testToken)
	var robot string
	waitFor(b, 20*time.Second, "the ROS robot on the agent", func() bool {
		robot = robotIDsByName(agent.URL, localBearer)["rosbot"]
		return robot != ""
	})
	bearers := map[string]string{r1.URL: login(b, r1.URL, testToken), r2.URL: login(b, r2.URL, testToken), agent.URL: login(b, agent.URL, testToken)}
	online := func() bool {
		return robotsOnline(r1.URL, bearers[r1.URL], []string{robot}, true) && robotsOnline(r2.URL, bearers[r2.URL], []string{robot}, true)
	}
	waitFor(b, 20*time.Second, "the ROS robot online on both replicas", online)
	input := "componentName=&streamName=/cmd_vel&source=2&direction=input&format=json"

	type fault struct {
		name string
		on   *loggedProcess
		// cause faults the session after its command and returns when the fault happened;
		// zero: the fault is the silence after the command.
		cause  func(conn *websocket.Conn, tcp *net.TCPConn) time.Time
		upload bool // one upload-stream (endpoint 9) instead of a W3 socket
	}
	silent := func(*websocket.Conn, *net.TCPConn) time.Time { return time.Time{} }
	closed := func(conn *websocket.Conn, _ *net.TCPConn) time.Time {
		t := time.Now()
		conn.Close(websocket.StatusNormalClosure, "")
		return t
	}
	reset := func(_ *websocket.Conn, tcp *net.TCPConn) time.Time {
		tcp.SetLinger(0)
		t := time.Now()
		tcp.Close()
		return t
	}
	linkCut := func(*websocket.Conn, *net.TCPConn) time.Time {
		t := time.Now()
		proxy.cut()
		return t
	}
	faults := []fault{
		{"link: silent operator (deadman)", r1, silent, false},
		{"link: clean close", r1, closed, false},
		{"link: operator's TCP reset", r1, reset, false},
		{"link: the agent link cut", r1, linkCut, false},
		{"NATS: silent operator (deadman)", r2, silent, false},
		{"NATS: clean close", r2, closed, false},
		{"NATS: operator's TCP reset", r2, reset, false},
		{"upload on the agent: silent uploader (deadman)", agent, silent, true},
		{"upload on the link's replica: silent uploader (deadman)", r1, silent, true},
		{"upload on the other replica: silent uploader (deadman)", r2, silent, true},
	}
	mark := 0
	for _, f := range faults {
		var lat []time.Duration
		for range trials {
			waitFor(b, 20*time.Second, "the robot online on both replicas", online)
			waitFor(b, 5*time.Second, "the stream free", func() bool {
				var held struct{ Controls []any }
				return getJSON(agent.URL+"/apigateway/v2/robots/"+robot+"/controls", localBearer, &held) == 200 && len(held.Controls) == 0
			})
			if f.upload {
				drainChan(received)
				mark++
				raw, _ := json.Marshal(map[string]any{"componentName": "", "streamName": "/cmd_vel", "source": 2,
					"dataType": "Platform.Messages.geometry_msgs.Twist", "streamJson": fmt.Sprintf(`{"angular":{"x":%g}}`, float64(mark)/10000)})
				body := string(raw)
				sent := time.Now()
				if status, answer := postJSON(b, f.on.URL+"/apigateway/v2/robots/"+robot+"/upload-stream", bearers[f.on.URL], body); status != 200 {
					b.Fatalf("%s: upload answered %d %s", f.name, status, answer)
				}
				waitMark(b, received, float64(mark)/10000)
				lat = append(lat, waitMark(b, received, 0).Sub(sent))
				continue
			}
			mark++
			conn, tcp, sent := driveOnce(b, w3URL(f.on.URL, robot, input), bearers[f.on.URL], received, mark)
			at := f.cause(conn, tcp)
			if at.IsZero() {
				at = sent
			}
			zero := waitMark(b, received, 0)
			lat = append(lat, zero.Sub(at))
			conn.CloseNow()
		}
		reportFaultToZero(b, f.name, strings.NewReplacer(":", "", " ", "-", "(", "", ")", "", "'", "").Replace(f.name), lat)
	}
}
