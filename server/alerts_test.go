package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/webhook"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestAnAlertIsEscalatedAcknowledgedAndJournalled runs an alert through a local gateway as an
// operator meets it: a simulated robot under a battery threshold no charge reaches (101 %)
// raises a battery alert; the fleet's rule escalates it to a webhook on a local HTTP server,
// signed with the webhook's secret; the API lists it and acknowledges it (not with a read-only
// token); and the raising and the acknowledgement are alert entries of the event log.
func TestAnAlertIsEscalatedAcknowledgedAndJournalled(t *testing.T) {
	type post struct {
		body      []byte
		signature string
	}
	posts := make(chan post, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		posts <- post{b, r.Header.Get(webhook.SignatureHeader)}
	}))
	defer receiver.Close()

	s := servertest.MustOpen(t, servertest.Agent, func(c *server.Config) {
		c.Sim = server.SimConfig{Count: 1, Seed: 1}
		c.AlertBattery = 101
	})
	bearer := s.Login(servertest.AdminToken)
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(list.RobotDataList) == 0 && time.Now().Before(deadline) {
		s.Do("GET", "/apigateway/v2/robots", bearer, "").JSON(t, &list)
	}
	if len(list.RobotDataList) != 1 {
		t.Fatalf("robots = %+v", list)
	}
	robot := list.RobotDataList[0].BasicData.ID
	_, fleet := s.DefaultOrg()
	ctx := context.Background()
	hook := fleetgate.Webhook{ID: "wh-1", FleetID: fleet.ID, Name: "on call", URL: receiver.URL, Secret: "whsec_test", CreatedAt: time.Now()}
	if err := s.Store.CreateWebhook(ctx, hook); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.CreateAlertRule(ctx, fleetgate.AlertRule{ID: "rule-1", FleetID: fleet.ID, Kind: fleetgate.AlertBattery,
		EscalateAfter: time.Millisecond, WebhookID: hook.ID, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}

	var p post
	select {
	case p = <-posts:
	case <-time.After(15 * time.Second):
		t.Fatal("no escalation reached the webhook within 15 s")
	}
	if p.signature != webhook.Sign("whsec_test", p.body) {
		t.Fatalf("signature %q does not match the body %s", p.signature, p.body)
	}
	var e webhook.Escalation
	if err := json.Unmarshal(p.body, &e); err != nil || e.Type != "alert.escalated" || e.RobotID != robot || e.Kind != "battery" || e.Severity != "warning" {
		t.Fatalf("escalation %s (%v)", p.body, err)
	}
	if strings.Contains(s.Logs(), "whsec_test") {
		t.Error("the webhook's secret is in the log")
	}

	type alertJSON struct {
		Kind, Words, AcknowledgedBy string
		Since, EscalatedAt          time.Time
	}
	var open struct{ Alerts []alertJSON }
	s.Do("GET", "/apigateway/v2/robots/"+robot+"/alerts", bearer, "").JSON(t, &open)
	if len(open.Alerts) != 1 || open.Alerts[0].Kind != "battery" || open.Alerts[0].EscalatedAt.IsZero() || open.Alerts[0].AcknowledgedBy != "" {
		t.Fatalf("open alerts %+v", open)
	}

	org, _ := s.DefaultOrg()
	operator := s.AddUser(org.ID, "op@example.com", false, map[string]fleetgate.Role{robot: fleetgate.RoleOperator})
	kioskSecret, _ := s.AddToken(operator.ID, fleetgate.ScopeRead, "")
	if r := s.Do("POST", "/apigateway/v2/robots/"+robot+"/alerts/battery/ack", s.Login(kioskSecret), ""); r.Status != http.StatusForbidden {
		t.Errorf("a read-only token acknowledged: %d %s", r.Status, r.Body)
	}
	if r := s.Do("POST", "/apigateway/v2/robots/"+robot+"/alerts/stale/ack", bearer, ""); r.Status != http.StatusNotFound {
		t.Errorf("acknowledging an alert that is not open: %d %s", r.Status, r.Body)
	}
	r := s.Do("POST", "/apigateway/v2/robots/"+robot+"/alerts/battery/ack", bearer, "")
	var acked alertJSON
	r.JSON(t, &acked)
	if r.Status != http.StatusOK || acked.AcknowledgedBy != "admin@localhost" {
		t.Fatalf("acknowledge: %d %s", r.Status, r.Body)
	}

	var entries []string
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var page struct {
			Events []struct{ Message, Severity, Author string }
		}
		s.Do("GET", "/apigateway/v2/events?type=alert&robotId="+robot, bearer, "").JSON(t, &page)
		entries = entries[:0]
		for _, e := range page.Events {
			entries = append(entries, e.Author+": "+e.Message)
		}
		if len(entries) == 2 {
			break
		}
	}
	if len(entries) != 2 || !strings.HasPrefix(entries[0], "admin@localhost: alert acknowledged by admin@localhost after") ||
		!strings.HasPrefix(entries[1], "fleetgate: alert raised (battery): battery low") {
		t.Fatalf("alert entries %q", entries)
	}
}
