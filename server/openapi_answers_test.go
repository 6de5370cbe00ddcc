package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestOpenAPIDescribesRealAnswers sends real requests of both conventions to a local gateway
// hosting a simulated robot and checks each answer against the document: its status is one the
// operation lists, and its body matches the schema for that status, key for key (a key the
// schema does not name is an error, as is a missing required one).
func TestOpenAPIDescribesRealAnswers(t *testing.T) {
	agent := servertest.MustOpen(t, servertest.Agent, func(c *server.Config) { c.Sim = server.SimConfig{Count: 1, Seed: 1} })
	docResp := agent.Do(http.MethodGet, "/openapi.json", "", "")
	var doc map[string]any
	docResp.JSON(t, &doc)
	a := &answers{t: t, s: agent, doc: doc, bearer: agent.Login(servertest.AdminToken)}
	robots := agent.Registry().Robots()
	if len(robots) != 1 {
		t.Fatalf("%d robots, want 1", len(robots))
	}
	robot := robots[0].Info().ID
	const v2, sc = "/apigateway/v2", "/apigateway"
	rp := func(prefix, kind string) string { return prefix + "/" + kind + "/" + robot } // robots/{id} or robot/{id}

	// Logins: the v2 object and the second convention's bare string.
	a.check("post", v2+"/auth/login", v2+"/auth/login", `{"userToken":"`+servertest.AdminToken+`"}`, 200)
	a.check("post", sc+"/login", sc+"/login", `{"usertoken":"`+servertest.AdminToken+`"}`, 200)
	a.check("post", sc+"/login", sc+"/login", `{"usertoken":"fgt_0000000000000000000000000000000A"}`, 401)

	for _, c := range []struct{ docPath, target string }{
		{v2 + "/robots", v2 + "/robots"},
		{v2 + "/robots/{robotId}", rp(v2, "robots")},
		{v2 + "/robots/{robotId}/streams", rp(v2, "robots") + "/streams"},
		{v2 + "/robots/{robotId}/stream", rp(v2, "robots") + "/stream?componentName=base&streamName=pose"},
		{v2 + "/robots/{robotId}/stream", rp(v2, "robots") + "/stream?componentName=base&streamName=odom&source=1"},
		{v2 + "/streams/{messageType}/stream", v2 + "/streams/Platform.Messages.geometry_msgs.Twist/stream"},
		{v2 + "/streams/{messageType}/stream", v2 + "/streams/geometry_msgs%2Fmsg%2FTwist/stream"},
		{v2 + "/robots/{robotId}/controls", rp(v2, "robots") + "/controls"},
		{v2 + "/fleets", v2 + "/fleets"},
		{sc + "/robots", sc + "/robots"},
		{sc + "/robot/{robotId}", rp(sc, "robot")},
		{sc + "/robot/{robotId}/streams", rp(sc, "robot") + "/streams"},
		{sc + "/robot/{robotId}/stream", rp(sc, "robot") + "/stream?componentName=base&streamName=pose&source=1"},
		{sc + "/streams/{streamType}/stream", sc + "/streams/Platform.Messages.sensor_msgs.LaserScan/stream"},
		{sc + "/streams/{streamType}/stream", sc + "/streams/geometry_msgs%2FTwist/stream"},
		{sc + "/robots/metrics", sc + "/robots/metrics"},
		{"/healthz", "/healthz"},
	} {
		a.check("get", c.docPath, c.target, "", 200)
	}

	// Every metric the robot reports, in both conventions, and its custom KPIs.
	var metrics struct {
		Metrics []struct{ MetricType int }
	}
	json.Unmarshal(a.check("get", v2+"/robots/metrics", v2+"/robots/metrics?robotId="+robot, "", 200), &metrics)
	if len(metrics.Metrics) < 5 {
		t.Fatalf("the simulated robot reports %d metric types", len(metrics.Metrics))
	}
	for _, m := range metrics.Metrics {
		suffix := "/metric/" + strconv.Itoa(m.MetricType)
		if m.MetricType == 100 {
			for _, name := range []string{"pose", "battery", "activity"} {
				a.check("get", v2+"/robots/{robotId}/metric/{metricId}", rp(v2, "robots")+suffix+"?metricName="+name, "", 200)
				a.check("get", sc+"/robot/{robotId}/metric/{metricType}", rp(sc, "robot")+suffix+"?metricName="+name, "", 200)
			}
			continue
		}
		a.check("get", v2+"/robots/{robotId}/metric/{metricId}", rp(v2, "robots")+suffix, "", 200)
		a.check("get", sc+"/robot/{robotId}/metric/{metricType}", rp(sc, "robot")+suffix, "", 200)
	}

	// Resources and their signed links.
	var resources struct{ Resources []struct{ ResourceID string } }
	json.Unmarshal(a.check("get", v2+"/robots/{robotId}/resources", rp(v2, "robots")+"/resources", "", 200), &resources)
	a.check("get", sc+"/robot/{robotId}/resources", rp(sc, "robot")+"/resources", "", 200)
	if len(resources.Resources) == 0 {
		t.Fatal("the simulated robot offers no resources")
	}
	res := resources.Resources[0].ResourceID
	var link struct{ URL string }
	json.Unmarshal(a.check("get", v2+"/robots/{robotId}/resource/{resourceId}/download", rp(v2, "robots")+"/resource/"+res+"/download", "", 200), &link)
	a.check("get", sc+"/robot/{robotId}/resource/{resourceId}/download", rp(sc, "robot")+"/resource/"+res+"/download", "", 200)
	u, err := url.Parse(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	a.check("get", "/files/{resourceId}", u.RequestURI(), "", 200)
	a.check("head", "/files/{resourceId}", u.RequestURI(), "", 200)
	a.check("get", "/files/{resourceId}", u.Path+"?exp="+u.Query().Get("exp")+"&sig=forged", "", 403)
	// http.ServeContent's own errors are problems too.
	a.extra = http.Header{"Range": {"bytes=999999999-"}}
	if body := a.check("get", "/files/{resourceId}", u.RequestURI(), "", 416); !strings.Contains(string(body), `"code":"invalid"`) {
		t.Errorf("416 of a range outside the file: %s, want a problem with code invalid", body)
	}
	a.extra = nil

	// Writes.
	twist := `"componentName":"base","streamName":"cmd_vel","source":"1","dataType":"Platform.Messages.geometry_msgs.Twist"`
	a.check("post", v2+"/robots/{robotId}/upload-stream", rp(v2, "robots")+"/upload-stream", `{`+twist+`,"streamJson":"{\"linear\":{\"x\":0.1}}"}`, 200)
	a.check("post", v2+"/robots/{robotId}/upload-stream", rp(v2, "robots")+"/upload-stream", `{`+twist+`,"streamJson":"{\"linear\":{\"x\":11}}"}`, 400)
	a.check("post", sc+"/robot/{robotId}/streams/upload-stream", rp(sc, "robot")+"/streams/upload-stream",
		`{"componentname":"base","streamname":"cmd_vel","source":1,"datatype":"Platform.Messages.geometry_msgs.Twist","streamjson":{"angular":{"z":0.1}}}`, 200)
	a.check("post", v2+"/events/log", v2+"/events/log?robotId="+robot+"&message=openapi", "", 200)

	// Errors.
	missing := "00000000-0000-4000-8000-000000000000"
	a.check("get", v2+"/robots/{robotId}", v2+"/robots/"+missing, "", 404)
	a.check("get", sc+"/robot/{robotId}", sc+"/robot/"+missing, "", 404)
	a.check("get", sc+"/robot/{robotId}/stream", rp(sc, "robot")+"/stream?componentName=base", "", 400)
	a.check("get", sc+"/streams/{streamType}/stream", sc+"/streams/no_such_msgs%2FThing/stream", "", 404)
	a.check("get", v2+"/robots/{robotId}/metric/{metricId}", rp(v2, "robots")+"/metric/1?metricName=a&metricName=b", "", 400)
	a.bearer = "fgb_NoSuchToken"
	a.check("get", sc+"/robots", sc+"/robots", "", 401)
	a.bearer = agent.Login(servertest.AdminToken)

	// A frame of the fleet custom KPI socket (W2).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(agent.URL, "http")+v2+"/fleets/local-fleet/custom-kpis?access_token="+a.bearer, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	_, frame, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("no KPI frame: %v", err)
	}
	var event any
	if err := json.Unmarshal(frame, &event); err != nil {
		t.Fatal(err)
	}
	for _, problem := range a.validate(map[string]any{"$ref": "#/components/schemas/FleetCustomKpiEvent"}, event, "frame") {
		t.Errorf("W2 frame: %s\n%s", problem, frame)
	}
}

