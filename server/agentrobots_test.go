package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// rawAgent is a hand-driven agent over the cloud's real link: a test plays a forging agent
// with it, as a modified agent binary would.
type rawAgent struct {
	t    *testing.T
	conn *websocket.Conn
}

// linkRaw links with key, announcing robots, and returns the agent with the cloud's welcome.
func linkRaw(t *testing.T, cloud *servertest.Server, key string, robots ...*linkpb.RobotInfo) (*rawAgent, *linkpb.Welcome) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, cloud.URL+link.Path, &websocket.DialOptions{HTTPHeader: http.Header{link.KeyHeader: {key}}})
	if err != nil {
		t.Fatalf("linking: %v", err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	conn.SetReadLimit(link.MaxFrame)
	a := &rawAgent{t: t, conn: conn}
	a.send(&linkpb.Frame{Body: &linkpb.Frame_Hello{Hello: &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: robots}}})
	return a, a.readUntil("the welcome", func(f *linkpb.Frame) bool { return f.GetWelcome() != nil }).GetWelcome()
}

func (a *rawAgent) send(f *linkpb.Frame) {
	a.t.Helper()
	if err := link.WriteFrame(a.conn, f, 5*time.Second); err != nil {
		a.t.Fatal(err)
	}
}

func (a *rawAgent) readUntil(what string, match func(*linkpb.Frame) bool) *linkpb.Frame {
	a.t.Helper()
	timer := time.AfterFunc(10*time.Second, func() { a.conn.CloseNow() })
	defer timer.Stop()
	for {
		f, err := link.ReadFrame(a.conn)
		if err != nil {
			a.t.Fatalf("waiting for %s: %v", what, err)
		}
		if match(f) {
			return f
		}
	}
}

