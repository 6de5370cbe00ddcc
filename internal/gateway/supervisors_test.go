package gateway_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
)

// Only an organization admin with a token that may act grants, lists and revokes a fleet's
// supervisors, of its own organization's fleets and users; a grant and a revoke are entries
// in the event log of each robot of that fleet only, and granting again writes none.
func TestFleetSupervisorsAreTheAdminsToGrant(t *testing.T) {
	e := newEnv(t)
	admin := e.login(e.adminSecret)
	one := e.addRobot(e.fleet, "one")
	fleetB := fleetgate.Fleet{ID: uuid.NewString(), OrgID: e.org.ID, Name: "fleet-b"}
	e.must(e.db.CreateFleet(e.ctx, fleetB))
	elsewhere := e.addRobot(fleetB, "elsewhere")
	e.addUser(e.org.ID, "bob@example.com", false, nil)
	op := e.login(e.addToken(e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{one.ID: fleetgate.RoleAdmin}), fleetgate.ScopeFull, ""))
	kiosk := e.login(e.addToken(e.admin, fleetgate.ScopeRead, ""))
	otherOrg, otherFleet := e.addOrg("other")
	e.addUser(otherOrg.ID, "stranger@example.com", false, nil)

	if _, err := e.g.GrantSupervisor(e.ctx, op, e.fleet.ID, "bob@example.com"); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("a robot admin grants: %v, want EForbidden", err)
	}
	if _, err := e.g.GrantSupervisor(e.ctx, kiosk, e.fleet.ID, "bob@example.com"); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("a read-only token grants: %v, want EForbidden", err)
	}
	if _, err := e.g.GrantSupervisor(e.ctx, admin, otherFleet.ID, "bob@example.com"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("another organization's fleet: %v, want ENotFound", err)
	}
	if _, err := e.g.GrantSupervisor(e.ctx, admin, e.fleet.ID, "stranger@example.com"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("another organization's user: %v, want ENotFound", err)
	}
	s, err := e.g.GrantSupervisor(e.ctx, admin, e.fleet.ID, " bob@example.com ")
	if err != nil || s.UserEmail != "bob@example.com" || s.GrantedBy != admin.User.Email {
		t.Fatalf("the admin's grant: %+v, %v", s, err)
	}
	if _, err := e.g.GrantSupervisor(e.ctx, admin, e.fleet.ID, "bob@example.com"); err != nil {
		t.Fatalf("granted again: %v", err)
	}
	if list, err := e.g.Supervisors(e.ctx, admin, e.fleet.ID); err != nil || len(list) != 1 || list[0].UserEmail != "bob@example.com" {
		t.Errorf("the list: %+v, %v", list, err)
	}
	if _, err := e.g.Supervisors(e.ctx, op, e.fleet.ID); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("a robot admin lists: %v, want EForbidden", err)
	}
	e.must(e.g.RevokeSupervisor(e.ctx, admin, e.fleet.ID, "bob@example.com"))
	if err := e.g.RevokeSupervisor(e.ctx, admin, e.fleet.ID, "bob@example.com"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("revoked twice: %v, want ENotFound", err)
	}

	events, err := e.db.Events(e.ctx, fleetgate.EventFilter{RobotID: one.ID, Limit: 10})
	e.must(err)
	var words []string
	for _, ev := range events {
		words = append(words, ev.Message)
		if ev.Type != fleetgate.EventTeleop || ev.AuthorEmail != admin.User.Email || ev.FleetID != e.fleet.ID {
			t.Errorf("entry %+v", ev)
		}
	}
	if len(words) != 2 || !strings.Contains(strings.Join(words, "|"), "bob@example.com made a supervisor of fleet") ||
		!strings.Contains(strings.Join(words, "|"), "bob@example.com is no longer a supervisor") {
		t.Errorf("robot one's log: %q, want the grant (once) and the revoke", words)
	}
	if others, err := e.db.Events(e.ctx, fleetgate.EventFilter{RobotID: elsewhere.ID, Limit: 10}); err != nil || len(others) != 0 {
		t.Errorf("another fleet's robot's log: %+v, %v", others, err)
	}
}
