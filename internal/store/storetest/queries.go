package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store"
)

// fixture is a bootstrapped store's first records.
type fixture struct {
	org   fleetgate.Organization
	fleet fleetgate.Fleet
	admin fleetgate.User
	token fleetgate.APIToken
}

func bootstrap(t *testing.T, db *store.DB) fixture {
	t.Helper()
	f := fixture{
		org:   fleetgate.Organization{ID: "org-1", Name: "default"},
		fleet: fleetgate.Fleet{ID: "fleet-1", OrgID: "org-1", Name: "main"},
		admin: fleetgate.User{ID: "user-admin", OrgID: "org-1", Email: "admin@localhost", Name: "Administrator", OrgAdmin: true},
	}
	f.token = fleetgate.APIToken{ID: "tok-1", UserID: f.admin.ID, Name: "bootstrap", Scope: fleetgate.ScopeFull,
		Hash: gateway.HashSecret("secret-1"), CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := db.Bootstrap(context.Background(), f.org, f.fleet, f.admin, f.token); err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := fleetgate.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

func count(t *testing.T, db *store.DB, table string) int {
	t.Helper()
	var n int
	must(t, db.QueryRow(context.Background(), `SELECT COUNT(*) FROM `+table).Scan(&n))
	return n
}

func testBootstrap(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.DefaultOrganization(ctx); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Fatalf("DefaultOrganization on an empty store: %v, want not_found", err)
	}
	f := bootstrap(t, db)

	org, err := db.DefaultOrganization(ctx)
	if err != nil || org != f.org {
		t.Errorf("DefaultOrganization = %+v, %v; want %+v", org, err, f.org)
	}
	fleets, err := db.Fleets(ctx, f.org.ID)
	if err != nil || len(fleets) != 1 || fleets[0] != f.fleet {
		t.Errorf("Fleets = %+v, %v; want [%+v]", fleets, err, f.fleet)
	}
	admins, err := db.OrgAdmins(ctx, f.org.ID)
	if err != nil || len(admins) != 1 || admins[0] != f.admin {
		t.Errorf("OrgAdmins = %+v, %v; want [%+v]", admins, err, f.admin)
	}
	tok, err := db.APITokenByHash(ctx, f.token.Hash)
	if err != nil || tok != f.token {
		t.Errorf("APITokenByHash = %+v, %v; want %+v", tok, err, f.token)
	}

	again := f
	again.org = fleetgate.Organization{ID: "org-2", Name: "other"}
	err = db.Bootstrap(ctx, again.org, fleetgate.Fleet{ID: "fleet-2", Name: "x"},
		fleetgate.User{ID: "u-2", Email: "b@localhost"}, fleetgate.APIToken{ID: "tok-2", UserID: "u-2", Scope: fleetgate.ScopeFull, Hash: "h2", CreatedAt: time.Now()})
	wantCode(t, "second Bootstrap", err, fleetgate.EConflict)
	if n := count(t, db, "organizations"); n != 1 {
		t.Errorf("%d organizations after a refused Bootstrap, want 1", n)
	}
}

func testBootstrapIsAllOrNothing(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	org := fleetgate.Organization{ID: "org-1", Name: "default"}
	fleet := fleetgate.Fleet{ID: "fleet-1", OrgID: org.ID, Name: "main"}
	admin := fleetgate.User{ID: "u-1", OrgID: org.ID, Email: "admin@localhost", OrgAdmin: true}
	// The token is the last insert; its scope violates a CHECK constraint.
	bad := fleetgate.APIToken{ID: "tok-1", UserID: admin.ID, Scope: "everything", Hash: "h", CreatedAt: time.Now()}
	if err := db.Bootstrap(ctx, org, fleet, admin, bad); err == nil {
		t.Fatal("Bootstrap with an invalid token succeeded")
	}
	for _, table := range []string{"organizations", "fleets", "users", "api_tokens"} {
		if n := count(t, db, table); n != 0 {
			t.Errorf("%s has %d rows after a failed Bootstrap, want 0", table, n)
		}
	}
	// And a correct one still works afterwards.
	good := bad
	good.Scope = fleetgate.ScopeFull
	must(t, db.Bootstrap(ctx, org, fleet, admin, good))
}

func testDefaultOrganizationIsTheFirstCreatedEvenWithinAMillisecond(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	var created int64
	must(t, db.QueryRow(context.Background(), `SELECT created_at FROM organizations WHERE id = ?`, f.org.ID).Scan(&created))
	// Same millisecond, an id that sorts first.
	if _, err := db.Exec(context.Background(), `INSERT INTO organizations (id, name, created_at) VALUES ('0000', 'later', ?)`, created); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(context.Background(), `INSERT INTO fleets (id, org_id, name, created_at) VALUES ('0000', ?, 'aaa-later', ?)`, f.org.ID, created); err != nil {
		t.Fatal(err)
	}
	org, err := db.DefaultOrganization(ctx)
	if err != nil || org.ID != f.org.ID {
		t.Errorf("DefaultOrganization = %+v, %v; want the bootstrap organization %q", org, err, f.org.ID)
	}
	fleets, err := db.Fleets(ctx, f.org.ID)
	if err != nil || len(fleets) != 2 || fleets[0].ID != f.fleet.ID {
		t.Errorf("Fleets = %+v, %v; want the bootstrap fleet first", fleets, err)
	}
}

func testNotFound(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	tests := []struct {
		name string
		call func() error
	}{
		{"Organization", func() error { _, err := db.Organization(ctx, "nope"); return err }},
		{"Fleet", func() error { _, err := db.Fleet(ctx, "nope"); return err }},
		{"FleetByName", func() error { _, err := db.FleetByName(ctx, f.org.ID, "nope"); return err }},
		{"FleetByName of another org", func() error { _, err := db.FleetByName(ctx, "org-x", f.fleet.Name); return err }},
		{"User", func() error { _, err := db.User(ctx, "nope"); return err }},
		{"UserByEmail", func() error { _, err := db.UserByEmail(ctx, "nobody@localhost"); return err }},
		{"Robot", func() error { _, err := db.Robot(ctx, "nope"); return err }},
		{"APITokenByHash", func() error { _, err := db.APITokenByHash(ctx, "nope"); return err }},
		{"BearerToken", func() error { _, _, err := db.BearerToken(ctx, "nope"); return err }},
		{"RevokeAPIToken", func() error { return db.RevokeAPIToken(ctx, "nope", time.Now()) }},
		{"CreateAgent in an unknown fleet", func() error {
			return db.CreateAgent(ctx, fleetgate.Agent{ID: "a", Name: "a", FleetID: "nope", KeyHash: "k", CreatedAt: time.Now()})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, tt.name, tt.call(), fleetgate.ENotFound)
		})
	}
	if n := count(t, db, "agents"); n != 0 {
		t.Errorf("%d agents stored, want 0", n)
	}
}

