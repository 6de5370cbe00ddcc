package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// TestRemoveStaleRobotsFromTheAdminPage: the admin page marks the robots not online for 30
// days and offers to remove them; a member (even a robot's Admin) is refused 403, an
// organization admin removes exactly those, and an audit line says who did.
func TestRemoveStaleRobotsFromTheAdminPage(t *testing.T) {
	s := openPanel(t)
	ctx := context.Background()
	org, fl := s.DefaultOrg()
	now := time.Now()
	robot := func(name string, created, seen time.Time) fleetgate.Robot {
		r := fleetgate.Robot{ID: uuid.NewString(), OrgID: org.ID, FleetID: fl.ID, Name: name, CreatedAt: created, LastSeen: seen}
		if err := s.Store.CreateRobot(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	old, recent := now.Add(-40*24*time.Hour), now.Add(-2*24*time.Hour)
	gone := robot("gone-for-good", old, old)
	neverCame := robot("never-came", old, time.Time{})
	resting := robot("resting", old, recent)
	fresh := robot("just-recorded", recent, time.Time{})

	member := s.AddUser(org.ID, "op@example.com", false, map[string]fleetgate.Role{gone.ID: fleetgate.RoleAdmin})
	s.setPassword(t, member.Email, "password of op")
	s.setPassword(t, gateway.BootstrapAdminEmail, "password of admin")
	op, admin := s.browser(t), s.browser(t)
	wantRedirect(t, "member login", op.loginPassword(member.Email, "password of op"), "/")
	wantRedirect(t, "admin login", admin.loginPassword(gateway.BootstrapAdminEmail, "password of admin"), "/")

	page := admin.get("/admin")
	wantStatus(t, "admin page", page, http.StatusOK)
	wantBody(t, "admin page", page, `action="/admin/robots/remove-stale"`, "2 robots were not online for 30 days")
	if n := strings.Count(page.body, `data-stale="true"`); n != 2 {
		t.Errorf("%d robots marked stale, want 2", n)
	}

	wantStatus(t, "a member removes stale robots", op.post("/admin/robots/remove-stale", url.Values{}), http.StatusForbidden)
	for _, r := range []fleetgate.Robot{gone, neverCame, resting, fresh} {
		if _, err := s.Store.Robot(ctx, r.ID); err != nil {
			t.Fatalf("after the member's try, %s: %v", r.Name, err)
		}
	}

	after := admin.submit("/admin/robots/remove-stale", url.Values{})
	wantStatus(t, "after the removal", after, http.StatusOK)
	if strings.Contains(after.body, `action="/admin/robots/remove-stale"`) || strings.Contains(after.body, `data-stale="true"`) {
		t.Error("the admin page still offers stale robots after their removal")
	}
	for _, c := range []struct {
		robot fleetgate.Robot
		gone  bool
	}{{gone, true}, {neverCame, true}, {resting, false}, {fresh, false}} {
		_, err := s.Store.Robot(ctx, c.robot.ID)
		if removed := fleetgate.ErrorCode(err) == fleetgate.ENotFound; removed != c.gone {
			t.Errorf("%s: removed %v, want %v", c.robot.Name, removed, c.gone)
		}
	}
	for _, r := range []fleetgate.Robot{gone, neverCame} {
		found := false
		for _, l := range strings.Split(s.Logs(), "\n") {
			found = found || strings.Contains(l, "robot record removed") && strings.Contains(l, "robot="+r.ID) && strings.Contains(l, "by=admin@localhost")
		}
		if !found {
			t.Errorf("no audit line for %s", r.Name)
		}
	}
}