// answers checks real answers against an OpenAPI document.
type answers struct {
	t      *testing.T
	s      *servertest.Server
	doc    map[string]any
	bearer string
	extra  http.Header // more request headers
}

// check sends method target (with the bearer, and body as JSON when given), expects status,
// and checks the answer against the document's operation at docPath. It returns the body.
func (a *answers) check(method, docPath, target, body string, status int) []byte {
	a.t.Helper()
	header := http.Header{}
	if a.bearer != "" {
		header.Set("Authorization", "bearer "+a.bearer)
	}
	for k, v := range a.extra {
		header[k] = v
	}
	var reader *strings.Reader
	if body != "" {
		header.Set("Content-Type", "application/json")
		reader = strings.NewReader(body)
	}
	var resp servertest.Response
	if reader != nil {
		resp = a.s.DoRaw(strings.ToUpper(method), target, header, reader)
	} else {
		resp = a.s.DoRaw(strings.ToUpper(method), target, header, nil)
	}
	name := strings.ToUpper(method) + " " + target
	if resp.Status != status {
		a.t.Errorf("%s: status %d, want %d: %s", name, resp.Status, status, resp.Body)
		return resp.Body
	}
	paths, _ := a.doc["paths"].(map[string]any)
	ops, _ := paths[docPath].(map[string]any)
	op, _ := ops[method].(map[string]any)
	if op == nil {
		a.t.Fatalf("the document has no %s %s", method, docPath)
	}
	responses, _ := op["responses"].(map[string]any)
	response := a.resolve(responses[strconv.Itoa(status)])
	if response == nil {
		a.t.Errorf("%s: status %d is not documented for %s %s", name, status, method, docPath)
		return resp.Body
	}
	content, _ := response["content"].(map[string]any)
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if len(content) == 0 {
		if len(resp.Body) != 0 && method != "head" {
			a.t.Errorf("%s: the document says no body, the answer has %q", name, resp.Body)
		}
		return resp.Body
	}
	media, _ := content[mediaType].(map[string]any)
	if media == nil {
		media, _ = content["*/*"].(map[string]any)
	}
	if media == nil {
		a.t.Errorf("%s: answered %s, documented %v", name, mediaType, keys(content))
		return resp.Body
	}
	if method == "head" || !strings.Contains(mediaType, "json") {
		return resp.Body
	}
	var value any
	if err := json.Unmarshal(resp.Body, &value); err != nil {
		a.t.Errorf("%s: the body is not JSON: %v", name, err)
		return resp.Body
	}
	for _, problem := range a.validate(media["schema"], value, "body") {
		a.t.Errorf("%s: %s\n%s", name, problem, resp.Body)
	}
	return resp.Body
}

