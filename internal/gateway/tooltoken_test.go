package gateway_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// TestToolTokenTakesAPITokens: a desktop tool's URL carries an API token itself (it cannot log
// in, and a bearer token would end its session within the hour); a bearer token works too.
func TestToolTokenTakesAPITokens(t *testing.T) {
	e := newEnv(t)
	c, recheck, err := e.g.AccountService.AuthenticateToolToken(e.ctx, e.adminSecret, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	if c.User.ID != e.admin.ID || c.Token.ID == "" {
		t.Errorf("caller %+v; want the admin through its API token", c)
	}
	if err := recheck(e.ctx); err != nil {
		t.Errorf("re-check of a valid API token: %v", err)
	}
	readOnly := e.addToken(e.admin, fleetgate.ScopeRead, "")
	if c, _, err := e.g.AccountService.AuthenticateToolToken(e.ctx, readOnly, "192.0.2.1"); err != nil || c.Token.Scope != fleetgate.ScopeRead {
		t.Errorf("a read-scope API token: %+v, %v; want its scope kept", c, err)
	}
	tokens, err := e.db.APITokens(e.ctx, e.admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		if tok.LastUsedAt.IsZero() {
			t.Errorf("token %s: no last use recorded", tok.ID)
		}
	}

	bearer, _, err := e.g.Login(e.ctx, e.adminSecret, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	bearer = strings.TrimPrefix(bearer, "bearer ")
	if c, recheck, err := e.g.AccountService.AuthenticateToolToken(e.ctx, bearer, "192.0.2.1"); err != nil || c.User.ID != e.admin.ID || recheck(e.ctx) != nil {
		t.Errorf("a bearer token: %+v, %v", c, err)
	}
	_, _, err = e.g.AccountService.AuthenticateToolToken(e.ctx, "fgb_"+strings.Repeat("x", 40), "192.0.2.1")
	wantCode(t, "an unknown bearer token", err, fleetgate.EUnauthorized)
}

// TestToolTokenRecheck: the session's re-check fails once the API token is revoked or its
// user disabled, so the session ends.
func TestToolTokenRecheck(t *testing.T) {
	e := newEnv(t)
	secret := e.addToken(e.admin, fleetgate.ScopeFull, "")
	_, recheck, err := e.g.AccountService.AuthenticateToolToken(e.ctx, secret, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	tokens, _ := e.db.APITokens(e.ctx, e.admin.ID)
	for _, tok := range tokens {
		if gateway.HashSecret(secret) == tok.Hash {
			e.must(e.db.RevokeAPIToken(e.ctx, tok.ID, e.clock.Now()))
		}
	}
	err = recheck(e.ctx)
	wantCode(t, "re-check after revocation", err, fleetgate.EUnauthorized)
	if err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("re-check after revocation: %v; want it to say revoked", err)
	}
	if _, _, err := e.g.AccountService.AuthenticateToolToken(e.ctx, secret, "192.0.2.1"); fleetgate.ErrorCode(err) != fleetgate.EUnauthorized {
		t.Errorf("a revoked API token authenticates: %v", err)
	}

	operator := e.addUser(e.org.ID, "op@example.com", false, nil)
	opSecret := e.addToken(operator, fleetgate.ScopeFull, "")
	_, recheck, err = e.g.AccountService.AuthenticateToolToken(e.ctx, opSecret, "192.0.2.2")
	if err != nil {
		t.Fatal(err)
	}
	admin := e.login(e.adminSecret)
	e.must(e.g.AccountService.SetUserDisabled(e.ctx, admin, operator.ID, true))
	wantCode(t, "re-check after the user was disabled", recheck(e.ctx), fleetgate.EUnauthorized)
}

// TestToolTokenCountsFailures: a wrong API token in a tool's URL counts against the client's
// address as a failed login does; a valid one is accepted even then.
func TestToolTokenCountsFailures(t *testing.T) {
	e := newEnv(t)
	bad := gateway.NewAPIToken()
	for i := range 10 {
		_, _, err := e.g.AccountService.AuthenticateToolToken(e.ctx, bad, "198.51.100.7")
		wantCode(t, fmt.Sprintf("failure %d", i+1), err, fleetgate.EUnauthorized)
		e.clock.Advance(time.Second)
	}
	_, _, err := e.g.AccountService.AuthenticateToolToken(e.ctx, bad, "198.51.100.7")
	wantCode(t, "the 11th wrong token", err, fleetgate.ERateLimited)
	// The same limit as logins: the address is refused there too.
	_, _, err = e.g.Login(e.ctx, bad, "198.51.100.7")
	wantCode(t, "a login from the throttled address", err, fleetgate.ERateLimited)
	if _, _, err := e.g.AccountService.AuthenticateToolToken(e.ctx, e.adminSecret, "198.51.100.7"); err != nil {
		t.Errorf("a valid API token from the throttled address: %v", err)
	}
	if _, _, err := e.g.AccountService.AuthenticateToolToken(e.ctx, bad, "198.51.100.8"); fleetgate.ErrorCode(err) != fleetgate.EUnauthorized {
		t.Errorf("another address: %v; want 401, not throttled", err)
	}
}
