package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// sendSecond is send for a target below api.SecondPrefix: the status must be the wanted one,
// never a server error but a wanted 503, and every error a well-formed problem.
func sendSecond(t *testing.T, s *servertest.Server, c apiCase) servertest.Response {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
		if c.chunked {
			body = struct{ io.Reader }{body}
		}
	}
	resp := s.DoRaw(c.method, api.SecondPrefix+c.target, c.header, body)
	if resp.Status >= 500 && !(resp.Status == http.StatusServiceUnavailable && c.wantStatus == resp.Status) {
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

// secondGet is a GET below the second convention's root that must answer 200.
func (w *robotWorld) secondGet(t *testing.T, token, target string) []byte {
	t.Helper()
	return sendSecond(t, w.Server, apiCase{method: "GET", target: target, header: bearer(token), wantStatus: 200}).Body
}

// v2Get is a GET below the v2 root that must answer 200.
func (w *robotWorld) v2Get(t *testing.T, token, target string) []byte {
	t.Helper()
	return send(t, w.Server, apiCase{method: "GET", target: target, header: bearer(token), wantStatus: 200}).Body
}

func (w *robotWorld) secondPath(rest string) string { return "/robot/" + w.robot.ID + rest }

// seenNow returns the LastTimeSeen of a connected robot's details after checking that it is
// now, so that a golden document can carry it.
func seenNow(t *testing.T, body []byte) string {
	t.Helper()
	var d struct{ LastTimeSeen string }
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	seen, err := time.Parse(time.RFC3339Nano, d.LastTimeSeen)
	if err != nil || time.Since(seen) > time.Minute || !strings.HasSuffix(d.LastTimeSeen, "Z") {
		t.Errorf("LastTimeSeen %q of a connected robot: want a UTC time of now", d.LastTimeSeen)
	}
	return d.LastTimeSeen
}

var secondLoginAnswer = regexp.MustCompile(`^"bearer [0-9A-Za-z_]+"$`)

// TestSecondLogin: POST /apigateway/login answers a bare JSON string "bearer <token>" that,
// used verbatim as the authorization header, opens both conventions.
func TestSecondLogin(t *testing.T) {
	s := servertest.MustOpen(t)
	resp := sendSecond(t, s, apiCase{method: "POST", target: "/login", header: jsonBody(""),
		body: `{"usertoken":"` + servertest.AdminToken + `"}`, wantStatus: 200})
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	body := strings.TrimSpace(string(resp.Body))
	if !secondLoginAnswer.MatchString(body) {
		t.Fatalf("login answer %s, want the JSON string \"bearer <token>\"", body)
	}
	var header string
	if err := json.Unmarshal(resp.Body, &header); err != nil {
		t.Fatal(err)
	}
	sendSecond(t, s, apiCase{method: "GET", target: "/robots", header: authorization(header), wantStatus: 200})
	send(t, s, apiCase{method: "GET", target: "/robots", header: authorization(header), wantStatus: 200})
}

// TestSecondAnswers is the golden answer of every second-convention endpoint, key by key.
func TestSecondAnswers(t *testing.T) {
	w := newRobotWorld(t)
	id := w.robot.ID
	basic := `"BasicData":{"Id":"` + id + `","Name":"robot-one"}`

	t.Run("S1 robots", func(t *testing.T) {
		checkJSON(t, w.secondGet(t, w.admin, "/robots"), `{"RobotDataList":[
			{"BasicData":{"Id":"`+id+`","Name":"robot-one"},"IsOnline":true},
			{"BasicData":{"Id":"`+w.secondRobot.ID+`","Name":"robot-two"},"IsOnline":false}]}`)
		checkJSON(t, w.secondGet(t, w.operator, "/robots"), `{"RobotDataList":[{`+basic+`,"IsOnline":true}]}`)
	})

	t.Run("S2 robot", func(t *testing.T) {
		body := w.secondGet(t, w.admin, w.secondPath(""))
		checkJSON(t, body, `{
			"RobotData":{`+basic+`,"IsOnline":true},
			"FleetName":"default",
			"OrganizationName":"default",
			"LastTimeSeen":"`+seenNow(t, body)+`",
			"Members":{
				"OrgAdmins":{"OrgAdmins":["admin@localhost"]},
				"SharedUsers":{"UserPermissions":[
					{"UserId":"developer@example.com","PermissionType":2},
					{"UserId":"operator@example.com","PermissionType":1}]}
			},
			"ConfigurationInformation":{"Name":"test-config","Version":"7"},
			"AgentVersion":"test-agent",
			"LatestAgentVersion":"test"
		}`)
		checkJSON(t, w.secondGet(t, w.admin, "/robot/"+w.secondRobot.ID), `{
			"RobotData":{"BasicData":{"Id":"`+w.secondRobot.ID+`","Name":"robot-two"},"IsOnline":false},
			"FleetName":"second",
			"OrganizationName":"default",
			"LastTimeSeen":"0001-01-01T00:00:00Z",
			"Members":{"OrgAdmins":{"OrgAdmins":["admin@localhost"]},"SharedUsers":{"UserPermissions":[]}},
			"ConfigurationInformation":{"Name":"","Version":""},
			"AgentVersion":"",
			"LatestAgentVersion":"test"
		}`)
	})

	t.Run("S3 resources", func(t *testing.T) {
		checkJSON(t, w.secondGet(t, w.operator, w.secondPath("/resources")),
			`[{"ResourceId":"`+w.logID+`","Name":"agent.log","Type":"log","Size":1088,"CreatedAt":"2026-11-20T08:30:00Z"}]`)
	})

	t.Run("S4 download", func(t *testing.T) {
		var answer map[string]any
		if err := json.Unmarshal(w.secondGet(t, w.operator, w.secondPath("/resource/"+w.logID+"/download")), &answer); err != nil {
			t.Fatal(err)
		}
		if keys := sortedKeys(answer); !slices.Equal(keys, []string{"Url"}) {
			t.Errorf("answer keys %v, want [Url]", keys)
		}
		link, _ := answer["Url"].(string)
		u, err := url.Parse(link)
		if err != nil || !strings.HasPrefix(link, w.URL+"/files/"+w.logID+"?") || u.Query().Get("sig") == "" {
			t.Fatalf("Url %q: want an absolute signed %s/files/%s URL", link, w.URL, w.logID)
		}
		resp, err := http.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || string(data) != string(w.logData) {
			t.Errorf("download: %d, %d bytes; want 200 with the file", resp.StatusCode, len(data))
		}
	})

	t.Run("S5 streams", func(t *testing.T) {
		checkJSON(t, w.secondGet(t, w.operator, w.secondPath("/streams")), `{"RobotStreams":[
			{"ComponentName":"base","StreamName":"pose","StreamType":"`+poseType+`","Direction":"output","StreamSourceType":1},
			{"ComponentName":"base","StreamName":"cmd_vel","StreamType":"`+twistType+`","Direction":"input","StreamSourceType":1},
			{"ComponentName":"","StreamName":"/scan","StreamType":"Platform.Messages.sensor_msgs.LaserScan","Direction":"output","StreamSourceType":2},
			{"ComponentName":"","StreamName":"/scan","StreamType":"Platform.Messages.sensor_msgs.LaserScan","Direction":"output","StreamSourceType":3}]}`)
	})

	t.Run("S6 stream", func(t *testing.T) {
		body := w.secondGet(t, w.operator, w.secondPath("/stream?componentName=base&streamName=pose&source=1"))
		var answer map[string]any
		if err := json.Unmarshal(body, &answer); err != nil {
			t.Fatal(err)
		}
		if keys := sortedKeys(answer); !slices.Equal(keys, []string{"RobotStream"}) {
			t.Errorf("answer keys %v, want [RobotStream]", keys)
		}
		doc, ok := answer["RobotStream"].(string)
		if !ok {
			t.Fatalf("RobotStream %#v, want a JSON document as a string", answer["RobotStream"])
		}
		checkJSON(t, []byte(doc), `{"header":{"stamp":{"sec":1700000000,"nanosec":0},"frameId":"map"},
			"pose":{"position":{"x":1.5,"y":-2,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":1}}}`)
	})

	t.Run("S7 template", func(t *testing.T) {
		checkJSON(t, w.secondGet(t, w.kiosk, "/streams/"+twistType+"/stream"),
			`{"EmptyMessage":{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}}`)
		checkJSON(t, w.secondGet(t, w.kiosk, "/streams/geometry_msgs%2Fmsg%2FTwist/stream"),
			`{"EmptyMessage":{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}}`)
	})

	t.Run("S8 upload", func(t *testing.T) {
		twist := `{"linear":{"x":0.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0.25}}`
		for _, b := range []struct{ name, source, streamJSON string }{
			{"source number, streamjson object", `1`, twist},
			{"source string, streamjson object", `"1"`, twist},
			{"no source, streamjson string", `null`, strconv.Quote(twist)},
		} {
			t.Run(b.name, func(t *testing.T) {
				waitInputsFree(t, w.Server, w.admin, w.robot.ID)
				before := len(w.bot.Published())
				// A caller of its own each time: one upload a second per caller and stream.
				uploader := w.bearerFor(w.adminUser.ID, "", "")
				resp := sendSecond(t, w.Server, apiCase{method: "POST", target: w.secondPath("/streams/upload-stream"), header: jsonBody(uploader),
					body:       `{"componentname":"base","streamname":"cmd_vel","source":` + b.source + `,"streamjson":` + b.streamJSON + `,"datatype":"` + twistType + `"}`,
					wantStatus: 200})
				if len(resp.Body) != 0 {
					t.Errorf("success body %q, want empty", resp.Body)
				}
				published := w.bot.Published()
				if len(published) != before+1 {
					t.Fatalf("the robot got %d messages, want 1", len(published)-before)
				}
				var got catalogpb.Twist
				if err := proto.Unmarshal(published[before].Payload, &got); err != nil {
					t.Fatal(err)
				}
				if published[before].Key != cmdVelKey || got.GetLinear().GetX() != 0.5 || got.GetAngular().GetZ() != 0.25 {
					t.Errorf("the robot got %v on %v", &got, published[before].Key)
				}
			})
		}
	})

	t.Run("S9 metrics", func(t *testing.T) {
		checkJSON(t, w.secondGet(t, w.kiosk, "/robots/metrics"), `{"Metrics":[{"MetricType":1,"MetricName":"Cpu"},{"MetricType":2,"MetricName":"Ram"},
			{"MetricType":6,"MetricName":"Traffic"},{"MetricType":8,"MetricName":"LicenseExpired"},{"MetricType":14,"MetricName":"AgentSw"},
			{"MetricType":15,"MetricName":"Recordings"},{"MetricType":16,"MetricName":"Components"},{"MetricType":17,"MetricName":"Configuration"},
			{"MetricType":30,"MetricName":"AgentOperationalState"},{"MetricType":100,"MetricName":"Custom"}]}`)
		checkJSON(t, w.secondGet(t, w.fleetBound, "/robots/metrics"), `{"Metrics":[]}`)
	})

	for _, c := range []struct{ target, metric string }{
		{"/metric/1", `{"$type":2,"Name":"DoubleMetric","Value":12.5}`},
		{"/metric/2", `{"$type":5,"Name":"UsageMetric","Value":{"Used":1024,"Limit":4096}}`},
		{"/metric/6", `{"$type":9,"Name":"LongMetric","Value":1099511627776}`},
		{"/metric/8", `{"$type":6,"Name":"LicenseExpirationMetric","Value":"2026-11-20T08:30:00Z"}`},
		{"/metric/14", `{"$type":7,"Name":"AgentSwMetric","Value":{"UpdateAvailable":true}}`},
		{"/metric/30", `{"$type":8,"Name":"AgentOperationalStateMetric","Value":{"AgentStatus":10,"Version":"1.2.3"}}`},
		{"/metric/15", `{"$type":10,"Name":"AgentRecordingMetric","AgentRecordings":{"AgentRecorders":[
			{"RecorderType":"rosbag","RecorderState":"Recording","StartTime":"2026-11-20T08:30:00Z","EndTime":"2026-11-20T09:32:03Z","Id":"rec-1","ErrorType":"","Duration":"01:02:03","DroppedSamples":0}]}}`},
		{"/metric/16", `{"$type":11,"Name":"ComponentInfoMetric","ComponentInfosDto":{"ComponentsInfoDto":[
			{"ComponentId":"base","ComponentUuid":"6d1f0c9e-2b1a-4f5e-9c1d-0a1b2c3d4e5f","Version":"1.2.3","ComponentName":"base","ComponentState":"Active"}]}}`},
		{"/metric/17", `{"$type":12,"Name":"ConfigInfoMetric","ConfigInfoDto":{"ConfigName":"warehouse","Version":"4","ConfigState":"Ready"}}`},
		{"/metric/100?metricName=activity", `{"$type":3,"Name":"StringMetric","Value":"moving"}`},
	} {
		name := "S10 metric" + c.target
		if strings.Contains(c.target, "metricName") {
			name = "S11 metric" + c.target
		}
		t.Run(name, func(t *testing.T) {
			checkJSON(t, w.secondGet(t, w.operator, w.secondPath(c.target)), `{`+basic+`,"Metric":`+c.metric+`}`)
		})
	}
}

// TestSecondMetricTypesUnion is S9 across robots: the union over the caller's online robots,
// sorted by type; offline robots and those of other organizations or fleets add nothing.
func TestSecondMetricTypesUnion(t *testing.T) {
	w := newRobotWorld(t)
	connect := func(r fleetgate.Robot, fleetID string, types ...fleetgate.MetricType) {
		bot := &fleettest.Robot{ID: r.ID, Name: r.Name}
		for _, typ := range types {
			bot.MetricList = append(bot.MetricList, fleetgate.Metric{Type: typ, Value: 1.0})
		}
		if err := w.Registry().Add(context.Background(), bot, fleetID); err != nil {
			t.Fatal(err)
		}
	}
	connect(w.secondRobot, w.secondFleet.ID, fleetgate.MetricThermal, fleetgate.MetricBattery, fleetgate.MetricCpu)
	connect(w.otherRobot, w.otherFleet.ID, fleetgate.MetricWifi)

	list := func(types ...string) string {
		return `{"Metrics":[` + strings.Join(types, ",") + `]}`
	}
	const (
		cpu     = `{"MetricType":1,"MetricName":"Cpu"}`
		ram     = `{"MetricType":2,"MetricName":"Ram"}`
		battery = `{"MetricType":4,"MetricName":"Battery"}`
		traffic = `{"MetricType":6,"MetricName":"Traffic"}`
		license = `{"MetricType":8,"MetricName":"LicenseExpired"}`
		agentSw = `{"MetricType":14,"MetricName":"AgentSw"}`
		recs    = `{"MetricType":15,"MetricName":"Recordings"}`
		comps   = `{"MetricType":16,"MetricName":"Components"}`
		config  = `{"MetricType":17,"MetricName":"Configuration"}`
		wifi    = `{"MetricType":27,"MetricName":"Wifi"}`
		opState = `{"MetricType":30,"MetricName":"AgentOperationalState"}`
		thermal = `{"MetricType":32,"MetricName":"Thermal"}`
		custom  = `{"MetricType":100,"MetricName":"Custom"}`
	)
	for _, c := range []struct {
		name, token, want string
	}{
		{"org admin: both robots", w.admin, list(cpu, ram, battery, traffic, license, agentSw, recs, comps, config, opState, thermal, custom)},
		{"operator: robot-one only", w.operator, list(cpu, ram, traffic, license, agentSw, recs, comps, config, opState, custom)},
		{"fleet-restricted: robot-two only", w.fleetBound, list(cpu, battery, thermal)},
		{"other organization", w.otherAdmin, list(wifi)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkJSON(t, w.secondGet(t, c.token, "/robots/metrics"), c.want)
		})
	}
}