func testUniqueViolationIsConflict(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	now := time.Now()
	robot := fleetgate.Robot{ID: "r-1", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "atlas", CreatedAt: now}
	must(t, db.CreateRobot(ctx, robot))
	must(t, db.CreateAgent(ctx, fleetgate.Agent{ID: "ag-1", Name: "dock", FleetID: f.fleet.ID, KeyHash: "k1", CreatedAt: now}))
	must(t, db.CreateBearerToken(ctx, fleetgate.BearerToken{Hash: "b1", APITokenID: f.token.ID, ExpiresAt: now.Add(time.Hour), CreatedAt: now}))

	tests := []struct {
		name string
		call func() error
	}{
		{"organization name", func() error {
			return db.CreateOrganization(ctx, fleetgate.Organization{ID: "org-2", Name: f.org.Name})
		}},
		{"fleet name in one org", func() error {
			return db.CreateFleet(ctx, fleetgate.Fleet{ID: "fleet-2", OrgID: f.org.ID, Name: f.fleet.Name})
		}},
		{"fleet id", func() error {
			return db.CreateFleet(ctx, fleetgate.Fleet{ID: f.fleet.ID, OrgID: f.org.ID, Name: "other"})
		}},
		{"user email in another case", func() error {
			return db.CreateUser(ctx, fleetgate.User{ID: "u-2", OrgID: f.org.ID, Email: "ADMIN@localhost"})
		}},
		{"robot id", func() error { return db.CreateRobot(ctx, robot) }},
		{"API token hash", func() error {
			return db.CreateAPIToken(ctx, fleetgate.APIToken{ID: "tok-2", UserID: f.admin.ID, Scope: fleetgate.ScopeRead, Hash: f.token.Hash, CreatedAt: now})
		}},
		{"bearer token hash", func() error {
			return db.CreateBearerToken(ctx, fleetgate.BearerToken{Hash: "b1", APITokenID: f.token.ID, ExpiresAt: now, CreatedAt: now})
		}},
		{"agent name", func() error {
			return db.CreateAgent(ctx, fleetgate.Agent{ID: "ag-2", Name: "dock", FleetID: f.fleet.ID, KeyHash: "k2", CreatedAt: now})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, tt.name, tt.call(), fleetgate.EConflict)
		})
	}
}

