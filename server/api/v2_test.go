package api_test

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/servertest"
)

var loginAnswerToken = regexp.MustCompile(`^bearer \S+$`)

// TestLoginAnswer checks endpoint 1's answer and that its token value, used verbatim as the
// authorization header, opens the other endpoints.
func TestLoginAnswer(t *testing.T) {
	s := servertest.MustOpen(t)
	resp := send(t, s, apiCase{method: http.MethodPost, target: "/auth/login", header: jsonBody(""),
		body: `{"userToken":"` + servertest.AdminToken + `"}`, wantStatus: http.StatusOK})
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var answer map[string]any
	resp.JSON(t, &answer)
	if keys := sortedKeys(answer); !slices.Equal(keys, []string{"token"}) {
		t.Errorf("answer keys %v, want [token]", keys)
	}
	token, _ := answer["token"].(string)
	if !loginAnswerToken.MatchString(token) {
		t.Fatalf("token %q, want \"bearer <token>\"", token)
	}
	send(t, s, apiCase{method: http.MethodGet, target: "/robots", header: authorization(token), wantStatus: http.StatusOK})
}

// TestLoginRateLimit: after 10 failed logins in a minute from one address, the next wrong
// token from it is answered 429; a valid token is checked first and logs in (a NAT shared with
// a guesser); other addresses and bearer tokens minted before are not affected.
func TestLoginRateLimit(t *testing.T) {
	s := servertest.MustOpen(t)
	earlier := s.Login(servertest.AdminToken)

	for i := range 10 {
		send(t, s, apiCase{method: http.MethodPost, target: "/auth/login", header: jsonBody(""),
			body: `{"userToken":"` + gateway.NewAPIToken() + `"}`, wantStatus: http.StatusUnauthorized})
		if t.Failed() {
			t.Fatalf("failure %d was not a plain 401", i+1)
		}
	}
	resp := send(t, s, apiCase{method: http.MethodPost, target: "/auth/login", header: jsonBody(""),
		body: `{"userToken":"` + gateway.NewAPIToken() + `"}`, wantStatus: http.StatusTooManyRequests})
	send(t, s, apiCase{method: http.MethodPost, target: "/auth/login", header: jsonBody(""),
		body: `{"userToken":"` + servertest.AdminToken + `"}`, wantStatus: http.StatusOK})
	retryAfter, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || retryAfter < 1 || retryAfter > 60 {
		t.Errorf("Retry-After %q, want a whole number of seconds in [1, 60]", resp.Header.Get("Retry-After"))
	}

	send(t, s, apiCase{method: http.MethodGet, target: "/robots", header: bearer(earlier), wantStatus: http.StatusOK})

	if status := loginFrom(t, s, "127.0.0.2"); status != http.StatusOK {
		t.Errorf("login from another address: status %d, want 200", status)
	}
}