// pascalToCamel respells a decoded second-convention document with v2's keys (the first
// letter lower-cased), so that the two faces can be compared value by value.
func pascalToCamel(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for key, value := range v {
			r, size := utf8.DecodeRuneInString(key)
			out[string(unicode.ToLower(r))+key[size:]] = pascalToCamel(value)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = pascalToCamel(e)
		}
		return out
	default:
		return v
	}
}

func decodeAny(t *testing.T, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("answer %q is not JSON: %v", body, err)
	}
	return v
}

// sameValues fails the test where the v2 document and the respelled second-convention one
// differ.
func sameValues(t *testing.T, what string, v2, second any) {
	t.Helper()
	for _, d := range diffJSON(what, pascalToCamel(second), v2) {
		t.Error(d)
	}
}

// TestSecondMatchesV2 asks both conventions the same questions about the same robot: the
// answers must carry the same values, so the two faces of the one core cannot drift.
func TestSecondMatchesV2(t *testing.T) {
	w := newRobotWorld(t)
	id := w.robot.ID

	sameValues(t, "robots", decodeAny(t, w.v2Get(t, w.admin, "/robots")), decodeAny(t, w.secondGet(t, w.admin, "/robots")))

	for _, r := range []fleetgate.Robot{w.robot, w.secondRobot} {
		v2 := decodeAny(t, w.v2Get(t, w.admin, "/robots/"+r.ID)).(map[string]any)
		second := decodeAny(t, w.secondGet(t, w.admin, "/robot/"+r.ID)).(map[string]any)
		// A connected robot was last seen at the moment of each answer.
		v2Seen, _ := time.Parse(time.RFC3339Nano, v2["lastTimeSeen"].(string))
		secondSeen, _ := time.Parse(time.RFC3339Nano, second["LastTimeSeen"].(string))
		if d := secondSeen.Sub(v2Seen); d < 0 || d > 10*time.Second {
			t.Errorf("robot %s: lastTimeSeen %v on v2, %v on the second convention", r.Name, v2Seen, secondSeen)
		}
		delete(v2, "lastTimeSeen")
		delete(second, "LastTimeSeen")
		sameValues(t, "robot "+r.Name, v2, second)
	}

	// The resource's type is the one field that differs by contract: MIME type vs file type.
	v2Res := decodeAny(t, w.v2Get(t, w.admin, "/robots/"+id+"/resources")).(map[string]any)
	secondRes := decodeAny(t, w.secondGet(t, w.admin, "/robot/"+id+"/resources")).([]any)
	for _, list := range [][]any{v2Res["resources"].([]any), secondRes} {
		for _, item := range list {
			delete(item.(map[string]any), "type")
			delete(item.(map[string]any), "Type")
		}
	}
	sameValues(t, "resources", v2Res, map[string]any{"resources": secondRes})

	v2Link, _ := decodeAny(t, w.v2Get(t, w.admin, "/robots/"+id+"/resource/"+w.logID+"/download")).(map[string]any)["url"].(string)
	secondLink, _ := decodeAny(t, w.secondGet(t, w.admin, "/robot/"+id+"/resource/"+w.logID+"/download")).(map[string]any)["Url"].(string)
	if p, _, _ := strings.Cut(v2Link, "?"); p == "" || !strings.HasPrefix(secondLink, p+"?") {
		t.Errorf("download links %q (v2) and %q (second) point at different files", v2Link, secondLink)
	}

	// The second convention's descriptors leave out the optional fields.
	v2Streams := decodeAny(t, w.v2Get(t, w.admin, "/robots/"+id+"/streams")).(map[string]any)
	for _, s := range v2Streams["robotStreams"].([]any) {
		for _, key := range []string{"displayName", "sourceUrl", "sourceEndpoint"} {
			delete(s.(map[string]any), key)
		}
	}
	sameValues(t, "streams", v2Streams, decodeAny(t, w.secondGet(t, w.admin, "/robot/"+id+"/streams")))

	query := "/stream?componentName=base&streamName=pose&source=1"
	sameValues(t, "stream read", decodeAny(t, w.v2Get(t, w.admin, "/robots/"+id+query)), decodeAny(t, w.secondGet(t, w.admin, "/robot/"+id+query)))

	emptyJSON, _ := decodeAny(t, w.v2Get(t, w.admin, "/streams/"+twistType+"/stream")).(map[string]any)["emptyJson"].(string)
	sameValues(t, "template", map[string]any{"emptyMessage": decodeAny(t, []byte(emptyJSON))},
		decodeAny(t, w.secondGet(t, w.admin, "/streams/"+twistType+"/stream")))

	sameValues(t, "metric list", decodeAny(t, w.v2Get(t, w.admin, "/robots/metrics?robotId="+id)),
		decodeAny(t, w.secondGet(t, w.admin, "/robots/metrics")))
	for _, target := range []string{"/metric/1", "/metric/2", "/metric/6", "/metric/8", "/metric/14", "/metric/15",
		"/metric/16", "/metric/17", "/metric/30", "/metric/100?metricName=activity"} {
		sameValues(t, "metric "+target, decodeAny(t, w.v2Get(t, w.admin, "/robots/"+id+target)),
			decodeAny(t, w.secondGet(t, w.admin, "/robot/"+id+target)))
	}

	// One upload through each face reaches the robot as the same message.
	twist := `{"linear":{"x":0.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0.25}}`
	// (Each upload holds the stream until its deadman's zero, which comes between them.)
	send(t, w.Server, apiCase{method: "POST", target: "/robots/" + id + "/upload-stream", header: jsonBody(w.admin),
		body: uploadBody(map[string]any{"componentName": "base", "streamName": "cmd_vel", "source": "1", "streamJson": twist, "dataType": twistType}), wantStatus: 200})
	waitInputsFree(t, w.Server, w.admin, id)
	sendSecond(t, w.Server, apiCase{method: "POST", target: "/robot/" + id + "/streams/upload-stream", header: jsonBody(w.admin),
		body: `{"componentname":"base","streamname":"cmd_vel","source":1,"streamjson":` + twist + `,"datatype":"` + twistType + `"}`, wantStatus: 200})
	if p := w.bot.Published(); len(p) != 3 || p[0].Key != p[2].Key || p[0].Type != p[2].Type || string(p[0].Payload) != string(p[2].Payload) {
		t.Errorf("the two uploads reached the robot differently (with the first's deadman zero between): %+v", p)
	}
}