// close ends the link and waits until the cloud is done with it: its robots offline, their
// last-seen times written (the acceptor logs "agent disconnected" after that).
func (a *rawAgent) close(cloud *servertest.Server, agentName string) {
	a.t.Helper()
	before := strings.Count(cloud.Logs(), `msg="agent disconnected" component=agentlink agent=`+agentName+" ")
	a.conn.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(cloud.Logs(), `msg="agent disconnected" component=agentlink agent=`+agentName+" ") == before {
		if time.Now().After(deadline) {
			a.t.Fatalf("the cloud did not end agent %s's link", agentName)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func robotInfo(name string) *linkpb.RobotInfo {
	return &linkpb.RobotInfo{Id: uuid.NewString(), Name: name}
}

func orgAdmin(t *testing.T, cloud *servertest.Server) *gateway.Caller {
	t.Helper()
	u, err := cloud.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	if err != nil {
		t.Fatal(err)
	}
	return &gateway.Caller{User: u, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}
}

// TestForeignAgentCannotWriteAnotherFleetsEventLog is the forged case on the real cloud: the
// agent key of fleet B sends, over its link, an event-log entry about fleet A's robot under
// the author admin@localhost, and KPI values for it. Neither is kept; both are logged with
// agent B's name and the robot; the entries are acknowledged, so B's link goes on, and B's
// entry about its own robot is stored and shown as posted via B, never as the cloud's admin.
func TestForeignAgentCannotWriteAnotherFleetsEventLog(t *testing.T) {
	cloud := servertest.MustOpen(t)
	ctx := context.Background()
	gw := cloud.Gateway()
	_, keyA, err := gw.AddAgent(ctx, "dock-a", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gw.EnsureFleet(ctx, "fleet-b"); err != nil {
		t.Fatal(err)
	}
	agentB, keyB, err := gw.AddAgent(ctx, "dock-b", "fleet-b")
	if err != nil {
		t.Fatal(err)
	}
	robotA, robotB := robotInfo("a-bot"), robotInfo("b-bot")
	if _, welcome := linkRaw(t, cloud, keyA, robotA); len(welcome.GetRefused()) != 0 {
		t.Fatalf("agent A's robot refused: %v", welcome.GetRefused())
	}
	b, welcome := linkRaw(t, cloud, keyB, robotB, robotA)
	if r := welcome.GetRefused(); len(r) != 1 || r[0].GetId() != robotA.GetId() {
		t.Fatalf("agent B announcing A's robot: refused %v, want A's robot", r)
	}

	b.send(&linkpb.Frame{Body: &linkpb.Frame_Kpis{Kpis: &linkpb.KPIValues{RobotId: robotA.GetId(), Kpis: []*linkpb.KPI{
		{Name: "battery", DataType: "Platform.Messages.std_msgs.Float32", Payload: []byte{1}},
	}}}})
	b.send(&linkpb.Frame{Body: &linkpb.Frame_Events{Events: &linkpb.EventBatch{Events: []*linkpb.LocalEvent{
		{LocalId: 1, RobotId: robotA.GetId(), AuthorEmail: "admin@localhost", Message: "forged: robot cleared for service", CreatedAt: link.Time(time.Now())},
		{LocalId: 2, RobotId: robotB.GetId(), AuthorEmail: "admin@localhost", Message: "b-bot parked", CreatedAt: link.Time(time.Now())},
	}}}})
	stored := b.readUntil("the entries acknowledged", func(f *linkpb.Frame) bool { return f.GetEventsStored() != nil })
	if ids := stored.GetEventsStored().GetLocalIds(); len(ids) != 2 {
		t.Errorf("acknowledged %v, want both entries (the refused one too)", ids)
	}

	if events, err := cloud.Store.Events(ctx, fleetgate.EventFilter{RobotID: robotA.GetId(), Limit: 10}); err != nil || len(events) != 0 {
		t.Errorf("fleet A's robot's log: %+v, %v; want nothing from agent B", events, err)
	}
	own, err := cloud.Store.Events(ctx, fleetgate.EventFilter{RobotID: robotB.GetId(), Limit: 10})
	if err != nil || len(own) != 1 || own[0].AgentID != agentB.ID {
		t.Fatalf("agent B's robot's log: %+v, %v; want its entry, from agent B", own, err)
	}
	rows, _, err := gw.QueryEvents(ctx, orgAdmin(t, cloud), fleetgate.EventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Author != "admin@localhost via agent dock-b" {
			t.Errorf("the entry %q is shown as written by %q, want admin@localhost via agent dock-b", r.Message, r.Author)
		}
	}

	logs := cloud.Logs()
	for _, want := range [][]string{
		{"agent event-log entries refused", "agent=dock-b", robotA.GetId()},
		{"agent push refused", "agent=dock-b", "robot=" + robotA.GetId()},
	} {
		if !hasLine(logs, want...) {
			t.Errorf("no log line with %q", want)
		}
	}
}

func hasLine(logs string, parts ...string) bool {
	for _, l := range strings.Split(logs, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestAgentMaxRobotsOnTheLink: with the default --agent-max-robots (100), an agent's hello of
// 101 robots registers 100 and refuses the 101st saying why; the next link's new robot is
// refused as well, since the 100 offline records count; once an admin removes the stale
// records, it is registered.
func TestAgentMaxRobotsOnTheLink(t *testing.T) {
	cloud := servertest.MustOpen(t)
	ctx := context.Background()
	agent, key, err := cloud.Gateway().AddAgent(ctx, "crowded", "")
	if err != nil {
		t.Fatal(err)
	}
	var robots []*linkpb.RobotInfo
	for range 101 {
		robots = append(robots, robotInfo("bot"))
	}
	a, welcome := linkRaw(t, cloud, key, robots...)
	refused := welcome.GetRefused()
	if len(refused) != 1 || refused[0].GetId() != robots[100].GetId() || !strings.Contains(refused[0].GetReason(), "at most 100 robots") {
		t.Fatalf("hello of 101 robots: refused %v, want the 101st, saying an agent registers at most 100", refused)
	}
	if n, err := cloud.Store.CountAgentRobots(ctx, agent.ID); err != nil || n != 100 {
		t.Fatalf("the agent holds %d robot records (%v), want 100", n, err)
	}
	a.close(cloud, "crowded")

	newcomer := robotInfo("newcomer")
	a, welcome = linkRaw(t, cloud, key, newcomer)
	if r := welcome.GetRefused(); len(r) != 1 || !strings.Contains(r[0].GetReason(), "already has 100 robots") || !strings.Contains(r[0].GetReason(), "--agent-max-robots") {
		t.Fatalf("a new robot beside 100 offline records: refused %v, want it refused, saying the agent has 100 robots (--agent-max-robots)", r)
	}
	a.close(cloud, "crowded")

	// The 100 were last seen 31 days ago: stale, and removed by an admin.
	for _, r := range robots[:100] {
		if err := cloud.Store.TouchRobot(ctx, r.GetId(), time.Now().Add(-31*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := cloud.Gateway().RemoveStaleRobots(ctx, orgAdmin(t, cloud), gateway.StaleRobotAge)
	if err != nil || len(removed) != 100 {
		t.Fatalf("removed %d stale robots (%v), want 100", len(removed), err)
	}
	if _, welcome = linkRaw(t, cloud, key, newcomer); len(welcome.GetRefused()) != 0 {
		t.Errorf("after the stale records went: refused %v, want the newcomer registered", welcome.GetRefused())
	}
	if !hasLine(cloud.Logs(), "robot record removed", "by=admin@localhost", "robot="+robots[0].GetId()) {
		t.Error("no audit line for the removed records")
	}
}
