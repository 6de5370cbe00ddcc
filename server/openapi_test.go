package server

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
)

// openAPIDoc is server/api/openapi.json as the server serves it, decoded loosely: the tests
// walk it as JSON.
type openAPIDoc struct {
	OpenAPI    string                               `json:"openapi"`
	Servers    []struct{ URL string }               `json:"servers"`
	Paths      map[string]map[string]map[string]any `json:"paths"`
	Components map[string]map[string]any            `json:"components"`
	raw        map[string]any
}

func loadOpenAPI(t *testing.T, e http.Handler) *openAPIDoc {
	t.Helper()
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", rec.Code)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc.raw); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// resolve follows a local $ref ("#/components/parameters/RobotId"); nil when it leads nowhere.
func (d *openAPIDoc) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var at any = d.raw
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			obj, _ := at.(map[string]any)
			at = obj[part]
		}
		m, _ = at.(map[string]any)
	}
	return nil
}

// parameter is the operation's parameter name in place, resolved; nil when it has none.
func (d *openAPIDoc) parameter(op map[string]any, name, in string) map[string]any {
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		if pm := d.resolve(p); pm != nil && pm["name"] == name && pm["in"] == in {
			return pm
		}
	}
	return nil
}

// apiRoutes lists the routes the document must describe, as "METHOD /path/{param}": the API
// of both conventions under /apigateway, and the health, document and signed-download routes
// beside it. The panel (its pages and /panel/api mirror) and the agent link are not for API
// clients and are left out. Both gateways' routes are taken: W3 is the agent's only.
func apiRoutes(t *testing.T) []string {
	t.Helper()
	var routes []string
	for _, mode := range []Mode{ModeCloud, ModeAgent} {
		s := &Server{cfg: Config{Mode: mode}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), gw: gateway.New(gateway.Config{})}
		e := s.routes(newHTTPMetrics(prometheus.NewRegistry()))
		for _, r := range e.Routes() {
			if strings.HasPrefix(r.Method, "echo_route_") {
				continue
			}
			if !strings.HasPrefix(r.Path, api.SecondPrefix+"/") && !strings.HasPrefix(r.Path, "/files/") &&
				r.Path != "/healthz" && r.Path != "/openapi.json" {
				continue
			}
			// echo writes path parameters as :name, OpenAPI as {name}.
			route := r.Method + " " + regexp.MustCompile(`:(\w+)`).ReplaceAllString(r.Path, "{$1}")
			if !slices.Contains(routes, route) {
				routes = append(routes, route)
			}
		}
	}
	slices.Sort(routes)
	return routes
}

// TestOpenAPIMatchesRoutes fails when a route of either convention has no documented
// operation, or the document describes an operation no route serves.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	routes := apiRoutes(t)
	s := &Server{cfg: Config{Mode: ModeAgent}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), gw: gateway.New(gateway.Config{})}
	doc := loadOpenAPI(t, s.routes(newHTTPMetrics(prometheus.NewRegistry())))

	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	// Paths are written from the root: the two conventions have paths of one shape under
	// different roots, which one server URL could not hold.
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Errorf("servers = %+v, want one with url /", doc.Servers)
	}
	var documented []string
	operationIDs := map[string]string{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			name := strings.ToUpper(method) + " " + path
			documented = append(documented, name)
			id, _ := op["operationId"].(string)
			if id == "" || op["responses"] == nil {
				t.Errorf("%s: operationId and responses are required", name)
			}
			if other, dup := operationIDs[id]; dup {
				t.Errorf("%s and %s share operationId %q", name, other, id)
			}
			operationIDs[id] = name
		}
	}
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
	for _, want := range []string{"POST /apigateway/v2/auth/login", "GET /apigateway/v2/robots/{robotId}/streams/connect",
		"POST /apigateway/login", "GET /apigateway/robot/{robotId}/metric/{metricType}"} {
		if !slices.Contains(routes, want) {
			t.Errorf("the route walk missed %s: the check above proves nothing", want)
		}
	}
}