// wantLimited checks that an operation sent within a second of start was refused with 429
// and Retry-After 1. Loopback requests take milliseconds; should a machine ever need a whole
// second for two of them, the failure says so rather than passing or skipping silently.
func wantLimited(t *testing.T, resp servertest.Response, start time.Time) {
	t.Helper()
	if resp.Status == http.StatusOK && time.Since(start) >= time.Second {
		t.Fatalf("the requests took %v, so the operation was due again and the limit cannot be seen", time.Since(start))
	}
	if resp.Status != http.StatusTooManyRequests {
		t.Fatalf("operation within a second: %d %s, want 429", resp.Status, resp.Body)
	}
	checkProblem(t, resp)
	if ra := resp.Header.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After %q, want 1 (whole seconds, rounded up)", ra)
	}
}

// TestSecondStreamRateLimit is the limit of one stream operation a second per caller, robot
// and stream over the whole path, in real time (the core's tests have the exact clock).
func TestSecondStreamRateLimit(t *testing.T) {
	w := newRobotWorld(t)
	scan := fleetgate.StreamKey{Name: "/scan", Source: fleetgate.SourceROS2}
	w.bot.Lock()
	w.bot.Values[scan] = fleetgate.Sample{Type: "Platform.Messages.sensor_msgs.LaserScan", Seq: 1}
	w.bot.Unlock()
	read := w.secondPath("/stream?componentName=base&streamName=pose&source=1")
	get := func(target, token string) servertest.Response {
		return w.DoRaw("GET", api.SecondPrefix+target, bearer(token), nil)
	}

	start := time.Now()
	sendSecond(t, w.Server, apiCase{method: "GET", target: read, header: bearer(w.admin), wantStatus: 200})
	wantLimited(t, get(read, w.admin), start)
	// Leaving out the source names the same stream.
	wantLimited(t, get(w.secondPath("/stream?componentName=base&streamName=pose"), w.admin), start)

	for _, c := range []apiCase{
		{name: "another stream", target: w.secondPath("/stream?streamName=/scan&source=3"), header: bearer(w.admin), wantStatus: 200},
		{name: "another caller", target: read, header: bearer(w.operator), wantStatus: 200},
		{name: "a mistake is no operation", target: w.secondPath("/stream?componentName=base&streamName=cmd_vel"), header: bearer(w.developer), wantStatus: 400},
		{name: "after a mistake", target: w.secondPath("/stream?componentName=base&streamName=pose"), header: bearer(w.developer), wantStatus: 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.method = "GET"
			sendSecond(t, w.Server, c)
		})
	}
	// v2's endpoint 7 is not limited.
	for range 2 {
		send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/stream?componentName=base&streamName=pose"), header: bearer(w.admin), wantStatus: 200})
	}

	// Allowed again once a second has passed since the first read, not before.
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := get(read, w.admin)
		if resp.Status == 200 {
			if took := time.Since(start); took < time.Second {
				t.Errorf("allowed again after %v", took)
			}
			break
		}
		if resp.Status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("waiting for the limit to pass: %d %s", resp.Status, resp.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Uploads too; the refused one does not reach the robot.
	upload := apiCase{method: "POST", target: w.secondPath("/streams/upload-stream"), header: jsonBody(w.developer),
		body: `{"componentname":"base","streamname":"cmd_vel","source":"1","streamjson":{"linear":{"x":0.1}},"datatype":"` + twistType + `"}`, wantStatus: 200}
	start = time.Now()
	sendSecond(t, w.Server, upload)
	wantLimited(t, w.DoRaw("POST", api.SecondPrefix+upload.target, upload.header, strings.NewReader(upload.body)), start)
	if n := len(w.bot.Published()); n != 1 {
		t.Errorf("the robot got %d messages, want 1", n)
	}
}

