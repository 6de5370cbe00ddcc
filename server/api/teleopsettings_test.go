package api_test

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
)

// A robot follows the gateway's thresholds until an admin sets its own; setting and resetting
// them are teleop entries of its event log by the admin, and reading them back gives what was
// stored.
func TestTeleopSettingsRoundTrip(t *testing.T) {
	w := newWorld(t)
	path := "/apigateway/v2/robots/" + w.robot.ID + "/teleop-settings"
	resp := w.Do("GET", path, w.operator, "")
	if resp.Status != http.StatusOK {
		t.Fatalf("GET: %d %s", resp.Status, resp.Body)
	}
	checkJSON(t, resp.Body, `{"delayFullMs":250,"delayQuarterMs":1000,"delayStopMs":2000,"custom":false}`)

	resp = w.Do("PUT", path, w.admin, `{"delayFullMs":100,"delayQuarterMs":600,"delayStopMs":1500}`)
	if resp.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", resp.Status, resp.Body)
	}
	for _, got := range [][]byte{resp.Body, w.Do("GET", path, w.operator, "").Body} {
		if !strings.Contains(string(got), `"delayFullMs":100,"delayQuarterMs":600,"delayStopMs":1500,"custom":true,"updatedBy":"`+w.adminUser.Email+`","updatedAt":"`) {
			t.Errorf("after PUT: %s", got)
		}
	}
	resp = w.Do("DELETE", path, w.admin, "")
	if resp.Status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", resp.Status, resp.Body)
	}
	checkJSON(t, resp.Body, `{"delayFullMs":250,"delayQuarterMs":1000,"delayStopMs":2000,"custom":false}`)

	events, err := w.Store.Events(context.Background(), fleetgate.EventFilter{RobotID: w.robot.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, e := range events {
		if e.Type == fleetgate.EventTeleop && e.AuthorEmail == w.adminUser.Email {
			entries = append(entries, e.Message)
		}
	}
	joined := strings.Join(entries, "\n")
	if len(entries) != 2 || !strings.Contains(joined, "teleop delays set by "+w.adminUser.Email+": full speed up to 100ms, a quarter at 600ms, stopped beyond 1.5s") ||
		!strings.Contains(joined, "teleop delays reset by "+w.adminUser.Email+" to the gateway's") {
		t.Errorf("event-log entries: %q", entries)
	}
}

// Thresholds out of bounds or out of order are refused in words (400) and change nothing.
func TestTeleopSettingsAreValidated(t *testing.T) {
	w := newWorld(t)
	path := "/apigateway/v2/robots/" + w.robot.ID + "/teleop-settings"
	for _, c := range []struct{ body, words string }{
		{`{"delayFullMs":100,"delayQuarterMs":600}`, "all required"},
		{`{"delayFullMs":0,"delayQuarterMs":600,"delayStopMs":1500}`, "full-speed delay must be from 10ms to 30s"},
		{`{"delayFullMs":100,"delayQuarterMs":600,"delayStopMs":31000}`, "stop-speed delay must be from 10ms to 30s"},
		{`{"delayFullMs":-5,"delayQuarterMs":600,"delayStopMs":1500}`, "full-speed delay"},
		{`{"delayFullMs":100,"delayQuarterMs":9223372036854775807,"delayStopMs":1500}`, "quarter-speed delay"},
		{`{"delayFullMs":600,"delayQuarterMs":600,"delayStopMs":1500}`, "the delays must grow"},
		{`{"delayFullMs":100,"delayQuarterMs":1600,"delayStopMs":1500}`, "the delays must grow"},
		{`{"delayFullMs":"fast","delayQuarterMs":1600,"delayStopMs":1500}`, ""},
	} {
		resp := w.Do("PUT", path, w.admin, c.body)
		if resp.Status != http.StatusBadRequest || !strings.Contains(string(resp.Body), c.words) {
			t.Errorf("PUT %s: %d %s, want 400 saying %q", c.body, resp.Status, resp.Body, c.words)
		}
	}
	// Not JSON, and a reset that carries a body: refused as the other routes refuse them.
	bearer := http.Header{"Authorization": {"bearer " + w.admin}}
	if resp := w.DoRaw("PUT", path, bearer, strings.NewReader(`{"delayFullMs":100,"delayQuarterMs":600,"delayStopMs":1500}`)); resp.Status != http.StatusUnsupportedMediaType {
		t.Errorf("PUT without a JSON content type: %d %s, want 415", resp.Status, resp.Body)
	}
	if resp := w.Do("DELETE", path, w.admin, `{"delayFullMs":100}`); resp.Status != http.StatusBadRequest {
		t.Errorf("DELETE with a body: %d %s, want 400", resp.Status, resp.Body)
	}
	resp := w.Do("GET", path, w.admin, "")
	if !strings.Contains(string(resp.Body), `"custom":false`) {
		t.Errorf("after refused PUTs: %s", resp.Body)
	}
}

// A robot behind an agent is governed by the agent's door, which keeps its thresholds: while
// the robot is offline the cloud cannot reach them, and says so (503) rather than store
// thresholds nothing applies. (Online, the agent answers: cmd/fleetgate's
// TestTeleopSettingsThroughTheCloud.)
func TestTeleopSettingsOfAnOfflineAgentsRobotAreUnreachable(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	org, _ := w.DefaultOrg()
	if err := w.Store.CreateAgent(ctx, fleetgate.Agent{ID: "agent-1", OrgID: org.ID, Name: "dock-7", FleetID: w.fleet.ID, KeyHash: "x", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	r := fleetgate.Robot{ID: "behind-agent", OrgID: org.ID, FleetID: w.fleet.ID, AgentID: "agent-1", Name: "tugger", CreatedAt: time.Now()}
	if err := w.Store.CreateRobot(ctx, r); err != nil {
		t.Fatal(err)
	}
	path := "/apigateway/v2/robots/" + r.ID + "/teleop-settings"
	for _, method := range []string{"GET", "PUT", "DELETE"} {
		body := ""
		if method == "PUT" {
			body = `{"delayFullMs":100,"delayQuarterMs":600,"delayStopMs":1500}`
		}
		resp := w.Do(method, path, w.admin, body)
		if resp.Status != http.StatusServiceUnavailable || !strings.Contains(string(resp.Body), "its teleop delays are kept by its agent") {
			t.Errorf("%s: %d %s, want 503 saying the agent keeps them", method, resp.Status, resp.Body)
		}
	}
}

// The widget is told the limit of the robot's own thresholds, and its commands reach the robot
// held to them: with full speed up to 100 ms and a quarter at 1.1 s, a picture 0.6 s late
// allows 63% (the gateway's would allow 65%), and one 1.6 s late, beyond this robot's stop at
// 1.5 s, holds it.
func TestTheWidgetsLimitFollowsTheRobotsOwnDelays(t *testing.T) {
	a := newLiveAgent(t)
	if resp := a.Do("PUT", "/apigateway/v2/robots/"+a.robot+"/teleop-settings", a.admin,
		`{"delayFullMs":100,"delayQuarterMs":1100,"delayStopMs":1500}`); resp.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", resp.Status, resp.Body)
	}
	conn := a.dial(t, handoverQuery+"answer")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waitLimit := followLimits(ctx, t, conn)
	report := func(ageMs string) {
		t.Helper()
		if err := conn.Write(ctx, websocket.MessageText, []byte(`{"pictureAgeMs":`+ageMs+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	report("600")
	waitLimit("picture 0.6 s late: 63% speed")
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":1}}`)); err != nil {
		t.Fatal(err)
	}
	if tw := twistOf(t, waitPublished(t, a.bot, 1)[0]); math.Abs(tw.GetLinear().GetX()-0.625) > 1e-9 {
		t.Fatalf("the robot received %v at 600 ms, want 62.5%% of 1 m/s", tw)
	}
	report("1600")
	waitLimit("picture 1.6 s late: stopped")
	conn.Close(websocket.StatusNormalClosure, "")
}
