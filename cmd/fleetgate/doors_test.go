package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/linkpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
)

// doorsDriver is the ROS robot's driver: every Twist it receives on /cmd_vel, as
// "linear.x angular.x" (angular.x marks which command it is).
const doorsDriver = `
import sys, rospy
from geometry_msgs.msg import Twist
rospy.init_node("doors_driver", anonymous=True, disable_signals=True)
def got(m):
    sys.stdout.write("%r %r\n" % (m.linear.x, m.angular.x))
    sys.stdout.flush()
rospy.Subscriber("/cmd_vel", Twist, got, queue_size=100, tcp_nodelay=True)
rospy.sleep(0.5)
print("ready", flush=True)
rospy.spin()
`

// doorsWorld is one agent hosting a ROS 1 robot and a simulated one, linked to replica r1 of
// a cloud of two replicas (PostgreSQL, NATS), with a second user (bob, an organization admin)
// on both sides.
type doorsWorld struct {
	agent, r1, r2 *loggedProcess
	nats          *natstest.Server
	admin         map[string]string // base URL to the admin's bearer
	bob           map[string]string // base URL to bob's bearer
	robots        []*doorsRobot
}

// doorsRobot is a robot and what it received, as the robot itself saw it.
type doorsRobot struct {
	name, id  string
	component string // of its input stream
	stream    string
	source    int
	received  chan [2]float64 // linear.x and the mark (angular.x) of every command received
}

func (r *doorsRobot) input() string {
	return fmt.Sprintf("componentName=%s&streamName=%s&source=%d&direction=input&format=json", r.component, r.stream, r.source)
}

func newDoorsWorld(t *testing.T) *doorsWorld {
	m := rostest.StartMaster(t)
	driver := m.Python(t, doorsDriver)
	pg := pgtest.Start(t)
	db := pg.NewDatabase(t)
	w := &doorsWorld{nats: natstest.Start(t), admin: map[string]string{}, bob: map[string]string{}}
	replicas := startReplicas(t, 2, db, w.nats.URL())
	w.r1, w.r2 = replicas[0], replicas[1]
	key := addAgentTo(t, db, "doors")
	dir := t.TempDir()
	w.agent = startLogged(t, "agent", append(m.Env(), "ROS_IP=127.0.0.1"), "agent", "--data", dir, "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "1", "--ros1", m.URI, "--ros1-name", "rosbot", "--cloud", w.r1.URL, "--agent-key", key)
	bobLocal := addOrgAdminUser(t, dir, "", "bob@example.com")
	bobCloud := addOrgAdminUser(t, t.TempDir(), db, "bob@example.com")
	for _, p := range []*loggedProcess{w.agent, w.r1, w.r2} {
		w.admin[p.URL] = login(t, p.URL, testToken)
		token := bobCloud
		if p == w.agent {
			token = bobLocal
		}
		w.bob[p.URL] = login(t, p.URL, token)
	}
	ids := map[string]string{}
	waitFor(t, 20*time.Second, "both robots online on the agent and both replicas", func() bool {
		ids = robotIDsByName(w.agent.URL, w.admin[w.agent.URL])
		if ids["sim-1"] == "" || ids["rosbot"] == "" {
			return false
		}
		both := []string{ids["sim-1"], ids["rosbot"]}
		return robotsOnline(w.r1.URL, w.admin[w.r1.URL], both, true) && robotsOnline(w.r2.URL, w.admin[w.r2.URL], both, true)
	})
	ros := &doorsRobot{name: "rosbot", id: ids["rosbot"], stream: "/cmd_vel", source: 2, received: make(chan [2]float64, 1024)}
	go func() {
		for line := range driver.Lines() {
			f := strings.Fields(line)
			if len(f) != 2 {
				continue
			}
			x, err1 := strconv.ParseFloat(f[0], 64)
			mark, err2 := strconv.ParseFloat(f[1], 64)
			if err1 == nil && err2 == nil {
				ros.received <- [2]float64{x, mark}
			}
		}
	}()
	sim := &doorsRobot{name: "sim-1", id: ids["sim-1"], component: "base", stream: "cmd_vel", source: 1, received: make(chan [2]float64, 1024)}
	// The simulator's base/command stream is every command it received, as it received it.
	rec := dialW3(t, w.agent.URL, w.admin[w.agent.URL], sim.id, "componentName=base&streamName=command&source=1")
	t.Cleanup(func() { rec.CloseNow() })
	go func() {
		for {
			_, data, err := rec.Read(context.Background())
			if err != nil {
				return
			}
			var env streampb.MessageStream
			var tw catalogpb.Twist
			if proto.Unmarshal(data, &env) == nil && proto.Unmarshal(env.GetData(), &tw) == nil {
				sim.received <- [2]float64{tw.GetLinear().GetX(), tw.GetAngular().GetX()}
			}
		}
	}()
	w.robots = []*doorsRobot{ros, sim}
	return w
}

// robotIDsByName lists the robots a gateway knows, by name.
func robotIDsByName(base, bearer string) map[string]string {
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID, Name string } }
	}
	out := map[string]string{}
	if getJSON(base+"/apigateway/v2/robots", bearer, &list) != 200 {
		return out
	}
	for _, r := range list.RobotDataList {
		out[r.BasicData.Name] = r.BasicData.ID
	}
	return out
}

