package gateway_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store"
	"github.com/google/uuid"
)

// presence is a Presence with a fixed set of online robots.
type presence map[string]bool

func (p presence) Online(id string) bool { return p[id] }

func (p presence) Robot(string) (fleet.Robot, bool) { return nil, false }

// env is a gateway over a real SQLite store in t.TempDir(), bootstrapped unless said
// otherwise, with a clock starting on a whole millisecond (the store keeps milliseconds).
type env struct {
	t     *testing.T
	ctx   context.Context
	db    *store.DB
	g     *gateway.Gateway
	clock *clocktest.Fake // Config.Now and the door's clock: tests move it by hand

	org         fleetgate.Organization
	fleet       fleetgate.Fleet // the bootstrap fleet, "main"
	admin       fleetgate.User  // admin@localhost, org admin
	adminSecret string          // the admin's bootstrap API token
}

type envOption func(*gateway.Config)

func withPresence(p gateway.Presence) envOption { return func(c *gateway.Config) { c.Presence = p } }
func withTTL(d time.Duration) envOption         { return func(c *gateway.Config) { c.BearerTTL = d } }

// newEmptyEnv opens a store that has not been bootstrapped.
func newEmptyEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fleetgate.db"))
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	c := clocktest.NewAt(time.Date(2025, 4, 5, 6, 7, 8, 0, time.UTC))
	cfg := gateway.Config{Store: db, Now: c.Now, LatestAgentVersion: "9.9.9", Door: door.New(door.Config{Clock: c})}
	for _, o := range opts {
		o(&cfg)
	}
	return &env{t: t, ctx: ctx, db: db, g: gateway.New(cfg), clock: c}
}

// newEnv opens a bootstrapped store: organization "default" with fleet "main".
func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	e := newEmptyEnv(t, opts...)
	secret, created, err := e.g.Bootstrap(e.ctx, gateway.BootstrapOptions{FleetName: "main"})
	if err != nil || !created {
		t.Fatalf("Bootstrap = %v, %v", created, err)
	}
	e.adminSecret = secret
	if e.org, err = e.db.DefaultOrganization(e.ctx); err != nil {
		t.Fatal(err)
	}
	if e.fleet, err = e.db.FleetByName(e.ctx, e.org.ID, "main"); err != nil {
		t.Fatal(err)
	}
	if e.admin, err = e.db.UserByEmail(e.ctx, gateway.BootstrapAdminEmail); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// addOrg creates another organization with one fleet.
func (e *env) addOrg(name string) (fleetgate.Organization, fleetgate.Fleet) {
	e.t.Helper()
	org := fleetgate.Organization{ID: uuid.NewString(), Name: name}
	fleet := fleetgate.Fleet{ID: uuid.NewString(), OrgID: org.ID, Name: "main"}
	e.must(e.db.CreateOrganization(e.ctx, org))
	e.must(e.db.CreateFleet(e.ctx, fleet))
	return org, fleet
}

func (e *env) addRobot(fleet fleetgate.Fleet, name string) fleetgate.Robot {
	e.t.Helper()
	r := fleetgate.Robot{ID: uuid.NewString(), OrgID: fleet.OrgID, FleetID: fleet.ID, Name: name, CreatedAt: e.clock.Now()}
	e.must(e.db.CreateRobot(e.ctx, r))
	return r
}

// addUser creates a user of orgID with roles on robots.
func (e *env) addUser(orgID, email string, orgAdmin bool, roles map[string]fleetgate.Role) fleetgate.User {
	e.t.Helper()
	u := fleetgate.User{ID: uuid.NewString(), OrgID: orgID, Email: email, OrgAdmin: orgAdmin}
	e.must(e.db.CreateUser(e.ctx, u))
	for robotID, role := range roles {
		e.must(e.db.SetMembership(e.ctx, fleetgate.Membership{RobotID: robotID, UserID: u.ID, Role: role}))
	}
	return u
}

// addToken stores an API token for u directly (CreateAPIToken only knows the default org).
func (e *env) addToken(u fleetgate.User, scope, fleetID string) string {
	e.t.Helper()
	secret := gateway.NewAPIToken()
	e.must(e.db.CreateAPIToken(e.ctx, fleetgate.APIToken{
		ID: uuid.NewString(), UserID: u.ID, Scope: scope, FleetID: fleetID,
		Hash: gateway.HashSecret(secret), CreatedAt: e.clock.Now(),
	}))
	return secret
}

// login exchanges an API token for a caller the way a request does: Login, then Authenticate.
func (e *env) login(apiToken string) *gateway.Caller {
	e.t.Helper()
	bearer, _, err := e.g.Login(e.ctx, apiToken, "192.0.2.1")
	if err != nil {
		e.t.Fatalf("Login: %v", err)
	}
	c, err := e.g.Authenticate(e.ctx, bearer)
	if err != nil {
		e.t.Fatalf("Authenticate: %v", err)
	}
	return c
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := fleetgate.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}
