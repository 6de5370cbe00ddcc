package gateway_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

func TestPasswordHash(t *testing.T) {
	h := gateway.HashPassword("correct horse battery")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q: not argon2id at the OWASP parameters", h)
	}
	if !gateway.VerifyPassword(h, "correct horse battery") {
		t.Error("the right password does not verify")
	}
	for _, bad := range []string{"correct horse batterY", "", "correct horse battery "} {
		if gateway.VerifyPassword(h, bad) {
			t.Errorf("%q verifies", bad)
		}
	}
	if h2 := gateway.HashPassword("correct horse battery"); h2 == h {
		t.Error("two hashes of one password are equal: no salt")
	}
	for _, broken := range []string{"", "$argon2id$", "$argon2i$v=19$m=64,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=99999999,t=1,p=1$AAAA$AAAA"} {
		if gateway.VerifyPassword(broken, "x") {
			t.Errorf("malformed hash %q verifies", broken)
		}
	}
}

// setPassword gives u a password through the core, as the first login does.
func (e *env) setPassword(u fleetgate.User, pw string) {
	e.t.Helper()
	e.must(e.g.SetPassword(e.ctx, &gateway.Caller{User: u, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}, "", pw))
}

func TestPasswordLogin(t *testing.T) {
	defer gateway.CheapPasswords()()
	e := newEnv(t)
	e.setPassword(e.admin, "first password")
	c, err := e.g.PasswordLogin(e.ctx, " ADMIN@localhost ", "first password", "192.0.2.1")
	if err != nil {
		t.Fatalf("PasswordLogin: %v", err)
	}
	if c.User.ID != e.admin.ID || !c.CanAct() || c.Kiosk() {
		t.Errorf("caller %+v: want the admin with a full session", c)
	}
	_, err = e.g.PasswordLogin(e.ctx, "admin@localhost", "wrong password", "192.0.2.1")
	wantCode(t, "wrong password", err, fleetgate.EUnauthorized)
	_, err = e.g.PasswordLogin(e.ctx, "nobody@localhost", "first password", "192.0.2.1")
	wantCode(t, "unknown email", err, fleetgate.EUnauthorized)
	_, err = e.g.PasswordLogin(e.ctx, "admin@localhost", "", "192.0.2.1")
	wantCode(t, "empty password", err, fleetgate.EInvalid)

	// A user without a password cannot log in with one.
	u := e.addUser(e.org.ID, "op@localhost", false, nil)
	_, err = e.g.PasswordLogin(e.ctx, u.Email, "anything at all", "192.0.2.2")
	wantCode(t, "no password set", err, fleetgate.EUnauthorized)

	// Changing a password needs the current one.
	err = e.g.SetPassword(e.ctx, c, "not the current one", "second password")
	wantCode(t, "wrong current password", err, fleetgate.EInvalid)
	err = e.g.SetPassword(e.ctx, c, "first password", "short")
	wantCode(t, "short password", err, fleetgate.EInvalid)
	e.must(e.g.SetPassword(e.ctx, c, "first password", "second password"))
	_, err = e.g.PasswordLogin(e.ctx, "admin@localhost", "first password", "192.0.2.3")
	wantCode(t, "old password", err, fleetgate.EUnauthorized)
}