// addOrgAdminUser adds an organization admin with an API token to a gateway's store (the
// SQLite file in dataDir, or the PostgreSQL database db) and returns the token.
func addOrgAdminUser(t *testing.T, dataDir, db, email string) string {
	t.Helper()
	return addUser(t, dataDir, db, email, true, nil)
}

// addUser adds a user of the default organization with roles on robots, and returns an API
// token of theirs.
func addUser(t *testing.T, dataDir, db, email string, orgAdmin bool, roles map[string]fleetgate.Role) string {
	t.Helper()
	ctx := context.Background()
	st, err := server.OpenStore(ctx, dataDir, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	org, err := st.DefaultOrganization(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u := fleetgate.User{ID: uuid.NewString(), OrgID: org.ID, Email: email, OrgAdmin: orgAdmin}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	for robotID, role := range roles {
		if err := st.SetMembership(ctx, fleetgate.Membership{RobotID: robotID, UserID: u.ID, Role: role}); err != nil {
			t.Fatal(err)
		}
	}
	secret := gateway.NewAPIToken()
	tok := fleetgate.APIToken{ID: uuid.NewString(), UserID: u.ID, Name: "doors", Scope: fleetgate.ScopeFull,
		Hash: gateway.HashSecret(secret), CreatedAt: time.Now()}
	if err := st.CreateAPIToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	return secret
}

// doorPath is one way a command reaches a robot's input. send sends one Twist of linear.x x
// marked mark, as bearer's user, and returns what the path answered ("ok", or the refusal:
// an HTTP status, a close code, a link error kind) and a func to call once the command was
// seen at the robot (a W3 socket stays open until then, so its close's zero comes after).
type doorPath struct {
	name string
	send func(t *testing.T, r *doorsRobot, x, mark float64, who map[string]string) (answer string, done func())
}

func (w *doorsWorld) paths() []doorPath {
	twistJSON := func(x, mark float64) string {
		return fmt.Sprintf(`{"linear":{"x":%g},"angular":{"x":%g}}`, x, mark)
	}
	w3 := func(base string) func(t *testing.T, r *doorsRobot, x, mark float64, who map[string]string) (string, func()) {
		return func(t *testing.T, r *doorsRobot, x, mark float64, who map[string]string) (string, func()) {
			status, body := refusedOrDial(t, base, who[base], r)
			if status.conn == nil {
				return fmt.Sprintf("refused %d %s", status.code, body), func() {}
			}
			conn := status.conn
			send(t, conn, twistJSON(x, mark))
			if x <= 10 {
				// Within 10x: the socket stays open until the command was seen at the robot.
				go drain(conn)
				return "ok", func() { conn.Close(websocket.StatusNormalClosure, "") }
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, _, err := conn.Read(ctx) // an input socket sends nothing but its close
			cancel()
			if code := websocket.CloseStatus(err); code != -1 {
				return "close " + strconv.Itoa(int(code)), func() {}
			}
			conn.CloseNow()
			return "open after x = " + strconv.FormatFloat(x, 'g', -1, 64), func() {}
		}
	}
	upload := func(base string, second bool) func(t *testing.T, r *doorsRobot, x, mark float64, who map[string]string) (string, func()) {
		return func(t *testing.T, r *doorsRobot, x, mark float64, who map[string]string) (string, func()) {
			var status int
			var body string
			if second {
				b, _ := json.Marshal(map[string]any{"componentname": r.component, "streamname": r.stream, "source": strconv.Itoa(r.source),
					"datatype": "Platform.Messages.geometry_msgs.Twist", "streamjson": json.RawMessage(twistJSON(x, mark))})
				status, body = postJSON(t, base+"/apigateway/robot/"+r.id+"/streams/upload-stream", who[base], string(b))
			} else {
				b, _ := json.Marshal(map[string]any{"componentName": r.component, "streamName": r.stream, "source": r.source,
					"dataType": "Platform.Messages.geometry_msgs.Twist", "streamJson": twistJSON(x, mark)})
				status, body = postJSON(t, base+"/apigateway/v2/robots/"+r.id+"/upload-stream", who[base], string(b))
			}
			if status == 200 {
				return "ok", func() {}
			}
			return fmt.Sprintf("%d %s", status, body), func() {}
		}
	}
	forged := func(t *testing.T, r *doorsRobot, x, mark float64, who map[string]string) (string, func()) {
		return w.forgedPublish(t, r, x, mark, "mallory@example.com"), func() {}
	}
	return []doorPath{
		{"W3 on the agent", w3(w.agent.URL)},
		{"upload-stream (v2) on the agent", upload(w.agent.URL, false)},
		{"upload-stream (S8) on the agent", upload(w.agent.URL, true)},
		{"W3 on the replica holding the agent's link", w3(w.r1.URL)},
		{"W3 on the other replica", w3(w.r2.URL)},
		{"upload-stream (v2) on the replica holding the link", upload(w.r1.URL, false)},
		{"upload-stream (v2) on the other replica (forwarded over NATS)", upload(w.r2.URL, false)},
		{"upload-stream (S8) on the other replica", upload(w.r2.URL, true)},
		{"a NATS client forging a replica's request", forged},
	}
}

type dialResult struct {
	conn *websocket.Conn
	code int
}

// refusedOrDial opens an input socket, or returns the status that refused it.
func refusedOrDial(t *testing.T, base, bearer string, r *doorsRobot) (dialResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, w3URL(base, r.id, r.input()), &websocket.DialOptions{
		HTTPHeader: map[string][]string{"Authorization": {"bearer " + bearer}}})
	if err != nil {
		if resp == nil {
			t.Fatalf("W3 %s: %v", base, err)
		}
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		return dialResult{code: resp.StatusCode}, string(buf[:n])
	}
	return dialResult{conn: conn}, ""
}

// forgedPublish is a client on the replicas' bus sending replica r1 the request another
// replica would forward for an upload, with no cloud check before it: only the agent's door
// stands between it and the robot.
func (w *doorsWorld) forgedPublish(t *testing.T, r *doorsRobot, x, mark float64, user string) string {
	t.Helper()
	nc, err := nats.Connect(w.nats.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	payload, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: x}, Angular: &catalogpb.Vector3{X: mark}})
	req := &linkpb.Request{Id: 1, RobotId: r.id, DeadlineMs: 5000, Op: &linkpb.Request_Publish{Publish: &linkpb.Publish{
		Key:  &linkpb.StreamKey{Component: r.component, Name: r.stream, Source: int32(r.source)},
		Type: "Platform.Messages.geometry_msgs.Twist", Payload: payload, User: user}}}
	data, _ := proto.Marshal(req)
	msg, err := nc.Request("fleetgate.replica.r1.request", data, 10*time.Second)
	if err != nil {
		t.Fatalf("the forged request: %v", err)
	}
	var resp linkpb.Response
	if err := proto.Unmarshal(msg.Data, &resp); err != nil {
		t.Fatal(err)
	}
	if e := resp.GetError(); e != nil {
		return e.GetKind().String() + " " + e.GetMessage()
	}
	if resp.GetDone() == nil {
		t.Fatalf("the forged request was answered %v", &resp)
	}
	return "ok"
}

