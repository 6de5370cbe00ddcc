package webhook_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/webhook"
)

// TestCloseCancelsTheRetries: at shutdown the retries waiting on the clock are dropped; the
// receiver gets nothing more, however long the clock runs.
func TestCloseCancelsTheRetries(t *testing.T) {
	srv, got := receiver(t, 100)
	clk := clocktest.New()
	attempts := make(chan fleetgate.WebhookDelivery, 4)
	s := webhook.New(webhook.Config{Clock: clk, Log: slog.New(slog.DiscardHandler), Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	s.Escalate(fleetgate.Webhook{ID: "w", URL: srv.URL, Secret: "k"}, escalation(clk.Now()))
	<-got
	if d := <-attempts; d.Final {
		t.Fatalf("first attempt final: %+v", d)
	}
	if clk.Pending() != 1 {
		t.Fatalf("%d retries armed, want 1", clk.Pending())
	}
	s.Close()
	if clk.Pending() != 0 {
		t.Fatal("Close left the retry armed")
	}
	clk.Advance(time.Hour)
	select {
	case <-got:
		t.Fatal("a retry was posted after Close")
	default:
	}
}

// TestAReceiverThatDoesNotAnswer: the client's timeout ends the attempt, kept as a failure in
// words; the secret is in no log line, and the address only by its host.
func TestAReceiverThatDoesNotAnswer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	var logs logtest.Buffer
	attempts := make(chan fleetgate.WebhookDelivery, 1)
	s := webhook.New(webhook.Config{Clock: clocktest.New(), Attempts: 1, Client: &http.Client{Timeout: 50 * time.Millisecond},
		Log: slog.New(slog.NewTextHandler(&logs, nil)), Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	defer s.Close()
	s.Escalate(fleetgate.Webhook{ID: "w", URL: srv.URL + "/hook?token=abc", Secret: "whsec_never_logged"}, escalation(time.Now()))
	d := <-attempts
	if d.Status != 0 || !d.Final || d.Error != "the receiver did not answer in time" {
		t.Fatalf("delivery = %+v", d)
	}
	if l := logs.String(); strings.Contains(l, "whsec_never_logged") || strings.Contains(l, "token=abc") || !strings.Contains(l, "an escalation was not delivered") {
		t.Fatalf("log:\n%s", l)
	}
}

// TestDeliveriesAreKeptPerWebhookUpToKeep: the admin page's list holds the newest Keep
// attempts of each webhook.
func TestDeliveriesAreKeptPerWebhookUpToKeep(t *testing.T) {
	srv, _ := receiver(t, 0)
	attempts := make(chan fleetgate.WebhookDelivery, 8)
	s := webhook.New(webhook.Config{Clock: clocktest.New(), Keep: 2, Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	defer s.Close()
	for i, robot := range []string{"r1", "r2", "r3"} {
		e := escalation(time.Now())
		e.RobotID = robot
		s.Escalate(fleetgate.Webhook{ID: "w1", URL: srv.URL, Secret: "k"}, e)
		<-attempts // one at a time: the order is known
		if i == 0 {
			s.Escalate(fleetgate.Webhook{ID: "w2", URL: srv.URL, Secret: "k"}, e)
			<-attempts
		}
	}
	if got := s.Deliveries("w1"); len(got) != 2 || got[0].RobotID != "r3" || got[1].RobotID != "r2" {
		t.Errorf("w1 deliveries = %+v, want r3 then r2", got)
	}
	if got := s.Deliveries("w2"); len(got) != 1 {
		t.Errorf("w2 deliveries = %+v", got)
	}
	if got := s.Deliveries("none"); len(got) != 0 {
		t.Errorf("an unknown webhook has %+v", got)
	}
}
