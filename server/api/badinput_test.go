package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestAuthentication runs every way of (not) presenting a bearer token against every
// endpoint that needs one.
func TestAuthentication(t *testing.T) {
	w := newWorld(t)
	endpoints := []struct {
		name, method, target string
	}{
		{"robots", http.MethodGet, "/robots"},
		{"robot", http.MethodGet, "/robots/" + w.robot.ID},
		{"fleets", http.MethodGet, "/fleets"},
		{"event", http.MethodPost, eventTarget("robotId", w.robot.ID, "message", "authentication check")},
	}
	credentials := []struct {
		name       string
		header     http.Header
		query      string // appended to the target
		wantStatus int
	}{
		{name: "no authorization header", wantStatus: http.StatusUnauthorized},
		{name: "empty authorization header", header: authorization(""), wantStatus: http.StatusUnauthorized},
		{name: "scheme Token", header: authorization("Token abc"), wantStatus: http.StatusUnauthorized},
		{name: "scheme Basic", header: authorization("Basic YWRtaW46c2VjcmV0"), wantStatus: http.StatusUnauthorized},
		{name: "scheme without token", header: authorization("bearer"), wantStatus: http.StatusUnauthorized},
		{name: "scheme and blank token", header: authorization("bearer   "), wantStatus: http.StatusUnauthorized},
		{name: "two tokens", header: authorization("bearer a b"), wantStatus: http.StatusUnauthorized},
		{name: "token without scheme", header: authorization(w.admin), wantStatus: http.StatusUnauthorized},
		{name: "unknown token", header: bearer("fgb_NoSuchToken"), wantStatus: http.StatusUnauthorized},
		{name: "API token instead of bearer token", header: bearer(servertest.AdminToken), wantStatus: http.StatusUnauthorized},
		{name: "expired token", header: bearer(w.expiredBearer(t)), wantStatus: http.StatusUnauthorized},
		{name: "token of revoked API token", header: bearer(w.revokedBearer(t)), wantStatus: http.StatusUnauthorized},
		{name: "token of revoked API token still on file", header: bearer(w.revokedBearerOnFile(t)), wantStatus: http.StatusUnauthorized},
		{name: "access_token query instead of header", query: "access_token=" + w.admin, wantStatus: http.StatusUnauthorized},
		{name: "scheme lower case", header: authorization("bearer " + w.admin), wantStatus: http.StatusOK},
		{name: "scheme upper case", header: authorization("BEARER " + w.admin), wantStatus: http.StatusOK},
		{name: "scheme capitalised", header: authorization("Bearer " + w.admin), wantStatus: http.StatusOK},
	}
	for _, e := range endpoints {
		for _, cred := range credentials {
			c := apiCase{name: e.name + "/" + cred.name, method: e.method, target: e.target, header: cred.header, wantStatus: cred.wantStatus}
			if cred.query != "" {
				c.target = withQuery(c.target, cred.query)
			}
			t.Run(c.name, func(t *testing.T) { send(t, w.Server, c) })
		}
	}
}