// TestSecondUploadTimeout: an upload to a robot that takes 5 s answers 503 within the
// contract's 1 s upload timeout, saying why.
func TestSecondUploadTimeout(t *testing.T) {
	w := newRobotWorld(t)
	w.bot.Lock()
	w.bot.Delay = 5 * time.Second
	w.bot.Unlock()
	start := time.Now()
	resp := sendSecond(t, w.Server, apiCase{method: "POST", target: w.secondPath("/streams/upload-stream"), header: jsonBody(w.developer),
		body:       `{"componentname":"base","streamname":"cmd_vel","source":1,"streamjson":{"linear":{"x":0.1}},"datatype":"` + twistType + `"}`,
		wantStatus: 503})
	// The margin is for a loaded machine and still far below the robot's 5 s.
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("503 took %v; the upload timeout is %v", took, gateway.RobotReadTimeout)
	}
	if !strings.Contains(string(resp.Body), "did not answer within 1s") {
		t.Errorf("detail does not say the robot was too slow: %s", resp.Body)
	}
	if n := len(w.bot.Published()); n != 0 {
		t.Errorf("the robot got %d messages, want none", n)
	}
}

// TestSecondAuthentication runs every way of (not) presenting a bearer token against every
// second-convention endpoint that needs one.
func TestSecondAuthentication(t *testing.T) {
	w := newRobotWorld(t)
	upload := `{"componentname":"base","streamname":"cmd_vel","source":1,"streamjson":{},"datatype":"` + twistType + `"}`
	endpoints := []struct{ name, method, target, body string }{
		{"S1", "GET", "/robots", ""},
		{"S2", "GET", w.secondPath(""), ""},
		{"S3", "GET", w.secondPath("/resources"), ""},
		{"S4", "GET", w.secondPath("/resource/" + w.logID + "/download"), ""},
		{"S5", "GET", w.secondPath("/streams"), ""},
		{"S6", "GET", w.secondPath("/stream?componentName=base&streamName=pose"), ""},
		{"S7", "GET", "/streams/" + twistType + "/stream", ""},
		{"S8", "POST", w.secondPath("/streams/upload-stream"), upload},
		{"S9", "GET", "/robots/metrics", ""},
		{"S10", "GET", w.secondPath("/metric/1"), ""},
		{"S11", "GET", w.secondPath("/metric/100?metricName=activity"), ""},
	}
	credentials := []struct {
		name   string
		header http.Header
		query  string
	}{
		{name: "no authorization header"},
		{name: "empty authorization header", header: authorization("")},
		{name: "garbled header", header: authorization("Token abc")},
		{name: "scheme Basic", header: authorization("Basic YWRtaW46c2VjcmV0")},
		{name: "scheme without token", header: authorization("bearer")},
		{name: "two tokens", header: authorization("bearer a b")},
		{name: "token without scheme", header: authorization(w.admin)},
		{name: "unknown token", header: bearer("fgb_NoSuchToken")},
		{name: "API token instead of bearer token", header: bearer(servertest.AdminToken)},
		{name: "expired token", header: bearer(w.expiredBearer(t))},
		{name: "token of revoked API token", header: bearer(w.revokedBearer(t))},
		{name: "token of revoked API token still on file", header: bearer(w.revokedBearerOnFile(t))},
		{name: "access_token query instead of header", query: "access_token=" + w.admin},
	}
	for _, e := range endpoints {
		for _, cred := range credentials {
			c := apiCase{name: e.name + "/" + cred.name, method: e.method, target: e.target, header: cred.header, body: e.body, wantStatus: 401}
			if e.body != "" {
				if c.header == nil {
					c.header = http.Header{}
				}
				c.header = c.header.Clone()
				c.header.Set("Content-Type", "application/json")
			}
			if cred.query != "" {
				c.target = withQuery(c.target, cred.query)
			}
			t.Run(c.name, func(t *testing.T) { sendSecond(t, w.Server, c) })
		}
	}
	if n := len(w.bot.Published()); n != 0 {
		t.Errorf("unauthenticated uploads reached the robot: %d", n)
	}
	sendSecond(t, w.Server, apiCase{method: "GET", target: "/robots", header: authorization("Bearer " + w.admin), wantStatus: 200})
}

