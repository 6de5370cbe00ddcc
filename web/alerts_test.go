package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// An alert on the operate screen and the kiosk as an operator meets it: it shows its age
// and, unacknowledged, an Acknowledge button; the kiosk counts it; acknowledging it names who
// did; a robot that is not connected says it is offline, and since when, where its map and
// controls would be.
func TestAlertsAcknowledgedOnTheOperateScreenAndTheKiosk(t *testing.T) {
	a := openLiveAgent(t)
	payload, err := proto.Marshal(&catalogpb.String{Data: "blocked"})
	if err != nil {
		t.Fatal(err)
	}
	a.bot.Lock()
	a.bot.KPIList = []fleetgate.KPI{{Name: "activity", DataType: "Platform.Messages.std_msgs.String", Payload: payload}}
	a.bot.Unlock()
	op := a.as(t, "operator")
	r := "/robots/" + a.robot

	// The robot's status is read at most once a second: the page shows the alert within it.
	p := op.get(r)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(p.body, `data-alert="blocked"`) && time.Now().Before(deadline); {
		p = op.get(r)
	}
	wantBody(t, "operate", p, `data-alert="blocked"`, "unacknowledged", `action="/robots/`+a.robot+`/alerts/blocked/ack"`, "Acknowledge")
	kiosk := op.get("/kiosk/" + fleetgate.LocalFleetID)
	wantBody(t, "kiosk", kiosk, `data-unacknowledged="1"`, "1 alert unacknowledged", `data-alert-keys="`+a.robot+`/blocked"`, "data-alert-sound")

	landed := op.submit(r+"/alerts/blocked/ack", url.Values{"back": {"robot"}})
	if loc := landed.header.Get("X-Test-Location"); loc != r {
		t.Errorf("the acknowledgement went to %q, want back to %q", loc, r)
	}
	wantBody(t, "operate after", landed, "acknowledged by operator@example.com")
	if strings.Contains(landed.body, "/alerts/blocked/ack") {
		t.Error("an acknowledged alert still offers Acknowledge")
	}
	wantBody(t, "kiosk after", op.get("/kiosk/"+fleetgate.LocalFleetID+"/fragment"), `data-unacknowledged="0"`)

	// Not connected: never, then since it was last seen.
	org, _ := a.DefaultOrg()
	gone := a.AddRobot(fleetgate.Fleet{ID: fleetgate.LocalFleetID, OrgID: org.ID}, "gone-bot")
	admin := a.as(t, "admin")
	p = admin.get("/robots/" + gone.ID)
	wantBody(t, "a robot never connected", p, "Offline: this robot has never connected to this gateway.")
	if strings.Contains(p.body, "Nothing to drive here") || strings.Contains(p.body, `data-widget="pose-map"`) {
		t.Error("an offline robot's screen offers driving or a map")
	}
	if err := a.Store.TouchRobot(context.Background(), gone.ID, time.Now().Add(-3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	p = admin.get("/robots/" + gone.ID)
	wantBody(t, "a robot seen 3 h ago", p, "Offline since ", " h ", " min ago): nothing to drive until it is back.")
}

// The admin page's alert section: a webhook's address is checked, its secret shown once; a
// rule names it; an operator may not post there.
func TestAdminSetsWebhooksAndAlertRules(t *testing.T) {
	a := openLiveAgent(t)
	admin := a.as(t, "admin")
	bad := admin.submit("/admin/webhooks", url.Values{"fleet": {fleetgate.LocalFleetID}, "name": {"x"}, "url": {"ftp://example.com/"}})
	wantBody(t, "a bad address", bad, "a webhook address starts with http:// or https://")
	ok := admin.submit("/admin/webhooks", url.Values{"fleet": {fleetgate.LocalFleetID}, "name": {"on call"}, "url": {"https://hooks.example.com/x"}})
	wantBody(t, "a webhook", ok, "signing secret of webhook on call", "whsec_", "https://hooks.example.com/x")
	if strings.Contains(admin.get("/admin").body, "whsec_") {
		t.Error("the secret is shown twice")
	}
	hooks, err := a.Store.Webhooks(context.Background(), fleetgate.LocalFleetID)
	if err != nil || len(hooks) != 1 {
		t.Fatalf("webhooks %+v, %v", hooks, err)
	}
	rule := admin.submit("/admin/alert-rules", url.Values{"fleet": {fleetgate.LocalFleetID}, "kind": {"threshold"}, "minutes": {"10"},
		"webhook": {hooks[0].ID}, "name": {"motor hot"}, "source": {"kpi"}, "key": {"motor_temp"}, "above": {"1"}, "threshold": {"72.5"}})
	wantBody(t, "a rule", rule, "threshold: motor hot", "KPI motor_temp above 72.5", "10 min", "on call")

	op := a.as(t, "operator")
	if p := op.post("/admin/alert-rules", url.Values{"fleet": {fleetgate.LocalFleetID}, "kind": {"blocked"}}); p.status != http.StatusForbidden {
		t.Errorf("an operator adding a rule: %d", p.status)
	}
}

// A kiosk token's wall shows the open alerts and their count but offers no Acknowledge (it
// only watches), and the acknowledgement route is closed to it; an operator acknowledging on
// the wall goes back to the wall.
func TestTheKioskTokensWallOnlyWatches(t *testing.T) {
	a := openLiveAgent(t)
	payload, err := proto.Marshal(&catalogpb.String{Data: "estop"})
	if err != nil {
		t.Fatal(err)
	}
	a.bot.Lock()
	a.bot.KPIList = []fleetgate.KPI{{Name: "activity", DataType: "Platform.Messages.std_msgs.String", Payload: payload}}
	a.bot.Unlock()
	wall := "/kiosk/" + fleetgate.LocalFleetID
	op := a.as(t, "operator")
	p := op.get(wall)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(p.body, `data-alert="estop"`) && time.Now().Before(deadline); {
		p = op.get(wall)
	}
	wantBody(t, "the operator's wall", p, `data-alert="estop"`, "emergency stop pressed", `class="ack"`)

	secret, _ := a.AddToken(a.users["operator"].ID, fleetgate.ScopeRead, fleetgate.LocalFleetID)
	k := a.browser(t)
	wantRedirect(t, "kiosk login", k.post("/login", url.Values{"token": {secret}, "next": {wall}}), wall)
	kp := k.get(wall)
	wantBody(t, "the kiosk token's wall", kp, `data-alert="estop"`, "1 alert unacknowledged")
	if strings.Contains(kp.body, `class="ack"`) {
		t.Error("a kiosk token is offered Acknowledge")
	}
	if p := k.post("/robots/"+a.robot+"/alerts/estop/ack", url.Values{"back": {"kiosk"}}); p.status == http.StatusSeeOther && p.header.Get("Location") == wall {
		t.Error("a kiosk token acknowledged an alert")
	}

	landed := op.submit("/robots/"+a.robot+"/alerts/estop/ack", url.Values{"back": {"kiosk"}})
	if loc := landed.header.Get("X-Test-Location"); loc != wall {
		t.Errorf("acknowledged on the wall, went to %q", loc)
	}
	wantBody(t, "the wall after", landed, "acknowledged by operator@example.com", `data-unacknowledged="0"`)
}
