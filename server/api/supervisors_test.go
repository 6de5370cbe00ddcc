package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
)

// A supervisor of the robot's fleet takes control from its holder as an organization admin
// does (the holder's zero first, told who); before the grant and after its revoke the same
// operator is 403. Only an organization admin grants, lists and revokes; each grant and revoke
// is an entry in the robot's event log.
func TestAFleetSupervisorTakesControl(t *testing.T) {
	a := newLiveAgent(t)
	ann, ben := a.operator(t, "ann@example.com"), a.operator(t, "ben@example.com")
	r, err := a.Store.Robot(context.Background(), a.robot)
	if err != nil {
		t.Fatal(err)
	}
	supervisors := "/apigateway/v2/fleets/" + r.FleetID + "/supervisors"
	holder := a.dialAs(t, ann, handoverQuery+"answer")
	sendText(t, holder, `{"linear":{"x":0.4}}`)
	waitPublished(t, a.bot, 1)
	a.refused(t, a.url(handoverQuery+"override"), http.Header{"Authorization": {"bearer " + ben}}, 403)

	if resp := a.Do("PUT", supervisors+"/ben@example.com", ben, ""); resp.Status != http.StatusForbidden {
		t.Fatalf("an operator grants: %d %s, want 403", resp.Status, resp.Body)
	}
	if resp := a.Do("PUT", supervisors+"/nobody@example.com", a.admin, ""); resp.Status != http.StatusNotFound {
		t.Fatalf("a grant to an unknown user: %d %s, want 404", resp.Status, resp.Body)
	}
	if resp := a.Do("PUT", supervisors+"/ben@example.com", a.admin, ""); resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"grantedBy":"admin@localhost"`) {
		t.Fatalf("the admin's grant: %d %s", resp.Status, resp.Body)
	}
	if resp := a.Do("GET", supervisors, a.admin, ""); resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"email":"ben@example.com"`) {
		t.Fatalf("the list: %d %s", resp.Status, resp.Body)
	}

	n := len(a.bot.Published())
	boss := a.dialAs(t, ben, handoverQuery+"override")
	closedWith(t, holder, websocket.StatusPolicyViolation, "taken by ben@example.com (supervisor override)")
	if p := waitPublished(t, a.bot, n+1); !isZeroTwist(twistOf(t, p[n])) {
		t.Fatalf("the override published %v first, want the holder's zero", twistOf(t, p[n]))
	}
	sendText(t, boss, `{"linear":{"x":-0.1}}`)
	if p := waitPublished(t, a.bot, n+2); twistOf(t, p[n+1]).GetLinear().GetX() != -0.1 {
		t.Fatalf("the supervisor's command arrived as %v", twistOf(t, p[n+1]))
	}
	boss.Close(websocket.StatusNormalClosure, "")

	if resp := a.Do("DELETE", supervisors+"/ben@example.com", a.admin, ""); resp.Status != http.StatusNoContent {
		t.Fatalf("the revoke: %d %s", resp.Status, resp.Body)
	}
	if resp := a.Do("DELETE", supervisors+"/ben@example.com", a.admin, ""); resp.Status != http.StatusNotFound {
		t.Fatalf("a second revoke: %d %s, want 404", resp.Status, resp.Body)
	}
	again := a.dialAs(t, ann, handoverQuery+"answer")
	sendText(t, again, `{"linear":{"x":0.3}}`)
	a.refused(t, a.url(handoverQuery+"override"), http.Header{"Authorization": {"bearer " + ben}}, 403)

	events, err := a.Store.Events(context.Background(), fleetgate.EventFilter{RobotID: a.robot, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var grant, revoke bool
	for _, e := range events {
		grant = grant || strings.HasPrefix(e.Message, "ben@example.com made a supervisor of fleet") && e.AuthorEmail == "admin@localhost"
		revoke = revoke || strings.HasPrefix(e.Message, "ben@example.com is no longer a supervisor of fleet")
	}
	if !grant || !revoke {
		t.Errorf("the robot's event log has the grant %v and the revoke %v: %+v", grant, revoke, events)
	}
}
