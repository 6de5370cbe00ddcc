package server_test

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// How a route authenticates its caller.
const (
	authPublic  = "public"      // answers anybody: the allow-list
	authBearer  = "bearer"      // Authorization: bearer <token> (the API)
	authUpgrade = "query token" // a WebSocket upgrade: bearer header, access_token or the panel's subprotocol
	authSession = "session"     // the panel's session cookie (or a kiosk session)
	authAgent   = "agent key"   // X-Fleetgate-Agent-Key (the agent link)
	authSigned  = "signed URL"  // exp and sig of a pre-signed download
)

// routeAuth classifies every route of both gateways. A route missing here fails the audit
// with its name: whoever adds a route says how it authenticates, and the audit checks it.
var routeAuth = []struct {
	pattern *regexp.Regexp // over "METHOD path" as echo writes it
	auth    string
}{
	{regexp.MustCompile(`^GET /healthz$`), authPublic},
	{regexp.MustCompile(`^GET /openapi\.json$`), authPublic},
	{regexp.MustCompile(`^POST /apigateway/v2/auth/login$`), authPublic},
	{regexp.MustCompile(`^POST /apigateway/login$`), authPublic},
	{regexp.MustCompile(`^(GET|HEAD|POST) /login$`), authPublic},
	{regexp.MustCompile(`^(GET|HEAD) /static/\*$`), authPublic},
	{regexp.MustCompile(`^(GET|HEAD) /favicon\.(ico|svg)$`), authPublic},
	{regexp.MustCompile(`^(GET|HEAD) /files/:resourceId$`), authSigned},
	{regexp.MustCompile(`^GET /apigateway/v2/robots/:robotId/streams/connect$`), authUpgrade},
	{regexp.MustCompile(`^GET /apigateway/v2/fleets/:fleetId/custom-kpis$`), authUpgrade},
	{regexp.MustCompile(`^GET /apigateway/v2/robots/:robotId/foxglove$`), authUpgrade},
	{regexp.MustCompile(`^GET /agentlink/v1/(connect|live)$`), authAgent},
	{regexp.MustCompile(`^\w+ /apigateway/`), authBearer},
	{regexp.MustCompile(`^\w+ /`), authSession}, // the panel and its API mirror
}

func classify(method, path string) string {
	key := method + " " + path
	for _, r := range routeAuth {
		if r.pattern.MatchString(key) {
			return r.auth
		}
	}
	return ""
}

var pathParam = regexp.MustCompile(`:\w+|\*`)

// TestRouteAudit walks the router of the cloud and of the local gateway and sends every route
// a request without any credential: only the allow-list answers it (2xx, or a page); every
// other route refuses (401, 403, a redirect to the login page, or 400 for a request that is
// not even an upgrade), and none answers 5xx.
func TestRouteAudit(t *testing.T) {
	for _, mode := range []server.Mode{server.ModeCloud, server.ModeAgent} {
		t.Run(string(mode), func(t *testing.T) {
			s := servertest.MustOpen(t, func(c *server.Config) { c.Mode = mode })
			_, fleet := s.DefaultOrg()
			robot := s.AddRobot(fleet, "audited")
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			seen := map[string]bool{}
			for _, r := range s.Routes() {
				if strings.HasPrefix(r.Method, "echo_route_") || r.Method == "" {
					continue // echo's own not-found and method-not-allowed entries
				}
				key := r.Method + " " + r.Path
				if seen[key] {
					continue
				}
				seen[key] = true
				auth := classify(r.Method, r.Path)
				if auth == "" {
					t.Errorf("%s: the route audit does not know how it authenticates; add it to routeAuth", key)
					continue
				}
				path := pathParam.ReplaceAllStringFunc(r.Path, func(p string) string {
					switch p {
					case ":robotId":
						return robot.ID
					case ":fleetId":
						return fleet.ID
					case "*":
						return "x"
					}
					return uuid.NewString()
				})
				req, _ := http.NewRequest(r.Method, s.URL+path, nil)
				resp, err := noRedirect.Do(req)
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				resp.Body.Close()
				status := resp.StatusCode
				if status >= 500 {
					t.Errorf("%s (%s) without credentials: %d", key, auth, status)
				}
				if auth == authPublic {
					continue
				}
				refused := status == http.StatusUnauthorized || status == http.StatusForbidden ||
					status == http.StatusBadRequest && (auth == authUpgrade || auth == authAgent) ||
					auth == authSession && (status == http.StatusSeeOther || status == http.StatusFound) &&
						strings.HasPrefix(resp.Header.Get("Location"), "/login")
				if !refused {
					t.Errorf("%s (%s) answered %d without credentials (Location %q)", key, auth, status, resp.Header.Get("Location"))
				}
			}
			counts := map[string]int{}
			for key := range seen {
				m, p, _ := strings.Cut(key, " ")
				counts[classify(m, p)]++
			}
			if len(seen) < 40 || counts[authBearer] == 0 || counts[authSession] == 0 {
				t.Fatalf("walked %d routes (%v): the router was not read", len(seen), counts)
			}
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var b strings.Builder
			for _, k := range keys {
				b.WriteString(k + ": " + strconv.Itoa(counts[k]) + "; ")
			}
			t.Logf("%s gateway: %d routes audited (%s)", mode, len(seen), b.String())
		})
	}
}