func TestPasswordLoginLimits(t *testing.T) {
	defer gateway.CheapPasswords()()
	e := newEnv(t)
	e.setPassword(e.admin, "the password")

	// 10 failures a minute per address, counted with wrong tokens.
	for i := range 9 {
		_, err := e.g.PasswordLogin(e.ctx, fmt.Sprintf("user%d@localhost", i), "wrong", "198.51.100.1")
		wantCode(t, fmt.Sprint("failure ", i), err, fleetgate.EUnauthorized)
	}
	_, err := e.g.TokenLogin(e.ctx, "fgt_0123456789012345678901234567890X", "198.51.100.1")
	wantCode(t, "10th failure, by token", err, fleetgate.EUnauthorized)
	_, err = e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", "198.51.100.1")
	wantCode(t, "right password from a blocked address", err, fleetgate.ERateLimited)
	if wait := fleetgate.RetryAfter(err); wait <= 0 || wait > time.Minute {
		t.Errorf("RetryAfter = %v", wait)
	}
	// A valid API token is checked before any limit: it logs in from that address.
	if _, err := e.g.TokenLogin(e.ctx, e.adminSecret, "198.51.100.1"); err != nil {
		t.Errorf("a valid token from an address blocked for passwords: %v", err)
	}
	if _, _, err := e.g.Login(e.ctx, e.adminSecret, "198.51.100.1"); err != nil {
		t.Errorf("a valid API login from an address blocked for passwords: %v", err)
	}
	e.clock.Advance(time.Minute)
	if _, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", "198.51.100.1"); err != nil {
		t.Fatalf("after a minute: %v", err)
	}

	// 5 failures in 15 minutes per account and address.
	for i := range 5 {
		_, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "wrong", "198.51.100.2")
		wantCode(t, fmt.Sprint("account and address failure ", i), err, fleetgate.EUnauthorized)
		e.clock.Advance(time.Second)
	}
	_, err = e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", "198.51.100.2")
	wantCode(t, "6th try on the account from that address", err, fleetgate.ERateLimited)
	if wait := fleetgate.RetryAfter(err); wait <= 0 || wait > 15*time.Minute {
		t.Errorf("RetryAfter = %v", wait)
	}
	if _, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", "198.51.100.3"); err != nil {
		t.Errorf("the owner from another address: %v", err)
	}
	e.clock.Advance(15 * time.Minute)
	if _, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", "198.51.100.2"); err != nil {
		t.Fatalf("after 15 minutes: %v", err)
	}
}

// TestNobodyLocksTheOwnerOut: 300 wrong passwords for the (guessable) admin account in an
// hour, from 300 addresses, do not refuse the right password from an address without
// failures; the addresses that failed wait a delay that grew with the account's failures.
func TestNobodyLocksTheOwnerOut(t *testing.T) {
	defer gateway.CheapPasswords()()
	e := newEnv(t)
	e.setPassword(e.admin, "the password")
	for i := range 300 {
		_, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "wrong", fmt.Sprintf("203.0.%d.%d", i/250, i%250))
		wantCode(t, fmt.Sprint("failure ", i), err, fleetgate.EUnauthorized)
		e.clock.Advance(10 * time.Second)
	}
	if _, err := e.g.PasswordLogin(e.ctx, "Admin@Localhost", "the password", "192.0.2.200"); err != nil {
		t.Fatalf("the owner from an address with no failures: %v", err)
	}
	// An address that failed: its next try waits the account's delay (5 minutes at 300
	// failures an hour) after its own last failure, right password or not.
	guesser := "203.0.1.49" // the 300th: it failed just now
	_, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", guesser)
	wantCode(t, "an address that failed, at once", err, fleetgate.ERateLimited)
	if wait := fleetgate.RetryAfter(err); wait <= 4*time.Minute || wait > 5*time.Minute {
		t.Errorf("RetryAfter = %v, want about 5 minutes", wait)
	}
	e.clock.Advance(5 * time.Minute)
	if _, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", guesser); err != nil {
		t.Errorf("after the delay: %v", err)
	}
}

func TestAccountDelay(t *testing.T) {
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{{0, 0}, {9, 0}, {10, time.Second}, {19, time.Second}, {20, 2 * time.Second}, {50, 16 * time.Second}, {90, 256 * time.Second}, {100, 5 * time.Minute}, {1000, 5 * time.Minute}} {
		if got := gateway.AccountDelay(c.failures); got != c.want {
			t.Errorf("AccountDelay(%d) = %v, want %v", c.failures, got, c.want)
		}
	}
}

