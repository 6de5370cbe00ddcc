package gateway_test

import (
	"slices"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// world is two organizations, their robots, and one user per kind of access.
type world struct {
	*env
	r1, r2, r3 fleetgate.Robot // r1, r2 in fleet main; r3 in fleet "second"; all of org default
	x1         fleetgate.Robot // of organization "other"
	second     fleetgate.Fleet
	otherFleet fleetgate.Fleet

	callers map[string]*gateway.Caller
}

func newWorld(t *testing.T, opts ...envOption) *world {
	t.Helper()
	w := &world{env: newEnv(t, opts...), callers: map[string]*gateway.Caller{}}
	var err error
	w.second, _, err = w.g.EnsureFleet(w.ctx, "second")
	w.must(err)
	otherOrg, otherFleet := w.addOrg("other")
	w.otherFleet = otherFleet
	w.r1 = w.addRobot(w.fleet, "r1")
	w.r2 = w.addRobot(w.fleet, "r2")
	w.r3 = w.addRobot(w.second, "r3")
	w.x1 = w.addRobot(otherFleet, "x1")

	org := w.org.ID
	users := map[string]fleetgate.User{
		"operator":  w.addUser(org, "op@example.com", false, map[string]fleetgate.Role{w.r1.ID: fleetgate.RoleOperator}),
		"developer": w.addUser(org, "dev@example.com", false, map[string]fleetgate.Role{w.r1.ID: fleetgate.RoleDeveloper}),
		"admin":     w.addUser(org, "radmin@example.com", false, map[string]fleetgate.Role{w.r1.ID: fleetgate.RoleAdmin, w.r3.ID: fleetgate.RoleOperator}),
		"none":      w.addUser(org, "none@example.com", false, map[string]fleetgate.Role{w.r1.ID: fleetgate.RoleNone}),
		// An Operator membership on another organization's robot grants nothing.
		"stray":       w.addUser(org, "stray@example.com", false, map[string]fleetgate.Role{w.x1.ID: fleetgate.RoleOperator}),
		"other admin": w.addUser(otherOrg.ID, "boss@other.example", true, nil),
	}
	for name, u := range users {
		w.callers[name] = w.login(w.addToken(u, fleetgate.ScopeFull, ""))
	}
	w.callers["org admin"] = w.login(w.adminSecret)
	w.callers["fleet-restricted org admin"] = w.login(w.addToken(w.admin, fleetgate.ScopeFull, w.second.ID))
	w.callers["read-only org admin"] = w.login(w.addToken(w.admin, fleetgate.ScopeRead, ""))
	w.callers["read-only operator"] = w.login(w.addToken(users["operator"], fleetgate.ScopeRead, ""))
	w.callers["read-only none"] = w.login(w.addToken(users["none"], fleetgate.ScopeRead, ""))
	return w
}

func TestRobotVisibility(t *testing.T) {
	w := newWorld(t)
	all := []fleetgate.Robot{w.r1, w.r2, w.r3, w.x1}
	tests := []struct {
		caller  string
		visible []fleetgate.Robot
	}{
		{"org admin", []fleetgate.Robot{w.r1, w.r2, w.r3}},
		{"other admin", []fleetgate.Robot{w.x1}},
		{"operator", []fleetgate.Robot{w.r1}},
		{"developer", []fleetgate.Robot{w.r1}},
		{"admin", []fleetgate.Robot{w.r1, w.r3}},
		{"none", nil},
		{"stray", nil},
		{"fleet-restricted org admin", []fleetgate.Robot{w.r3}},
		{"read-only org admin", []fleetgate.Robot{w.r1, w.r2, w.r3}},
		{"read-only operator", []fleetgate.Robot{w.r1}},
		{"read-only none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.caller, func(t *testing.T) {
			c := w.callers[tt.caller]
			list, err := w.g.Robots(w.ctx, c)
			if err != nil {
				t.Fatalf("Robots: %v", err)
			}
			var got, want []string
			for _, r := range list {
				got = append(got, r.ID)
			}
			for _, r := range tt.visible {
				want = append(want, r.ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Robots lists %v, want %v", got, want)
			}
			for _, r := range all {
				_, err := w.g.Robot(w.ctx, c, r.ID)
				code := fleetgate.ENotFound // invisible: never EForbidden, existence is not revealed
				if slices.Contains(tt.visible, r) {
					code = ""
				}
				wantCode(t, "Robot("+r.Name+")", err, code)
			}
		})
	}
}

func TestRobotUnknownOrEmptyID(t *testing.T) {
	w := newWorld(t)
	for _, id := range []string{"", "no-such-robot"} {
		_, err := w.g.Robot(w.ctx, w.callers["org admin"], id)
		wantCode(t, "Robot("+id+")", err, fleetgate.ENotFound)
	}
}

func TestPostEventPermissions(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		caller string
		robot  fleetgate.Robot
		code   string
	}{
		{"org admin", w.r2, ""},
		{"operator", w.r1, ""},
		{"developer", w.r1, ""},
		{"admin", w.r1, ""},
		{"operator", w.r2, fleetgate.ENotFound},
		{"none", w.r1, fleetgate.ENotFound},
		{"other admin", w.r1, fleetgate.ENotFound},
		{"org admin", w.x1, fleetgate.ENotFound},
		{"fleet-restricted org admin", w.r3, ""},
		{"fleet-restricted org admin", w.r1, fleetgate.ENotFound},
		{"read-only org admin", w.r1, fleetgate.EForbidden},
		{"read-only operator", w.r1, fleetgate.EForbidden},
		{"read-only none", w.r1, fleetgate.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.caller+" on "+tt.robot.Name, func(t *testing.T) {
			c := w.callers[tt.caller]
			ev, err := w.g.PostEvent(w.ctx, c, gateway.PostEventInput{RobotID: tt.robot.ID, Message: "hello"})
			wantCode(t, "PostEvent", err, tt.code)
			if tt.code == "" && (ev.ID == 0 || ev.RobotID != tt.robot.ID || ev.UserID != c.User.ID) {
				t.Errorf("event = %+v", ev)
			}
		})
	}
	// The read-only callers may still view what they may not post to.
	for _, name := range []string{"read-only org admin", "read-only operator"} {
		if _, err := w.g.Robot(w.ctx, w.callers[name], w.r1.ID); err != nil {
			t.Errorf("%s viewing r1: %v", name, err)
		}
	}
}