func testForeignKeysAreEnforced(t *testing.T, open Opener) {
	db := open(t)
	f := bootstrap(t, db)
	err := db.CreateRobot(context.Background(), fleetgate.Robot{ID: "r", OrgID: f.org.ID, FleetID: "no-such-fleet", Name: "x", CreatedAt: time.Now()})
	if err == nil {
		t.Fatal("a robot in an unknown fleet was stored")
	}
}

func testTimesRoundTrip(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	zone := time.FixedZone("UTC+2", 2*3600)
	at := time.Date(2025, 6, 7, 10, 11, 12, 123_456_789, zone)
	want := time.Date(2025, 6, 7, 8, 11, 12, 123_000_000, time.UTC)
	checkTime := func(t *testing.T, what string, got time.Time) {
		t.Helper()
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s = %v, want %v (milliseconds, UTC)", what, got, want)
		}
	}
	checkZero := func(t *testing.T, what string, got time.Time) {
		t.Helper()
		if !got.IsZero() {
			t.Errorf("%s = %v, want zero", what, got)
		}
	}
	checkNull := func(t *testing.T, query string, args ...any) {
		t.Helper()
		var isNull bool
		must(t, db.QueryRow(context.Background(), query, args...).Scan(&isNull))
		if !isNull {
			t.Errorf("%s: not NULL", query)
		}
	}

	t.Run("robot", func(t *testing.T) {
		seen := fleetgate.Robot{ID: "seen", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "a", LastSeen: at, CreatedAt: at}
		never := fleetgate.Robot{ID: "never", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "b", CreatedAt: at}
		must(t, db.CreateRobot(ctx, seen))
		must(t, db.CreateRobot(ctx, never))
		r, err := db.Robot(ctx, seen.ID)
		must(t, err)
		checkTime(t, "LastSeen", r.LastSeen)
		checkTime(t, "CreatedAt", r.CreatedAt)
		r, err = db.Robot(ctx, never.ID)
		must(t, err)
		checkZero(t, "LastSeen of a robot never seen", r.LastSeen)
		checkNull(t, `SELECT last_seen IS NULL FROM robots WHERE id = ?`, never.ID)
	})
	t.Run("API token", func(t *testing.T) {
		tok := fleetgate.APIToken{ID: "tok-t", UserID: f.admin.ID, Scope: fleetgate.ScopeFull, Hash: "h-t", CreatedAt: at}
		must(t, db.CreateAPIToken(ctx, tok))
		got, err := db.APITokenByHash(ctx, tok.Hash)
		must(t, err)
		checkTime(t, "CreatedAt", got.CreatedAt)
		checkZero(t, "LastUsedAt", got.LastUsedAt)
		checkZero(t, "RevokedAt", got.RevokedAt)
		checkNull(t, `SELECT last_used_at IS NULL AND revoked_at IS NULL AND fleet_id IS NULL FROM api_tokens WHERE id = ?`, tok.ID)

		must(t, db.TouchAPIToken(ctx, tok.ID, at))
		must(t, db.RevokeAPIToken(ctx, tok.ID, at))
		got, err = db.APITokenByHash(ctx, tok.Hash)
		must(t, err)
		checkTime(t, "LastUsedAt", got.LastUsedAt)
		checkTime(t, "RevokedAt", got.RevokedAt)
	})
	t.Run("bearer token", func(t *testing.T) {
		must(t, db.CreateBearerToken(ctx, fleetgate.BearerToken{Hash: "b-t", APITokenID: f.token.ID, ExpiresAt: at, CreatedAt: at}))
		bt, tok, err := db.BearerToken(ctx, "b-t")
		must(t, err)
		checkTime(t, "ExpiresAt", bt.ExpiresAt)
		checkTime(t, "CreatedAt", bt.CreatedAt)
		if tok != f.token {
			t.Errorf("API token of the bearer token = %+v, want %+v", tok, f.token)
		}
	})
	t.Run("event", func(t *testing.T) {
		e := fleetgate.Event{RobotID: "seen", AuthorEmail: "a@b", Message: "m", CreatedAt: at}
		must(t, db.CreateEvent(ctx, &e))
		events, err := db.Events(ctx, fleetgate.EventFilter{RobotID: "seen", Limit: 1})
		must(t, err)
		if len(events) != 1 {
			t.Fatalf("%d events, want 1", len(events))
		}
		checkTime(t, "CreatedAt", events[0].CreatedAt)
	})
}