// TestPasswordLoginsInParallel: wrong passwords sent all at once from one address are held to
// the limit (5 per account and address), not all checked; an email or password longer than any account's
// is refused before any work and not counted.
func TestPasswordLoginsInParallel(t *testing.T) {
	defer gateway.CheapPasswords()()
	e := newEnv(t)
	e.setPassword(e.admin, "the password")
	var unauthorized, limited atomic.Int32
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			_, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "wrong password", "198.51.100.7")
			switch fleetgate.ErrorCode(err) {
			case fleetgate.EUnauthorized:
				unauthorized.Add(1)
			case fleetgate.ERateLimited:
				limited.Add(1)
			}
		})
	}
	wg.Wait()
	if unauthorized.Load() != 5 || limited.Load() != 35 {
		t.Errorf("40 parallel wrong passwords: %d checked, %d limited; want 5 (per account and address) and 35", unauthorized.Load(), limited.Load())
	}

	for _, c := range []struct{ email, password string }{
		{strings.Repeat("a", 250) + "@x.io", "a password"},
		{"admin@localhost", strings.Repeat("p", 257)},
	} {
		_, err := e.g.PasswordLogin(e.ctx, c.email, c.password, "198.51.100.8")
		wantCode(t, "an over-long email or password", err, fleetgate.EInvalid)
	}
	for i := range 5 {
		_, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "wrong password", "198.51.100.8")
		wantCode(t, fmt.Sprint("failure ", i, " after two refused over-long ones"), err, fleetgate.EUnauthorized)
	}
	// A right password is not counted: logging in again and again never blocks.
	for i := range 15 {
		if _, err := e.g.PasswordLogin(e.ctx, "admin@localhost", "the password", "198.51.100.9"); err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
	}
}

