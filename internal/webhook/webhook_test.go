package webhook_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/webhook"
)

type received struct {
	body      []byte
	signature string
}

// receiver is a local webhook that fails its first failures posts with 503 and takes the next.
func receiver(t *testing.T, failures int32) (*httptest.Server, chan received) {
	got := make(chan received, 16)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{body: body, signature: r.Header.Get(webhook.SignatureHeader)}
		if n.Add(1) <= failures {
			http.Error(w, "busy, try later", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func escalation(since time.Time) webhook.Escalation {
	return webhook.Escalation{RobotID: "r1", RobotName: "amr-1", FleetID: "f1", Kind: "blocked", Severity: "error",
		Words: "blocked", Since: since, UnacknowledgedSeconds: 300}
}

// TestAnEscalationArrivesSigned: the receiver gets the JSON body, and the signature header is
// the HMAC-SHA256 of exactly those bytes under the webhook's secret (a receiver holding
// another secret computes another); the delivery is kept as taken.
func TestAnEscalationArrivesSigned(t *testing.T) {
	srv, got := receiver(t, 0)
	clk := clocktest.New()
	attempts := make(chan fleetgate.WebhookDelivery, 4)
	s := webhook.New(webhook.Config{Clock: clk, Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	defer s.Close()
	hook := fleetgate.Webhook{ID: "w1", URL: srv.URL + "/hook", Secret: "s3cret"}
	s.Escalate(hook, escalation(clk.Now().Add(-5*time.Minute)))

	r := <-got
	if r.signature != webhook.Sign("s3cret", r.body) || !strings.HasPrefix(r.signature, "sha256=") {
		t.Fatalf("signature %q does not match the body under the secret", r.signature)
	}
	if r.signature == webhook.Sign("other", r.body) {
		t.Fatal("the signature does not depend on the secret")
	}
	var e map[string]any
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatal(err)
	}
	if e["type"] != "alert.escalated" || e["robotId"] != "r1" || e["kind"] != "blocked" || e["unacknowledgedSeconds"] != 300.0 {
		t.Errorf("body = %s", r.body)
	}
	if strings.Contains(string(r.body), "s3cret") {
		t.Error("the body carries the secret")
	}
	d := <-attempts
	if d.Status != http.StatusNoContent || d.Error != "" || !d.Final || d.Attempt != 1 {
		t.Errorf("delivery = %+v, want taken at the first attempt", d)
	}
	if list := s.Deliveries("w1"); len(list) != 1 {
		t.Errorf("deliveries = %+v", list)
	}
}

// TestAFailingReceiverIsRetriedWithBackoff: each failure is kept with the receiver's words,
// the next attempt waits the backoff (2 s, then 4 s, 8 s: doubled, jitter applied), and the
// attempts stop at Attempts; a receiver that recovers gets the post once more and no more.
func TestAFailingReceiverIsRetriedWithBackoff(t *testing.T) {
	srv, got := receiver(t, 3)
	clk := clocktest.New()
	attempts := make(chan fleetgate.WebhookDelivery, 8)
	var jittered []time.Duration
	s := webhook.New(webhook.Config{Clock: clk, Attempts: 5, Backoff: 2 * time.Second,
		Jitter:    func(d time.Duration) time.Duration { jittered = append(jittered, d); return d - time.Millisecond },
		Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	defer s.Close()
	hook := fleetgate.Webhook{ID: "w1", URL: srv.URL, Secret: "k"}
	start := clk.Now()
	s.Escalate(hook, escalation(start))

	first := <-got
	d := <-attempts
	if d.Final || d.Status != 503 || !strings.Contains(d.Error, "503") || !strings.Contains(d.Error, "busy, try later") {
		t.Fatalf("first delivery = %+v, want a 503 kept in words and a retry to follow", d)
	}
	for i, wait := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second} {
		due := clk.Now().Add(wait - time.Millisecond)
		if n := clk.PendingAt(due); n != 1 {
			t.Fatalf("retry %d: %d timers at +%v, want the retry there", i+1, n, wait-time.Millisecond)
		}
		clk.Advance(wait - 2*time.Millisecond)
		select {
		case <-got:
			t.Fatalf("retry %d came before its backoff", i+1)
		default:
		}
		clk.Advance(time.Millisecond)
		r := <-got
		if string(r.body) != string(first.body) || r.signature != first.signature {
			t.Errorf("retry %d posted another body", i+1)
		}
		d = <-attempts
		if d.Attempt != i+2 || !d.At.Equal(due) {
			t.Errorf("retry %d: attempt %d at %v, want %d at %v", i+1, d.Attempt, d.At.Sub(start), i+2, due.Sub(start))
		}
	}
	if !d.Final || d.Error != "" || d.Status != 204 {
		t.Fatalf("fourth attempt = %+v, want taken", d)
	}
	if clk.Pending() != 0 {
		t.Fatal("a retry is still armed after the receiver took the post")
	}
	if list := s.Deliveries("w1"); len(list) != 4 || list[0].Attempt != 4 || list[3].Attempt != 1 {
		t.Errorf("deliveries = %+v, want four, newest first", list)
	}
	if len(jittered) != 3 || jittered[0] != 2*time.Second || jittered[2] != 8*time.Second {
		t.Errorf("backoffs given to the jitter = %v", jittered)
	}
}

// TestRetriesEndAtAttempts: a receiver that never takes it gets Attempts posts, the last
// final, and nothing after.
func TestRetriesEndAtAttempts(t *testing.T) {
	srv, got := receiver(t, 100)
	clk := clocktest.New()
	attempts := make(chan fleetgate.WebhookDelivery, 8)
	s := webhook.New(webhook.Config{Clock: clk, Attempts: 3, Jitter: func(d time.Duration) time.Duration { return d },
		Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	defer s.Close()
	s.Escalate(fleetgate.Webhook{ID: "w", URL: srv.URL, Secret: "k"}, escalation(clk.Now()))
	<-got
	<-attempts
	clk.Advance(time.Hour)
	<-got
	<-attempts
	<-got
	d := <-attempts
	if d.Attempt != 3 || !d.Final {
		t.Fatalf("last = %+v, want the third and final", d)
	}
	if clk.Pending() != 0 {
		t.Fatal("a fourth attempt is armed")
	}
}

// TestRedirectsAreNotFollowed: a receiver that redirects has not taken the post.
func TestRedirectsAreNotFollowed(t *testing.T) {
	target, got := receiver(t, 0)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()
	attempts := make(chan fleetgate.WebhookDelivery, 1)
	s := webhook.New(webhook.Config{Clock: clocktest.New(), Attempts: 1, Attempted: func(d fleetgate.WebhookDelivery) { attempts <- d }})
	s.Escalate(fleetgate.Webhook{ID: "w", URL: redirect.URL, Secret: "k"}, escalation(time.Now()))
	d := <-attempts
	if d.Status != http.StatusTemporaryRedirect || !strings.Contains(d.Error, "not followed") {
		t.Fatalf("delivery = %+v", d)
	}
	select {
	case <-got:
		t.Fatal("the redirect was followed")
	default:
	}
}
