package gateway_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store"
)

func TestOpenKPIView(t *testing.T) {
	w := newWorld(t)
	ids := func(rs ...fleetgate.Robot) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		caller string
		fleet  string
		all    bool
		robots []string // when !all
		code   string
	}{
		{caller: "org admin", fleet: w.fleet.ID, all: true},
		{caller: "org admin", fleet: w.second.ID, all: true},
		{caller: "org admin", fleet: w.otherFleet.ID, code: fleetgate.ENotFound},
		{caller: "org admin", fleet: uuid.NewString(), code: fleetgate.ENotFound},
		{caller: "org admin", fleet: "", code: fleetgate.ENotFound},
		{caller: "read-only org admin", fleet: w.fleet.ID, all: true}, // kiosks watch
		{caller: "fleet-restricted org admin", fleet: w.second.ID, all: true},
		{caller: "fleet-restricted org admin", fleet: w.fleet.ID, code: fleetgate.ENotFound},
		{caller: "operator", fleet: w.fleet.ID, robots: ids(w.r1)},
		{caller: "read-only operator", fleet: w.fleet.ID, robots: ids(w.r1)},
		{caller: "admin", fleet: w.fleet.ID, robots: ids(w.r1, w.r3)}, // the hub keeps the fleet's own
		{caller: "none", fleet: w.fleet.ID, robots: ids()},
		{caller: "other admin", fleet: w.otherFleet.ID, all: true},
		{caller: "other admin", fleet: w.fleet.ID, code: fleetgate.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.caller+" "+tt.fleet, func(t *testing.T) {
			v, err := w.g.OpenKPIView(w.ctx, w.callers[tt.caller], tt.fleet)
			if tt.code != "" {
				wantCode(t, "OpenKPIView", err, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.FleetID != tt.fleet || v.All != tt.all || (!tt.all && !slices.Equal(v.RobotIDs, tt.robots)) {
				t.Errorf("view %+v, want fleet %s all %v robots %v", v, tt.fleet, tt.all, tt.robots)
			}
		})
	}
}

func TestRefreshKPIView(t *testing.T) {
	w := newWorld(t)
	u := w.addUser(w.org.ID, "kiosk@example.com", false, map[string]fleetgate.Role{w.r1.ID: fleetgate.RoleOperator})
	secret := gateway.NewAPIToken()
	tok := fleetgate.APIToken{ID: uuid.NewString(), UserID: u.ID, Scope: fleetgate.ScopeRead, Hash: gateway.HashSecret(secret), CreatedAt: w.clock.Now()}
	w.must(w.db.CreateAPIToken(w.ctx, tok))
	bearer, _, err := w.g.Login(w.ctx, secret, "192.0.2.1")
	w.must(err)

	v, err := w.g.RefreshKPIView(w.ctx, bearer, w.fleet.ID)
	if err != nil || v.All || !slices.Equal(v.RobotIDs, []string{w.r1.ID}) {
		t.Fatalf("view %+v, %v; want r1", v, err)
	}
	// A membership added while the socket is open shows in the next check.
	w.must(w.db.SetMembership(w.ctx, fleetgate.Membership{RobotID: w.r2.ID, UserID: u.ID, Role: fleetgate.RoleOperator}))
	v, err = w.g.RefreshKPIView(w.ctx, bearer, w.fleet.ID)
	if want := []string{w.r1.ID, w.r2.ID}; err != nil || !slices.Equal(v.RobotIDs, sorted(want)) {
		t.Errorf("view %+v, %v; want r1 and r2", v, err)
	}
	_, err = w.g.RefreshKPIView(w.ctx, "fgb_unknown", w.fleet.ID)
	wantCode(t, "unknown bearer", err, fleetgate.EUnauthorized)

	w.must(w.db.RevokeAPIToken(w.ctx, tok.ID, w.clock.Now()))
	_, err = w.g.RefreshKPIView(w.ctx, bearer, w.fleet.ID)
	wantCode(t, "revoked", err, fleetgate.EUnauthorized)

	admin, _, err := w.g.Login(w.ctx, w.adminSecret, "192.0.2.1")
	w.must(err)
	if v, err := w.g.RefreshKPIView(w.ctx, admin, w.fleet.ID); err != nil || !v.All {
		t.Errorf("admin view %+v, %v", v, err)
	}
	w.clock.Advance(2 * time.Hour)
	_, err = w.g.RefreshKPIView(w.ctx, admin, w.fleet.ID)
	wantCode(t, "expired", err, fleetgate.EUnauthorized)
}

// TestKPISource is the core as the KPI hub asks it: the hub ends a token's subscriptions on
// EUnauthorized alone, and applies the view it gets to every frame.
func TestKPISource(t *testing.T) {
	p := livePresence{}
	w := newWorld(t, withPresence(p))
	p[w.r1.ID] = &fleettest.Robot{ID: w.r1.ID, Name: w.r1.Name}
	src := w.g.KPISource()

	robots, err := src.OnlineRobots(w.ctx, w.fleet.ID)
	if err != nil || len(robots) != 1 || robots[0].ID != w.r1.ID || robots[0].Name != w.r1.Name || robots[0].Live != fleet.Robot(p[w.r1.ID]) {
		t.Fatalf("online robots %+v, %v; want r1 alone", robots, err)
	}
	_, err = src.OnlineRobots(w.ctx, uuid.NewString())
	wantCode(t, "unknown fleet", err, fleetgate.ENotFound)

	u := w.addUser(w.org.ID, "wall@example.com", false, map[string]fleetgate.Role{w.r2.ID: fleetgate.RoleOperator})
	secret := gateway.NewAPIToken()
	w.must(w.db.CreateAPIToken(w.ctx, fleetgate.APIToken{ID: uuid.NewString(), UserID: u.ID, Scope: fleetgate.ScopeRead,
		Hash: gateway.HashSecret(secret), CreatedAt: w.clock.Now()}))
	bearer, _, err := w.g.Login(w.ctx, secret, "192.0.2.1")
	w.must(err)
	v, err := src.Recheck(w.ctx, bearer, w.fleet.ID)
	if err != nil || v.All || !slices.Equal(v.Robots, []string{w.r2.ID}) {
		t.Errorf("view %+v, %v; want r2 alone", v, err)
	}
	admin, _, err := w.g.Login(w.ctx, w.adminSecret, "192.0.2.1")
	w.must(err)
	if v, err := src.Recheck(w.ctx, admin, w.fleet.ID); err != nil || !v.All {
		t.Errorf("admin view %+v, %v; want all", v, err)
	}
	_, err = src.Recheck(w.ctx, "fgb_unknown", w.fleet.ID)
	wantCode(t, "unknown bearer", err, fleetgate.EUnauthorized)
}

func sorted(s []string) []string { slices.Sort(s); return s }

func TestOnlineFleetRobots(t *testing.T) {
	p := livePresence{}
	w := newWorld(t, withPresence(p))
	r2b := w.addRobot(w.fleet, "a-first-by-name")
	for _, r := range []fleetgate.Robot{w.r1, r2b, w.r3, w.x1} {
		p[r.ID] = &fleettest.Robot{ID: r.ID, Name: r.Name}
	}
	tests := []struct {
		fleet string
		want  []fleetgate.Robot
	}{
		{w.fleet.ID, []fleetgate.Robot{r2b, w.r1}}, // r2 is offline
		{w.second.ID, []fleetgate.Robot{w.r3}},
		{w.otherFleet.ID, []fleetgate.Robot{w.x1}},
	}
	for _, tt := range tests {
		got, err := w.g.OnlineFleetRobots(w.ctx, tt.fleet)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("fleet %s: %d robots, want %d", tt.fleet, len(got), len(tt.want))
		}
		for i, r := range tt.want {
			if got[i].ID != r.ID || got[i].Name != r.Name || got[i].Live != fleet.Robot(p[r.ID]) {
				t.Errorf("fleet %s robot %d: %+v, want %s %s", tt.fleet, i, got[i], r.ID, r.Name)
			}
		}
	}
	_, err := w.g.OnlineFleetRobots(w.ctx, uuid.NewString())
	wantCode(t, "unknown fleet", err, fleetgate.ENotFound)
}