func TestRobotDetails(t *testing.T) {
	online := presence{}
	w := newWorld(t, withPresence(online))
	online[w.r1.ID] = true

	d, err := w.g.Robot(w.ctx, w.callers["operator"], w.r1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Robot.ID != w.r1.ID || d.Robot.Name != "r1" || !d.Online {
		t.Errorf("robot %+v online %v; want r1, online", d.Robot, d.Online)
	}
	if d.FleetName != "main" || d.OrganizationName != "default" || d.LatestAgentVersion != "9.9.9" {
		t.Errorf("fleet %q, org %q, latest %q", d.FleetName, d.OrganizationName, d.LatestAgentVersion)
	}
	if !slices.Equal(d.OrgAdmins, []string{gateway.BootstrapAdminEmail}) {
		t.Errorf("OrgAdmins = %v, want [admin@localhost] (not the other organization's)", d.OrgAdmins)
	}
	var shared []string
	for _, m := range d.SharedUsers {
		shared = append(shared, m.UserEmail+"="+m.Role.String())
	}
	want := []string{"dev@example.com=Developer", "op@example.com=Operator", "radmin@example.com=Admin"}
	if !slices.Equal(shared, want) {
		t.Errorf("SharedUsers = %v, want %v (by email, role None absent)", shared, want)
	}

	list, err := w.g.Robots(w.ctx, w.callers["org admin"])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.Online != (r.ID == w.r1.ID) {
			t.Errorf("robot %s listed online=%v", r.Name, r.Online)
		}
	}
}

func TestRoleString(t *testing.T) {
	tests := []struct {
		role fleetgate.Role
		want string
	}{
		{fleetgate.RoleNone, "None"},
		{fleetgate.RoleOperator, "Operator"},
		{fleetgate.RoleDeveloper, "Developer"},
		{fleetgate.RoleAdmin, "Admin"},
		{fleetgate.Role(7), "None"},
	}
	for _, tt := range tests {
		if got := tt.role.String(); got != tt.want {
			t.Errorf("Role(%d).String() = %q, want %q", int(tt.role), got, tt.want)
		}
	}
}
