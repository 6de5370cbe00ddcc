package web

// The robot page's handlers over fakes of the services they use (Robots, Streams): no store,
// no session, no server. They pin what the page asks of the core for each kind of caller and
// robot, and what it shows of the answers; the end-to-end tests in web_test check the same
// page over the real core and a logged-in browser.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// pageRobot is what the fakes know of one robot.
type pageRobot struct {
	details fleetgate.RobotDetails
	role    fleetgate.Role
	state   fleetgate.RobotState
	streams []fleetgate.Stream
	listErr error // Streams fails with it
	drivers []fleetgate.Held
}

// The services embedded by the fake under names of their own: Streams is also a method.
type (
	pageRobots  = Robots
	pageStreams = Streams
)

// pageCore fakes the Robots and Streams of the robot page: the robots it knows by id, any
// other unknown (ENotFound). It records the methods asked, in order. Methods the page must not
// call reach the nil interfaces embedded and panic.
type pageCore struct {
	pageRobots
	pageStreams
	robots  map[string]pageRobot
	cameras bool // OpensCameras
	mu      sync.Mutex
	asked   []string
	callers []*gateway.Caller
}

func (f *pageCore) ask(c *gateway.Caller, method, robotID string) (pageRobot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, method+" "+robotID)
	f.callers = append(f.callers, c)
	r, ok := f.robots[robotID]
	if !ok {
		return r, fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", robotID)
	}
	return r, nil
}

func (f *pageCore) take() (asked []string, callers []*gateway.Caller) {
	f.mu.Lock()
	defer f.mu.Unlock()
	asked, callers = f.asked, f.callers
	f.asked, f.callers = nil, nil
	return asked, callers
}

func (f *pageCore) Robot(_ context.Context, c *gateway.Caller, id string) (fleetgate.RobotDetails, error) {
	r, err := f.ask(c, "Robot", id)
	return r.details, err
}

func (f *pageCore) RobotRole(_ context.Context, c *gateway.Caller, id string) (fleetgate.Role, error) {
	r, err := f.ask(c, "RobotRole", id)
	return r.role, err
}

func (f *pageCore) RobotState(_ context.Context, c *gateway.Caller, id string) (fleetgate.RobotState, error) {
	r, err := f.ask(c, "RobotState", id)
	return r.state, err
}

func (f *pageCore) RobotStatus(_ context.Context, c *gateway.Caller, id string) (fleetgate.RobotStatus, error) {
	r, err := f.ask(c, "RobotStatus", id)
	s := fleetgate.RobotStatus{Online: r.state.Online, Silent: r.state.Silent, HasBattery: true, Battery: 87, Activity: "patrolling"}
	if !r.state.Online {
		s.Alerts = []fleetgate.Alert{{Kind: fleetgate.AlertOffline, Critical: true, Words: "offline"}}
	}
	return s, err
}

func (f *pageCore) Controls(_ context.Context, c *gateway.Caller, id string) ([]fleetgate.Held, error) {
	r, err := f.ask(c, "Controls", id)
	return r.drivers, err
}

func (f *pageCore) Streams(_ context.Context, c *gateway.Caller, id string) ([]fleetgate.Stream, error) {
	r, err := f.ask(c, "Streams", id)
	if err == nil {
		err = r.listErr
	}
	return r.streams, err
}

func (f *pageCore) OpensCameras() bool { return f.cameras }

// robotPage serves the robot page's routes over core, as caller, with the config's other
// services set by with.
func robotPage(core *pageCore, caller *gateway.Caller, with ...func(*Config)) *echo.Echo {
	cfg := Config{Robots: core, Streams: core, LiveStreams: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, f := range with {
		f(&cfg)
	}
	p := New(cfg)
	e := echo.New()
	p.mountRobotPage(e, func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(callerKey, caller)
			return next(c)
		}
	})
	return e
}

