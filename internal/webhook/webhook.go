// Package webhook posts escalated alerts to the webhooks admins set per fleet: a JSON body
// signed with the webhook's secret (HMAC-SHA256 in SignatureHeader), retried with exponential
// backoff and jitter while the receiver fails, each attempt kept for the admin page.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
)

// SignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the body under the webhook's
// secret; the receiver computes the same over the bytes it received and compares.
const SignatureHeader = "X-Fleetgate-Signature"

// Defaults of Config.
const (
	DefaultAttempts = 6
	DefaultBackoff  = 2 * time.Second
	MaxBackoff      = 5 * time.Minute
	DefaultTimeout  = 10 * time.Second
	DefaultKeep     = 20
	// maxAnswer is how much of a failing receiver's answer is read for the error's words.
	maxAnswer = 512
	// MaxBody bounds what is posted: an escalation is a few hundred bytes.
	MaxBody = 64 << 10
)

// Escalation is the JSON body posted for an alert nobody acknowledged in time.
type Escalation struct {
	Type      string    `json:"type"` // "alert.escalated"
	RobotID   string    `json:"robotId"`
	RobotName string    `json:"robotName"`
	FleetID   string    `json:"fleetId"`
	Kind      string    `json:"kind"`
	Severity  string    `json:"severity"` // "error" or "warning"
	Words     string    `json:"words"`
	Since     time.Time `json:"since"`
	// UnacknowledgedSeconds is how long the alert was open, unacknowledged, when it was sent.
	UnacknowledgedSeconds int64     `json:"unacknowledgedSeconds"`
	SentAt                time.Time `json:"sentAt"`
}

// Config adjusts a Sender; zero fields take the defaults.
type Config struct {
	Clock clock.Clock
	// Client posts; default: DefaultTimeout per attempt, redirects not followed (a redirect
	// could take the post somewhere the admin never validated).
	Client *http.Client
	// Attempts is how many times one escalation is tried (default DefaultAttempts).
	Attempts int
	// Backoff is the wait before the first retry; it doubles for each next one, up to
	// MaxBackoff (default DefaultBackoff).
	Backoff time.Duration
	// Jitter picks the wait actually used from the backoff d (default: uniformly in
	// [d/2, d], so receivers that failed together are not retried together).
	Jitter func(d time.Duration) time.Duration
	// Keep is how many deliveries of each webhook are kept for the admin page.
	Keep int
	Log  *slog.Logger
	// Attempted is called after each attempt is recorded (tests wait on it).
	Attempted func(fleetgate.WebhookDelivery)
}

// Sender posts escalations. It is safe for concurrent use.
type Sender struct {
	cfg Config

	mu      sync.Mutex
	kept    map[string][]fleetgate.WebhookDelivery // by webhook id, newest first
	pending map[clock.Timer]bool
	closed  bool
}

// New returns a Sender over cfg.
func New(cfg Config) *Sender {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: DefaultTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.Jitter == nil {
		cfg.Jitter = func(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) }
	}
	if cfg.Keep <= 0 {
		cfg.Keep = DefaultKeep
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Attempted == nil {
		cfg.Attempted = func(fleetgate.WebhookDelivery) {}
	}
	return &Sender{cfg: cfg, kept: map[string][]fleetgate.WebhookDelivery{}, pending: map[clock.Timer]bool{}}
}

// Sign is the value of SignatureHeader for body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Escalate posts e to h, in the background, retrying until it is taken or the attempts run out.
func (s *Sender) Escalate(h fleetgate.Webhook, e Escalation) {
	if e.Type == "" {
		e.Type = "alert.escalated"
	}
	if e.SentAt.IsZero() {
		e.SentAt = s.cfg.Clock.Now().UTC()
	}
	body, err := json.Marshal(e)
	if err == nil && len(body) > MaxBody {
		err = fmt.Errorf("the escalation is %d bytes, over %d", len(body), MaxBody)
	}
	d := fleetgate.WebhookDelivery{WebhookID: h.ID, RobotID: e.RobotID, Kind: fleetgate.AlertKind(e.Kind)}
	if err != nil {
		d.At, d.Attempt, d.Error, d.Final = s.cfg.Clock.Now(), 1, err.Error(), true
		s.record(d)
		return
	}
	go s.attempt(h, d, body, 1)
}

// attempt posts body once; on failure it schedules the next attempt.
func (s *Sender) attempt(h fleetgate.Webhook, d fleetgate.WebhookDelivery, body []byte, n int) {
	d.At, d.Attempt = s.cfg.Clock.Now(), n
	status, err := s.post(h, body)
	d.Status, d.Error = status, ""
	if err != nil {
		d.Error = err.Error()
	}
	d.Final = err == nil || n >= s.cfg.Attempts
	if err != nil {
		// The secret is never in an error: only the address's host and what the receiver said.
		s.cfg.Log.Warn("an escalation was not delivered", "webhook", h.ID, "host", hostOf(h.URL), "attempt", n, "err", err)
	}
	if !d.Final {
		wait := s.cfg.Jitter(s.backoff(n))
		s.mu.Lock()
		if !s.closed {
			var t clock.Timer
			t = s.cfg.Clock.AfterFunc(wait, func() {
				s.mu.Lock()
				delete(s.pending, t)
				closed := s.closed
				s.mu.Unlock()
				if !closed {
					s.attempt(h, d, body, n+1)
				}
			})
			s.pending[t] = true
		}
		s.mu.Unlock()
	}
	s.record(d)
}

// backoff is the wait after attempt n failed: Backoff, doubled for each attempt before.
func (s *Sender) backoff(n int) time.Duration {
	d := s.cfg.Backoff
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

func (s *Sender) post(h fleetgate.Webhook, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return 0, errors.New("the webhook address is not usable")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "fleetgate-webhook")
	req.Header.Set(SignatureHeader, Sign(h.Secret, body))
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is on the admin page already
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, errors.New("the receiver did not answer in time")
		}
		return 0, fmt.Errorf("could not post: %v", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, nil
	}
	words := fmt.Sprintf("the receiver answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if resp.StatusCode/100 == 3 {
		words += " (a redirect: not followed)"
	}
	if a := strings.TrimSpace(strings.ToValidUTF8(string(answer), "")); a != "" {
		words += ": " + a
	}
	return resp.StatusCode, errors.New(words)
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return ""
}

func (s *Sender) record(d fleetgate.WebhookDelivery) {
	s.mu.Lock()
	list := append([]fleetgate.WebhookDelivery{d}, s.kept[d.WebhookID]...)
	if len(list) > s.cfg.Keep {
		list = list[:s.cfg.Keep]
	}
	s.kept[d.WebhookID] = list
	s.mu.Unlock()
	s.cfg.Attempted(d)
}

// Deliveries lists the last attempts to post to webhookID, newest first.
func (s *Sender) Deliveries(webhookID string) []fleetgate.WebhookDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fleetgate.WebhookDelivery(nil), s.kept[webhookID]...)
}

// Close cancels the retries still waiting; attempts under way finish.
func (s *Sender) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for t := range s.pending {
		t.Stop()
	}
	clear(s.pending)
}
