package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/servertest"
)

const (
	poseType  = "Platform.Messages.geometry_msgs.Pose"
	twistType = "Platform.Messages.geometry_msgs.Twist"
)

var poseKey = fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}

// liveAgent is a local gateway with one scriptable robot online and users of each role.
type liveAgent struct {
	*panelServer
	robot string
	bot   *fleettest.Robot
	users map[string]fleetgate.User // by role name: none, operator, developer, admin (org admin)
}

func openLiveAgent(t *testing.T) *liveAgent {
	t.Helper()
	s := openPanel(t, servertest.Agent)
	bot := &fleettest.Robot{
		ID: "7d3c1e8a-4a2b-4d8e-9a51-0b6f2c9e1a11", Name: "panel-bot",
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: poseType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
		MetricList: []fleetgate.Metric{
			{Type: 4, Value: 87.0},
			{Type: 2, Value: fleetgate.Usage{Used: 1 << 30, Limit: 4 << 30}},
			{Type: 16, Value: []fleetgate.ComponentInfo{{Name: "planner", Version: "1.2", State: "Active"}}},
		},
		FileInfo: []fleetgate.Resource{{ID: "0f9a7c1e-2b3d-4e5f-8a9b-1c2d3e4f5a6b", Name: "run.log", MIMEType: "text/plain", Size: 5, CreatedAt: time.Now().UTC()}},
		Files:    map[string][]byte{"0f9a7c1e-2b3d-4e5f-8a9b-1c2d3e4f5a6b": []byte("hello")},
	}
	bot.Emit(poseKey, poseType, nil)
	if err := s.Registry().Add(context.Background(), bot, fleetgate.LocalFleetID); err != nil {
		t.Fatal(err)
	}
	a := &liveAgent{panelServer: s, robot: bot.ID, bot: bot, users: map[string]fleetgate.User{}}
	org, _ := s.DefaultOrg()
	for name, role := range map[string]fleetgate.Role{"none": fleetgate.RoleNone, "operator": fleetgate.RoleOperator, "developer": fleetgate.RoleDeveloper} {
		roles := map[string]fleetgate.Role{}
		if role != fleetgate.RoleNone {
			roles[bot.ID] = role
		}
		a.users[name] = s.AddUser(org.ID, name+"@example.com", false, roles)
		s.setPassword(t, name+"@example.com", "password of "+name)
	}
	a.users["admin"], _ = s.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	s.setPassword(t, gateway.BootstrapAdminEmail, "password of admin")
	return a
}

func (a *liveAgent) as(t *testing.T, role string) *browser {
	t.Helper()
	b := a.browser(t)
	wantRedirect(t, "login as "+role, b.loginPassword(a.users[role].Email, "password of "+role), "/")
	return b
}

func wantBody(t *testing.T, what string, p page, contains ...string) {
	t.Helper()
	for _, c := range contains {
		if !strings.Contains(p.body, c) {
			t.Errorf("%s: the page lacks %q", what, c)
		}
	}
}