func testRevokeAPITokenDeletesItsBearerTokens(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	now := time.Now()
	other := fleetgate.APIToken{ID: "tok-2", UserID: f.admin.ID, Scope: fleetgate.ScopeRead, Hash: "h-2", CreatedAt: now}
	must(t, db.CreateAPIToken(ctx, other))
	for _, b := range []fleetgate.BearerToken{
		{Hash: "b-1a", APITokenID: f.token.ID, ExpiresAt: now.Add(time.Hour), CreatedAt: now},
		{Hash: "b-1b", APITokenID: f.token.ID, ExpiresAt: now.Add(time.Hour), CreatedAt: now},
		{Hash: "b-2", APITokenID: other.ID, ExpiresAt: now.Add(time.Hour), CreatedAt: now},
	} {
		must(t, db.CreateBearerToken(ctx, b))
	}

	revokedAt := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	must(t, db.RevokeAPIToken(ctx, f.token.ID, revokedAt))
	for _, h := range []string{"b-1a", "b-1b"} {
		_, _, err := db.BearerToken(ctx, h)
		wantCode(t, "bearer token "+h+" of the revoked token", err, fleetgate.ENotFound)
	}
	if _, _, err := db.BearerToken(ctx, "b-2"); err != nil {
		t.Errorf("bearer token of another API token: %v", err)
	}
	tok, err := db.APITokenByHash(ctx, f.token.Hash)
	must(t, err)
	if !tok.RevokedAt.Equal(revokedAt) {
		t.Errorf("RevokedAt = %v, want %v", tok.RevokedAt, revokedAt)
	}

	// Revoking again keeps the first time.
	must(t, db.RevokeAPIToken(ctx, f.token.ID, revokedAt.Add(time.Hour)))
	tok, err = db.APITokenByHash(ctx, f.token.Hash)
	must(t, err)
	if !tok.RevokedAt.Equal(revokedAt) {
		t.Errorf("RevokedAt after a second revoke = %v, want %v", tok.RevokedAt, revokedAt)
	}
}

