package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

const dashboard = "http://dashboard.example:3000"

// TestCORSForTheAPIWithBearerTokens: with --cors-origin, a page of that origin may call the
// API (/apigateway/..., both conventions) with a bearer token: its preflight is answered,
// and every answer, errors included, is readable by it. Never with credentials: no answer
// allows them, and the panel's pages and its cookie API (/panel/api) stay same-origin.
func TestCORSForTheAPIWithBearerTokens(t *testing.T) {
	s := servertest.MustOpen(t, func(c *server.Config) { c.CORSOrigins = []string{dashboard, "https://ops.example"} })
	bearer := s.Login(servertest.AdminToken)
	preflight := func(origin, method, headers string) http.Header {
		return http.Header{"Origin": {origin}, "Access-Control-Request-Method": {method}, "Access-Control-Request-Headers": {headers}}
	}
	from := func(origin string, h http.Header) http.Header {
		h = h.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set("Origin", origin)
		return h
	}
	auth := http.Header{"Authorization": {"bearer " + bearer}}
	jsonBody := http.Header{"Content-Type": {"application/json"}}
	login := `{"userToken":"` + servertest.AdminToken + `"}`
	cases := []struct {
		name, method, path string
		header             http.Header
		body               string
		status             int
		// OPTIONS without the origin's permission is echo's own answer (204 with Allow):
		// without Access-Control-Allow-Origin, the browser refuses the request it preflights.
		allowed   bool // Access-Control-Allow-Origin names the origin
		preflight bool // and says which methods and headers
	}{
		{"preflight of the login", "OPTIONS", "/apigateway/v2/auth/login", preflight(dashboard, "POST", "content-type"), "", 204, true, true},
		{"preflight of the robots with a bearer", "OPTIONS", "/apigateway/v2/robots", preflight(dashboard, "GET", "authorization"), "", 204, true, true},
		{"preflight of the second convention", "OPTIONS", "/apigateway/robots", preflight("https://ops.example", "GET", "authorization"), "", 204, true, true},
		{"login", "POST", "/apigateway/v2/auth/login", from(dashboard, jsonBody), login, 200, true, false},
		{"robots", "GET", "/apigateway/v2/robots", from(dashboard, auth), "", 200, true, false},
		{"a 401 is readable too", "GET", "/apigateway/v2/robots", from(dashboard, nil), "", 401, true, false},
		{"a 404 route is readable too", "GET", "/apigateway/v2/nope", from(dashboard, auth), "", 404, true, false},
		{"another origin's preflight", "OPTIONS", "/apigateway/v2/robots", preflight("http://evil.example", "GET", "authorization"), "", 204, false, false},
		{"another origin's request", "GET", "/apigateway/v2/robots", from("http://evil.example", auth), "", 200, false, false},
		{"an origin differing by its port", "GET", "/apigateway/v2/robots", from("http://dashboard.example:3001", auth), "", 200, false, false},
		{"the panel's browser API stays same-origin", "GET", "/panel/api/robots", from(dashboard, nil), "", 401, false, false},
		{"the panel's browser API's preflight", "OPTIONS", "/panel/api/robots", preflight(dashboard, "GET", "authorization"), "", 204, false, false},
		{"a panel page", "GET", "/login", from(dashboard, nil), "", 200, false, false},
		{"the OpenAPI document is not the API", "GET", "/openapi.json", from(dashboard, nil), "", 200, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := s.DoRaw(c.method, c.path, c.header, strings.NewReader(c.body))
			if resp.Status != c.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, c.status, resp.Body)
			}
			h := resp.Header
			origin := c.header.Get("Origin")
			if got := h.Get("Access-Control-Allow-Origin"); c.allowed && got != origin || !c.allowed && got != "" {
				t.Errorf("Access-Control-Allow-Origin %q (allowed: %v)", got, c.allowed)
			}
			if got := h.Values("Access-Control-Allow-Credentials"); len(got) > 0 {
				t.Errorf("Access-Control-Allow-Credentials %q: the API's tokens are bearer tokens, never a cookie", got)
			}
			if c.allowed && !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
				t.Errorf("Vary %q lacks Origin: a cache would hand one origin's answer to another", h.Values("Vary"))
			}
			methods, headers := h.Get("Access-Control-Allow-Methods"), strings.ToLower(h.Get("Access-Control-Allow-Headers"))
			if c.preflight {
				if !strings.Contains(methods, c.header.Get("Access-Control-Request-Method")) || !strings.Contains(headers, c.header.Get("Access-Control-Request-Headers")) {
					t.Errorf("preflight allows methods %q and headers %q, want %s and %s", methods, headers,
						c.header.Get("Access-Control-Request-Method"), c.header.Get("Access-Control-Request-Headers"))
				}
				if h.Get("Access-Control-Max-Age") == "" {
					t.Error("no Access-Control-Max-Age: every request would be preflighted again")
				}
			} else if methods != "" || headers != "" {
				t.Errorf("not a preflight, yet Allow-Methods %q, Allow-Headers %q", methods, headers)
			}
			if c.allowed && !c.preflight && !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Retry-After") {
				t.Errorf("Access-Control-Expose-Headers %q: a page cannot read when to log in again after a 429", h.Get("Access-Control-Expose-Headers"))
			}
		})
	}
}

// TestNoCORSByDefault: without --cors-origin, no answer of the API names an origin, so a
// browser keeps every answer from another origin's page.
func TestNoCORSByDefault(t *testing.T) {
	s := servertest.MustOpen(t)
	bearer := s.Login(servertest.AdminToken)
	for _, r := range []struct {
		method string
		header http.Header
	}{
		{"OPTIONS", http.Header{"Origin": {dashboard}, "Access-Control-Request-Method": {"GET"}}},
		{"GET", http.Header{"Origin": {dashboard}, "Authorization": {"bearer " + bearer}}},
	} {
		resp := s.DoRaw(r.method, "/apigateway/v2/robots", r.header, nil)
		for k := range resp.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: %s %q without --cors-origin", r.method, k, resp.Header.Values(k))
			}
		}
	}
}
