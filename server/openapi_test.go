package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
)

// TestOpenAPIMatchesRoutes fails when a v2 route has no documented operation, or the
// document describes an operation no route serves.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	// The local gateway has every route the cloud has, and W3.
	s := &Server{cfg: Config{Mode: ModeAgent}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), gw: gateway.New(gateway.Config{})}
	e := s.routes(newHTTPMetrics(prometheus.NewRegistry()))

	var routes []string
	for _, r := range e.Routes() {
		path, ok := strings.CutPrefix(r.Path, api.V2Prefix)
		if !ok || strings.HasPrefix(r.Method, "echo_route_") {
			continue
		}
		// echo writes path parameters as :name, OpenAPI as {name}.
		path = regexp.MustCompile(`:(\w+)`).ReplaceAllString(path, "{$1}")
		routes = append(routes, r.Method+" "+path)
	}

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", rec.Code)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Servers []struct{ URL string }               `json:"servers"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != api.V2Prefix {
		t.Errorf("servers = %+v, want one with url %s", doc.Servers, api.V2Prefix)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
			if op["operationId"] == nil || op["responses"] == nil {
				t.Errorf("%s %s: operationId and responses are required", method, path)
			}
		}
	}
	slices.Sort(routes)
	slices.Sort(documented)
	for _, r := range routes {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is not documented in server/api/openapi.json", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("openapi.json documents %s, which no route serves", d)
		}
	}
	if len(routes) == 0 {
		t.Fatal("found no v2 routes")
	}
}
