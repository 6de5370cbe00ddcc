package cloud_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// An agent speaks only for its own robots: what it pushes about any other robot is refused
// and logged with its name, at a bounded rate.

// readUntil reads a raw agent's frames until one matches, within 5 s.
func (w *world) readUntil(conn *websocket.Conn, what string, match func(*linkpb.Frame) bool) *linkpb.Frame {
	w.t.Helper()
	timer := time.AfterFunc(5*time.Second, func() { conn.CloseNow() })
	defer timer.Stop()
	for {
		f, err := link.ReadFrame(conn)
		if err != nil {
			w.t.Fatalf("waiting for %s: %v\nlogs:\n%s", what, err, w.logs.String())
		}
		if match(f) {
			return f
		}
	}
}

// send writes frames from a raw agent.
func (w *world) send(conn *websocket.Conn, frames ...*linkpb.Frame) {
	w.t.Helper()
	for _, f := range frames {
		if err := link.WriteFrame(conn, f, 5*time.Second); err != nil {
			w.t.Fatal(err)
		}
	}
}

// fence announces robots again and waits for the cloud's answer: the frames sent before it
// have been handled (the cloud reads a link's frames in order).
func (w *world) fence(conn *websocket.Conn, robots ...*linkpb.RobotInfo) {
	w.t.Helper()
	w.send(conn, &linkpb.Frame{Body: &linkpb.Frame_Robots{Robots: &linkpb.RobotsChanged{Robots: robots}}})
	w.readUntil(conn, "the robots accepted", func(f *linkpb.Frame) bool { return f.GetAccepted() != nil })
}

func kpiFrame(robotID, value string) *linkpb.Frame {
	return &linkpb.Frame{Body: &linkpb.Frame_Kpis{Kpis: &linkpb.KPIValues{RobotId: robotID, Kpis: []*linkpb.KPI{
		{Name: "activity", DataType: "Platform.Messages.std_msgs.String", Payload: []byte(value)},
	}}}}
}

// logLines are the lines of the logs that hold every one of parts.
func logLines(logs string, parts ...string) []string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(l, p) }) {
			out = append(out, l)
		}
	}
	return out
}