// TestOpenAPIIsWellFormed checks what OpenAPI requires of paths and references: no two
// templated paths of one shape, every path template declared as a parameter, every $ref
// leading somewhere.
func TestOpenAPIIsWellFormed(t *testing.T) {
	s := &Server{cfg: Config{Mode: ModeAgent}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), gw: gateway.New(gateway.Config{})}
	doc := loadOpenAPI(t, s.routes(newHTTPMetrics(prometheus.NewRegistry())))

	template := regexp.MustCompile(`\{(\w+)\}`)
	shapes := map[string]string{}
	for path, ops := range doc.Paths {
		shape := template.ReplaceAllString(path, "{}")
		if other, dup := shapes[shape]; dup {
			t.Errorf("paths %s and %s have the same shape", path, other)
		}
		shapes[shape] = path
		for method, op := range ops {
			for _, m := range template.FindAllStringSubmatch(path, -1) {
				p := doc.parameter(op, m[1], "path")
				if p == nil || p["required"] != true {
					t.Errorf("%s %s: path parameter %s is not declared as a required path parameter", method, path, m[1])
				}
			}
		}
	}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && doc.resolve(v) == nil {
				t.Errorf("%s: $ref %s leads nowhere", at, ref)
			}
			for k, x := range v {
				walk(at+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", at, i), x)
			}
		}
	}
	walk("#", doc.raw)
}