func TestVisibleFleets(t *testing.T) {
	w := newWorld(t)
	type row struct {
		name   string
		robots int
	}
	tests := []struct {
		caller string
		want   []row
	}{
		{"org admin", []row{{"main", 2}, {"second", 1}}},
		{"read-only org admin", []row{{"main", 2}, {"second", 1}}},
		{"fleet-restricted org admin", []row{{"second", 1}}},
		{"operator", []row{{"main", 1}, {"second", 0}}},
		{"admin", []row{{"main", 1}, {"second", 1}}},
		{"none", []row{{"main", 0}, {"second", 0}}},
		{"stray", []row{{"main", 0}, {"second", 0}}},
		{"other admin", []row{{"main", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.caller, func(t *testing.T) {
			fleets, err := w.g.VisibleFleets(w.ctx, w.callers[tt.caller])
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for _, f := range fleets {
				got = append(got, row{f.Name, f.Robots})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("fleets %+v, want %+v", got, tt.want)
			}
		})
	}
}

// BenchmarkRefreshKPIView is the cost of one KPI socket token re-check (the hub runs one per
// distinct token and fleet each second): an org admin's, and a member's (one more query).
func BenchmarkRefreshKPIView(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "fleetgate.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	g := gateway.New(gateway.Config{Store: db})
	admin, _, err := g.Bootstrap(ctx, gateway.BootstrapOptions{FleetName: "main"})
	if err != nil {
		b.Fatal(err)
	}
	fleets, err := g.Fleets(ctx)
	if err != nil {
		b.Fatal(err)
	}
	f := fleets[0]
	r := fleetgate.Robot{ID: uuid.NewString(), OrgID: f.OrgID, FleetID: f.ID, Name: "r1", CreatedAt: time.Now()}
	member := fleetgate.User{ID: uuid.NewString(), OrgID: f.OrgID, Email: "op@example.com"}
	memberToken := gateway.NewAPIToken()
	for _, err := range []error{
		db.CreateRobot(ctx, r),
		db.CreateUser(ctx, member),
		db.SetMembership(ctx, fleetgate.Membership{RobotID: r.ID, UserID: member.ID, Role: fleetgate.RoleOperator}),
		db.CreateAPIToken(ctx, fleetgate.APIToken{ID: uuid.NewString(), UserID: member.ID, Scope: fleetgate.ScopeFull,
			Hash: gateway.HashSecret(memberToken), CreatedAt: time.Now()}),
	} {
		if err != nil {
			b.Fatal(err)
		}
	}
	for name, secret := range map[string]string{"org admin": admin, "member": memberToken} {
		b.Run(name, func(b *testing.B) {
			bearer, _, err := g.Login(ctx, secret, "192.0.2.1")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := g.RefreshKPIView(ctx, bearer, f.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