// TestSecondBadInput is v2's bad-input table on the second convention: none may 500, and no
// refused upload may reach the robot.
func TestSecondBadInput(t *testing.T) {
	w := newRobotWorld(t)
	robot, offline := w.robot.ID, w.secondRobot.ID
	uploadTo := func(robotID string) string { return "/robot/" + robotID + "/streams/upload-stream" }
	good := func(changes map[string]any) string {
		f := map[string]any{"componentname": "base", "streamname": "cmd_vel", "source": 1,
			"streamjson": map[string]any{"linear": map[string]any{"x": 0.5}}, "datatype": twistType}
		for k, v := range changes {
			if v == nil {
				delete(f, k)
			} else {
				f[k] = v
			}
		}
		return uploadBody(f)
	}
	oversized := good(map[string]any{"streamjson": `{"linear":{"x":0` + strings.Repeat(" ", 1<<20) + `}}`})
	read := func(query string) string { return "/robot/" + robot + "/stream?" + query }

	cases := []apiCase{
		// Robots that do not exist or may not be seen: 404, never 403.
		{name: "S2 unknown robot", target: "/robot/" + unknownID(), wantStatus: 404},
		{name: "S2 id that is no UUID", target: "/robot/no-such-robot", wantStatus: 404},
		{name: "S2 other organization", target: "/robot/" + w.otherRobot.ID, wantStatus: 404},
		{name: "S2 other organization's admin", header: bearer(w.otherAdmin), target: "/robot/" + robot, wantStatus: 404},
		{name: "S2 operator with role None", header: bearer(w.operator), target: "/robot/" + offline, wantStatus: 404},
		{name: "S2 fleet-restricted token outside its fleet", header: bearer(w.fleetBound), target: "/robot/" + robot, wantStatus: 404},
		{name: "S3 unknown robot", target: "/robot/" + unknownID() + "/resources", wantStatus: 404},
		{name: "S3 offline robot", target: "/robot/" + offline + "/resources", wantStatus: 503},
		{name: "S4 unknown resource", target: "/robot/" + robot + "/resource/" + unknownID() + "/download", wantStatus: 404},
		{name: "S4 other organization", target: "/robot/" + w.otherRobot.ID + "/resource/" + w.logID + "/download", wantStatus: 404},
		{name: "S4 kiosk may not download", header: bearer(w.kiosk), target: "/robot/" + robot + "/resource/" + w.logID + "/download", wantStatus: 403},
		{name: "S5 unknown robot", target: "/robot/" + unknownID() + "/streams", wantStatus: 404},
		{name: "S5 offline robot", target: "/robot/" + offline + "/streams", wantStatus: 503},
		// S6 query.
		{name: "S6 no query", target: "/robot/" + robot + "/stream", wantStatus: 400},
		{name: "S6 no streamName", target: read("componentName=base"), wantStatus: 400},
		{name: "S6 streamName twice", target: read("componentName=base&streamName=pose&streamName=pose"), wantStatus: 400},
		{name: "S6 source not a number", target: read("componentName=base&streamName=pose&source=one"), wantStatus: 400},
		{name: "S6 source out of range", target: read("componentName=base&streamName=pose&source=9"), wantStatus: 400},
		{name: "S6 bad escape", target: read("componentName=base&streamName=%zz"), wantStatus: 400},
		{name: "S6 input stream", target: read("componentName=base&streamName=cmd_vel"), wantStatus: 400},
		{name: "S6 ambiguous without source", target: read("streamName=/scan"), wantStatus: 400},
		{name: "S6 wrong source", target: read("componentName=base&streamName=pose&source=2"), wantStatus: 404},
		{name: "S6 unknown stream", target: read("componentName=base&streamName=nope"), wantStatus: 404},
		{name: "S6 unknown robot", target: "/robot/" + unknownID() + "/stream?streamName=pose", wantStatus: 404},
		{name: "S6 other organization", target: "/robot/" + w.otherRobot.ID + "/stream?componentName=base&streamName=pose", wantStatus: 404},
		{name: "S6 offline robot", target: "/robot/" + offline + "/stream?componentName=base&streamName=pose", wantStatus: 503},
		{name: "S7 unknown message type", target: "/streams/Platform.Messages.geometry_msgs.Nope/stream", wantStatus: 404},
		// S8 body and permissions.
		{name: "S8 operator may not upload", method: "POST", header: jsonBody(w.operator), target: uploadTo(robot), body: good(nil), wantStatus: 403},
		{name: "S8 kiosk may not upload", method: "POST", header: jsonBody(w.kiosk), target: uploadTo(robot), body: good(nil), wantStatus: 403},
		{name: "S8 operator on an invisible robot", method: "POST", header: jsonBody(w.operator), target: uploadTo(offline), body: good(nil), wantStatus: 404},
		{name: "S8 body over 1 MiB", method: "POST", target: uploadTo(robot), body: oversized, wantStatus: 413},
		{name: "S8 body over 1 MiB without length", method: "POST", target: uploadTo(robot), body: oversized, chunked: true, wantStatus: 413},
		{name: "S8 wrong content type", method: "POST", header: http.Header{"Authorization": {"bearer " + w.admin}, "Content-Type": {"text/plain"}}, target: uploadTo(robot), body: good(nil), wantStatus: 415},
		{name: "S8 no content type", method: "POST", header: bearer(w.admin), target: uploadTo(robot), body: good(nil), wantStatus: 415},
		{name: "S8 empty body", method: "POST", target: uploadTo(robot), wantStatus: 400},
		{name: "S8 invalid JSON", method: "POST", target: uploadTo(robot), body: `{"componentname":`, wantStatus: 400},
		{name: "S8 JSON array", method: "POST", target: uploadTo(robot), body: `[]`, wantStatus: 400},
		{name: "S8 componentname not a string", method: "POST", target: uploadTo(robot), body: good(map[string]any{"componentname": 5}), wantStatus: 400},
		{name: "S8 no streamjson", method: "POST", target: uploadTo(robot), body: good(map[string]any{"streamjson": nil}), wantStatus: 400},
		{name: "S8 streamjson a number", method: "POST", target: uploadTo(robot), body: good(map[string]any{"streamjson": 5}), wantStatus: 400},
		{name: "S8 streamjson string not JSON", method: "POST", target: uploadTo(robot), body: good(map[string]any{"streamjson": `{"linear":`}), wantStatus: 400},
		{name: "S8 streamjson of another type", method: "POST", target: uploadTo(robot), body: good(map[string]any{"streamjson": map[string]any{"position": map[string]any{"x": 1}}}), wantStatus: 400},
		{name: "S8 source bool", method: "POST", target: uploadTo(robot), body: good(map[string]any{"source": true}), wantStatus: 400},
		{name: "S8 source garbage", method: "POST", target: uploadTo(robot), body: good(map[string]any{"source": "x"}), wantStatus: 400},
		{name: "S8 source wrong", method: "POST", target: uploadTo(robot), body: good(map[string]any{"source": "2"}), wantStatus: 404},
		{name: "S8 no datatype", method: "POST", target: uploadTo(robot), body: good(map[string]any{"datatype": nil}), wantStatus: 400},
		{name: "S8 datatype not in catalog", method: "POST", target: uploadTo(robot), body: good(map[string]any{"datatype": "Platform.Messages.geometry_msgs.Nope"}), wantStatus: 400},
		{name: "S8 output stream", method: "POST", target: uploadTo(robot), body: good(map[string]any{"streamname": "pose", "datatype": poseType, "streamjson": map[string]any{}}), wantStatus: 400},
		{name: "S8 unknown component", method: "POST", target: uploadTo(robot), body: good(map[string]any{"componentname": "arm"}), wantStatus: 404},
		{name: "S8 unknown robot", method: "POST", target: uploadTo(unknownID()), body: good(nil), wantStatus: 404},
		{name: "S8 other organization", method: "POST", target: uploadTo(w.otherRobot.ID), body: good(nil), wantStatus: 404},
		{name: "S8 offline robot", method: "POST", target: uploadTo(offline), body: good(nil), wantStatus: 503},
		// S10 and S11.
		{name: "S10 type not a number", target: "/robot/" + robot + "/metric/cpu", wantStatus: 400},
		{name: "S10 type not reported", target: "/robot/" + robot + "/metric/4", wantStatus: 404},
		{name: "S10 type unknown", target: "/robot/" + robot + "/metric/99", wantStatus: 404},
		{name: "S10 unknown robot", target: "/robot/" + unknownID() + "/metric/1", wantStatus: 404},
		{name: "S10 offline robot", target: "/robot/" + offline + "/metric/1", wantStatus: 503},
		{name: "S11 custom without metricName", target: "/robot/" + robot + "/metric/100", wantStatus: 400},
		{name: "S11 custom unknown name", target: "/robot/" + robot + "/metric/100?metricName=nope", wantStatus: 404},
		{name: "S11 metricName twice", target: "/robot/" + robot + "/metric/100?metricName=activity&metricName=activity", wantStatus: 400},
		// Routes and methods.
		{name: "wrong method on S1", method: "DELETE", target: "/robots", wantStatus: 405},
		{name: "wrong method on S2", method: "POST", target: "/robot/" + robot, wantStatus: 405},
		{name: "wrong method on S8", method: "GET", target: uploadTo(robot), wantStatus: 405},
		{name: "wrong method on login", method: "GET", target: "/login", header: http.Header{}, wantStatus: 405},
		{name: "v2 path shape below the second root", target: "/robots/" + robot, wantStatus: 404},
		{name: "unknown route", target: "/robot/" + robot + "/nothing-here", wantStatus: 404},
	}
	for _, c := range cases {
		if c.method == "" {
			c.method = "GET"
		}
		if c.header == nil {
			c.header = jsonBody(w.admin)
			if c.method == "GET" {
				c.header = bearer(w.admin)
			}
		}
		t.Run(c.name, func(t *testing.T) {
			before := len(w.bot.Published())
			sendSecond(t, w.Server, c)
			if n := len(w.bot.Published()); n != before {
				t.Errorf("a refused request reached the robot (%d messages)", n-before)
			}
		})
	}
}

