package gateway_test

import (
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/google/uuid"
)

func TestBootstrapLocalFleet(t *testing.T) {
	e := newEmptyEnv(t)
	secret, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetID: fleetgate.LocalFleetID, FleetName: fleetgate.LocalFleetID})
	if err != nil || !created {
		t.Fatalf("Bootstrap = %v, %v; want created", created, err)
	}
	if !gateway.ValidAPITokenFormat(secret) {
		t.Errorf("generated token %q is not an API token", secret)
	}
	org, err := e.db.DefaultOrganization(e.ctx)
	e.must(err)
	if org.Name != "default" {
		t.Errorf("organization %q, want default", org.Name)
	}
	fleet, err := e.db.Fleet(e.ctx, fleetgate.LocalFleetID)
	if err != nil || fleet.Name != fleetgate.LocalFleetID || fleet.OrgID != org.ID {
		t.Errorf("Fleet(local-fleet) = %+v, %v", fleet, err)
	}
	admin, err := e.db.UserByEmail(e.ctx, gateway.BootstrapAdminEmail)
	if err != nil || !admin.OrgAdmin || admin.OrgID != org.ID {
		t.Errorf("admin = %+v, %v; want an admin of %s", admin, err, org.ID)
	}
	if c := e.login(secret); c.User.ID != admin.ID || c.Token.Scope != fleetgate.ScopeFull {
		t.Errorf("the generated token logs in as %+v scope %q", c.User, c.Token.Scope)
	}

	// A second call changes nothing.
	again, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "another"})
	if err != nil || created || again != "" {
		t.Errorf("second Bootstrap = %q, %v, %v; want \"\", false, nil", again, created, err)
	}
	fleets, err := e.db.Fleets(e.ctx, org.ID)
	if err != nil || len(fleets) != 1 {
		t.Errorf("fleets after a second Bootstrap: %+v, %v; want only local-fleet", fleets, err)
	}
	toks, err := e.db.APITokens(e.ctx, admin.ID)
	if err != nil || len(toks) != 1 {
		t.Errorf("tokens after a second Bootstrap: %d, %v; want 1", len(toks), err)
	}
	if org2, err := e.db.DefaultOrganization(e.ctx); err != nil || org2 != org {
		t.Errorf("DefaultOrganization changed to %+v, %v", org2, err)
	}
}

func TestBootstrapWithoutFleetIDMakesAUUID(t *testing.T) {
	e := newEnv(t)
	if _, err := uuid.Parse(e.fleet.ID); err != nil {
		t.Errorf("fleet id %q is not a UUID: %v", e.fleet.ID, err)
	}
}

func TestBootstrapWithAdminToken(t *testing.T) {
	e := newEmptyEnv(t)
	given := gateway.NewAPIToken()
	generated, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main", AdminToken: given})
	if err != nil || !created || generated != "" {
		t.Fatalf("Bootstrap = %q, %v, %v; want nothing generated, created", generated, created, err)
	}
	c := e.login(given)
	if c.User.Email != gateway.BootstrapAdminEmail || !c.User.OrgAdmin {
		t.Errorf("the given token logs in as %+v", c.User)
	}

	// The same token on the next start: nothing new.
	if _, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main", AdminToken: given}); err != nil || created {
		t.Errorf("second Bootstrap = %v, %v", created, err)
	}
	if toks, _ := e.db.APITokens(e.ctx, c.User.ID); len(toks) != 1 {
		t.Errorf("%d tokens, want 1", len(toks))
	}
}

