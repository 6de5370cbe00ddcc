package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// testTeleopDelays: a robot's own governor thresholds round-trip to the millisecond, a second
// set replaces the first, clearing returns the robot to the gateway's (ENotFound), and they go
// with the robot.
func testTeleopDelays(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	at := time.Now().UTC().Truncate(time.Millisecond)
	r := fleetgate.Robot{ID: "robot-td", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "slow one", CreatedAt: at}
	must(t, db.CreateRobot(ctx, r))

	_, err := db.TeleopDelays(ctx, r.ID)
	wantCode(t, "a robot that follows the gateway", err, fleetgate.ENotFound)
	first := fleetgate.TeleopDelays{RobotID: r.ID, Full: 100 * time.Millisecond, Quarter: 600 * time.Millisecond, Stop: 1500 * time.Millisecond,
		UpdatedBy: "admin@localhost", UpdatedAt: at}
	must(t, db.SetTeleopDelays(ctx, first))
	got, err := db.TeleopDelays(ctx, r.ID)
	must(t, err)
	if got != first {
		t.Errorf("delays = %+v, want %+v", got, first)
	}
	second := fleetgate.TeleopDelays{RobotID: r.ID, Full: 400 * time.Millisecond, Quarter: 3 * time.Second, Stop: 5 * time.Second,
		UpdatedBy: "other@localhost", UpdatedAt: at.Add(time.Second)}
	must(t, db.SetTeleopDelays(ctx, second))
	if got, err = db.TeleopDelays(ctx, r.ID); err != nil || got != second {
		t.Errorf("delays after a second set = %+v, %v; want %+v", got, err, second)
	}
	wantCode(t, "delays of an unknown robot", db.SetTeleopDelays(ctx, fleetgate.TeleopDelays{RobotID: "nope", Full: 1, Quarter: 2, Stop: 3, UpdatedAt: at}), fleetgate.EInternal)

	must(t, db.ClearTeleopDelays(ctx, r.ID))
	_, err = db.TeleopDelays(ctx, r.ID)
	wantCode(t, "cleared delays", err, fleetgate.ENotFound)
	must(t, db.ClearTeleopDelays(ctx, r.ID))

	must(t, db.SetTeleopDelays(ctx, first))
	must(t, db.DeleteRobot(ctx, r.ID))
	_, err = db.TeleopDelays(ctx, r.ID)
	wantCode(t, "the delays of a removed robot", err, fleetgate.ENotFound)
}