func TestPagesByRole(t *testing.T) {
	a := openLiveAgent(t)
	r := "/robots/" + a.robot
	pose := r + "/streams?component=base&stream=pose&source=1"
	cmdVel := r + "/streams?component=base&stream=cmd_vel&source=1"

	cases := []struct {
		role, path string
		status     int
		contains   []string
		absent     []string
	}{
		{"operator", "/", 200, []string{"panel-bot", "87 %", "dot on"}, nil},
		{"operator", "/?online=offline", 200, []string{"No robot matches"}, nil},
		{"operator", r, 200, []string{"panel-bot", "local-fleet", "Your role", "Operator", "operator@example.com", "admin@localhost"}, []string{`data-widget="camera-form"`}},
		{"developer", r, 200, []string{"Open a camera by its address", `data-widget="camera-form"`, `data-robot-id="` + a.robot + `"`}, nil},
		{"operator", r + "/streams", 200, []string{"base", "pose", "cmd_vel", twistType}, nil},
		{"operator", pose, 200, []string{"Current value", `data-widget="pose-map"`, `data-robot-id="` + a.robot + `"`, `data-fleet-id="local-fleet"`, `data-mode="live"`}, nil},
		{"operator", cmdVel, 200, []string{`data-widget="teleop"`}, []string{"streams/upload"}},
		{"developer", cmdVel, 200, []string{"streams/upload", "linear", `data-json-field="json"`}, nil},
		{"operator", r + "/metrics", 200, []string{"Battery", "87 %", "Memory", "1.0 GiB used of 4.0 GiB", "planner", `data-refresh="/robots/` + a.robot + `/metrics/fragment"`, `data-widget="metric-charts"`}, nil},
		{"operator", r + "/metrics/fragment", 200, []string{"Battery"}, []string{"<html"}},
		{"operator", r + "/resources", 200, []string{"run.log", "5 B", "text/plain", "/download"}, nil},
		{"operator", r + "/events", 200, []string{"History", "Post"}, nil},
		{"operator", "/settings", 200, []string{"API tokens"}, nil},
		{"operator", "/admin", 403, nil, nil},
		{"developer", "/admin", 403, nil, nil},
		// A local gateway provisions no agents: the cloud does.
		{"admin", "/admin", 200, []string{"operator@example.com", "panel-bot", "Kiosk tokens"}, []string{"Provision agent"}},
		{"none", "/", 200, []string{"No robot matches"}, []string{"panel-bot"}},
		{"none", r, 404, nil, []string{"panel-bot"}},
		{"none", r + "/streams", 404, nil, nil},
		{"none", r + "/metrics", 404, nil, nil},
		{"none", r + "/resources", 404, nil, nil},
		{"none", r + "/events", 404, nil, nil},
		{"operator", "/robots/no-such-robot", 404, nil, nil},
	}
	browsers := map[string]*browser{}
	for _, tc := range cases {
		t.Run(tc.role+" "+tc.path, func(t *testing.T) {
			b := browsers[tc.role]
			if b == nil {
				b = a.as(t, tc.role)
				browsers[tc.role] = b
			}
			b.t = t
			p := b.get(tc.path)
			wantStatus(t, tc.path, p, tc.status)
			wantBody(t, tc.path, p, tc.contains...)
			for _, no := range tc.absent {
				if strings.Contains(p.body, no) {
					t.Errorf("%s: the page shows %q", tc.path, no)
				}
			}
		})
	}
}

