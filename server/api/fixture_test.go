package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// world is a running server seeded with two organizations and the robots, users and
// bearer tokens the tables refer to by name.
type world struct {
	*servertest.Server

	fleet, secondFleet fleetgate.Fleet // of the default organization
	otherFleet         fleetgate.Fleet // of another organization
	robot, secondRobot fleetgate.Robot // in fleet and secondFleet
	otherRobot         fleetgate.Robot // in otherFleet
	adminUser          fleetgate.User  // the bootstrap org admin

	// Bearer tokens (without the scheme), each from a real login.
	admin      string // the bootstrap org admin, full scope
	kiosk      string // the same admin through a read-scope token
	operator   string // Operator on robot, no role on secondRobot
	fleetBound string // the org admin, restricted to secondFleet
	otherAdmin string // admin of the other organization
}

func newWorld(t *testing.T) *world {
	t.Helper()
	s := servertest.MustOpen(t)
	w := &world{Server: s}
	org, fleet := s.DefaultOrg()
	otherOrg, otherFleet := s.AddOrg("other")
	w.fleet, w.otherFleet = fleet, otherFleet
	w.secondFleet = s.AddFleet(org.ID, "second")
	w.robot = s.AddRobot(w.fleet, "robot-one")
	w.secondRobot = s.AddRobot(w.secondFleet, "robot-two")
	w.otherRobot = s.AddRobot(w.otherFleet, "other-robot")

	var err error
	if w.adminUser, err = s.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail); err != nil {
		t.Fatal(err)
	}
	operator := s.AddUser(org.ID, "operator@example.com", false, map[string]fleetgate.Role{w.robot.ID: fleetgate.RoleOperator})
	otherAdmin := s.AddUser(otherOrg.ID, "admin@other.example", true, nil)

	w.admin = s.Login(servertest.AdminToken)
	w.kiosk = w.bearerFor(w.adminUser.ID, fleetgate.ScopeRead, "")
	w.operator = w.bearerFor(operator.ID, "", "")
	w.fleetBound = w.bearerFor(w.adminUser.ID, "", w.secondFleet.ID)
	w.otherAdmin = w.bearerFor(otherAdmin.ID, "", "")
	return w
}

// bearerFor mints an API token for a user and logs in with it.
func (w *world) bearerFor(userID, scope, fleetID string) string {
	secret, _ := w.AddToken(userID, scope, fleetID)
	return w.Login(secret)
}

// expiredBearer is a bearer token of a valid API token whose lifetime is over.
func (w *world) expiredBearer(t *testing.T) string {
	t.Helper()
	_, tok := w.AddToken(w.adminUser.ID, "", "")
	return w.seedBearer(t, tok.ID, time.Now().Add(-time.Minute))
}

