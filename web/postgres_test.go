package web_test

import (
	"net/http"
	"testing"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestPanelSessionsSharedByReplicasOnPostgres: two cloud gateways on one PostgreSQL
// database are replicas for the panel: a session opened on one is good on the other, and a
// logout on either ends it on both.
func TestPanelSessionsSharedByReplicasOnPostgres(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	one := openPanel(t, servertest.Database(url))
	two := openPanel(t, servertest.Database(url))
	one.setPassword(t, gateway.BootstrapAdminEmail, "admin password")

	b := one.browser(t)
	wantRedirect(t, "login on the first replica", b.loginPassword(gateway.BootstrapAdminEmail, "admin password"), "/")
	session := b.cookie("fleetgate_session")
	if session == "" {
		t.Fatal("no session cookie after login")
	}
	other := two.browser(t)
	other.setCookie("fleetgate_session", session)
	wantStatus(t, "the robots page on the second replica", other.get("/"), http.StatusOK)

	p := other.post("/logout", nil)
	if p.status != http.StatusSeeOther {
		t.Fatalf("logout on the second replica: status %d", p.status)
	}
	wantRedirect(t, "the first replica after logout", b.get("/"), "/login")
}