// TestLoginBadInput covers endpoint 1, the one endpoint with a body and without auth.
// It fails three logins, well under the limit of ten a minute.
func TestLoginBadInput(t *testing.T) {
	w := newWorld(t)
	valid := `{"userToken":"` + servertest.AdminToken + `"}`
	revoked, revokedToken := w.AddToken(w.adminUser.ID, "", "")
	revokedBody := `{"userToken":"` + revoked + `"}`
	if resp := w.Do(http.MethodPost, "/apigateway/v2/auth/login", "", revokedBody); resp.Status != http.StatusOK {
		t.Fatalf("login before revocation: %d %s", resp.Status, resp.Body)
	}
	if err := w.Store.RevokeAPIToken(context.Background(), revokedToken.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	oversized := `{"userToken":"` + servertest.AdminToken + `","padding":"` + strings.Repeat("x", 1<<20) + `"}`

	cases := []apiCase{
		{name: "valid token", header: jsonBody(""), body: valid, wantStatus: http.StatusOK},
		{name: "content type with charset", header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, body: valid, wantStatus: http.StatusOK},
		{name: "garbled authorization header is ignored", header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Token abc"}}, body: valid, wantStatus: http.StatusOK},
		{name: "unknown token", header: jsonBody(""), body: `{"userToken":"fgt_0000000000000000000000000000000A"}`, wantStatus: http.StatusUnauthorized},
		{name: "token of the wrong shape", header: jsonBody(""), body: `{"userToken":"hunter2"}`, wantStatus: http.StatusUnauthorized},
		{name: "revoked token", header: jsonBody(""), body: revokedBody, wantStatus: http.StatusUnauthorized},
		{name: "no content type", body: valid, wantStatus: http.StatusUnsupportedMediaType},
		{name: "text content type", header: http.Header{"Content-Type": {"text/plain"}}, body: valid, wantStatus: http.StatusUnsupportedMediaType},
		{name: "form content type", header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, body: "userToken=" + servertest.AdminToken, wantStatus: http.StatusUnsupportedMediaType},
		{name: "unparsable content type", header: http.Header{"Content-Type": {"application/json; ="}}, body: valid, wantStatus: http.StatusUnsupportedMediaType},
		{name: "body over 1 MiB", header: jsonBody(""), body: oversized, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "body over 1 MiB without length", header: jsonBody(""), body: oversized, chunked: true, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "empty body", header: jsonBody(""), wantStatus: http.StatusBadRequest},
		{name: "invalid JSON", header: jsonBody(""), body: `{"userToken":`, wantStatus: http.StatusBadRequest},
		{name: "invalid JSON without length", header: jsonBody(""), body: `{userToken}`, chunked: true, wantStatus: http.StatusBadRequest},
		{name: "two JSON values", header: jsonBody(""), body: valid + valid, wantStatus: http.StatusBadRequest},
		{name: "JSON array", header: jsonBody(""), body: `["` + servertest.AdminToken + `"]`, wantStatus: http.StatusBadRequest},
		{name: "JSON null", header: jsonBody(""), body: `null`, wantStatus: http.StatusBadRequest},
		{name: "missing userToken", header: jsonBody(""), body: `{}`, wantStatus: http.StatusBadRequest},
		{name: "misspelt userToken", header: jsonBody(""), body: `{"user_token":"` + servertest.AdminToken + `"}`, wantStatus: http.StatusBadRequest},
		{name: "empty userToken", header: jsonBody(""), body: `{"userToken":""}`, wantStatus: http.StatusBadRequest},
		{name: "userToken not a string", header: jsonBody(""), body: `{"userToken":42}`, wantStatus: http.StatusBadRequest},
	}
	for _, c := range cases {
		if c.method == "" {
			c.method = http.MethodPost
		}
		c.target = "/auth/login"
		t.Run(c.name, func(t *testing.T) { send(t, w.Server, c) })
	}
}

// TestRobotLookup covers endpoint 3 for robots that must stay invisible or may be seen.
func TestRobotLookup(t *testing.T) {
	w := newWorld(t)
	cases := []apiCase{
		{name: "org admin", header: bearer(w.admin), target: "/robots/" + w.robot.ID, wantStatus: http.StatusOK},
		{name: "read-scope token may look", header: bearer(w.kiosk), target: "/robots/" + w.robot.ID, wantStatus: http.StatusOK},
		{name: "operator member", header: bearer(w.operator), target: "/robots/" + w.robot.ID, wantStatus: http.StatusOK},
		{name: "unknown robot", header: bearer(w.admin), target: "/robots/" + unknownID(), wantStatus: http.StatusNotFound},
		{name: "id that is no UUID", header: bearer(w.admin), target: "/robots/no-such-robot", wantStatus: http.StatusNotFound},
		{name: "empty id", header: bearer(w.admin), target: "/robots/", wantStatus: http.StatusNotFound},
		{name: "robot of another organization", header: bearer(w.admin), target: "/robots/" + w.otherRobot.ID, wantStatus: http.StatusNotFound},
		{name: "other organization's admin", header: bearer(w.otherAdmin), target: "/robots/" + w.robot.ID, wantStatus: http.StatusNotFound},
		{name: "operator with role None", header: bearer(w.operator), target: "/robots/" + w.secondRobot.ID, wantStatus: http.StatusNotFound},
		{name: "fleet-restricted token outside its fleet", header: bearer(w.fleetBound), target: "/robots/" + w.robot.ID, wantStatus: http.StatusNotFound},
		{name: "fleet-restricted token inside its fleet", header: bearer(w.fleetBound), target: "/robots/" + w.secondRobot.ID, wantStatus: http.StatusOK},
		{name: "unknown route below the prefix", header: bearer(w.admin), target: "/robots/" + w.robot.ID + "/nothing-here", wantStatus: http.StatusNotFound},
	}
	for _, c := range cases {
		if c.method == "" {
			c.method = http.MethodGet
		}
		t.Run(c.name, func(t *testing.T) { send(t, w.Server, c) })
	}
}

// TestPostEventBadInput covers endpoint 12's query, body and permission rules. A refused
// post must leave the event log as it was; an accepted one adds exactly one entry.
func TestPostEventBadInput(t *testing.T) {
	w := newWorld(t)
	robot := w.robot.ID
	exactly4096 := strings.Repeat("a", 4096)
	twoByteRunes4096 := strings.Repeat("é", 2048)
	cases := []apiCase{
		{name: "robot and message", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", "hello"), wantStatus: http.StatusOK},
		{name: "with fleet", header: bearer(w.admin), target: eventTarget("robotId", robot, "fleetId", w.fleet.ID, "message", "hello"), wantStatus: http.StatusOK},
		{name: "empty fleetId means none", header: bearer(w.admin), target: eventTarget("robotId", robot, "fleetId", "", "message", "hello"), wantStatus: http.StatusOK},
		{name: "operator member", header: bearer(w.operator), target: eventTarget("robotId", robot, "message", "hello"), wantStatus: http.StatusOK},
		{name: "message of exactly 4096 bytes", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", exactly4096), wantStatus: http.StatusOK},
		{name: "message of 4096 bytes in two-byte runes", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", twoByteRunes4096), wantStatus: http.StatusOK},
		{name: "message of 4097 bytes", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", exactly4096+"a"), wantStatus: http.StatusBadRequest},
		{name: "message of 4097 bytes with two-byte runes", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", "a"+twoByteRunes4096), wantStatus: http.StatusBadRequest},
		{name: "missing robotId", header: bearer(w.admin), target: eventTarget("message", "hello"), wantStatus: http.StatusBadRequest},
		{name: "empty robotId", header: bearer(w.admin), target: eventTarget("robotId", "", "message", "hello"), wantStatus: http.StatusBadRequest},
		{name: "missing message", header: bearer(w.admin), target: eventTarget("robotId", robot), wantStatus: http.StatusBadRequest},
		{name: "empty message", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", ""), wantStatus: http.StatusBadRequest},
		{name: "blank message", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", " \t\n "), wantStatus: http.StatusBadRequest},
		{name: "message not UTF-8", header: bearer(w.admin), target: "/events/log?robotId=" + robot + "&message=%FF%FE", wantStatus: http.StatusBadRequest},
		{name: "no query at all", header: bearer(w.admin), target: "/events/log", wantStatus: http.StatusBadRequest},
		{name: "robotId repeated", header: bearer(w.admin), target: eventTarget("robotId", robot, "robotId", robot, "message", "hello"), wantStatus: http.StatusBadRequest},
		{name: "message repeated", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", "a", "message", "b"), wantStatus: http.StatusBadRequest},
		{name: "fleetId repeated", header: bearer(w.admin), target: eventTarget("robotId", robot, "fleetId", w.fleet.ID, "fleetId", w.fleet.ID, "message", "hello"), wantStatus: http.StatusBadRequest},
		{name: "bad escape in robotId", header: bearer(w.admin), target: "/events/log?robotId=%zz&message=hello", wantStatus: http.StatusBadRequest},
		{name: "semicolon separator", header: bearer(w.admin), target: "/events/log?robotId=" + robot + ";message=hello", wantStatus: http.StatusBadRequest},
		{name: "parameter names are case-sensitive", header: bearer(w.admin), target: eventTarget("robotid", robot, "message", "hello"), wantStatus: http.StatusBadRequest},
		{name: "JSON body instead of query", header: jsonBody(w.admin), target: "/events/log", body: `{"robotId":"` + robot + `","message":"hello"}`, wantStatus: http.StatusBadRequest},
		{name: "body beside a valid query", header: jsonBody(w.admin), target: eventTarget("robotId", robot, "message", "hello"), body: `{}`, wantStatus: http.StatusBadRequest},
		{name: "body without length beside a valid query", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", "hello"), body: "x", chunked: true, wantStatus: http.StatusBadRequest},
		{name: "body over 1 MiB", header: bearer(w.admin), target: eventTarget("robotId", robot, "message", "hello"), body: strings.Repeat("x", 1<<20+1), wantStatus: http.StatusRequestEntityTooLarge},
		{name: "unknown robot", header: bearer(w.admin), target: eventTarget("robotId", unknownID(), "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "robot of another organization", header: bearer(w.admin), target: eventTarget("robotId", w.otherRobot.ID, "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "operator with role None", header: bearer(w.operator), target: eventTarget("robotId", w.secondRobot.ID, "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "fleet-restricted token outside its fleet", header: bearer(w.fleetBound), target: eventTarget("robotId", robot, "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "unknown fleetId", header: bearer(w.admin), target: eventTarget("robotId", robot, "fleetId", unknownID(), "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "fleetId of another organization", header: bearer(w.admin), target: eventTarget("robotId", robot, "fleetId", w.otherFleet.ID, "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "fleetId outside the token's fleet", header: bearer(w.fleetBound), target: eventTarget("robotId", w.secondRobot.ID, "fleetId", w.fleet.ID, "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "read-scope token", header: bearer(w.kiosk), target: eventTarget("robotId", robot, "message", "hello"), wantStatus: http.StatusForbidden},
		{name: "read-scope token on an unknown robot", header: bearer(w.kiosk), target: eventTarget("robotId", unknownID(), "message", "hello"), wantStatus: http.StatusNotFound},
		{name: "read-scope token on another organization's robot", header: bearer(w.kiosk), target: eventTarget("robotId", w.otherRobot.ID, "message", "hello"), wantStatus: http.StatusNotFound},
	}
	for _, c := range cases {
		if c.method == "" {
			c.method = http.MethodPost
		}
		t.Run(c.name, func(t *testing.T) {
			before := len(w.events(t))
			resp := send(t, w.Server, c)
			added := len(w.events(t)) - before
			switch {
			case resp.Status == http.StatusOK && added != 1:
				t.Errorf("accepted post added %d entries, want 1", added)
			case resp.Status != http.StatusOK && added != 0:
				t.Errorf("refused post added %d entries, want none", added)
			}
			if resp.Status == http.StatusOK && len(resp.Body) != 0 {
				t.Errorf("success body %q, want empty", resp.Body)
			}
		})
	}
}
