package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/server/servertest"
	"github.com/fleetgate/fleetgate/static"
)

// TestEveryAnswerIsNoStoreAndNosniff: JSON answers (the login's, with its bearer, among
// them), problem documents of every status, and pages all say no-store and nosniff; only the
// hashed static files may be cached, and they are nosniff too.
func TestEveryAnswerIsNoStoreAndNosniff(t *testing.T) {
	s := servertest.MustOpen(t)
	bearer := s.Login(servertest.AdminToken)
	auth := http.Header{"Authorization": {"bearer " + bearer}}
	jsonBody := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, method, path string
		header             http.Header
		body               string
		status             int
	}{
		{"health", "GET", "/healthz", nil, "", 200},
		{"openapi", "GET", "/openapi.json", nil, "", 200},
		{"login with its bearer", "POST", "/apigateway/v2/auth/login", jsonBody, `{"userToken":"` + servertest.AdminToken + `"}`, 200},
		{"second convention login", "POST", "/apigateway/login", jsonBody, `{"usertoken":"` + servertest.AdminToken + `"}`, 200},
		{"robot list", "GET", "/apigateway/v2/robots", auth, "", 200},
		{"401", "GET", "/apigateway/v2/robots", nil, "", 401},
		{"400", "POST", "/apigateway/v2/auth/login", jsonBody, `{`, 400},
		{"404 robot", "GET", "/apigateway/v2/robots/00000000-0000-4000-8000-000000000000", auth, "", 404},
		{"404 route", "GET", "/apigateway/v2/nope", auth, "", 404},
		{"405", "DELETE", "/apigateway/v2/robots", auth, "", 405},
		{"415", "POST", "/apigateway/v2/auth/login", http.Header{"Content-Type": {"text/plain"}}, `x`, 415},
		{"403 signed download", "GET", "/files/00000000-0000-4000-8000-000000000000?exp=1&sig=x", nil, "", 403},
		{"panel login page", "GET", "/login", nil, "", 200},
		{"panel API 401", "GET", "/panel/api/robots", nil, "", 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := s.DoRaw(c.method, c.path, c.header, strings.NewReader(c.body))
			if resp.Status != c.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, c.status, resp.Body)
			}
			if got := resp.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
		})
	}
	t.Run("hashed static file", func(t *testing.T) {
		resp := s.DoRaw("GET", static.Path("dist/panel.js"), nil, nil)
		if resp.Status != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%d, Cache-Control %q, nosniff %q", resp.Status, resp.Header.Get("Cache-Control"), resp.Header.Get("X-Content-Type-Options"))
		}
	})
}