func TestPageActions(t *testing.T) {
	a := openLiveAgent(t)
	r := "/robots/" + a.robot
	op, dev, admin := a.as(t, "operator"), a.as(t, "developer"), a.as(t, "admin")

	// Download follows a fresh signed link.
	p := op.get(r + "/resources/0f9a7c1e-2b3d-4e5f-8a9b-1c2d3e4f5a6b/download")
	wantRedirect(t, "download", p, "/files/0f9a7c1e-2b3d-4e5f-8a9b-1c2d3e4f5a6b?")
	if f := op.get(p.header.Get("Location")); f.status != 200 || f.body != "hello" {
		t.Errorf("the signed link answers %d %q", f.status, f.body)
	}

	// Events: post, then see it with its author.
	wantRedirect(t, "post event", op.post(r+"/events", url.Values{"message": {"pallet dropped"}}), r+"/events")
	wantBody(t, "events", op.get(r+"/events"), "pallet dropped", "operator@example.com")
	wantBody(t, "empty event", op.submit(r+"/events", url.Values{"message": {""}}), "message is required", `role="alert"`)
	// The form's Record box reaches the core: this robot's source has no recorder.
	wantBody(t, "the record box", op.get(r+"/events"), `name="record" value="true"`)
	wantBody(t, "record without a recorder", op.submit(r+"/events", url.Values{"message": {"forklift tipped"}, "record": {"true"}}),
		"cannot record", `role="alert"`, "forklift tipped")

	// Upload: the developer's JSON is validated before anything reaches the robot.
	up := url.Values{"component": {"base"}, "stream": {"cmd_vel"}, "source": {"1"}, "type": {twistType}}
	up.Set("json", `{"linear":{"x":0.5}}`)
	sent := dev.submit(r+"/streams/upload", up)
	wantBody(t, "upload", sent, "Sent.", "cmd_vel")
	if again := dev.get(sent.header.Get("X-Test-Location")); strings.Contains(again.body, "Sent.") {
		t.Error("a reload of the upload's result says Sent. again")
	}
	up.Set("json", `{"linear":{"x":"fast"}}`)
	wantBody(t, "bad upload", dev.submit(r+"/streams/upload", up), `role="alert"`, "fast")
	up.Set("json", `{"linear":{"x":0.5}}`)
	wantStatus(t, "operator upload", op.post(r+"/streams/upload", up), http.StatusForbidden)

	// Admin actions are refused to members, done for admins.
	wantStatus(t, "operator renames", op.post("/admin/robots/"+a.robot+"/rename", url.Values{"name": {"x"}}), http.StatusForbidden)
	wantStatus(t, "operator creates a user", op.post("/admin/users", url.Values{"email": {"x@example.com"}}), http.StatusForbidden)
	wantRedirect(t, "admin renames", admin.post("/admin/robots/"+a.robot+"/rename", url.Values{"name": {"renamed-bot"}}), "/admin")
	wantBody(t, "after rename", admin.get(r), "renamed-bot")
	wantRedirect(t, "admin gives a role", admin.post("/admin/robots/"+a.robot+"/members", url.Values{"email": {"none@example.com"}, "role": {"1"}}), "/admin")
	none := a.as(t, "none")
	wantStatus(t, "the new operator sees the robot", none.get(r), http.StatusOK)
	wantBody(t, "removing an online robot", admin.submit("/admin/robots/"+a.robot+"/remove", url.Values{}), `role="alert"`, "online")
	wantRedirect(t, "disable a user", admin.post("/admin/users/"+a.users["operator"].ID+"/disable", url.Values{}), "/admin")
	wantRedirect(t, "the disabled user's session ends", op.get("/"), "/login")
	wantBody(t, "and cannot log in", a.browser(t).submit("/login", url.Values{"email": {"operator@example.com"}, "password": {"password of operator"}}),
		"this account is disabled")
}

var (
	lastSeen        = regexp.MustCompile(`"lastTimeSeen":"[^"]*"`)
	apiTokenPattern = regexp.MustCompile(`fgt_[0-9A-Za-z]{32}`)
	secretPattern   = regexp.MustCompile(`<p class="secret" id="secret">([^<]+)</p>`)
)