func TestBootstrapAddsANewAdminTokenToABootstrappedStore(t *testing.T) {
	e := newEnv(t)
	fresh := gateway.NewAPIToken()
	for range 2 { // the second call finds it and adds nothing
		if gen, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main", AdminToken: fresh}); err != nil || created || gen != "" {
			t.Fatalf("Bootstrap = %q, %v, %v", gen, created, err)
		}
	}
	if c := e.login(fresh); c.User.ID != e.admin.ID {
		t.Errorf("the new token logs in as %+v, want the admin", c.User)
	}
	if c := e.login(e.adminSecret); c.User.ID != e.admin.ID {
		t.Errorf("the first token logs in as %+v, want the admin", c.User)
	}
	toks, err := e.db.APITokens(e.ctx, e.admin.ID)
	if err != nil || len(toks) != 2 {
		t.Errorf("admin has %d tokens, %v; want 2", len(toks), err)
	}
}

func TestBootstrapLeavesARevokedAdminTokenRevoked(t *testing.T) {
	e := newEmptyEnv(t)
	given := gateway.NewAPIToken()
	_, _, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main", AdminToken: given})
	e.must(err)
	tok, err := e.db.APITokenByHash(e.ctx, gateway.HashSecret(given))
	e.must(err)
	e.must(e.db.RevokeAPIToken(e.ctx, tok.ID, e.clock.Now()))

	if _, _, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main", AdminToken: given}); err != nil {
		t.Fatalf("Bootstrap with a revoked token: %v", err)
	}
	_, _, err = e.g.Login(e.ctx, given, "192.0.2.1")
	wantCode(t, "Login with the revoked admin token", err, fleetgate.EUnauthorized)
	if toks, _ := e.db.APITokens(e.ctx, tok.UserID); len(toks) != 1 {
		t.Errorf("%d tokens, want 1 (the revoked one, not a fresh copy)", len(toks))
	}
}

func TestBootstrapRefusesMalformedAdminToken(t *testing.T) {
	for _, tt := range []struct {
		name         string
		bootstrapped bool
	}{{"empty store", false}, {"bootstrapped store", true}} {
		for _, token := range []string{"secret", "fgt_short", "fga_" + strings.Repeat("a", 32), gateway.NewAPIToken() + "!"} {
			t.Run(tt.name+"/"+token, func(t *testing.T) {
				e := newEmptyEnv(t)
				if tt.bootstrapped {
					_, _, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main"})
					e.must(err)
				}
				_, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main", AdminToken: token})
				wantCode(t, "Bootstrap", err, fleetgate.EInvalid)
				if created {
					t.Error("created a store with a malformed token")
				}
				_, err = e.db.DefaultOrganization(e.ctx)
				if tt.bootstrapped {
					wantCode(t, "DefaultOrganization", err, "")
				} else {
					wantCode(t, "DefaultOrganization", err, fleetgate.ENotFound)
				}
			})
		}
	}
}