// loginFrom logs in with the admin token over a connection from localIP and returns the
// status.
func loginFrom(t *testing.T, s *servertest.Server, localIP string) int {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	defer client.CloseIdleConnections()
	body := strings.NewReader(`{"userToken":"` + servertest.AdminToken + `"}`)
	resp, err := client.Post(s.URL+"/apigateway/v2/auth/login", "application/json", body)
	if err != nil {
		t.Fatalf("login from %s: %v", localIP, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestRobotDetails compares endpoint 3's answer with the contract's shape, key by key:
// a missing, extra or renamed key fails.
func TestRobotDetails(t *testing.T) {
	s := servertest.MustOpen(t)
	ctx := context.Background()
	org, fleet := s.DefaultOrg()
	other, _ := s.AddOrg("other")

	configured := fleetgate.Robot{ID: uuid.NewString(), OrgID: org.ID, FleetID: fleet.ID, Name: "configured",
		ConfigName: "warehouse-nav", ConfigVersion: "1.4.2", AgentVersion: "2.0.1", CreatedAt: time.Now()}
	seen := fleetgate.Robot{ID: uuid.NewString(), OrgID: org.ID, FleetID: fleet.ID, Name: "seen",
		LastSeen: time.Date(2024, 3, 5, 6, 7, 8, 123e6, time.UTC), CreatedAt: time.Now()}
	for _, r := range []fleetgate.Robot{configured, seen} {
		if err := s.Store.CreateRobot(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	s.AddUser(org.ID, "boss@example.com", true, nil)
	s.AddUser(other.ID, "admin@other.example", true, nil)
	s.AddUser(org.ID, "zed@example.com", false, map[string]fleetgate.Role{configured.ID: fleetgate.RoleAdmin})
	s.AddUser(org.ID, "dev@example.com", false, map[string]fleetgate.Role{configured.ID: fleetgate.RoleDeveloper})
	s.AddUser(org.ID, "operator@example.com", false, map[string]fleetgate.Role{configured.ID: fleetgate.RoleOperator})
	s.AddUser(org.ID, "nobody@example.com", false, map[string]fleetgate.Role{configured.ID: fleetgate.RoleNone})
	admin := s.Login(servertest.AdminToken)

	cases := []struct {
		name  string
		robot fleetgate.Robot
		want  string
	}{
		{
			name:  "configured robot with members, never connected",
			robot: configured,
			want: `{
				"robotData": {"basicData": {"id": "` + configured.ID + `", "name": "configured"}, "isOnline": false},
				"fleetName": "default",
				"organizationName": "default",
				"lastTimeSeen": "0001-01-01T00:00:00Z",
				"members": {
					"orgAdmins": {"orgAdmins": ["admin@localhost", "boss@example.com"]},
					"sharedUsers": {"userPermissions": [
						{"userId": "dev@example.com", "permissionType": 2},
						{"userId": "operator@example.com", "permissionType": 1},
						{"userId": "zed@example.com", "permissionType": 3}
					]}
				},
				"configurationInformation": {"name": "warehouse-nav", "version": "1.4.2"},
				"agentVersion": "2.0.1",
				"latestAgentVersion": "test"
			}`,
		},
		{
			name:  "bare robot seen before",
			robot: seen,
			want: `{
				"robotData": {"basicData": {"id": "` + seen.ID + `", "name": "seen"}, "isOnline": false},
				"fleetName": "default",
				"organizationName": "default",
				"lastTimeSeen": "2024-03-05T06:07:08.123Z",
				"members": {
					"orgAdmins": {"orgAdmins": ["admin@localhost", "boss@example.com"]},
					"sharedUsers": {"userPermissions": []}
				},
				"configurationInformation": {"name": "", "version": ""},
				"agentVersion": "",
				"latestAgentVersion": "test"
			}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := send(t, s, apiCase{method: http.MethodGet, target: "/robots/" + c.robot.ID, header: bearer(admin), wantStatus: http.StatusOK})
			checkJSON(t, resp.Body, c.want)
		})
	}
}

// TestRobotVisibility checks who sees which robots, in the list (sorted by name) and in
// the details, which must agree with the list.
func TestRobotVisibility(t *testing.T) {
	s := servertest.MustOpen(t)
	org, fleet := s.DefaultOrg()
	second := s.AddFleet(org.ID, "second")
	other, otherFleet := s.AddOrg("other")
	robots := map[string]fleetgate.Robot{}
	for _, r := range []struct {
		fleet fleetgate.Fleet
		name  string
	}{{fleet, "delta"}, {fleet, "alpha"}, {second, "charlie"}, {second, "bravo"}, {otherFleet, "echo"}} {
		robots[r.name] = s.AddRobot(r.fleet, r.name)
	}
	admin, _ := s.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	operator := s.AddUser(org.ID, "operator@example.com", false, map[string]fleetgate.Role{
		robots["delta"].ID: fleetgate.RoleOperator, robots["bravo"].ID: fleetgate.RoleDeveloper,
	})
	stranger := s.AddUser(org.ID, "stranger@example.com", false, nil)
	otherAdmin := s.AddUser(other.ID, "admin@other.example", true, nil)
	login := func(user fleetgate.User, scope, fleetID string) string {
		secret, _ := s.AddToken(user.ID, scope, fleetID)
		return s.Login(secret)
	}

	cases := []struct {
		name   string
		bearer string
		want   []string // robot names, in list order
	}{
		{"org admin sees the whole organization", login(admin, "", ""), []string{"alpha", "bravo", "charlie", "delta"}},
		{"org admin restricted to a fleet", login(admin, "", second.ID), []string{"bravo", "charlie"}},
		{"org admin with a read-scope token", login(admin, fleetgate.ScopeRead, ""), []string{"alpha", "bravo", "charlie", "delta"}},
		{"operator sees robots with a membership", login(operator, "", ""), []string{"bravo", "delta"}},
		{"operator restricted to a fleet", login(operator, "", fleet.ID), []string{"delta"}},
		{"user without memberships", login(stranger, "", ""), []string{}},
		{"admin of another organization", login(otherAdmin, "", ""), []string{"echo"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := send(t, s, apiCase{method: http.MethodGet, target: "/robots", header: bearer(c.bearer), wantStatus: http.StatusOK})
			items := make([]string, len(c.want))
			for i, name := range c.want {
				items[i] = `{"basicData": {"id": "` + robots[name].ID + `", "name": "` + name + `"}, "isOnline": false}`
			}
			checkJSON(t, resp.Body, `{"robotDataList": [`+strings.Join(items, ",")+`]}`)

			for name, r := range robots {
				want := http.StatusNotFound
				if slices.Contains(c.want, name) {
					want = http.StatusOK
				}
				send(t, s, apiCase{method: http.MethodGet, target: "/robots/" + r.ID, header: bearer(c.bearer), wantStatus: want})
			}
		})
	}
}

// TestPostEventRoundTrip reads posted events back from the store: author, robot, fleet
// and message must be what was sent, however the message was encoded.
func TestPostEventRoundTrip(t *testing.T) {
	s := servertest.MustOpen(t)
	org, fleet := s.DefaultOrg()
	robot := s.AddRobot(fleet, "r1")
	user := s.AddUser(org.ID, "operator@example.com", false, map[string]fleetgate.Role{robot.ID: fleetgate.RoleOperator})
	secret, _ := s.AddToken(user.ID, "", "")
	token := s.Login(secret)

	const tricky = "Dock 3 & charger: ok ✓ — 日本語 100% + a=b #tag ?x\nsecond line"
	cases := []struct {
		name        string
		target      string
		wantFleet   string
		wantMessage string
	}{
		{"encoded by url.Values", eventTarget("robotId", robot.ID, "fleetId", fleet.ID, "message", tricky), fleet.ID, tricky},
		{"spaces as %20", "/events/log?robotId=" + robot.ID + "&message=lift%20at%20bay%207%20%26%20ok", "", "lift at bay 7 & ok"},
		{"spaces as plus, plus as %2B", "/events/log?message=1+%2B+1&robotId=" + robot.ID, "", "1 + 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := time.Now().Truncate(time.Millisecond)
			send(t, s, apiCase{method: http.MethodPost, target: c.target, header: bearer(token), wantStatus: http.StatusOK})
			after := time.Now()

			events, err := s.Store.Events(context.Background(), fleetgate.EventFilter{RobotID: robot.ID, Limit: 1})
			if err != nil || len(events) != 1 {
				t.Fatalf("events: %v (%d)", err, len(events))
			}
			got := events[0]
			if got.RobotID != robot.ID || got.FleetID != c.wantFleet || got.UserID != user.ID || got.AuthorEmail != user.Email {
				t.Errorf("event robot %q fleet %q user %q author %q, want %q %q %q %q",
					got.RobotID, got.FleetID, got.UserID, got.AuthorEmail, robot.ID, c.wantFleet, user.ID, user.Email)
			}
			if got.Message != c.wantMessage {
				t.Errorf("message %q, want %q", got.Message, c.wantMessage)
			}
			if got.CreatedAt.Before(before) || got.CreatedAt.After(after) {
				t.Errorf("created %v, want within [%v, %v]", got.CreatedAt, before, after)
			}
		})
	}
}

// TestRequestLogRedaction: secrets in the query, the authorization header and the login
// body never reach the log, and each request leaves one line with its essentials.
func TestRequestLogRedaction(t *testing.T) {
	s := servertest.MustOpen(t)
	_, fleet := s.DefaultOrg()
	robot := s.AddRobot(fleet, "r1")
	token := s.Login(servertest.AdminToken)
	const (
		querySecret  = "QuerySecret7f3a9c"
		wrongBearer  = "fgb_WrongBearerSecret51d2e8"
		secondSecret = "OtherQuerySecret0b44"
	)

	cases := []struct {
		name     string
		method   string
		target   string
		header   http.Header
		status   int
		route    string
		wantUser string
	}{
		{"authenticated list", http.MethodGet, "/robots?access_token=" + querySecret, bearer(token), http.StatusOK,
			"/apigateway/v2/robots", gateway.BootstrapAdminEmail},
		{"refused token", http.MethodGet, "/robots/" + robot.ID + "?Access_Token=bearer%20" + querySecret + "&access_token=" + secondSecret,
			bearer(wrongBearer), http.StatusUnauthorized, "/apigateway/v2/robots/:robotId", ""},
		{"posted event", http.MethodPost, eventTarget("robotId", robot.ID, "message", "hi", "access_token", querySecret), bearer(token), http.StatusOK,
			"/apigateway/v2/events/log", gateway.BootstrapAdminEmail},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probe := uuid.NewString()
			send(t, s, apiCase{method: c.method, target: withQuery(c.target, "probe="+probe), header: c.header, wantStatus: c.status})
			fields := logFields(t, waitForLogLine(t, s, probe))
			want := map[string]string{"msg": "request", "method": c.method, "route": c.route, "status": strconv.Itoa(c.status), "user": c.wantUser}
			for key, value := range want {
				if got, ok := fields[key]; !ok || got != value {
					t.Errorf("log field %s = %q (present: %v), want %q", key, got, ok, value)
				}
			}
			if d, err := time.ParseDuration(fields["duration"]); err != nil || d <= 0 {
				t.Errorf("log field duration = %q, want a positive duration", fields["duration"])
			}
		})
	}

	logs := s.Logs()
	for _, secret := range []string{querySecret, secondSecret, token, wrongBearer, servertest.AdminToken} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log shows the secret %q:\n%s", secret, logs)
		}
	}
}

// TestUnknownRoute: a path no route serves is a 404 problem, with or without a token, and
// a known path asked with another method is a 405 problem naming the allowed ones.
func TestUnknownRoute(t *testing.T) {
	s := servertest.MustOpen(t)
	token := s.Login(servertest.AdminToken)
	credentials := map[string]http.Header{"without token": nil, "with token": bearer(token)}
	for name, header := range credentials {
		for _, target := range []string{"/nothing-here", "/auth/login/extra", "/events/log/extra"} {
			t.Run(name+target, func(t *testing.T) {
				send(t, s, apiCase{method: http.MethodGet, target: target, header: header, wantStatus: http.StatusNotFound})
			})
		}
		wrongMethods := []struct{ method, target, allow string }{
			{http.MethodGet, "/auth/login", http.MethodPost},
			{http.MethodPost, "/robots", http.MethodGet},
			{http.MethodPut, "/robots/" + uuid.NewString(), http.MethodGet},
			{http.MethodGet, "/events/log", http.MethodPost},
		}
		for _, m := range wrongMethods {
			t.Run(name+"/"+m.method+m.target, func(t *testing.T) {
				resp := send(t, s, apiCase{method: m.method, target: m.target, header: header, wantStatus: http.StatusMethodNotAllowed})
				if allow := resp.Header.Get("Allow"); !strings.Contains(allow, m.allow) {
					t.Errorf("Allow %q, want it to name %s", allow, m.allow)
				}
			})
		}
	}
}