// TestPushesForOtherRobotsAreRefused: agent beta's KPI values and resource list for alpha's
// robot are refused and logged with beta's name and the robot; its own robot's are taken.
func TestPushesForOtherRobotsAreRefused(t *testing.T) {
	w := newWorldBeating(t, time.Second) // patient with a raw agent on a loaded machine
	w.startAgent("fga_alpha", scriptedRobot(idOne, "one"))
	w.waitOnline(idOne, true, 5*time.Second)
	own := &linkpb.RobotInfo{Id: idTwo, Name: "two"}
	conn, _ := w.rawAgent("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{own}})
	w.beat(conn)

	foreignFile := uuid.NewString()
	w.send(conn,
		kpiFrame(idOne, "forged"),
		&linkpb.Frame{Body: &linkpb.Frame_Resources{Resources: &linkpb.ResourcesChanged{RobotId: idOne, Resources: []*linkpb.Resource{
			{Id: foreignFile, Name: "planted.log", MimeType: "text/plain", Size: 3, CreatedAt: link.Time(time.Now())},
		}}}},
		kpiFrame(idTwo, "mine"),
		kpiFrame(strings.Repeat("x", 64<<10), "an id 64 KiB long"),
	)
	// Any upload the cloud asked beta for would come before the answer to the fence.
	w.send(conn, &linkpb.Frame{Body: &linkpb.Frame_Robots{Robots: &linkpb.RobotsChanged{Robots: []*linkpb.RobotInfo{own}}}})
	w.readUntil(conn, "the robots accepted", func(f *linkpb.Frame) bool {
		if up := f.GetRequest().GetUpload(); up != nil {
			t.Errorf("the cloud asked beta for resource %s of robot %s", up.GetResourceId(), f.GetRequest().GetRobotId())
		}
		return f.GetAccepted() != nil
	})

	logs := w.logs.String()
	for _, what := range []string{`what="KPI values"`, `what="a resource list"`} {
		if len(logLines(logs, "agent push refused", "agent=beta", "robot="+idOne, what)) != 1 {
			t.Errorf("no refusal of %s for robot one logged with agent beta:\n%s", what, logs)
		}
	}
	if long := logLines(logs, "agent push refused", "(65536 bytes)"); len(long) != 1 || len(long[0]) > 400 {
		t.Errorf("the refusal of a 64 KiB robot id: %d lines, the first %d bytes; want one short line", len(long), len(strings.Join(long, "")))
	}
	if lines := logLines(logs, "agent push refused", "robot="+idTwo); len(lines) != 0 {
		t.Errorf("beta's push for its own robot was refused: %q", lines)
	}
	two := w.remote(idTwo).(*cloud.RemoteRobot)
	if kpis, _ := two.PushedKPIs(); len(kpis) != 1 || string(kpis[0].Payload) != "mine" {
		t.Errorf("robot two's pushed KPIs %+v, want beta's value", kpis)
	}
	one := w.remote(idOne).(*cloud.RemoteRobot)
	if kpis, _ := one.PushedKPIs(); slices.ContainsFunc(kpis, func(k fleetgate.KPI) bool { return string(k.Payload) == "forged" }) {
		t.Errorf("robot one shows beta's forged KPI: %+v", kpis)
	}
	if recs := w.core.records(idOne); len(recs) != 0 {
		t.Errorf("robot one's archive holds %+v", recs)
	}
}

// TestRefusalsAreLoggedAtABoundedRate: an agent sending frames for robots not its own in a
// loop (another's, one refused at its announcement) writes a handful of lines, not one each;
// the rest are counted as its link ends.
func TestRefusalsAreLoggedAtABoundedRate(t *testing.T) {
	w := newWorldBeating(t, time.Second) // patient with a raw agent on a loaded machine
	w.tracker.refuse[idThree] = fleetgate.Errorf(fleetgate.EConflict, "robot %s is hosted by agent \"alpha\"", idThree)
	robots := []*linkpb.RobotInfo{{Id: idTwo, Name: "two"}, {Id: idThree, Name: "three"}}
	conn, welcome := w.rawAgent("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: robots})
	if len(welcome.GetRefused()) != 1 {
		t.Fatalf("refused %+v, want robot three", welcome.GetRefused())
	}
	w.beat(conn)
	const spam = 500
	for range spam {
		w.send(conn, kpiFrame(idOne, "spam"), kpiFrame(idThree, "refused robot"))
	}
	w.fence(conn, robots...)

	lines := logLines(w.logs.String(), "agent push refused", "agent=beta")
	if len(lines) == 0 || len(lines) > 10 {
		t.Errorf("%d KPI frames for another robot wrote %d log lines, want 1 to 10", spam, len(lines))
	}
	// Every refusal of the link went through the same budget: the pushes, and robot three's
	// at the hello and at the fence.
	written := len(lines) + len(logLines(w.logs.String(), `msg="robot refused"`, "agent=beta"))
	conn.Close(websocket.StatusNormalClosure, "")
	held := "refusals=" + strconv.Itoa(2*spam+2-written)
	deadline := time.Now().Add(5 * time.Second)
	for len(logLines(w.logs.String(), "refusals not logged one by one", "agent=beta", held)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no line counting the %s held back as the link ended:\n%s", held, lastLogLines(w.logs.String(), 5))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func lastLogLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// TestEventEntriesForOtherRobotsAreAcknowledgedNotStored: in a batch with entries about a
// robot the agent does not host, its own are stored, the others not; all are acknowledged (the
// agent must not send them for ever), and the refusal is logged with the agent's name.
func TestEventEntriesForOtherRobotsAreAcknowledgedNotStored(t *testing.T) {
	w := newWorld(t)
	w.core.robotAgent[idOne] = "agent-alpha"
	w.core.robotAgent[idTwo] = "agent-beta"
	conn, _ := w.rawAgent("fga_beta", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: []*linkpb.RobotInfo{{Id: idTwo, Name: "two"}}})
	w.beat(conn)
	w.send(conn, &linkpb.Frame{Body: &linkpb.Frame_Events{Events: &linkpb.EventBatch{Events: []*linkpb.LocalEvent{
		{LocalId: 1, RobotId: idTwo, AuthorEmail: "op@dock", Message: "mine"},
		{LocalId: 2, RobotId: idOne, AuthorEmail: "admin@localhost", Message: "forged"},
		{LocalId: 3, RobotId: idThree, AuthorEmail: "admin@localhost", Message: "unknown robot"},
	}}}})
	stored := w.readUntil(conn, "the entries acknowledged", func(f *linkpb.Frame) bool { return f.GetEventsStored() != nil })
	if ids := stored.GetEventsStored().GetLocalIds(); !slices.Equal(ids, []int64{1, 2, 3}) {
		t.Errorf("acknowledged %v, want every entry [1 2 3]", ids)
	}
	if got := w.core.storedEvents(); len(got) != 1 || got[0].Message != "mine" {
		t.Errorf("stored %+v, want beta's own entry only", got)
	}
	if len(logLines(w.logs.String(), "agent event-log entries refused", "agent=beta", "entries=2", idOne, idThree)) != 1 {
		t.Errorf("the refusal is not logged with agent beta and the robots:\n%s", w.logs.String())
	}
}

// TestAnnouncementBeyondMaxRobotsIsRefused: one announcement registers at most MaxRobots
// (default 100) robots; the ones past it, the last announced, are refused saying so.
func TestAnnouncementBeyondMaxRobotsIsRefused(t *testing.T) {
	w := newWorld(t)
	var robots []*linkpb.RobotInfo
	for i := range cloud.DefaultMaxRobots + 1 {
		robots = append(robots, &linkpb.RobotInfo{Id: uuid.NewString(), Name: "bot-" + strconv.Itoa(i+1)})
	}
	_, welcome := w.rawAgent("fga_alpha", &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, Robots: robots})
	refused := welcome.GetRefused()
	if len(refused) != 1 || refused[0].GetId() != robots[100].GetId() ||
		!strings.Contains(refused[0].GetReason(), "at most 100 robots") || !strings.Contains(refused[0].GetReason(), "--agent-max-robots") {
		t.Fatalf("refused %+v, want the 101st robot, saying an agent registers at most 100 (--agent-max-robots)", refused)
	}
	if n := len(w.registry.IDs()); n != 100 {
		t.Errorf("%d robots registered, want 100", n)
	}
}

// TestAgentPushesNothingForItsRefusedRobots: an agent does not push KPI values or resource
// lists for the robots the cloud refused (which the cloud would refuse and log each time),
// and goes on pushing for the others.
func TestAgentPushesNothingForItsRefusedRobots(t *testing.T) {
	w := newWorld(t)
	w.tracker.refuse[idThree] = fleetgate.Errorf(fleetgate.EConflict, "robot %s is hosted by another agent", idThree)
	refused := scriptedRobot(idThree, "three")
	refused.FileInfo = []fleetgate.Resource{{ID: uuid.NewString(), Name: "run.log", MIMEType: "text/plain", Size: 1, CreatedAt: time.Now()}}
	w.startAgent("fga_alpha", scriptedRobot(idOne, "one"), refused)
	w.waitOnline(idOne, true, 5*time.Second)
	one := w.remote(idOne).(*cloud.RemoteRobot)
	// Pushes go every 50 ms, resources every 100 ms: wait for a few of robot one's.
	_, first := one.PushedKPIs()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, at := one.PushedKPIs(); !first.IsZero() && at.Sub(first) >= 300*time.Millisecond {
			break
		} else if first.IsZero() {
			first = at
		}
		if time.Now().After(deadline) {
			t.Fatal("robot one's KPI values are not pushed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if lines := logLines(w.logs.String(), "agent push refused"); len(lines) != 0 {
		t.Errorf("the agent pushed for its refused robot: %q", lines)
	}
	if len(logLines(w.logs.String(), "side=agent", "the cloud refused a robot", "robot="+idThree)) == 0 {
		t.Error("the agent did not log the refusal")
	}
}