// revokedBearer is a bearer token minted by login from an API token revoked afterwards.
func (w *world) revokedBearer(t *testing.T) string {
	t.Helper()
	secret, tok := w.AddToken(w.adminUser.ID, "", "")
	bearer := w.Login(secret)
	if err := w.Store.RevokeAPIToken(context.Background(), tok.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	return bearer
}

// revokedBearerOnFile is an unexpired bearer token still stored for a revoked API token,
// so the revocation check itself answers rather than the missing row.
func (w *world) revokedBearerOnFile(t *testing.T) string {
	t.Helper()
	_, tok := w.AddToken(w.adminUser.ID, "", "")
	if err := w.Store.RevokeAPIToken(context.Background(), tok.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	return w.seedBearer(t, tok.ID, time.Now().Add(time.Hour))
}

func (w *world) seedBearer(t *testing.T, apiTokenID string, expires time.Time) string {
	t.Helper()
	secret := gateway.NewSecret("fgb_", 40)
	err := w.Store.CreateBearerToken(context.Background(), fleetgate.BearerToken{
		Hash: gateway.HashSecret(secret), APITokenID: apiTokenID, ExpiresAt: expires, CreatedAt: expires.Add(-time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// events is every event-log entry on file, newest first.
func (w *world) events(t *testing.T) []fleetgate.Event {
	t.Helper()
	events, err := w.Store.Events(context.Background(), fleetgate.EventFilter{RobotID: "", Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// apiCase is one request and the status it must get.
type apiCase struct {
	name   string
	method string
	target string // path and query below api.V2Prefix
	header http.Header
	body   string
	// chunked sends the body without a Content-Length.
	chunked    bool
	wantStatus int
}

// send makes c's request. Every answer, whatever the case wants, must not be a server
// error, and every non-2xx answer must be a well-formed problem.
func send(t *testing.T, s *servertest.Server, c apiCase) servertest.Response {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
		if c.chunked {
			body = struct{ io.Reader }{body} // hides the length from net/http
		}
	}
	resp := s.DoRaw(c.method, api.V2Prefix+c.target, c.header, body)
	// 503 is the contract's answer for an offline or slow robot, 504 for a quiet stream of a
	// reachable one (endpoint 7); any other 5xx is a bug.
	if resp.Status >= 500 && !((resp.Status == http.StatusServiceUnavailable || resp.Status == http.StatusGatewayTimeout) && c.wantStatus == resp.Status) {
		t.Errorf("%s %s: server error %d: %s", c.method, c.target, resp.Status, resp.Body)
	}
	if resp.Status != c.wantStatus {
		t.Errorf("%s %s: status %d, want %d; body %s", c.method, c.target, resp.Status, c.wantStatus, resp.Body)
	}
	if resp.Status < 200 || resp.Status > 299 {
		checkProblem(t, resp)
	}
	return resp
}

// checkProblem checks an error answer against DESIGN.md section 4: RFC 9457 problem+json
// with type, title, status (the HTTP status), detail and code; 401 also names the scheme.
func checkProblem(t *testing.T, resp servertest.Response) {
	t.Helper()
	mediaType, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/problem+json" {
		t.Errorf("status %d: Content-Type %q, want application/problem+json", resp.Status, resp.Header.Get("Content-Type"))
	}
	var p map[string]any
	if err := json.Unmarshal(resp.Body, &p); err != nil {
		t.Fatalf("status %d: problem body %q is not a JSON object: %v", resp.Status, resp.Body, err)
	}
	for _, key := range []string{"type", "title", "detail"} {
		if v, ok := p[key].(string); !ok || v == "" {
			t.Errorf("status %d: problem %s = %#v, want a non-empty string", resp.Status, key, p[key])
		}
	}
	if code, ok := p["code"].(string); !ok || code == "" {
		t.Errorf("status %d: problem code = %#v, want a non-empty string", resp.Status, p["code"])
	}
	if status, ok := p["status"].(float64); !ok || int(status) != resp.Status {
		t.Errorf("problem status = %#v, want %d", p["status"], resp.Status)
	}
	if resp.Status == http.StatusUnauthorized {
		if h := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(strings.ToLower(h), "bearer") {
			t.Errorf("401 WWW-Authenticate = %q, want a Bearer challenge", h)
		}
	}
}

func authorization(value string) http.Header { return http.Header{"Authorization": {value}} }

func bearer(token string) http.Header { return authorization("bearer " + token) }

// jsonBody is a request header for a JSON body, with an optional bearer token.
func jsonBody(token string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	if token != "" {
		h.Set("Authorization", "bearer "+token)
	}
	return h
}

// withQuery appends query parameters to a target that may already have some.
func withQuery(target, query string) string {
	if strings.Contains(target, "?") {
		return target + "&" + query
	}
	return target + "?" + query
}

// eventTarget is endpoint 12's target for these query parameters, properly encoded.
func eventTarget(params ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		q.Add(params[i], params[i+1])
	}
	return "/events/log?" + q.Encode()
}

func unknownID() string { return uuid.NewString() }

// diffJSON compares a decoded JSON document with the wanted one, key by key, and returns
// each difference with its path: a missing, extra or renamed key is one.
func diffJSON(path string, got, want any) []string {
	switch want := want.(type) {
	case map[string]any:
		got, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %#v, want an object", path, got)}
		}
		var diffs []string
		for _, key := range sortedKeys(want) {
			if _, ok := got[key]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing", path, key))
				continue
			}
			diffs = append(diffs, diffJSON(path+"."+key, got[key], want[key])...)
		}
		for _, key := range sortedKeys(got) {
			if _, ok := want[key]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: unexpected key (value %#v)", path, key, got[key]))
			}
		}
		return diffs
	case []any:
		got, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %#v, want an array", path, got)}
		}
		if len(got) != len(want) {
			return []string{fmt.Sprintf("%s: %d elements, want %d: got %v", path, len(got), len(want), got)}
		}
		var diffs []string
		for i := range want {
			diffs = append(diffs, diffJSON(fmt.Sprintf("%s[%d]", path, i), got[i], want[i])...)
		}
		return diffs
	default:
		if got != want {
			return []string{fmt.Sprintf("%s: got %#v, want %#v", path, got, want)}
		}
		return nil
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkJSON decodes body and compares it with want, written as JSON text.
func checkJSON(t *testing.T, body []byte, want string) {
	t.Helper()
	var got, wanted any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("answer %q is not JSON: %v", body, err)
	}
	if err := json.Unmarshal([]byte(want), &wanted); err != nil {
		t.Fatalf("the wanted document is not JSON: %v", err)
	}
	for _, d := range diffJSON("$", got, wanted) {
		t.Error(d)
	}
}

// waitForLogLine waits until the server has logged a line containing marker and returns it.
// The request line is written after the handler has answered, so a client may hold the
// answer a moment before the line exists.
func waitForLogLine(t *testing.T, s *servertest.Server, marker string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for line := range strings.Lines(s.Logs()) {
			if strings.Contains(line, marker) {
				return strings.TrimSpace(line)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q within 5 s; logs:\n%s", marker, s.Logs())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var logFieldPattern = regexp.MustCompile(`(?:^| )([a-z_]+)=("(?:[^"\\]|\\.)*"|\S*)`)

// logFields splits a slog text line into its key=value fields, unquoting quoted values.
func logFields(t *testing.T, line string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	for _, m := range logFieldPattern.FindAllStringSubmatch(line, -1) {
		value := m[2]
		if strings.HasPrefix(value, `"`) {
			var err error
			if value, err = strconv.Unquote(value); err != nil {
				t.Fatalf("log value %s of %s: %v", m[2], m[1], err)
			}
		}
		fields[m[1]] = value
	}
	return fields
}