// TestSecondLoginBadInput is v2's login table on POST /apigateway/login.
func TestSecondLoginBadInput(t *testing.T) {
	w := newWorld(t)
	revoked, revokedToken := w.AddToken(w.adminUser.ID, "", "")
	if resp := w.Do("POST", api.SecondPrefix+"/login", "", `{"usertoken":"`+revoked+`"}`); resp.Status != 200 {
		t.Fatalf("login before revocation: %d %s", resp.Status, resp.Body)
	}
	if err := w.Store.RevokeAPIToken(context.Background(), revokedToken.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	valid := `{"usertoken":"` + servertest.AdminToken + `"}`
	oversized := `{"usertoken":"` + servertest.AdminToken + `","padding":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, c := range []apiCase{
		{name: "valid token", header: jsonBody(""), body: valid, wantStatus: 200},
		{name: "v2 spelling userToken", header: jsonBody(""), body: `{"userToken":"` + servertest.AdminToken + `"}`, wantStatus: 200},
		{name: "garbled authorization header is ignored", header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Token abc"}}, body: valid, wantStatus: 200},
		{name: "wrong token", header: jsonBody(""), body: `{"usertoken":"fgt_0000000000000000000000000000000A"}`, wantStatus: 401},
		{name: "token of the wrong shape", header: jsonBody(""), body: `{"usertoken":"hunter2"}`, wantStatus: 401},
		{name: "revoked token", header: jsonBody(""), body: `{"usertoken":"` + revoked + `"}`, wantStatus: 401},
		{name: "no content type", body: valid, wantStatus: 415},
		{name: "text content type", header: http.Header{"Content-Type": {"text/plain"}}, body: valid, wantStatus: 415},
		{name: "body over 1 MiB", header: jsonBody(""), body: oversized, wantStatus: 413},
		{name: "body over 1 MiB without length", header: jsonBody(""), body: oversized, chunked: true, wantStatus: 413},
		{name: "empty body", header: jsonBody(""), wantStatus: 400},
		{name: "invalid JSON", header: jsonBody(""), body: `{"usertoken":`, wantStatus: 400},
		{name: "JSON string", header: jsonBody(""), body: `"` + servertest.AdminToken + `"`, wantStatus: 400},
		{name: "missing usertoken", header: jsonBody(""), body: `{}`, wantStatus: 400},
		{name: "usertoken not a string", header: jsonBody(""), body: `{"usertoken":42}`, wantStatus: 400},
	} {
		c.method, c.target = "POST", "/login"
		t.Run(c.name, func(t *testing.T) { sendSecond(t, w.Server, c) })
	}
}
