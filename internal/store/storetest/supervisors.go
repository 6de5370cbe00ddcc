package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// testSupervisors: a grant is per fleet and user (another fleet's robots are not supervised),
// listed with the user's email and who granted it when; granting again keeps the first grant;
// revoking ends it (ENotFound for none).
func testSupervisors(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	at := time.Now().UTC().Truncate(time.Millisecond)
	other := fleetgate.Fleet{ID: "fleet-other", OrgID: f.org.ID, Name: "other"}
	must(t, db.CreateFleet(ctx, other))
	bob := fleetgate.User{ID: "user-bob", OrgID: f.org.ID, Email: "bob@example.com"}
	must(t, db.CreateUser(ctx, bob))

	if ok, err := db.Supervises(ctx, bob.ID, f.fleet.ID); err != nil || ok {
		t.Fatalf("before any grant: %v, %v", ok, err)
	}
	grant := fleetgate.Supervisor{FleetID: f.fleet.ID, UserID: bob.ID, GrantedBy: f.admin.Email, GrantedAt: at}
	must(t, db.GrantSupervisor(ctx, grant))
	must(t, db.GrantSupervisor(ctx, fleetgate.Supervisor{FleetID: f.fleet.ID, UserID: bob.ID, GrantedBy: "later@example.com", GrantedAt: at.Add(time.Hour)}))
	if ok, err := db.Supervises(ctx, bob.ID, f.fleet.ID); err != nil || !ok {
		t.Errorf("after the grant: %v, %v", ok, err)
	}
	if ok, err := db.Supervises(ctx, bob.ID, other.ID); err != nil || ok {
		t.Errorf("another fleet: %v, %v", ok, err)
	}
	list, err := db.Supervisors(ctx, f.fleet.ID)
	must(t, err)
	want := grant
	want.UserEmail = bob.Email
	if len(list) != 1 || list[0] != want {
		t.Errorf("supervisors = %+v, want the first grant %+v", list, want)
	}
	wantCode(t, "a grant to an unknown user", db.GrantSupervisor(ctx, fleetgate.Supervisor{FleetID: f.fleet.ID, UserID: "nobody", GrantedAt: at}), fleetgate.EInternal)

	must(t, db.RevokeSupervisor(ctx, f.fleet.ID, bob.ID))
	wantCode(t, "a grant revoked twice", db.RevokeSupervisor(ctx, f.fleet.ID, bob.ID), fleetgate.ENotFound)
	if ok, _ := db.Supervises(ctx, bob.ID, f.fleet.ID); ok {
		t.Error("a revoked grant still supervises")
	}
	if list, err := db.Supervisors(ctx, f.fleet.ID); err != nil || len(list) != 0 {
		t.Errorf("after the revoke: %+v, %v", list, err)
	}
}