func TestRobotPageOverFakes(t *testing.T) {
	since := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
	camera := fleetgate.Stream{Component: "camera", Name: "front", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output, Source: fleetgate.SourceRTSP}
	odom := fleetgate.Stream{Component: "base", Name: "odom", Type: "Platform.Messages.nav_msgs.Odometry", Direction: fleetgate.Output, Source: fleetgate.SourceROS1}
	cmdVel := fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceROS1}
	robot := func(id, name string, online bool) fleetgate.RobotDetails {
		return fleetgate.RobotDetails{Robot: fleetgate.Robot{ID: id, Name: name, FleetID: "f1"}, Online: online, FleetName: "yard"}
	}
	core := &pageCore{cameras: true, robots: map[string]pageRobot{
		"r1": {details: robot("r1", "rover-one", true), role: fleetgate.RoleOperator, state: fleetgate.RobotState{Online: true},
			streams: []fleetgate.Stream{odom, camera, cmdVel}, drivers: []fleetgate.Held{{Key: cmdVel.Key(), Owner: "ann@example.com", Since: since}}},
		"dev": {details: robot("dev", "rover-dev", true), role: fleetgate.RoleDeveloper, state: fleetgate.RobotState{Online: true},
			streams: []fleetgate.Stream{camera}},
		"off": {details: robot("off", "rover-off", false), role: fleetgate.RoleOperator},
		"mute": {details: robot("mute", "rover-mute", true), role: fleetgate.RoleOperator,
			state: fleetgate.RobotState{Online: true, Silent: 5 * time.Second}, streams: []fleetgate.Stream{camera}},
		"slow": {details: robot("slow", "rover-slow", true), role: fleetgate.RoleOperator, state: fleetgate.RobotState{Online: true},
			listErr: fleetgate.Errorf(fleetgate.EUnavailable, "the robot did not answer")},
	}}
	user := &gateway.Caller{User: fleetgate.User{ID: "u1", Email: "op@example.com", HasPassword: true}, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}
	kiosk := &gateway.Caller{User: user.User, Token: fleetgate.APIToken{Scope: fleetgate.ScopeRead}}

	cases := []struct {
		name       string
		caller     *gateway.Caller
		target     string
		wantStatus int
		want       []string // in the page
		wantNot    []string // not in the page
		wantAsked  []string // what the core was asked, in order
	}{
		{"an operator's online robot: live view, map, drive, who drives", user, "/robots/r1", http.StatusOK,
			[]string{"rover-one", `data-robot-state="online"`, `id="op-main"`, `data-widget="camera"`, `id="op-map"`, `id="op-drive"`,
				`data-stream="cmd_vel"`, "ann@example.com since", "patrolling", "87"},
			[]string{"Nothing to drive here", "Open a camera by its address"},
			[]string{"Robot r1", "RobotRole r1", "RobotState r1", "RobotStatus r1", "Controls r1", "Streams r1"}},
		{"a kiosk token drives nothing", kiosk, "/robots/r1", http.StatusOK,
			[]string{`id="op-main"`, "Nothing to drive here"}, []string{`id="op-drive"`, "Open a camera by its address"},
			[]string{"Robot r1", "RobotRole r1", "RobotState r1", "RobotStatus r1", "Controls r1", "Streams r1"}},
		{"a developer may open a camera by address", user, "/robots/dev", http.StatusOK,
			[]string{"Open a camera by its address", "Nothing to drive here", "nobody"}, nil,
			[]string{"Robot dev", "RobotRole dev", "RobotState dev", "RobotStatus dev", "Controls dev", "Streams dev"}},
		{"an offline robot is not asked for streams or drivers", user, "/robots/off", http.StatusOK,
			[]string{`data-robot-state="offline"`, "no camera, point cloud or scan to show while it is offline", "offline"},
			[]string{`id="op-main"`, `id="op-drive"`},
			[]string{"Robot off", "RobotRole off", "RobotState off", "RobotStatus off"}},
		{"an unconfirmed robot says so, and who drives it is unknown", user, "/robots/mute", http.StatusOK,
			[]string{`data-robot-state="unconfirmed"`, "not confirmed for 5 s", "unknown (not confirmed)"}, nil,
			[]string{"Robot mute", "RobotRole mute", "RobotState mute", "RobotStatus mute", "Streams mute"}},
		{"a robot slow to list its streams still has its page", user, "/robots/slow", http.StatusOK,
			[]string{"rover-slow", "no camera, point cloud or scan to show"}, []string{`id="op-main"`},
			[]string{"Robot slow", "RobotRole slow", "RobotState slow", "RobotStatus slow", "Controls slow", "Streams slow"}},
		{"an unknown robot is the not-found page", user, "/robots/r9", http.StatusNotFound,
			[]string{"Not Found"}, []string{"op-status"}, []string{"Robot r9"}},

		{"the status card alone", user, "/robots/r1/status", http.StatusOK,
			[]string{"ann@example.com since", "patrolling"}, []string{"<html", "rover-one"},
			[]string{"RobotRole r1", "RobotStatus r1", "Controls r1"}},
		{"the status card of an unknown robot", user, "/robots/r9/status", http.StatusNotFound, nil, nil, []string{"RobotRole r9"}},
		{"the header's state alone", user, "/robots/mute/state", http.StatusOK,
			[]string{`data-robot-state="unconfirmed"`, `data-silent-ms="5000"`}, []string{"<html"}, []string{"RobotState mute"}},
		{"the state of an unknown robot", user, "/robots/r9/state", http.StatusNotFound, nil, nil, []string{"RobotState r9"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			robotPage(core, tc.caller).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.target, nil))
			body := rec.Body.String()
			if rec.Code != tc.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tc.wantStatus)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(body, w) {
					t.Errorf("page has %q", w)
				}
			}
			asked, callers := core.take()
			if !slices.Equal(asked, tc.wantAsked) {
				t.Errorf("core asked %q\nwant       %q", asked, tc.wantAsked)
			}
			for i, c := range callers {
				if c != tc.caller {
					t.Errorf("%s was asked for %+v, not the page's caller", asked[i], c)
				}
			}
			if t.Failed() {
				t.Logf("page:\n%s", body)
			}
		})
	}
}
