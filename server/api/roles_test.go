package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/google/uuid"
)

// TestRoleMatrix: every role (and token scope) x every robot route of both conventions x the
// caller's own robot, another organization's robot and a robot that does not exist, against
// the contract and DESIGN section 4: a robot the caller may not see is 404 whatever the route
// (never reveal existence), a role too low on a robot the caller sees is 403, and a read-only
// (kiosk) token reads but never acts (no input, upload, event or download).
func TestRoleMatrix(t *testing.T) {
	w := newRobotWorld(t)
	org, _ := w.DefaultOrg()
	member := w.AddUser(org.ID, "member@example.com", false, nil) // no role on any robot
	robotAdmin := w.AddUser(org.ID, "robot-admin@example.com", false, map[string]fleetgate.Role{w.robot.ID: fleetgate.RoleAdmin})
	callers := []struct {
		name   string
		bearer string
		// role is what the caller may do on its own robot; 0: it does not see it.
		role fleetgate.Role
		read bool // a read-only token: reads only
		// foreign is a robot of another organization than the caller's.
		foreign string
	}{
		{"no role", w.bearerFor(member.ID, "", ""), fleetgate.RoleNone, false, ""},
		{"operator", w.operator, fleetgate.RoleOperator, false, ""},
		{"developer", w.developer, fleetgate.RoleDeveloper, false, ""},
		{"robot admin", w.bearerFor(robotAdmin.ID, "", ""), fleetgate.RoleAdmin, false, ""},
		{"org admin", w.admin, fleetgate.RoleAdmin, false, ""},
		{"org admin, read-only (kiosk) token", w.kiosk, fleetgate.RoleAdmin, true, ""},
		{"org admin, token of another fleet", w.fleetBound, fleetgate.RoleNone, false, ""},
		// The other organization's admin: w.robot is the robot of another organization.
		{"admin of another organization", w.otherAdmin, fleetgate.RoleNone, false, w.robot.ID},
	}
	for i := range callers {
		if callers[i].foreign == "" {
			callers[i].foreign = w.otherRobot.ID
		}
	}
	// minRole is what a route needs on a robot; acts marks what a read-only token may not do.
	twist := `{"linear":{"x":0.1}}`
	upload := func(second bool) string {
		if second {
			return `{"componentname":"base","streamname":"cmd_vel","source":"1","datatype":"` + twistType + `","streamjson":` + twist + `}`
		}
		return uploadBody(map[string]any{"componentName": "base", "streamName": "cmd_vel", "source": "1", "dataType": twistType, "streamJson": twist})
	}
	read := "?componentName=base&streamName=pose&source=1&streamType=" + url.QueryEscape(poseType)
	routes := []struct {
		name, method, path, body string // path with {robot} for the robot's id
		minRole                  fleetgate.Role
		acts                     bool
	}{
		{"3 robot details", "GET", "/apigateway/v2/robots/{robot}", "", fleetgate.RoleOperator, false},
		{"4 resources", "GET", "/apigateway/v2/robots/{robot}/resources", "", fleetgate.RoleOperator, false},
		{"5 download link", "GET", "/apigateway/v2/robots/{robot}/resource/" + w.logID + "/download", "", fleetgate.RoleOperator, true},
		{"6 streams", "GET", "/apigateway/v2/robots/{robot}/streams", "", fleetgate.RoleOperator, false},
		{"7 stream read", "GET", "/apigateway/v2/robots/{robot}/stream" + read, "", fleetgate.RoleOperator, false},
		{"9 upload-stream", "POST", "/apigateway/v2/robots/{robot}/upload-stream", upload(false), fleetgate.RoleDeveloper, true},
		{"11 metric", "GET", "/apigateway/v2/robots/{robot}/metric/1", "", fleetgate.RoleOperator, false},
		{"10 metric list", "GET", "/apigateway/v2/robots/metrics?robotId={robot}", "", fleetgate.RoleOperator, false},
		{"12 event", "POST", "/apigateway/v2/events/log?robotId={robot}&message=matrix", "", fleetgate.RoleOperator, true},
		{"controls (extension)", "GET", "/apigateway/v2/robots/{robot}/controls", "", fleetgate.RoleOperator, false},
		{"teleop settings (extension)", "GET", "/apigateway/v2/robots/{robot}/teleop-settings", "", fleetgate.RoleOperator, false},
		{"set teleop settings (extension)", "PUT", "/apigateway/v2/robots/{robot}/teleop-settings", `{"delayFullMs":200,"delayQuarterMs":900,"delayStopMs":1800}`, fleetgate.RoleAdmin, true},
		{"reset teleop settings (extension)", "DELETE", "/apigateway/v2/robots/{robot}/teleop-settings", "", fleetgate.RoleAdmin, true},
		{"S2 robot", "GET", "/apigateway/robot/{robot}", "", fleetgate.RoleOperator, false},
		{"S3 resources", "GET", "/apigateway/robot/{robot}/resources", "", fleetgate.RoleOperator, false},
		{"S4 download link", "GET", "/apigateway/robot/{robot}/resource/" + w.logID + "/download", "", fleetgate.RoleOperator, true},
		{"S5 streams", "GET", "/apigateway/robot/{robot}/streams", "", fleetgate.RoleOperator, false},
		{"S6 stream read", "GET", "/apigateway/robot/{robot}/stream" + read, "", fleetgate.RoleOperator, false},
		{"S8 upload-stream", "POST", "/apigateway/robot/{robot}/streams/upload-stream", upload(true), fleetgate.RoleDeveloper, true},
		{"S10 metric", "GET", "/apigateway/robot/{robot}/metric/1", "", fleetgate.RoleOperator, false},
	}
	missing := uuid.NewString()
	for _, c := range callers {
		targets := []struct {
			name  string
			robot string
			own   bool
		}{
			{"a robot of its organization", w.robot.ID, c.foreign != w.robot.ID},
			{"another organization's robot", c.foreign, false},
			{"missing robot", missing, false},
		}
		for _, r := range routes {
			for _, tg := range targets {
				want := http.StatusNotFound
				if tg.own && c.role != fleetgate.RoleNone {
					switch {
					case c.role < r.minRole, c.read && r.acts:
						want = http.StatusForbidden
					default:
						want = http.StatusOK
					}
				}
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, r.name, tg.name), func(t *testing.T) {
					path := strings.ReplaceAll(r.path, "{robot}", tg.robot)
					header := http.Header{"Authorization": {"bearer " + c.bearer}}
					if r.body != "" {
						header.Set("Content-Type", "application/json")
					}
					if strings.HasSuffix(path, "upload-stream") && tg.own {
						waitInputsFree(t, w.Server, w.admin, tg.robot) // the last uploader's lease is gone
					}
					resp := w.DoRaw(r.method, path, header, strings.NewReader(r.body))
					if resp.Status != want {
						t.Errorf("%s %s: %d, want %d: %s", r.method, path, resp.Status, want, resp.Body)
					}
				})
			}
		}
	}
}