func TestSecretsShownOnceAndNeverLogged(t *testing.T) {
	a := openLiveAgent(t)
	admin := a.as(t, "admin")
	var secrets []string
	shown := func(what string, p page) {
		t.Helper()
		wantStatus(t, what, p, http.StatusOK)
		m := secretPattern.FindStringSubmatch(p.body)
		if m == nil {
			t.Fatalf("%s: no secret shown", what)
		}
		if strings.Contains(p.header.Get("X-Test-Location"), m[1]) || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: the secret page is cacheable or redirects with it", what)
		}
		if again := admin.get(p.header.Get("X-Test-Location")); strings.Contains(again.body, m[1]) {
			t.Errorf("%s: a reload shows the secret again", what)
		}
		secrets = append(secrets, m[1])
	}
	shown("API token", admin.submit("/settings/tokens", url.Values{"name": {"ci-script"}, "scope": {"full"}}))
	if !apiTokenPattern.MatchString(secrets[0]) {
		t.Errorf("shown API token %q", secrets[0])
	}
	shown("kiosk token", admin.submit("/admin/kiosk-tokens", url.Values{"name": {"hall wall"}, "fleet": {fleetgate.LocalFleetID}}))
	shown("new user's password", admin.submit("/admin/users", url.Values{"email": {"new@example.com"}}))
	shown("reset password", admin.submit("/admin/users/"+a.users["developer"].ID+"/reset-password", url.Values{}))
	// A local gateway provisions no agents (the cloud does, below).
	wantBody(t, "agent on a local gateway", admin.submit("/admin/agents", url.Values{"name": {"dock-3"}, "fleet": {fleetgate.LocalFleetID}}),
		"a local gateway provisions no agents")
	cloud := openPanel(t)
	cloud.setPassword(t, gateway.BootstrapAdminEmail, "cloud admin password")
	cloudAdmin := cloud.browser(t)
	wantRedirect(t, "cloud login", cloudAdmin.loginPassword(gateway.BootstrapAdminEmail, "cloud admin password"), "/")
	_, cloudFleet := cloud.DefaultOrg()
	key := cloudAdmin.submit("/admin/agents", url.Values{"name": {"dock-3"}, "fleet": {cloudFleet.ID}})
	if m := secretPattern.FindStringSubmatch(key.body); m == nil || !strings.HasPrefix(m[1], "fga_") {
		t.Errorf("the cloud shows no agent key:\n%s", key.body)
	} else if again := cloudAdmin.get("/admin"); strings.Contains(again.body, m[1]) {
		t.Error("a reload shows the agent key again")
	}

	// The token works, and is never shown again.
	if bearer := a.Login(secrets[0]); bearer == "" {
		t.Fatal("the shown token does not log in")
	}
	for _, path := range []string{"/settings", "/admin"} {
		p := admin.get(path)
		for _, s := range secrets {
			if strings.Contains(p.body, s) {
				t.Errorf("%s shows a secret again", path)
			}
		}
	}
	wantBody(t, "token list", admin.get("/settings"), "ci-script")

	// A kiosk's login and a socket token's use go through the logs as well.
	kiosk := a.browser(t)
	wantRedirect(t, "kiosk login", kiosk.post("/login", url.Values{"token": {secrets[1]}}), "/kiosk/")
	ws := wsToken(t, admin)
	dialW3(t, a, ws).Close(websocket.StatusNormalClosure, "")
	logs := a.Logs()
	for _, s := range append(secrets, servertest.AdminToken, ws, "password of") {
		if strings.Contains(logs, s) {
			t.Errorf("the logs hold a secret (%.8s…)", s)
		}
	}
}

// wsToken mints a socket token for the browser's session.
func wsToken(t *testing.T, b *browser) string {
	t.Helper()
	p := b.post("/panel/ws-token", url.Values{})
	wantStatus(t, "ws-token", p, http.StatusOK)
	var resp struct {
		AccessToken string    `json:"accessToken"`
		ExpiresAt   time.Time `json:"expiresAt"`
	}
	if err := json.Unmarshal([]byte(p.body), &resp); err != nil {
		t.Fatal(err)
	}
	if d := time.Until(resp.ExpiresAt); d < 50*time.Second || d > 61*time.Second {
		t.Errorf("expiresAt %v is %v away, want 60 s", resp.ExpiresAt, d)
	}
	return resp.AccessToken
}

func w3URL(a *liveAgent, token string) string {
	return "ws" + strings.TrimPrefix(a.URL, "http") + "/apigateway/v2/robots/" + a.robot +
		"/streams/connect?componentName=base&streamName=pose&format=json&access_token=" + url.QueryEscape(token)
}

func dialW3(t *testing.T, a *liveAgent, token string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, w3URL(a, token), nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial W3 with a socket token: %v (status %d)", err, status)
	}
	return conn
}

func TestSocketTokenOpensOneUpgrade(t *testing.T) {
	a := openLiveAgent(t)
	op := a.as(t, "operator")
	tok := wsToken(t, op)
	if !strings.HasPrefix(tok, gateway.SocketTokenPrefix) {
		t.Fatalf("token %q", tok)
	}
	// Not a REST bearer.
	if r := a.Do("GET", "/apigateway/v2/robots", tok, ""); r.Status != http.StatusUnauthorized {
		t.Errorf("socket token as a REST bearer: %d", r.Status)
	}
	conn := dialW3(t, a, tok)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a.bot.Emit(poseKey, poseType, nil) // a fresh pose: a cached one over a second old is not sent as live
	if _, _, err := conn.Read(ctx); err != nil {
		t.Fatalf("reading the pose over the socket: %v", err)
	}
	conn.Close(websocket.StatusNormalClosure, "")

	_, resp, err := websocket.Dial(ctx, w3URL(a, tok), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("second upgrade with one token: err %v, response %v: want 401", err, resp)
	}
	// Without a session, no token.
	if p := a.browser(t).post("/panel/ws-token", url.Values{}); p.status != http.StatusUnauthorized {
		t.Errorf("ws-token without a session: %d", p.status)
	}
}

