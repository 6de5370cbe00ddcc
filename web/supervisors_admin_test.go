package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// The admin page's fleet supervisors: the admin makes the operator a supervisor of the fleet
// (listed with who granted it), a mistake is said on the page, and the revoke ends it; the
// operator's page then offers to take over, and an operator may not post there.
func TestAdminGrantsAndRevokesFleetSupervisors(t *testing.T) {
	a := openLiveAgent(t)
	admin := a.as(t, "admin")
	op := a.as(t, "operator")
	fleet := url.Values{"fleet": {fleetgate.LocalFleetID}}
	with := func(email string) url.Values {
		v := url.Values{"email": {email}}
		for k, vs := range fleet {
			v[k] = vs
		}
		return v
	}
	if p := op.post("/admin/supervisors", with("operator@example.com")); p.status != http.StatusForbidden {
		t.Errorf("an operator granting: %d", p.status)
	}
	wantBody(t, "an unknown user", admin.submit("/admin/supervisors", with("nobody@example.com")), `user &#34;nobody@example.com&#34; not found`)
	row := "<td>operator@example.com</td><td>" + gateway.BootstrapAdminEmail + "</td>" // the supervisor's, by whom
	granted := admin.submit("/admin/supervisors", with("operator@example.com"))
	wantBody(t, "the grant", granted, `data-supervisors="`+fleetgate.LocalFleetID+`"`, row)
	wantBody(t, "the supervisor's operate page", op.get("/robots/"+a.robot), `data-supervisor="1"`)
	if revoked := admin.submit("/admin/supervisors/revoke", with("operator@example.com")); strings.Contains(revoked.body, row) {
		t.Error("a revoked supervisor is still listed")
	}
	if strings.Contains(op.get("/robots/"+a.robot).body, `data-supervisor="1"`) {
		t.Error("the operate page still offers a revoked supervisor to take over")
	}
}
