package gateway_test

import (
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// TestRobotPresenceIsRecorded checks the fleet.Tracker side of the core: a robot that
// connects gets a record in its fleet (and organization), and its last time seen follows.
func TestRobotPresenceIsRecorded(t *testing.T) {
	e := newEnv(t)
	info := fleet.Info{ID: "7f8c8f53-5a55-4d0e-a0c4-1c8b1b4a2f10", Name: "sim-1", ConfigName: "warehouse-sim", ConfigVersion: "1", AgentVersion: "0.3.0"}
	at := e.clock.Now()
	if err := e.g.RobotOnline(e.ctx, info, e.fleet.ID, at); err != nil {
		t.Fatal(err)
	}
	r, err := e.db.Robot(e.ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "sim-1" || r.FleetID != e.fleet.ID || r.OrgID != e.org.ID || r.ConfigName != "warehouse-sim" ||
		r.AgentVersion != "0.3.0" || !r.LastSeen.Equal(at) || !r.CreatedAt.Equal(at) {
		t.Errorf("record after connect: %+v", r)
	}

	later := at.Add(90 * time.Second)
	if err := e.g.RobotSeen(e.ctx, info.ID, later); err != nil {
		t.Fatal(err)
	}
	// A reconnect with a new name and agent version refreshes the record and keeps its birth.
	info.Name, info.AgentVersion = "sim-1b", "0.4.0"
	if err := e.g.RobotOnline(e.ctx, info, e.fleet.ID, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	r, _ = e.db.Robot(e.ctx, info.ID)
	if r.Name != "sim-1b" || r.AgentVersion != "0.4.0" || !r.CreatedAt.Equal(at) || !r.LastSeen.Equal(later.Add(time.Minute)) {
		t.Errorf("record after reconnect: %+v", r)
	}

	if err := e.g.RobotOnline(e.ctx, info, "no-such-fleet", at); gateway.ErrorCode(err) != gateway.ENotFound {
		t.Errorf("unknown fleet: %v, want not_found", err)
	}
	if err := e.g.RobotSeen(e.ctx, "no-such-robot", at); gateway.ErrorCode(err) != gateway.ENotFound {
		t.Errorf("unknown robot seen: %v, want not_found", err)
	}
}