// arrivals collects what robots received and checks it: a refused mark never arrives, and a
// sent one arrives with the value the door let through.
type arrivals struct {
	mu      sync.Mutex
	refused map[float64]string // mark to the path that was refused
	next    float64
}

func (a *arrivals) mark() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	return a.next / 10000 // far within the angular limit, and distinct
}

// waitFor waits for the command marked mark at r and returns its linear.x; any command with
// a refused mark fails the test.
func (a *arrivals) waitFor(t *testing.T, r *doorsRobot, mark float64) float64 {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-r.received:
			if why, ok := a.refused[got[1]]; ok && got[1] != 0 {
				t.Fatalf("%s received x = %g of a command refused at %q", r.name, got[0], why)
			}
			if math.Abs(got[1]-mark) < 1e-9 {
				return got[0]
			}
		case <-timeout:
			t.Fatalf("%s did not receive the command marked %g", r.name, mark)
		}
	}
}

// TestEveryDoorHoldsTheRobot is issue 28's "one door": through every path that ends at a
// robot's input, a command of linear.x = 50 (over 10x the 1 m/s limit) never reaches the
// robot, and x = 5 arrives as the limit, 1 m/s, at the robot itself (the ROS robot's rospy
// driver, the simulator's record of what it received); and while one operator holds a stream,
// nobody else's command reaches it on any path, each refusal naming the holder.
func TestEveryDoorHoldsTheRobot(t *testing.T) {
	w := newDoorsWorld(t)
	a := &arrivals{refused: map[float64]string{}}
	for _, r := range w.robots {
		for _, p := range w.paths() {
			t.Run(r.name+"/"+p.name, func(t *testing.T) {
				// The last path's lease (an upload's lives until its deadman) is gone first.
				waitFor(t, 5*time.Second, "the stream free", func() bool {
					return controlsHeld(t, w.agent.URL, w.admin[w.agent.URL], r.id) == 0
				})
				mark := a.mark()
				answer, done := p.send(t, r, 50, mark, w.admin)
				done()
				a.mu.Lock()
				a.refused[mark] = p.name
				a.mu.Unlock()
				if answer == "ok" {
					t.Fatalf("x = 50 was taken: %s", answer)
				}
				if !strings.Contains(answer, "400") && !strings.Contains(answer, "close 1008") && !strings.Contains(answer, "KIND_INVALID") {
					t.Errorf("x = 50 answered %q, want a refusal for the limit (400, close 1008, INVALID)", answer)
				}
				mark = a.mark()
				answer, done = p.send(t, r, 5, mark, w.admin)
				if answer != "ok" {
					t.Fatalf("x = 5 answered %q", answer)
				}
				if x := a.waitFor(t, r, mark); x != 1 {
					t.Errorf("x = 5 arrived at the robot as %g, want the limit 1", x)
				}
				done()
			})
		}
	}
	// The 10x refusals the agent saw are in its log, with the user and the path.
	if logs := w.agent.logs(); !strings.Contains(logs, "the door refused a command") || !strings.Contains(logs, "mallory@example.com") {
		t.Errorf("the agent did not log the forged command's refusal")
	}

	t.Run("while admin drives rosbot, nobody else's command reaches it", func(t *testing.T) {
		ros := w.robots[0]
		holder := dialW3(t, w.agent.URL, w.admin[w.agent.URL], ros.id, ros.input())
		defer holder.CloseNow()
		go drain(holder)
		mark := a.mark()
		send(t, holder, fmt.Sprintf(`{"linear":{"x":0.5},"angular":{"x":%g}}`, mark))
		if x := a.waitFor(t, ros, mark); x != 0.5 {
			t.Fatalf("the holder's command arrived as %g", x)
		}
		for _, p := range w.paths() {
			mark := a.mark()
			a.mu.Lock()
			a.refused[mark] = p.name + " (held)"
			a.mu.Unlock()
			answer, done := p.send(t, ros, 0.3, mark, w.bob)
			done()
			refusedAsHeld := strings.Contains(answer, "409") || strings.Contains(answer, "KIND_CONFLICT")
			if !refusedAsHeld || !strings.Contains(answer, gateway.BootstrapAdminEmail) {
				t.Errorf("%s: bob's command while admin drives answered %q, want a 409 naming %s", p.name, answer, gateway.BootstrapAdminEmail)
			}
		}
		// The holder's own upload goes through the holder's lease.
		mark = a.mark()
		if answer, _ := w.paths()[1].send(t, ros, 0.4, mark, w.admin); answer != "ok" {
			t.Fatalf("the holder's own upload: %s", answer)
		}
		if x := a.waitFor(t, ros, mark); x != 0.4 {
			t.Fatalf("the holder's upload arrived as %g", x)
		}
		holder.Close(websocket.StatusNormalClosure, "")
		// Let go, the stream is free: bob's upload drives.
		waitFor(t, 5*time.Second, "the stream free", func() bool { return controlsHeld(t, w.agent.URL, w.admin[w.agent.URL], ros.id) == 0 })
		mark = a.mark()
		if answer, _ := w.paths()[1].send(t, ros, 0.2, mark, w.bob); answer != "ok" {
			t.Fatalf("bob's upload once the stream is free: %s", answer)
		}
		if x := a.waitFor(t, ros, mark); x != 0.2 {
			t.Fatalf("bob's upload arrived as %g", x)
		}
	})
}
