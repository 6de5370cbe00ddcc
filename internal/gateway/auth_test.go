package gateway_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

func TestLoginAndAuthenticate(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	bearer, expires, err := e.g.Login(e.ctx, e.adminSecret, "192.0.2.1")
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	if !strings.HasPrefix(bearer, "fgb_") || len(bearer) != 44 {
		t.Errorf("bearer = %q, want fgb_ + 40 characters", bearer)
	}
	if want := start.Add(time.Hour); !expires.Equal(want) {
		t.Errorf("expires = %v, want %v (default TTL 1h)", expires, want)
	}
	c, err := e.g.Authenticate(e.ctx, bearer)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	if c.User != e.admin {
		t.Errorf("caller = %+v, want %+v", c.User, e.admin)
	}
	if c.Token.Scope != fleetgate.ScopeFull || !c.CanAct() {
		t.Errorf("caller token scope %q, CanAct %v; want full, true", c.Token.Scope, c.CanAct())
	}
	if !c.Token.LastUsedAt.Equal(start) {
		t.Errorf("LastUsedAt = %v, want the login time %v", c.Token.LastUsedAt, start)
	}

	// Each login mints a new bearer token.
	again, _, err := e.g.Login(e.ctx, e.adminSecret, "192.0.2.1")
	if err != nil || again == bearer {
		t.Errorf("second Login = %q, %v; want a new bearer token", again, err)
	}
}

func TestBearerTokenExpiry(t *testing.T) {
	tests := []struct {
		name string
		ttl  time.Duration // 0: the default
		want time.Duration
	}{
		{"default TTL", 0, time.Hour},
		{"configured TTL", 10 * time.Minute, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withTTL(tt.ttl))
			bearer, _, err := e.g.Login(e.ctx, e.adminSecret, "192.0.2.1")
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(tt.want - time.Millisecond)
			if _, err := e.g.Authenticate(e.ctx, bearer); err != nil {
				t.Errorf("1 ms before the TTL: %v, want valid", err)
			}
			e.clock.Advance(time.Millisecond)
			_, err = e.g.Authenticate(e.ctx, bearer)
			wantCode(t, "at the TTL", err, fleetgate.EUnauthorized)

			n, err := e.g.PurgeExpiredBearerTokens(e.ctx)
			if err != nil || n != 1 {
				t.Errorf("PurgeExpiredBearerTokens = %d, %v; want 1", n, err)
			}
		})
	}
}

func TestLoginRefusals(t *testing.T) {
	e := newEnv(t)
	revoked, revokedTok, err := e.g.CreateAPIToken(e.ctx, gateway.CreateAPITokenInput{UserEmail: gateway.BootstrapAdminEmail, Name: "old"})
	e.must(err)
	e.must(e.db.RevokeAPIToken(e.ctx, revokedTok.ID, e.clock.Now()))

	tests := []struct {
		name  string
		token string
		code  string
	}{
		{"empty", "", fleetgate.EInvalid},
		{"malformed", "not-a-token", fleetgate.EUnauthorized},
		{"bearer token instead", "fgb_" + strings.Repeat("a", 40), fleetgate.EUnauthorized},
		{"unknown", gateway.NewAPIToken(), fleetgate.EUnauthorized},
		{"revoked", revoked, fleetgate.EUnauthorized},
		{"valid", e.adminSecret, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bearer, _, err := e.g.Login(e.ctx, tt.token, "192.0.2.1")
			wantCode(t, "Login", err, tt.code)
			if tt.code != "" && bearer != "" {
				t.Errorf("refused Login returned bearer %q", bearer)
			}
		})
	}
}

func TestAuthenticateRefusals(t *testing.T) {
	e := newEnv(t)
	bearer, _, err := e.g.Login(e.ctx, e.adminSecret, "192.0.2.1")
	e.must(err)
	c, err := e.g.Authenticate(e.ctx, bearer)
	e.must(err)

	for _, tt := range []struct{ name, bearer string }{
		{"empty", ""},
		{"unknown", "fgb_" + strings.Repeat("x", 40)},
		{"the API token itself", e.adminSecret},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.g.Authenticate(e.ctx, tt.bearer)
			wantCode(t, "Authenticate", err, fleetgate.EUnauthorized)
		})
	}

	t.Run("revoked API token", func(t *testing.T) {
		e.must(e.db.RevokeAPIToken(e.ctx, c.Token.ID, e.clock.Now()))
		_, err := e.g.Authenticate(e.ctx, bearer)
		wantCode(t, "Authenticate after revocation", err, fleetgate.EUnauthorized)
		_, _, err = e.g.Login(e.ctx, e.adminSecret, "192.0.2.1")
		wantCode(t, "Login after revocation", err, fleetgate.EUnauthorized)
	})
}

func TestLoginFailureLimit(t *testing.T) {
	e := newEnv(t)
	const attacker, neighbour, user = "203.0.113.7", "203.0.113.8", "198.51.100.1"
	bad := gateway.NewAPIToken()

	// A correct login does not count: many of them, then 9 failures, still allowed.
	for range 15 {
		if _, _, err := e.g.Login(e.ctx, e.adminSecret, user); err != nil {
			t.Fatalf("correct login: %v", err)
		}
	}
	for range 9 {
		_, _, err := e.g.Login(e.ctx, bad, user)
		wantCode(t, "bad login", err, fleetgate.EUnauthorized)
	}
	if _, _, err := e.g.Login(e.ctx, e.adminSecret, user); err != nil {
		t.Errorf("after 15 correct logins and 9 failures: %v; want allowed", err)
	}

	// 10 failures a second apart.
	first := e.clock.Now()
	for i := range 10 {
		_, _, err := e.g.Login(e.ctx, bad, attacker)
		wantCode(t, fmt.Sprintf("failure %d", i+1), err, fleetgate.EUnauthorized)
		e.clock.Advance(time.Second)
	}
	// The 11th wrong token is answered 429; a valid token is checked before any limit, so it
	// logs in even from this address (a NAT shared with a guesser, or a neighbour's typos).
	_, _, err := e.g.Login(e.ctx, bad, attacker)
	wantCode(t, "11th attempt", err, fleetgate.ERateLimited)
	if _, _, err := e.g.Login(e.ctx, e.adminSecret, attacker); err != nil {
		t.Errorf("a valid token from the throttled address: %v, want allowed", err)
	}
	wait := fleetgate.RetryAfter(err)
	if wait <= 0 || wait > time.Minute {
		t.Errorf("RetryAfter = %v, want in (0, 1m]", wait)
	}
	if want := first.Add(time.Minute).Sub(e.clock.Now()); wait != want {
		t.Errorf("RetryAfter = %v, want %v (until the first failure leaves the window)", wait, want)
	}

	// Another address is unaffected.
	if _, _, err := e.g.Login(e.ctx, e.adminSecret, neighbour); err != nil {
		t.Errorf("another address: %v, want allowed", err)
	}

	// Just before the window passes: still refused; once it passes: allowed.
	e.clock.Advance(wait - time.Millisecond)
	_, _, err = e.g.Login(e.ctx, bad, attacker)
	wantCode(t, "1 ms before the window passes", err, fleetgate.ERateLimited)
	e.clock.Advance(time.Millisecond)
	_, _, err = e.g.Login(e.ctx, bad, attacker)
	wantCode(t, "after the window", err, fleetgate.EUnauthorized)
}
