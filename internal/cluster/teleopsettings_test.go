package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

func (d *drivenRobot) TeleopSettings(_ context.Context, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, req)
	if req.Role < fleetgate.RoleAdmin && req.Set != nil {
		return fleet.TeleopSettings{}, fleetgate.Errorf(fleetgate.EForbidden, "role %s may not change robot settings", req.Role)
	}
	out := fleet.TeleopSettings{Delays: fleetgate.TeleopDelays{Full: time.Second, Quarter: 2 * time.Second, Stop: 3 * time.Second}}
	if req.Set != nil {
		out = fleet.TeleopSettings{Delays: *req.Set, Custom: true}
		out.Delays.UpdatedBy = req.User + " via the cloud"
	}
	return out, nil
}

// TestTeleopSettingsThroughAnotherReplica: a replica that does not hold the robot's agent
// link reaches the agent's thresholds through the replica that does (the request, its user and
// role, the answer, the agent's refusal as the same kind), and a control taken through it
// knows the thresholds the agent's grant said.
func TestTeleopSettingsThroughAnotherReplica(t *testing.T) {
	_, b, robot, _ := drivenElsewhere(t)
	ctx := ctxFor(t, 10*time.Second)
	r, _ := b.node.Robot(idOne)
	rts, ok := fleet.As[fleet.RemoteTeleopSettings](r)
	if !ok {
		t.Fatal("a robot held elsewhere does not reach its agent's teleop settings")
	}
	own := fleetgate.TeleopDelays{Full: 100 * time.Millisecond, Quarter: 700 * time.Millisecond, Stop: 1500 * time.Millisecond}
	s, err := rts.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "boss@example.com", Role: fleetgate.RoleAdmin, Set: &own})
	if err != nil || !s.Custom || s.Delays.Quarter != own.Quarter || s.Delays.UpdatedBy != "boss@example.com via the cloud" {
		t.Fatalf("set through b: %+v, %v", s, err)
	}
	if _, err := rts.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "op@example.com", Role: fleetgate.RoleOperator, Set: &own}); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("an operator's set through b: %v, want the agent's EForbidden", err)
	}
	if s, err := rts.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "op@example.com", Role: fleetgate.RoleOperator, Reset: true}); err != nil || s.Custom {
		t.Errorf("a reset through b: %+v, %v", s, err)
	}
	robot.mu.Lock()
	asked := robot.asked
	robot.governed = fleet.GovernedBy(own)
	robot.mu.Unlock()
	if len(asked) != 3 || asked[0].User != "boss@example.com" || asked[0].Role != fleetgate.RoleAdmin || asked[1].Role != fleetgate.RoleOperator || !asked[2].Reset {
		t.Errorf("the agent was asked %+v", asked)
	}

	rd := r.(fleet.RemoteDriven)
	ctl, err := rd.TakeControl(ctx, driveKey, "op@example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Release()
	gc, ok := ctl.(fleet.GovernedControl)
	if !ok {
		t.Fatal("a control through another replica does not say its thresholds")
	}
	if d, said := gc.Delays(); !said || d.Full != own.Full || d.Quarter != own.Quarter || d.Stop != own.Stop {
		t.Errorf("the control through b is governed by %+v (said %v), want the agent's %+v", d, said, own)
	}
}