func TestPanelAPIMirrorsTheAPI(t *testing.T) {
	a := openLiveAgent(t)
	bearer := a.Login(servertest.AdminToken)
	admin := a.as(t, "admin")
	r := a.robot
	for _, path := range []string{
		"/robots", "/robots/" + r, "/robots/" + r + "/streams", "/robots/" + r + "/stream?componentName=base&streamName=pose",
		"/robots/metrics?robotId=" + r, "/robots/" + r + "/metric/4", "/robots/" + r + "/metric/2", "/robots/" + r + "/resources",
		"/streams/" + twistType + "/stream", "/robots/" + r + "/controls", "/fleets", "/robots/nope", "/robots/" + r + "/metric/99",
	} {
		want := a.Do("GET", "/apigateway/v2"+path, bearer, "")
		got := admin.get("/panel/api" + path)
		// An online robot's lastTimeSeen is the time of the request.
		want.Body = lastSeen.ReplaceAll(want.Body, []byte(`"lastTimeSeen":"now"`))
		got.body = lastSeen.ReplaceAllString(got.body, `"lastTimeSeen":"now"`)
		if got.status != want.Status || got.body != string(want.Body) {
			t.Errorf("%s: panel %d %s\napi %d %s", path, got.status, got.body, want.Status, want.Body)
		}
	}
	// Unsafe methods work with the session too, as the operator it belongs to.
	op := a.as(t, "operator")
	p := op.do("POST", "/panel/api/events/log?robotId="+r+"&message=from+the+browser", nil, http.Header{"Sec-Fetch-Site": {"same-origin"}})
	wantStatus(t, "post an event", p, http.StatusOK)
	upload := func(b *browser) int {
		body := `{"componentName":"base","streamName":"cmd_vel","source":1,"dataType":"` + twistType + `","streamJson":"{\"linear\":{\"x\":0.2}}"}`
		req, _ := http.NewRequest("POST", a.URL+"/panel/api/robots/"+r+"/upload-stream", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", a.URL) // as the browser's fetch sends it
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := upload(op); got != http.StatusForbidden {
		t.Errorf("operator upload through the mirror: %d, want 403", got)
	}
	if got := upload(a.as(t, "developer")); got != http.StatusOK {
		t.Errorf("developer upload through the mirror: %d, want 200", got)
	}
	// No session: 401 problem+json.
	anon := a.browser(t).get("/panel/api/robots")
	if anon.status != http.StatusUnauthorized || !strings.Contains(anon.header.Get("Content-Type"), "problem+json") {
		t.Errorf("anonymous mirror: %d %s", anon.status, anon.header.Get("Content-Type"))
	}
}

// TestSocketOrigins: a page on another origin opens W3 with an explicit API token (the
// contract's browser clients use access_token), but never with a panel socket token, which
// stands for a session cookie; that refusal is a problem document, before the upgrade.
func TestSocketOrigins(t *testing.T) {
	a := openLiveAgent(t)
	op := a.as(t, "operator")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(token, origin string) (*websocket.Conn, *http.Response, error) {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		return websocket.Dial(ctx, w3URL(a, token), &websocket.DialOptions{HTTPHeader: h})
	}
	bearer := a.Login(servertest.AdminToken)
	for _, token := range []string{bearer, "bearer " + bearer} {
		conn, _, err := dial(token, "https://dashboard.example")
		if err != nil {
			t.Errorf("an explicit token from another origin: %v", err)
			continue
		}
		conn.CloseNow()
	}
	_, resp, err := dial(wsToken(t, op), "https://evil.example")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("Content-Type"), "problem+json") {
		t.Errorf("a panel socket token from another origin: err %v, response %v; want 403 problem+json", err, resp)
	}
	conn, _, err := dial(wsToken(t, op), a.URL)
	if err != nil {
		t.Fatalf("a panel socket token from the panel's origin: %v", err)
	}
	conn.CloseNow()
}
