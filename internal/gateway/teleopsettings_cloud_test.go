package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// agentKept is a robot behind an agent as the cloud sees it: the agent keeps its thresholds
// (fleet.RemoteTeleopSettings), and records what it was asked.
type agentKept struct {
	*fleettest.Robot
	asked []fleet.TeleopSettingsRequest
	kept  fleet.TeleopSettings
}

func (a *agentKept) TeleopSettings(_ context.Context, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	a.asked = append(a.asked, req)
	if req.Set != nil {
		a.kept = fleet.TeleopSettings{Delays: *req.Set, Custom: true}
		a.kept.Delays.UpdatedBy = req.User + " via the cloud"
	}
	return a.kept, nil
}

// On the cloud, a robot behind an agent's thresholds are the agent's: the cloud checks the
// caller's role, then asks the agent with the caller's email and role (an operator reads, and
// is refused a change without the agent being asked); an offline robot's are out of reach.
func TestTheCloudAsksTheAgentForItsRobotsDelays(t *testing.T) {
	p := robotPresence{}
	e := newEnv(t, withPresence(p))
	agent, _, err := e.g.AddAgent(e.ctx, "dock-1", "main")
	e.must(err)
	r := e.addRobot(e.fleet, "amr-1")
	r.AgentID = agent.ID
	e.must(e.db.SaveLiveRobot(e.ctx, r))
	admin := e.login(e.adminSecret)
	op := e.login(e.addToken(e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleOperator}), fleetgate.ScopeFull, ""))

	if _, err := e.g.TeleopSettings(e.ctx, admin, r.ID); !fleetgate.Is(err, fleetgate.EOffline) || !strings.Contains(err.Error(), "kept by its agent") {
		t.Fatalf("offline: %v, want EOffline saying the agent keeps them", err)
	}
	at := &agentKept{Robot: &fleettest.Robot{ID: r.ID, Name: r.Name}}
	p[r.ID] = at
	own := gateway.DelayPolicy{Full: 100 * time.Millisecond, Quarter: 700 * time.Millisecond, Stop: 1500 * time.Millisecond}
	s, err := e.g.SetTeleopSettings(e.ctx, admin, r.ID, own)
	if err != nil || s.Delays != own || !s.Custom || s.UpdatedBy != gateway.BootstrapAdminEmail+" via the cloud" {
		t.Fatalf("set on the agent: %+v, %v", s, err)
	}
	if s, err := e.g.TeleopSettings(e.ctx, op, r.ID); err != nil || s.Delays != own {
		t.Fatalf("an operator reads %+v, %v", s, err)
	}
	if _, err := e.g.ResetTeleopSettings(e.ctx, op, r.ID); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("an operator resets: %v, want EForbidden", err)
	}
	if _, err := e.g.SetTeleopSettings(e.ctx, admin, r.ID, gateway.DelayPolicy{Full: time.Second, Quarter: 700 * time.Millisecond, Stop: 2 * time.Second}); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Errorf("out of order: %v, want EInvalid", err)
	}
	if len(at.asked) != 2 {
		t.Fatalf("the agent was asked %+v, want the set and the operator's read only", at.asked)
	}
	if set, read := at.asked[0], at.asked[1]; set.User != gateway.BootstrapAdminEmail || set.Role != fleetgate.RoleAdmin || set.Set == nil ||
		read.User != "op@example.com" || read.Role != fleetgate.RoleOperator || read.Set != nil || read.Reset {
		t.Errorf("the agent was asked %+v", at.asked)
	}
	// A robot whose host cannot be asked (an agent's robot seen through something else).
	p[r.ID] = &fleettest.Robot{ID: r.ID, Name: r.Name}
	if _, err := e.g.TeleopSettings(e.ctx, admin, r.ID); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Errorf("a host that cannot be asked: %v, want EConflict", err)
	}
}

// At the agent, a cloud user's request is held to the role the cloud found, as the agent's
// own routes hold its users: an operator reads, an admin changes; the change is the agent's
// event-log entry by "EMAIL via the cloud", apart from a local account of the same email.
func TestTheAgentChecksTheCloudUsersRole(t *testing.T) {
	e := newEnv(t, withTeleopDelay(flags))
	r := e.addRobot(e.fleet, "amr-1")
	own := fleetgate.TeleopDelays{Full: 100 * time.Millisecond, Quarter: 700 * time.Millisecond, Stop: 1500 * time.Millisecond}
	for _, refused := range []fleet.TeleopSettingsRequest{
		{User: "op@example.com", Role: fleetgate.RoleOperator, Set: &own},
		{User: "dev@example.com", Role: fleetgate.RoleDeveloper, Reset: true},
		{User: "nobody@example.com", Role: fleetgate.RoleNone},
		{Role: fleetgate.RoleAdmin, Set: &own},
	} {
		if _, err := e.g.TeleopSettingsForCloud(e.ctx, r.ID, refused); !fleetgate.Is(err, fleetgate.EForbidden) {
			t.Errorf("%+v: %v, want EForbidden", refused, err)
		}
	}
	if got := e.g.TeleopDelayPolicy(e.ctx, r.ID); got != flags {
		t.Fatalf("after refusals the door governs by %+v, want the flags", got)
	}
	s, err := e.g.TeleopSettingsForCloud(e.ctx, r.ID, fleet.TeleopSettingsRequest{User: "boss@example.com", Role: fleetgate.RoleAdmin, Set: &own})
	if err != nil || !s.Custom || s.Delays.Full != own.Full || s.Delays.Stop != own.Stop || s.Delays.UpdatedBy != "boss@example.com via the cloud" {
		t.Fatalf("an admin's set: %+v, %v", s, err)
	}
	if got := e.g.TeleopDelayPolicy(e.ctx, r.ID); got != (gateway.DelayPolicy{Full: own.Full, Quarter: own.Quarter, Stop: own.Stop}) {
		t.Errorf("the door governs by %+v", got)
	}
	bad := fleetgate.TeleopDelays{Full: time.Second, Quarter: 700 * time.Millisecond, Stop: 2 * time.Second}
	if _, err := e.g.TeleopSettingsForCloud(e.ctx, r.ID, fleet.TeleopSettingsRequest{User: "boss@example.com", Role: fleetgate.RoleAdmin, Set: &bad}); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Errorf("out of order at the agent: %v, want EInvalid", err)
	}
	if s, err := e.g.TeleopSettingsForCloud(e.ctx, r.ID, fleet.TeleopSettingsRequest{User: "op@example.com", Role: fleetgate.RoleOperator}); err != nil || !s.Custom {
		t.Errorf("an operator's read: %+v, %v", s, err)
	}
	events, err := e.db.Events(e.ctx, fleetgate.EventFilter{RobotID: r.ID, Limit: 10})
	e.must(err)
	if len(events) != 1 || events[0].AuthorEmail != "boss@example.com via the cloud" ||
		!strings.HasPrefix(events[0].Message, "teleop delays set by boss@example.com via the cloud") {
		t.Errorf("the agent's event log: %+v, want one entry by boss@example.com via the cloud", events)
	}
}