// TestOpenAPIFollowsTheContract checks the document against the contract: every endpoint of
// both conventions named once (x-contract), every parameter the contract types typed and
// required as it says, the problem codes the server makes, and every extension marked.
func TestOpenAPIFollowsTheContract(t *testing.T) {
	s := &Server{cfg: Config{Mode: ModeAgent}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), gw: gateway.New(gateway.Config{})}
	doc := loadOpenAPI(t, s.routes(newHTTPMetrics(prometheus.NewRegistry())))
	const v2, sc = api.V2Prefix, api.SecondPrefix
	op := func(method, path string) map[string]any {
		t.Helper()
		o := doc.Paths[path][method]
		if o == nil {
			t.Fatalf("openapi.json has no %s %s", method, path)
		}
		return o
	}

	// The contract's endpoints, each implemented by exactly one documented operation.
	contract := map[string]string{
		"1": "post " + v2 + "/auth/login", "2": "get " + v2 + "/robots", "3": "get " + v2 + "/robots/{robotId}",
		"4": "get " + v2 + "/robots/{robotId}/resources", "5": "get " + v2 + "/robots/{robotId}/resource/{resourceId}/download",
		"6": "get " + v2 + "/robots/{robotId}/streams", "7": "get " + v2 + "/robots/{robotId}/stream",
		"8": "get " + v2 + "/streams/{messageType}/stream", "9": "post " + v2 + "/robots/{robotId}/upload-stream",
		"10": "get " + v2 + "/robots/metrics", "11": "get " + v2 + "/robots/{robotId}/metric/{metricId}", "12": "post " + v2 + "/events/log",
		"W1": "get " + v2 + "/fleets/{fleetId}/custom-kpis", "W2": "get " + v2 + "/fleets/{fleetId}/custom-kpis",
		"W3": "get " + v2 + "/robots/{robotId}/streams/connect",
		"S1": "get " + sc + "/robots", "S2": "get " + sc + "/robot/{robotId}", "S3": "get " + sc + "/robot/{robotId}/resources",
		"S4": "get " + sc + "/robot/{robotId}/resource/{resourceId}/download", "S5": "get " + sc + "/robot/{robotId}/streams",
		"S6": "get " + sc + "/robot/{robotId}/stream", "S7": "get " + sc + "/streams/{streamType}/stream",
		"S8": "post " + sc + "/robot/{robotId}/streams/upload-stream", "S9": "get " + sc + "/robots/metrics",
		"S10": "get " + sc + "/robot/{robotId}/metric/{metricType}", "S11": "get " + sc + "/robot/{robotId}/metric/{metricType}",
	}
	found := map[string][]string{}
	for path, ops := range doc.Paths {
		for method, o := range ops {
			ids, _ := o["x-contract"].([]any)
			if len(ids) == 0 && o["x-fleetgate-extension"] == nil {
				t.Errorf("%s %s names no contract endpoint (x-contract) and is not marked x-fleetgate-extension", method, path)
			}
			for _, id := range ids {
				found[fmt.Sprint(id)] = append(found[fmt.Sprint(id)], method+" "+path)
			}
		}
	}
	for id, want := range contract {
		if got := found[id]; len(got) != 1 || got[0] != want {
			t.Errorf("contract endpoint %s is documented as %v, want %s", id, got, want)
		}
	}
	for id := range found {
		if _, ok := contract[id]; !ok {
			t.Errorf("x-contract %s is no endpoint of the contract", id)
		}
	}

	// Every parameter whose type the contract states, as the contract types it. Bodies are
	// checked by TestOpenAPIDescribesRealAnswers against real requests.
	type param struct {
		method, path, name, in, typ string
		required                    bool
	}
	var params []param
	for _, p := range []string{v2 + "/robots/{robotId}/stream", sc + "/robot/{robotId}/stream"} {
		params = append(params,
			param{"get", p, "robotId", "path", "string", true},
			param{"get", p, "componentName", "query", "string", false},
			param{"get", p, "streamName", "query", "string", true},
			param{"get", p, "source", "query", "integer", false})
	}
	params = append(params,
		param{"get", v2 + "/robots/{robotId}/stream", "streamType", "query", "string", false},
		param{"get", v2 + "/robots/{robotId}", "robotId", "path", "string", true},
		param{"get", v2 + "/robots/{robotId}/resource/{resourceId}/download", "resourceId", "path", "string", true},
		param{"get", sc + "/robot/{robotId}/resource/{resourceId}/download", "resourceId", "path", "string", true},
		param{"get", v2 + "/streams/{messageType}/stream", "messageType", "path", "string", true},
		param{"get", sc + "/streams/{streamType}/stream", "streamType", "path", "string", true},
		param{"get", v2 + "/robots/metrics", "robotId", "query", "string", true},
		param{"get", v2 + "/robots/{robotId}/metric/{metricId}", "metricId", "path", "integer", true},
		param{"get", v2 + "/robots/{robotId}/metric/{metricId}", "metricName", "query", "string", false},
		param{"get", sc + "/robot/{robotId}/metric/{metricType}", "metricType", "path", "integer", true},
		param{"get", sc + "/robot/{robotId}/metric/{metricType}", "metricName", "query", "string", false},
		param{"post", v2 + "/events/log", "robotId", "query", "string", true},
		param{"post", v2 + "/events/log", "fleetId", "query", "string", false},
		param{"post", v2 + "/events/log", "message", "query", "string", true},
		param{"get", v2 + "/fleets/{fleetId}/custom-kpis", "fleetId", "path", "string", true},
		param{"get", v2 + "/fleets/{fleetId}/custom-kpis", "access_token", "query", "string", false},
	)
	// W3's query (contract, "W3 details").
	w3 := v2 + "/robots/{robotId}/streams/connect"
	for _, p := range []struct {
		name, typ string
		required  bool
	}{
		{"access_token", "string", false}, {"componentName", "string", false}, {"streamName", "string", true},
		{"source", "integer", false}, {"streamType", "string", false}, {"direction", "string", false},
		{"format", "string", false}, {"url", "string", false}, {"endpoint", "string", false},
		{"username", "string", false}, {"password", "string", false}, {"maxRate", "number", false},
		{"withoutDownSampling", "boolean", false},
	} {
		params = append(params, param{"get", w3, p.name, "query", p.typ, p.required})
	}
	for _, p := range params {
		pm := doc.parameter(op(p.method, p.path), p.name, p.in)
		if pm == nil {
			t.Errorf("%s %s: no %s parameter %s", p.method, p.path, p.in, p.name)
			continue
		}
		schema := doc.resolve(pm["schema"])
		if schema == nil || schema["type"] != p.typ {
			t.Errorf("%s %s: parameter %s has schema %v, the contract says %s", p.method, p.path, p.name, pm["schema"], p.typ)
		}
		if required, _ := pm["required"].(bool); required != p.required {
			t.Errorf("%s %s: parameter %s required = %v, the contract says %v", p.method, p.path, p.name, required, p.required)
		}
	}
	for _, enum := range []struct{ name, values string }{{"direction", "output input"}, {"format", "protobuf json"}} {
		schema := doc.resolve(doc.parameter(op("get", w3), enum.name, "query")["schema"])
		if got := fmt.Sprint(schema["enum"]); got != "["+enum.values+"]" {
			t.Errorf("W3 %s enum = %s, want [%s]", enum.name, got, enum.values)
		}
	}

	// The problem codes: every code the core and the HTTP layer answer with, and no other.
	problem := doc.resolve(doc.Components["schemas"]["Problem"])
	code := doc.resolve(problem["properties"].(map[string]any)["code"])
	var documentedCodes []string
	for _, c := range code["enum"].([]any) {
		documentedCodes = append(documentedCodes, c.(string))
	}
	wantCodes := edge.ProblemCodes()
	slices.Sort(documentedCodes)
	if !slices.Equal(documentedCodes, wantCodes) {
		t.Errorf("Problem.code enum = %v, want %v", documentedCodes, wantCodes)
	}
	if !slices.Contains(toStrings(problem["required"]), "code") {
		t.Errorf("Problem.required = %v: every problem carries a code", problem["required"])
	}

	// Extensions: what goes beyond the contract says so where it is.
	kpis := v2 + "/fleets/{fleetId}/custom-kpis"
	marked := []struct {
		what string
		at   map[string]any
	}{
		{"GET /fleets", op("get", v2+"/fleets")},
		{"GET /robots/{robotId}/controls", op("get", v2+"/robots/{robotId}/controls")},
		{"POST /apigateway/login", op("post", sc+"/login")},
		{"W3 (speed limits: 1008 beyond 10x)", op("get", w3)},
		{"the 409 of W3 (owner, since)", responseOf(doc, op("get", w3), "409")},
		{"the 403 of W3 (a panel socket token from another origin)", responseOf(doc, op("get", w3), "403")},
		{"the 403 of W1/W2", responseOf(doc, op("get", kpis), "403")},
		{"the panel's subprotocol on W3", doc.parameter(op("get", w3), "Sec-WebSocket-Protocol", "header")},
		{"the panel's subprotocol on W1/W2", doc.parameter(op("get", kpis), "Sec-WebSocket-Protocol", "header")},
		{"ROS type names on endpoint 8", doc.parameter(op("get", v2+"/streams/{messageType}/stream"), "messageType", "path")},
		{"ROS type names on S7", doc.parameter(op("get", sc+"/streams/{streamType}/stream"), "streamType", "path")},
		{"the 504 no_sample of endpoint 7 (a quiet stream)", responseOf(doc, op("get", v2+"/robots/{robotId}/stream"), "504")},
		{"the 504 no_sample of S6 (a quiet stream)", responseOf(doc, op("get", sc+"/robot/{robotId}/stream"), "504")},
		{"speed limits on endpoint 9 (400 beyond 10x)", op("post", v2+"/robots/{robotId}/upload-stream")},
		{"speed limits on S8 (400 beyond 10x)", op("post", sc+"/robot/{robotId}/streams/upload-stream")},
	}
	for _, m := range marked {
		if text, _ := m.at["x-fleetgate-extension"].(string); text == "" {
			t.Errorf("%s is an extension of the contract and is not marked x-fleetgate-extension", m.what)
		}
	}
	for _, path := range []string{w3, kpis} {
		if p := responseOf(doc, op("get", path), "403"); p == nil || contentSchema(doc, p, "application/problem+json") == nil {
			t.Errorf("GET %s: the 403 before the upgrade is not documented as problem+json", path)
		}
	}
}

func responseOf(doc *openAPIDoc, op map[string]any, status string) map[string]any {
	responses, _ := op["responses"].(map[string]any)
	return doc.resolve(responses[status])
}

func contentSchema(doc *openAPIDoc, response map[string]any, mediaType string) map[string]any {
	content, _ := response["content"].(map[string]any)
	media, _ := content[mediaType].(map[string]any)
	return doc.resolve(media["schema"])
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}