func testDeleteExpiredBearerTokens(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for name, exp := range map[string]time.Time{
		"past": now.Add(-time.Minute), "now": now, "future": now.Add(time.Minute),
	} {
		must(t, db.CreateBearerToken(ctx, fleetgate.BearerToken{Hash: name, APITokenID: f.token.ID, ExpiresAt: exp, CreatedAt: now.Add(-time.Hour)}))
	}
	n, err := db.DeleteExpiredBearerTokens(ctx, now)
	must(t, err)
	if n != 2 {
		t.Errorf("deleted %d, want 2 (expired before or at now)", n)
	}
	if _, _, err := db.BearerToken(ctx, "future"); err != nil {
		t.Errorf("unexpired token deleted: %v", err)
	}
}

func testAPITokens(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	kiosk := fleetgate.APIToken{ID: "tok-k", UserID: f.admin.ID, Name: "kiosk", Scope: fleetgate.ScopeRead,
		FleetID: f.fleet.ID, Hash: "h-k", CreatedAt: f.token.CreatedAt.Add(time.Second)}
	must(t, db.CreateAPIToken(ctx, kiosk))
	toks, err := db.APITokens(ctx, f.admin.ID)
	must(t, err)
	if len(toks) != 2 || toks[0] != f.token || toks[1] != kiosk {
		t.Errorf("APITokens = %+v, want [%+v %+v]", toks, f.token, kiosk)
	}
	if toks, err := db.APITokens(ctx, "nobody"); err != nil || len(toks) != 0 {
		t.Errorf("APITokens of nobody = %v, %v", toks, err)
	}
}

func testMemberships(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	now := time.Now()
	must(t, db.CreateRobot(ctx, fleetgate.Robot{ID: "r-1", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "a", CreatedAt: now}))
	must(t, db.CreateRobot(ctx, fleetgate.Robot{ID: "r-2", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "b", CreatedAt: now}))
	must(t, db.CreateUser(ctx, fleetgate.User{ID: "u-op", OrgID: f.org.ID, Email: "op@localhost"}))
	must(t, db.CreateUser(ctx, fleetgate.User{ID: "u-dev", OrgID: f.org.ID, Email: "dev@localhost"}))

	must(t, db.SetMembership(ctx, fleetgate.Membership{RobotID: "r-1", UserID: "u-op", Role: fleetgate.RoleOperator}))
	must(t, db.SetMembership(ctx, fleetgate.Membership{RobotID: "r-2", UserID: "u-op", Role: fleetgate.RoleAdmin}))
	must(t, db.SetMembership(ctx, fleetgate.Membership{RobotID: "r-1", UserID: "u-dev", Role: fleetgate.RoleOperator}))
	must(t, db.SetMembership(ctx, fleetgate.Membership{RobotID: "r-1", UserID: "u-dev", Role: fleetgate.RoleDeveloper})) // update

	roles, err := db.UserRoles(ctx, "u-op")
	must(t, err)
	if len(roles) != 2 || roles["r-1"] != fleetgate.RoleOperator || roles["r-2"] != fleetgate.RoleAdmin {
		t.Errorf("UserRoles(u-op) = %v", roles)
	}
	members, err := db.RobotMembers(ctx, "r-1")
	must(t, err)
	want := []fleetgate.Membership{
		{RobotID: "r-1", UserID: "u-dev", UserEmail: "dev@localhost", Role: fleetgate.RoleDeveloper},
		{RobotID: "r-1", UserID: "u-op", UserEmail: "op@localhost", Role: fleetgate.RoleOperator},
	}
	if !slices.Equal(members, want) {
		t.Errorf("RobotMembers(r-1) = %+v, want %+v", members, want)
	}

	// Role None removes the membership.
	must(t, db.SetMembership(ctx, fleetgate.Membership{RobotID: "r-1", UserID: "u-op", Role: fleetgate.RoleNone}))
	roles, err = db.UserRoles(ctx, "u-op")
	must(t, err)
	if _, ok := roles["r-1"]; ok || len(roles) != 1 {
		t.Errorf("UserRoles after setting None = %v, want only r-2", roles)
	}
	if err := db.SetMembership(ctx, fleetgate.Membership{RobotID: "r-1", UserID: "u-op", Role: 4}); err == nil {
		t.Error("role 4 was stored")
	}
}