func TestCreateAPIToken(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name      string
		in        gateway.CreateAPITokenInput
		code      string
		wantScope string
		wantFleet string
	}{
		{"default scope", gateway.CreateAPITokenInput{UserEmail: "op@example.com", Name: "laptop"}, "", fleetgate.ScopeFull, ""},
		{"read scope", gateway.CreateAPITokenInput{UserEmail: "op@example.com", Scope: fleetgate.ScopeRead}, "", fleetgate.ScopeRead, ""},
		{"email in another case, with spaces", gateway.CreateAPITokenInput{UserEmail: "  OP@example.com "}, "", fleetgate.ScopeFull, ""},
		{"fleet by name", gateway.CreateAPITokenInput{UserEmail: gateway.BootstrapAdminEmail, Fleet: "second"}, "", fleetgate.ScopeFull, w.second.ID},
		{"fleet by id", gateway.CreateAPITokenInput{UserEmail: gateway.BootstrapAdminEmail, Fleet: w.second.ID}, "", fleetgate.ScopeFull, w.second.ID},
		{"unknown scope", gateway.CreateAPITokenInput{UserEmail: "op@example.com", Scope: "admin"}, fleetgate.EInvalid, "", ""},
		{"unknown user", gateway.CreateAPITokenInput{UserEmail: "nobody@example.com"}, fleetgate.ENotFound, "", ""},
		{"unknown fleet", gateway.CreateAPITokenInput{UserEmail: gateway.BootstrapAdminEmail, Fleet: "nowhere"}, fleetgate.ENotFound, "", ""},
		{"fleet of another org by id", gateway.CreateAPITokenInput{UserEmail: gateway.BootstrapAdminEmail, Fleet: w.otherFleet.ID}, fleetgate.ENotFound, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret, tok, err := w.g.CreateAPIToken(w.ctx, tt.in)
			wantCode(t, "CreateAPIToken", err, tt.code)
			if tt.code != "" {
				if secret != "" {
					t.Errorf("a refused token has a secret %q", secret)
				}
				return
			}
			if !gateway.ValidAPITokenFormat(secret) || tok.Hash != gateway.HashSecret(secret) {
				t.Errorf("secret %q, hash %q", secret, tok.Hash)
			}
			if tok.Scope != tt.wantScope || tok.FleetID != tt.wantFleet || tok.Name != tt.in.Name {
				t.Errorf("token %+v, want scope %q fleet %q name %q", tok, tt.wantScope, tt.wantFleet, tt.in.Name)
			}
			stored, err := w.db.APITokenByHash(w.ctx, gateway.HashSecret(secret))
			if err != nil || stored != tok {
				t.Errorf("stored %+v, %v; want %+v", stored, err, tok)
			}
			if c := w.login(secret); c.Token.ID != tok.ID {
				t.Errorf("the new token logs in as token %s, want %s", c.Token.ID, tok.ID)
			}
		})
	}
}

func TestAddAgent(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name, agent, fleet string
		code               string
		wantFleet          string
	}{
		{"default fleet", "dock-1", "", "", w.fleet.ID},
		{"fleet by name", "dock-2", "second", "", w.second.ID},
		{"fleet by id", " dock-3 ", w.second.ID, "", w.second.ID},
		{"empty name", "", "", fleetgate.EInvalid, ""},
		{"blank name", "   ", "", fleetgate.EInvalid, ""},
		{"unknown fleet", "dock-4", "nowhere", fleetgate.ENotFound, ""},
		{"fleet of another org", "dock-5", w.otherFleet.ID, fleetgate.ENotFound, ""},
		{"duplicate name", "dock-1", "", fleetgate.EConflict, ""},
		{"duplicate name in another fleet", "dock-1", "second", fleetgate.EConflict, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, key, err := w.g.AddAgent(w.ctx, tt.agent, tt.fleet)
			wantCode(t, "AddAgent", err, tt.code)
			if tt.code != "" {
				return
			}
			if a.Name != strings.TrimSpace(tt.agent) || a.FleetID != tt.wantFleet || !a.CreatedAt.Equal(w.clock.Now()) {
				t.Errorf("agent %+v, want name %q in fleet %s", a, strings.TrimSpace(tt.agent), tt.wantFleet)
			}
			if !strings.HasPrefix(key, gateway.AgentKeyPrefix) || len(key) != 44 || a.KeyHash != gateway.HashSecret(key) {
				t.Errorf("key %q, hash %q; want fga_ + 40 characters, stored hashed", key, a.KeyHash)
			}
		})
	}
}

func TestAddRobot(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name, robot, fleet string
		code               string
		wantFleet          string
	}{
		{"default fleet", "alpha", "", "", w.fleet.ID},
		{"fleet by name", "beta", "second", "", w.second.ID},
		{"fleet by id", " gamma ", w.second.ID, "", w.second.ID},
		{"the same name twice is fine", "alpha", "", "", w.fleet.ID},
		{"empty name", "", "", fleetgate.EInvalid, ""},
		{"unknown fleet", "delta", "nowhere", fleetgate.ENotFound, ""},
		{"fleet of another org", "delta", w.otherFleet.ID, fleetgate.ENotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := w.g.AddRobot(w.ctx, tt.robot, tt.fleet)
			wantCode(t, "AddRobot", err, tt.code)
			if tt.code != "" {
				return
			}
			stored, err := w.db.Robot(w.ctx, r.ID)
			if err != nil || stored != r {
				t.Errorf("stored %+v, %v; want %+v", stored, err, r)
			}
			if r.Name != strings.TrimSpace(tt.robot) || r.FleetID != tt.wantFleet || r.OrgID != w.org.ID {
				t.Errorf("robot %+v, want %q in fleet %s of %s", r, strings.TrimSpace(tt.robot), tt.wantFleet, w.org.ID)
			}
		})
	}
}

