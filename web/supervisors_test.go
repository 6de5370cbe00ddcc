package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// fleetSupervisors is a SupervisorService whose users supervise the robots listed.
type fleetSupervisors struct{ supervised map[string]bool }

func (f fleetSupervisors) MayOverride(_ context.Context, _ *gateway.Caller, robotID string) (bool, error) {
	return f.supervised[robotID], nil
}
func (fleetSupervisors) Supervisors(context.Context, *gateway.Caller, string) ([]fleetgate.Supervisor, error) {
	return nil, nil
}
func (fleetSupervisors) GrantSupervisor(context.Context, *gateway.Caller, string, string) (fleetgate.Supervisor, error) {
	return fleetgate.Supervisor{}, nil
}
func (fleetSupervisors) RevokeSupervisor(context.Context, *gateway.Caller, string, string) error {
	return nil
}

// The operate page offers an operator who supervises the robot's fleet to take over, as it
// does an organization admin, and nobody else.
func TestTheOperatePageOffersASupervisorToTakeOver(t *testing.T) {
	cmdVel := fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceROS1}
	driven := func(id string) pageRobot {
		return pageRobot{details: fleetgate.RobotDetails{Robot: fleetgate.Robot{ID: id, Name: "rover-" + id, FleetID: "f1"}, Online: true},
			role: fleetgate.RoleOperator, state: fleetgate.RobotState{Online: true}, streams: []fleetgate.Stream{cmdVel}}
	}
	core := &pageCore{robots: map[string]pageRobot{"r1": driven("r1"), "r2": driven("r2")}}
	op := &gateway.Caller{User: fleetgate.User{ID: "u1", Email: "op@example.com", HasPassword: true}, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}
	admin := &gateway.Caller{User: fleetgate.User{ID: "u2", Email: "admin@example.com", OrgAdmin: true, HasPassword: true}, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}
	withSupervisors := func(c *Config) { c.Supervisors = fleetSupervisors{supervised: map[string]bool{"r1": true}} }
	for _, tc := range []struct {
		name   string
		caller *gateway.Caller
		robot  string
		offers bool
	}{
		{"a supervisor of the robot's fleet", op, "r1", true},
		{"an operator of another fleet's robot", op, "r2", false},
		{"an organization admin", admin, "r2", true},
	} {
		rec := httptest.NewRecorder()
		robotPage(core, tc.caller, withSupervisors).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/robots/"+tc.robot, nil))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `id="op-drive"`) {
			t.Fatalf("%s: %d, no drive part", tc.name, rec.Code)
		}
		if offers := strings.Contains(rec.Body.String(), `data-supervisor="1"`); offers != tc.offers {
			t.Errorf("%s: the page offers to take over: %v, want %v", tc.name, offers, tc.offers)
		}
	}
}