func testUserByEmailIgnoresCase(t *testing.T, open Opener) {
	db := open(t)
	f := bootstrap(t, db)
	u, err := db.UserByEmail(context.Background(), "Admin@LOCALHOST")
	if err != nil || u != f.admin {
		t.Errorf("UserByEmail = %+v, %v; want %+v", u, err, f.admin)
	}
}

func testRobotsOfAnOrganization(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	must(t, db.CreateOrganization(ctx, fleetgate.Organization{ID: "org-2", Name: "other"}))
	must(t, db.CreateFleet(ctx, fleetgate.Fleet{ID: "fleet-2", OrgID: "org-2", Name: "main"})) // same name, other org
	now := time.Now()
	for _, r := range []fleetgate.Robot{
		{ID: "r-b", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "beta", CreatedAt: now},
		{ID: "r-a", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "alpha", ConfigName: "cfg", ConfigVersion: "3", AgentVersion: "1.2.0", CreatedAt: now},
		{ID: "r-x", OrgID: "org-2", FleetID: "fleet-2", Name: "aardvark", CreatedAt: now},
	} {
		must(t, db.CreateRobot(ctx, r))
	}
	robots, err := db.Robots(ctx, f.org.ID)
	must(t, err)
	var names []string
	for _, r := range robots {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"alpha", "beta"}) {
		t.Errorf("Robots = %v, want [alpha beta] (by name, this organization only)", names)
	}
	if r := robots[0]; r.ConfigName != "cfg" || r.ConfigVersion != "3" || r.AgentVersion != "1.2.0" {
		t.Errorf("robot fields lost: %+v", r)
	}
	fl, err := db.FleetByName(ctx, "org-2", "main")
	if err != nil || fl.ID != "fleet-2" {
		t.Errorf("FleetByName(org-2, main) = %+v, %v; want fleet-2", fl, err)
	}
}

func testEvents(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	base := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	var ids []int64
	for i, robot := range []string{"r-1", "r-2", "r-1", "r-2", "r-1"} {
		e := fleetgate.Event{RobotID: robot, AuthorEmail: "a@b", Message: robot, CreatedAt: base.Add(time.Duration(i) * time.Second)}
		if i == 0 {
			e.FleetID, e.UserID = "fleet-1", "user-1"
		}
		must(t, db.CreateEvent(ctx, &e))
		ids = append(ids, e.ID)
	}
	tests := []struct {
		name    string
		robotID string
		limit   int
		want    []int64
	}{
		{"one robot, newest first", "r-1", 10, []int64{ids[4], ids[2], ids[0]}},
		{"one robot, limited", "r-1", 2, []int64{ids[4], ids[2]}},
		{"every robot", "", 10, []int64{ids[4], ids[3], ids[2], ids[1], ids[0]}},
		{"every robot, limited", "", 1, []int64{ids[4]}},
		{"unknown robot", "r-9", 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, err := db.Events(ctx, fleetgate.EventFilter{RobotID: tt.robotID, Limit: tt.limit})
			must(t, err)
			var got []int64
			for _, e := range events {
				got = append(got, e.ID)
				if tt.robotID != "" && e.RobotID != tt.robotID {
					t.Errorf("event %d of robot %q in the list of %q", e.ID, e.RobotID, tt.robotID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ids = %v, want %v", got, tt.want)
			}
		})
	}
	events, err := db.Events(ctx, fleetgate.EventFilter{RobotID: "r-1", Limit: 10})
	must(t, err)
	first := events[len(events)-1]
	want := fleetgate.Event{ID: ids[0], RobotID: "r-1", FleetID: "fleet-1", UserID: "user-1", AuthorEmail: "a@b", Message: "r-1", CreatedAt: base,
		Type: fleetgate.EventNote, Severity: fleetgate.SeverityInfo}
	if first != want {
		t.Errorf("first event = %+v, want %+v", first, want)
	}
	if events[0].FleetID != "" || events[0].UserID != "" {
		t.Errorf("empty fleet and user came back as %q, %q", events[0].FleetID, events[0].UserID)
	}
}