func TestEnsureFleet(t *testing.T) {
	e := newEnv(t)
	north, created, err := e.g.EnsureFleet(e.ctx, "north")
	if err != nil || !created || north.Name != "north" || north.OrgID != e.org.ID {
		t.Fatalf("EnsureFleet(north) = %+v, %v, %v; want a new fleet", north, created, err)
	}
	if _, err := uuid.Parse(north.ID); err != nil {
		t.Errorf("new fleet id %q is not a UUID", north.ID)
	}
	tests := []struct {
		name  string
		fleet string
		want  fleetgate.Fleet
		code  string
	}{
		{"existing by name", "main", e.fleet, ""},
		{"existing by id", e.fleet.ID, e.fleet, ""},
		{"created before, by name", "north", north, ""},
		{"created before, with spaces", "  north ", north, ""},
		{"empty", "", fleetgate.Fleet{}, fleetgate.EInvalid},
		{"blank", "  ", fleetgate.Fleet{}, fleetgate.EInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, created, err := e.g.EnsureFleet(e.ctx, tt.fleet)
			wantCode(t, "EnsureFleet", err, tt.code)
			if f != tt.want || created {
				t.Errorf("EnsureFleet(%q) = %+v, created %v; want %+v, false", tt.fleet, f, created, tt.want)
			}
		})
	}
	fleets, err := e.db.Fleets(e.ctx, e.org.ID)
	if err != nil || len(fleets) != 2 || fleets[0] != e.fleet {
		t.Errorf("Fleets = %+v, %v; want main first, then north", fleets, err)
	}
}

func TestOperatorCallsBeforeBootstrap(t *testing.T) {
	e := newEmptyEnv(t)
	_, _, err := e.g.AddAgent(e.ctx, "dock", "")
	wantCode(t, "AddAgent", err, fleetgate.ENotFound)
	_, err = e.g.AddRobot(e.ctx, "alpha", "")
	wantCode(t, "AddRobot", err, fleetgate.ENotFound)
	_, created, err := e.g.EnsureFleet(e.ctx, "main")
	wantCode(t, "EnsureFleet", err, fleetgate.ENotFound)
	if created {
		t.Error("EnsureFleet created a fleet without an organization")
	}
	_, _, err = e.g.CreateAPIToken(e.ctx, gateway.CreateAPITokenInput{UserEmail: gateway.BootstrapAdminEmail})
	wantCode(t, "CreateAPIToken", err, fleetgate.ENotFound)
	_, err = e.g.AllRobots(e.ctx)
	wantCode(t, "AllRobots", err, fleetgate.ENotFound)
}

func TestAllRobots(t *testing.T) {
	online := presence{}
	w := newWorld(t, withPresence(online))
	online[w.r3.ID] = true
	list, err := w.g.AllRobots(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range list {
		got = append(got, l.Robot.Name+"@"+l.FleetName)
		if l.Online != (l.Robot.ID == w.r3.ID) {
			t.Errorf("%s online = %v", l.Robot.Name, l.Online)
		}
	}
	want := "r1@main r2@main r3@second" // not x1 of the other organization
	if strings.Join(got, " ") != want {
		t.Errorf("AllRobots = %v, want %s", got, want)
	}
}