func TestTokenLoginAndSessionCaller(t *testing.T) {
	defer gateway.CheapPasswords()()
	e := newEnv(t)
	c, err := e.g.TokenLogin(e.ctx, e.adminSecret, "192.0.2.1")
	if err != nil {
		t.Fatalf("TokenLogin: %v", err)
	}
	if c.Kiosk() || c.Token.ID == "" {
		t.Errorf("bootstrap token session %+v: want a full session bound to the token", c.Token)
	}
	kioskSecret := e.addToken(e.admin, fleetgate.ScopeRead, e.fleet.ID)
	k, err := e.g.TokenLogin(e.ctx, kioskSecret, "192.0.2.1")
	if err != nil {
		t.Fatalf("kiosk TokenLogin: %v", err)
	}
	if !k.Kiosk() || k.CanAct() {
		t.Errorf("kiosk session: Kiosk %v CanAct %v", k.Kiosk(), k.CanAct())
	}
	// Revoking the token ends the session; disabling the user ends all of theirs.
	e.must(e.db.RevokeAPIToken(e.ctx, k.Token.ID, e.clock.Now()))
	_, err = e.g.SessionCaller(e.ctx, k.User.ID, k.Token.ID, "")
	wantCode(t, "revoked kiosk token", err, fleetgate.EUnauthorized)

	op := e.addUser(e.org.ID, "op@localhost", false, nil)
	if _, err := e.g.SessionCaller(e.ctx, op.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	admin := &gateway.Caller{User: e.admin, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}
	e.must(e.g.SetUserDisabled(e.ctx, admin, op.ID, true))
	_, err = e.g.SessionCaller(e.ctx, op.ID, "", "")
	wantCode(t, "disabled user", err, fleetgate.EUnauthorized)
	opToken := e.addToken(op, fleetgate.ScopeFull, "")
	_, err = e.g.TokenLogin(e.ctx, opToken, "192.0.2.9")
	wantCode(t, "disabled user's token", err, fleetgate.EUnauthorized)
	e.must(e.g.SetUserDisabled(e.ctx, admin, op.ID, false))
	if _, err := e.g.SessionCaller(e.ctx, op.ID, "", ""); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
	wantCode(t, "disable yourself", e.g.SetUserDisabled(e.ctx, admin, e.admin.ID, true), fleetgate.EConflict)

	// A password session carries the password's stamp: a reset by an admin ends it.
	e.setPassword(op, "the first password")
	stamp, err := e.g.PasswordStamp(e.ctx, op.ID)
	if err != nil || stamp == "" {
		t.Fatalf("stamp %q, %v", stamp, err)
	}
	if _, err := e.g.SessionCaller(e.ctx, op.ID, "", stamp); err != nil {
		t.Fatalf("session with the current stamp: %v", err)
	}
	_, err = e.g.ResetPassword(e.ctx, admin, op.ID)
	e.must(err)
	_, err = e.g.SessionCaller(e.ctx, op.ID, "", stamp)
	wantCode(t, "session begun before a password reset", err, fleetgate.EUnauthorized)
	if fresh, _ := e.g.PasswordStamp(e.ctx, op.ID); fresh == stamp {
		t.Error("the stamp did not change with the password")
	}
}

func TestSocketTokens(t *testing.T) {
	e := newEnv(t)
	sessions := e.db.Sessions(e.clock.Now)
	e.must(sessions.CommitCtx(e.ctx, "session-1", []byte("x"), e.clock.Now().Add(time.Hour)))
	c := &gateway.Caller{User: e.admin, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}

	tok, expires, err := e.g.MintSocketToken(e.ctx, c, gateway.HashSecret("session-1"))
	e.must(err)
	if !strings.HasPrefix(tok, gateway.SocketTokenPrefix) || !expires.Equal(e.clock.Now().Add(60*time.Second)) {
		t.Fatalf("token %q expires %v", tok, expires)
	}
	_, err = e.g.Authenticate(e.ctx, tok)
	wantCode(t, "unused token as a bearer", err, fleetgate.EUnauthorized)
	e.must(e.g.UseSocketToken(e.ctx, tok))
	wantCode(t, "second use", e.g.UseSocketToken(e.ctx, tok), fleetgate.EUnauthorized)
	got, err := e.g.Authenticate(e.ctx, tok)
	if err != nil || got.User.ID != e.admin.ID {
		t.Fatalf("Authenticate after the upgrade = %v, %v", got, err)
	}
	// The socket lives with its session.
	e.must(sessions.DeleteCtx(e.ctx, "session-1"))
	_, err = e.g.Authenticate(e.ctx, tok)
	wantCode(t, "after logout", err, fleetgate.EUnauthorized)

	// Unused for 60 s: dead.
	e.must(sessions.CommitCtx(e.ctx, "session-2", []byte("x"), e.clock.Now().Add(time.Hour)))
	late, _, err := e.g.MintSocketToken(e.ctx, c, gateway.HashSecret("session-2"))
	e.must(err)
	e.clock.Advance(60 * time.Second)
	wantCode(t, "use at 60 s", e.g.UseSocketToken(e.ctx, late), fleetgate.EUnauthorized)
	early, _, err := e.g.MintSocketToken(e.ctx, c, gateway.HashSecret("session-2"))
	e.must(err)
	e.clock.Advance(59 * time.Second)
	e.must(e.g.UseSocketToken(e.ctx, early))
}

func TestPanelAdminPermissions(t *testing.T) {
	defer gateway.CheapPasswords()()
	e := newEnv(t)
	r := e.addRobot(e.fleet, "forklift")
	dev := e.addUser(e.org.ID, "dev@localhost", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleDeveloper})
	robotAdmin := e.addUser(e.org.ID, "radmin@localhost", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleAdmin})
	full := fleetgate.APIToken{Scope: fleetgate.ScopeFull}
	admin := &gateway.Caller{User: e.admin, Token: full}
	devC := &gateway.Caller{User: dev, Token: full}
	radmin := &gateway.Caller{User: robotAdmin, Token: full}
	kiosk := &gateway.Caller{User: e.admin, Token: fleetgate.APIToken{ID: "k", Scope: fleetgate.ScopeRead, FleetID: e.fleet.ID}}

	_, err := e.g.Users(e.ctx, devC)
	wantCode(t, "developer lists users", err, fleetgate.EForbidden)
	_, err = e.g.Users(e.ctx, kiosk)
	wantCode(t, "kiosk lists users", err, fleetgate.EForbidden)
	// An org admin's token restricted to one fleet hands out that fleet, not the organization.
	fleetBound := &gateway.Caller{User: e.admin, Token: fleetgate.APIToken{ID: "f", Scope: fleetgate.ScopeFull, FleetID: e.fleet.ID}}
	_, _, err = e.g.CreateUser(e.ctx, fleetBound, gateway.NewUserInput{Email: "mallory@localhost", OrgAdmin: true})
	wantCode(t, "fleet-bound admin token creates an org admin", err, fleetgate.EForbidden)
	_, _, err = e.g.ProvisionAgent(e.ctx, fleetBound, "sneaky", "")
	wantCode(t, "fleet-bound admin token provisions an agent", err, fleetgate.EForbidden)
	_, err = e.g.Users(e.ctx, fleetBound)
	wantCode(t, "fleet-bound admin token lists users", err, fleetgate.EForbidden)
	if _, tok, err := e.g.CreateMyAPIToken(e.ctx, fleetBound, gateway.NewAPITokenInput{Name: "wider"}); err != nil || tok.FleetID != e.fleet.ID {
		t.Errorf("token made by a fleet-bound session: fleet %q, %v; want restricted to %s", tok.FleetID, err, e.fleet.ID)
	}
	u, pw, err := e.g.CreateUser(e.ctx, admin, gateway.NewUserInput{Email: "new@localhost"})
	e.must(err)
	if _, err := e.g.PasswordLogin(e.ctx, "new@localhost", pw, "192.0.2.1"); err != nil {
		t.Fatalf("login with the generated password: %v", err)
	}
	_, _, err = e.g.CreateUser(e.ctx, admin, gateway.NewUserInput{Email: "NEW@localhost"})
	wantCode(t, "duplicate email", err, fleetgate.EConflict)
	_, _, err = e.g.CreateUser(e.ctx, admin, gateway.NewUserInput{Email: "not an email"})
	wantCode(t, "bad email", err, fleetgate.EInvalid)
	pw2, err := e.g.ResetPassword(e.ctx, admin, u.ID)
	e.must(err)
	_, err = e.g.PasswordLogin(e.ctx, "new@localhost", pw, "192.0.2.1")
	wantCode(t, "old password after reset", err, fleetgate.EUnauthorized)
	if _, err := e.g.PasswordLogin(e.ctx, "new@localhost", pw2, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}

	wantCode(t, "developer renames", e.g.RenameRobot(e.ctx, devC, r.ID, "x"), fleetgate.EForbidden)
	e.must(e.g.RenameRobot(e.ctx, radmin, r.ID, "forklift-7"))
	if got, _ := e.db.Robot(e.ctx, r.ID); got.Name != "forklift-7" {
		t.Errorf("name %q after rename", got.Name)
	}
	wantCode(t, "robot admin removes", e.g.RemoveRobot(e.ctx, radmin, r.ID), fleetgate.EForbidden)
	e.must(e.g.SetMemberRole(e.ctx, radmin, r.ID, "new@localhost", fleetgate.RoleOperator))
	wantCode(t, "developer sets roles", e.g.SetMemberRole(e.ctx, devC, r.ID, "new@localhost", fleetgate.RoleAdmin), fleetgate.EForbidden)
	e.must(e.g.RemoveRobot(e.ctx, admin, r.ID))
	_, err = e.db.Robot(e.ctx, r.ID)
	wantCode(t, "removed robot", err, fleetgate.ENotFound)

	// Tokens: kiosk tokens are for org admins; revoking another's token is not found.
	_, _, err = e.g.CreateMyAPIToken(e.ctx, devC, gateway.NewAPITokenInput{Name: "k", Scope: fleetgate.ScopeRead, Fleet: e.fleet.ID})
	wantCode(t, "developer makes a kiosk token", err, fleetgate.EForbidden)
	_, tok, err := e.g.CreateMyAPIToken(e.ctx, admin, gateway.NewAPITokenInput{Name: "wall", Scope: fleetgate.ScopeRead, Fleet: e.fleet.ID})
	e.must(err)
	wantCode(t, "revoke another's token", e.g.RevokeMyAPIToken(e.ctx, devC, tok.ID), fleetgate.ENotFound)
	e.must(e.g.RevokeMyAPIToken(e.ctx, admin, tok.ID))
	_, _, err = e.g.ProvisionAgent(e.ctx, devC, "a", "")
	wantCode(t, "developer provisions an agent", err, fleetgate.EForbidden)
}
