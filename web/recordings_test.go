package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/record"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// openRecordingAgent is a local gateway whose one robot has a recorder, with an operator
// and a developer.
func openRecordingAgent(t *testing.T) (*liveAgent, *fleettest.Robot) {
	t.Helper()
	s := openPanel(t, servertest.Agent)
	rec, err := record.Open(record.Config{Dir: t.TempDir(), FlushEvery: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	bot := &fleettest.Robot{
		ID: "5c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", Name: "rec-bot",
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: poseType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
	}
	if err := s.Registry().Add(context.Background(), rec.Wrap(bot), fleetgate.LocalFleetID); err != nil {
		t.Fatal(err)
	}
	a := &liveAgent{panelServer: s, robot: bot.ID, users: map[string]fleetgate.User{}}
	org, _ := s.DefaultOrg()
	for name, role := range map[string]fleetgate.Role{"operator": fleetgate.RoleOperator, "developer": fleetgate.RoleDeveloper} {
		a.users[name] = s.AddUser(org.ID, name+"@example.com", false, map[string]fleetgate.Role{bot.ID: role})
		s.setPassword(t, name+"@example.com", "password of "+name)
	}
	return a, bot
}

var stopAction = regexp.MustCompile(`action="(/robots/[^"]+/recordings/[^"]+/stop)"`)

// TestRecordingsTab: a developer starts a recording of chosen streams from the robot's
// page and stops it; an operator follows but may not act; the finished file is among the
// resources with its streams and duration.
var durationInput = regexp.MustCompile(`<input id="duration" name="duration" value="([^"]*)"`)

func TestRecordingsTab(t *testing.T) {
	a, bot := openRecordingAgent(t)
	r := "/robots/" + a.robot
	op, dev := a.as(t, "operator"), a.as(t, "developer")

	p := op.get(r + "/recordings")
	wantStatus(t, "the operator's tab", p, http.StatusOK)
	wantBody(t, "the operator's tab", p, "No recordings.", "Recordings")
	if strings.Contains(p.body, "Start recording") {
		t.Error("an operator is offered the start form")
	}
	wantStatus(t, "an operator starts", op.post(r+"/recordings", url.Values{"streams": {"base/pose"}}), http.StatusForbidden)

	p = dev.get(r + "/recordings")
	wantBody(t, "the developer's tab", p, "Start recording", `value="base/pose"`)
	// Empty means until stopped, as its label says: nothing is filled in for the user.
	if m := durationInput.FindStringSubmatch(p.body); m == nil || m[1] != "" {
		t.Errorf("the duration field: %q, want it empty (until stopped)", m)
	}
	if strings.Contains(p.body, `value="base/cmd_vel"`) {
		t.Error("an input stream is offered for recording")
	}
	bad := dev.submit(r+"/recordings", url.Values{"duration": {"soon"}, "streams": {"base/pose"}})
	wantBody(t, "a bad duration", bad, "duration", `value="soon"`, "checked")
	wantBody(t, "no stream", dev.submit(r+"/recordings", url.Values{"duration": {"30s"}}), `class="error"`)

	wantRedirect(t, "start", dev.post(r+"/recordings", url.Values{"streams": {"base/pose"}, "duration": {"10m"}}), r+"/recordings")
	p = dev.get(r + "/recordings")
	wantBody(t, "while recording", p, "Recording", "/base/pose", "for 10m0s")
	m := stopAction.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no stop button:\n%s", p.body)
	}
	if strings.Contains(op.get(r+"/recordings").body, "/stop") {
		t.Error("an operator is offered the stop button")
	}
	wantStatus(t, "an operator stops", op.post(m[1], url.Values{}), http.StatusForbidden)
	frag := op.get(r + "/recordings/fragment")
	wantBody(t, "the fragment", frag, "Recording", "/base/pose")
	if strings.Contains(frag.body, "<html") {
		t.Error("the fragment is a whole page")
	}

	for range 3 {
		bot.Emit(poseKey, poseType, []byte{0x0a, 0x00})
		time.Sleep(30 * time.Millisecond)
	}
	wantRedirect(t, "stop", dev.post(m[1], url.Values{}), r+"/recordings")
	p = op.get(r + "/recordings")
	wantBody(t, "stopped", p, "Stopped", "stop requested", "/download")

	res := op.get(r + "/resources")
	wantBody(t, "the resources", res, "rec-bot_", ".mcap", "application/mcap", "/base/pose", "0:00:00")
}