// resolve follows local $refs.
func (a *answers) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var at any = a.doc
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			obj, _ := at.(map[string]any)
			at = obj[part]
		}
		m, _ = at.(map[string]any)
	}
	return nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// validate checks value against the subset of JSON Schema the document uses: $ref, type (one
// or several), enum, required, properties (no key beyond them when they are given), items,
// pattern, minimum, maximum, and the formats date-time, uuid, email and uri.
func (a *answers) validate(schemaRef any, value any, at string) []string {
	schema := a.resolve(schemaRef)
	if schema == nil {
		return []string{at + ": no schema"}
	}
	var problems []string
	if types := typeList(schema["type"]); len(types) > 0 && !slices.ContainsFunc(types, func(typ string) bool { return isType(value, typ) }) {
		return []string{fmt.Sprintf("%s: %v is not of type %v", at, value, types)}
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(value) }) {
		problems = append(problems, fmt.Sprintf("%s: %v is not one of %v", at, value, enum))
	}
	switch v := value.(type) {
	case map[string]any:
		for _, key := range typeList(schema["required"]) {
			if _, ok := v[key]; !ok {
				problems = append(problems, fmt.Sprintf("%s: required key %s is missing", at, key))
			}
		}
		if props, ok := schema["properties"].(map[string]any); ok {
			for key, x := range v {
				sub, known := props[key]
				if !known {
					problems = append(problems, fmt.Sprintf("%s: key %s is not in the schema", at, key))
					continue
				}
				problems = append(problems, a.validate(sub, x, at+"."+key)...)
			}
		}
	case []any:
		if items, ok := schema["items"]; ok {
			for i, x := range v {
				problems = append(problems, a.validate(items, x, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	case string:
		if pattern, ok := schema["pattern"].(string); ok && !regexp.MustCompile(pattern).MatchString(v) {
			problems = append(problems, fmt.Sprintf("%s: %q does not match %s", at, v, pattern))
		}
		ok := true
		switch schema["format"] {
		case "date-time":
			_, err := time.Parse(time.RFC3339Nano, v)
			ok = err == nil
		case "uuid":
			ok = uuidPattern.MatchString(v)
		case "email":
			ok = strings.Contains(v, "@")
		case "uri":
			u, err := url.Parse(v)
			ok = err == nil && u.IsAbs()
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: %q is not a %v", at, v, schema["format"]))
		}
	case float64:
		if lo, ok := schema["minimum"].(float64); ok && v < lo {
			problems = append(problems, fmt.Sprintf("%s: %v is below %v", at, v, lo))
		}
		if hi, ok := schema["maximum"].(float64); ok && v > hi {
			problems = append(problems, fmt.Sprintf("%s: %v is above %v", at, v, hi))
		}
	}
	return problems
}

func typeList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = fmt.Sprint(x)
		}
		return out
	}
	return nil
}

func isType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "null":
		return v == nil
	}
	return false
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
