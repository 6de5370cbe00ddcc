package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/servertest"
)

const (
	twistType = "Platform.Messages.geometry_msgs.Twist"
	poseType  = "Platform.Messages.geometry_msgs.PoseStamped"
)

var (
	poseKey   = fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}
	cmdVelKey = fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
	logAt     = time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
)

// robotWorld is the seeded world with w.robot connected as a scriptable robot.
type robotWorld struct {
	*world
	bot       *fleettest.Robot
	developer string // bearer of a Developer on w.robot
	logID     string // resource id of the robot's log file
	logData   []byte
}

func newRobotWorld(t *testing.T) *robotWorld {
	t.Helper()
	w := &robotWorld{world: newWorld(t)}
	org, _ := w.DefaultOrg()
	dev := w.AddUser(org.ID, "developer@example.com", false, map[string]fleetgate.Role{w.robot.ID: fleetgate.RoleDeveloper})
	w.developer = w.bearerFor(dev.ID, "", "")

	pose, err := proto.Marshal(&catalogpb.PoseStamped{
		Header: &catalogpb.Header{FrameId: "map", Stamp: &catalogpb.Time{Sec: 1700000000}},
		Pose:   &catalogpb.Pose{Position: &catalogpb.Point{X: 1.5, Y: -2}, Orientation: &catalogpb.Quaternion{W: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.logID = uuid.NewString()
	w.logData = []byte(strings.Repeat("0123456789abcdef\n", 64))
	w.bot = &fleettest.Robot{
		ID: w.robot.ID, Name: w.robot.Name,
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: poseType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent, DisplayName: "Pose"},
			{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
			{Component: "", Name: "/scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
			{Component: "", Name: "/scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceROS2},
		},
		Values: map[fleetgate.StreamKey]fleetgate.Sample{poseKey: {Type: poseType, Payload: pose, Seq: 1}},
		MetricList: []fleetgate.Metric{
			{Type: fleetgate.MetricCpu, Value: 12.5},
			{Type: fleetgate.MetricRam, Value: fleetgate.Usage{Used: 1024, Limit: 4096}},
			{Type: fleetgate.MetricTraffic, Value: int64(1 << 40)},
			{Type: fleetgate.MetricLicenseExpired, Value: logAt},
			{Type: fleetgate.MetricAgentSw, Value: fleetgate.AgentSw{UpdateAvailable: true}},
			{Type: fleetgate.MetricAgentOperationalState, Value: fleetgate.AgentOperationalState{AgentStatus: 10, Version: "1.2.3"}},
			{Type: fleetgate.MetricRecordings, Value: []fleetgate.Recorder{{ID: "rec-1", Type: "rosbag", State: "Recording", StartTime: logAt, EndTime: logAt.Add(3723 * time.Second)}}},
			{Type: fleetgate.MetricComponents, Value: []fleetgate.ComponentInfo{{ID: "base", UUID: "6d1f0c9e-2b1a-4f5e-9c1d-0a1b2c3d4e5f", Name: "base", Version: "1.2.3", State: "Active"}}},
			{Type: fleetgate.MetricConfiguration, Value: fleetgate.ConfigInfo{Name: "warehouse", Version: "4", State: "Ready"}},
			{Type: fleetgate.MetricCustom, Name: "activity", Value: "moving"},
		},
		Files:    map[string][]byte{},
		FileInfo: []fleetgate.Resource{{ID: "", Name: "agent.log", MIMEType: "text/plain", FileType: "log", Size: 0, CreatedAt: logAt}},
	}
	w.bot.Files[w.logID] = w.logData
	w.bot.FileInfo[0].ID, w.bot.FileInfo[0].Size = w.logID, int64(len(w.logData))
	if err := w.Registry().Add(context.Background(), w.bot, w.fleet.ID); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *robotWorld) robotPath(rest string) string { return "/robots/" + w.robot.ID + rest }

func TestLiveRobotIsOnline(t *testing.T) {
	w := newRobotWorld(t)
	resp := send(t, w.Server, apiCase{method: "GET", target: w.robotPath(""), header: bearer(w.admin), wantStatus: 200})
	var d struct {
		RobotData                struct{ IsOnline bool }
		LastTimeSeen             time.Time
		ConfigurationInformation struct{ Name, Version string }
		AgentVersion             string
	}
	resp.JSON(t, &d)
	if !d.RobotData.IsOnline || time.Since(d.LastTimeSeen) > time.Minute {
		t.Errorf("connected robot: isOnline %v, lastTimeSeen %v; want online and seen now", d.RobotData.IsOnline, d.LastTimeSeen)
	}
	if d.ConfigurationInformation.Name != "test-config" || d.ConfigurationInformation.Version != "7" || d.AgentVersion != "test-agent" {
		t.Errorf("details do not carry what the robot announced: %+v", d)
	}
	// Going offline keeps the last time seen.
	w.Registry().Remove(w.bot)
	resp = send(t, w.Server, apiCase{method: "GET", target: w.robotPath(""), header: bearer(w.admin), wantStatus: 200})
	resp.JSON(t, &d)
	if d.RobotData.IsOnline || d.LastTimeSeen.IsZero() || time.Since(d.LastTimeSeen) > time.Minute {
		t.Errorf("after disconnect: isOnline %v, lastTimeSeen %v", d.RobotData.IsOnline, d.LastTimeSeen)
	}
	send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/streams"), header: bearer(w.admin), wantStatus: 503})
}

func TestStreamsAnswer(t *testing.T) {
	w := newRobotWorld(t)
	resp := send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/streams"), header: bearer(w.operator), wantStatus: 200})
	checkJSON(t, resp.Body, `{"robotStreams":[
		{"componentName":"base","streamName":"pose","streamType":"Platform.Messages.geometry_msgs.PoseStamped","direction":"output","streamSourceType":1,"displayName":"Pose","sourceUrl":null,"sourceEndpoint":null},
		{"componentName":"base","streamName":"cmd_vel","streamType":"Platform.Messages.geometry_msgs.Twist","direction":"input","streamSourceType":1,"displayName":null,"sourceUrl":null,"sourceEndpoint":null},
		{"componentName":"","streamName":"/scan","streamType":"Platform.Messages.sensor_msgs.LaserScan","direction":"output","streamSourceType":2,"displayName":null,"sourceUrl":null,"sourceEndpoint":null},
		{"componentName":"","streamName":"/scan","streamType":"Platform.Messages.sensor_msgs.LaserScan","direction":"output","streamSourceType":3,"displayName":null,"sourceUrl":null,"sourceEndpoint":null}]}`)
}

func TestReadStream(t *testing.T) {
	w := newRobotWorld(t)
	read := func(query string) string { return w.robotPath("/stream?" + query) }
	resp := send(t, w.Server, apiCase{method: "GET", target: read("componentName=base&streamName=pose&source=1&streamType=" + poseType), header: bearer(w.operator), wantStatus: 200})
	var out struct{ RobotStream string }
	resp.JSON(t, &out)
	checkJSON(t, []byte(out.RobotStream), `{"header":{"stamp":{"sec":1700000000,"nanosec":0},"frameId":"map"},
		"pose":{"position":{"x":1.5,"y":-2,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":1}}}`)

	for _, c := range []apiCase{
		{name: "source and type optional", target: read("componentName=base&streamName=pose"), wantStatus: 200},
		{name: "no streamName", target: read("componentName=base"), wantStatus: 400},
		{name: "source not a number", target: read("componentName=base&streamName=pose&source=one"), wantStatus: 400},
		{name: "source out of range", target: read("componentName=base&streamName=pose&source=9"), wantStatus: 400},
		{name: "wrong source", target: read("componentName=base&streamName=pose&source=2"), wantStatus: 404},
		{name: "wrong type", target: read("componentName=base&streamName=pose&streamType=" + twistType), wantStatus: 404},
		{name: "unknown component", target: read("componentName=arm&streamName=pose"), wantStatus: 404},
		{name: "unknown stream", target: read("componentName=base&streamName=nope"), wantStatus: 404},
		{name: "input stream", target: read("componentName=base&streamName=cmd_vel"), wantStatus: 400},
		{name: "ambiguous without source", target: read("streamName=/scan"), wantStatus: 400},
		{name: "unknown robot", target: "/robots/" + unknownID() + "/stream?streamName=pose", wantStatus: 404},
		{name: "other organization", target: "/robots/" + w.otherRobot.ID + "/stream?componentName=base&streamName=pose", wantStatus: 404},
		{name: "offline robot", target: "/robots/" + w.secondRobot.ID + "/stream?componentName=base&streamName=pose", wantStatus: 503},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.method, c.header = "GET", bearer(w.admin)
			send(t, w.Server, c)
		})
	}
}

func TestSlowRobotAnswers503WithinASecond(t *testing.T) {
	w := newRobotWorld(t)
	w.bot.Lock()
	w.bot.Delay = 5 * time.Second
	w.bot.Unlock()
	start := time.Now()
	resp := send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/stream?componentName=base&streamName=pose"), header: bearer(w.admin), wantStatus: 503})
	// Bounded by the gateway's 1 s deadline, not the robot's 5 s delay; the margin is for a
	// loaded CI machine and still far below the delay.
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("503 took %v; the deadline is %v", took, gateway.RobotReadTimeout)
	}
	if !strings.Contains(string(resp.Body), "did not answer within 1s") {
		t.Errorf("detail does not say the robot was too slow: %s", resp.Body)
	}
}

// TestQuietStreamAnswers504NoSample: endpoint 7 of a reachable robot whose stream has no
// sample yet (a camera starting, a quiet topic) waits for the first one up to the request's
// deadline (gateway.StreamReadWait): one that comes meanwhile is the answer; a stream still
// quiet then is 504 no_sample in words, never the 503 of a robot that is not there.
func TestQuietStreamAnswers504NoSample(t *testing.T) {
	w := newRobotWorld(t)
	odomKey := fleetgate.StreamKey{Component: "base", Name: "odom", Source: fleetgate.SourceComponent}
	const odomType = "Platform.Messages.nav_msgs.Odometry"
	w.bot.Lock()
	w.bot.WaitFirst = true
	w.bot.StreamList = append(w.bot.StreamList, fleetgate.Stream{Component: "base", Name: "odom", Type: odomType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	w.bot.Unlock()
	read := apiCase{method: "GET", target: w.robotPath("/stream?componentName=base&streamName=odom"), header: bearer(w.admin)}

	start := time.Now()
	c := read
	c.wantStatus = http.StatusGatewayTimeout
	resp := send(t, w.Server, c)
	took := time.Since(start)
	var p struct{ Code, Detail string }
	resp.JSON(t, &p)
	if p.Code != "no_sample" || p.Detail != "no sample yet on base/odom" {
		t.Errorf("a quiet stream: code %q, detail %q; want no_sample, \"no sample yet on base/odom\"", p.Code, p.Detail)
	}
	// It waited for a sample (not the 1 s of a robot's answer), and no longer than the deadline.
	if took < gateway.StreamReadWait/2 || took > gateway.StreamReadWait+2*time.Second {
		t.Errorf("answered after %v; the wait is %v", took, gateway.StreamReadWait)
	}

	// A first sample that comes while the request waits (a camera that started) is the answer.
	odom, err := proto.Marshal(&catalogpb.Odometry{ChildFrameId: "base_link"})
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan servertest.Response, 1)
	go func() {
		answered <- w.DoRaw(read.method, api.V2Prefix+read.target, read.header, nil)
	}()
	var got servertest.Response
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
waiting:
	for {
		select {
		case got = <-answered:
			break waiting
		case <-tick.C:
			w.bot.Emit(odomKey, odomType, odom)
		}
	}
	if got.Status != http.StatusOK || !strings.Contains(string(got.Body), "base_link") {
		t.Errorf("a sample that came during the wait: %d %s", got.Status, got.Body)
	}
}

func TestTemplateAnswer(t *testing.T) {
	w := newRobotWorld(t)
	resp := send(t, w.Server, apiCase{method: "GET", target: "/streams/" + twistType + "/stream", header: bearer(w.kiosk), wantStatus: 200})
	var out struct{ EmptyJSON string }
	resp.JSON(t, &out)
	if want := `{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`; out.EmptyJSON != want {
		t.Errorf("Twist template %s, want %s", out.EmptyJSON, want)
	}
	send(t, w.Server, apiCase{method: "GET", target: "/streams/Platform.Messages.geometry_msgs.Nope/stream", header: bearer(w.admin), wantStatus: 404})
	send(t, w.Server, apiCase{method: "GET", target: "/streams/" + twistType + "/stream", wantStatus: 401})

	// ROS names answer the same template: the name is one path segment, its slashes encoded.
	for _, name := range []string{"geometry_msgs%2Fmsg%2FTwist", "geometry_msgs%2FTwist", "geometry_msgs%2fmsg%2fTwist"} {
		resp := send(t, w.Server, apiCase{method: "GET", target: "/streams/" + name + "/stream", header: bearer(w.kiosk), wantStatus: 200})
		var ros struct{ EmptyJSON string }
		resp.JSON(t, &ros)
		if ros.EmptyJSON != out.EmptyJSON {
			t.Errorf("%s: template %s, want the Twist's", name, ros.EmptyJSON)
		}
	}
	send(t, w.Server, apiCase{method: "GET", target: "/streams/geometry_msgs%2Fmsg%2FNope/stream", header: bearer(w.admin), wantStatus: 404})
}

// templateRobot lists a type outside the catalog and knows its definition, as a ROS 1
// robot knows rosgraph_msgs/Log from its publisher.
type templateRobot struct{ *fleettest.Robot }

const logTemplate = `{"header":{"seq":0,"stamp":{"secs":0,"nsecs":0},"frame_id":""},"level":0,"name":"","msg":"","file":"","function":"","line":0,"topics":[]}`

func (r templateRobot) MessageTemplate(ctx context.Context, messageType string) ([]byte, error) {
	if messageType == "rosgraph_msgs/Log" {
		return []byte(logTemplate), nil
	}
	return nil, fleetgate.Errorf(fleetgate.ENotFound, "no topic of type %s", messageType)
}

// Endpoint 8 answers the template of a type outside the catalog that a robot of the caller
// lists, from the robot's own definition; a caller who may not see that robot gets 404.
func TestTemplateOfATypeARobotLists(t *testing.T) {
	w := newWorld(t)
	bot := templateRobot{&fleettest.Robot{ID: w.secondRobot.ID, Name: w.secondRobot.Name, StreamList: []fleetgate.Stream{
		{Name: "/rosout", Type: "rosgraph_msgs/Log", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
	}}}
	if err := w.Registry().Add(context.Background(), bot, w.secondFleet.ID); err != nil {
		t.Fatal(err)
	}
	resp := send(t, w.Server, apiCase{method: "GET", target: "/streams/rosgraph_msgs%2FLog/stream", header: bearer(w.kiosk), wantStatus: 200})
	var out struct{ EmptyJSON string }
	resp.JSON(t, &out)
	if out.EmptyJSON != logTemplate {
		t.Errorf("rosgraph_msgs/Log template %s, want %s", out.EmptyJSON, logTemplate)
	}
	// The operator has no role on the robot that lists it, another organization none at all.
	for _, who := range []string{w.operator, w.otherAdmin} {
		resp := send(t, w.Server, apiCase{method: "GET", target: "/streams/rosgraph_msgs%2FLog/stream", header: bearer(who), wantStatus: 404})
		if !strings.Contains(string(resp.Body), "no robot of yours") {
			t.Errorf("404 without saying why: %s", resp.Body)
		}
	}
	send(t, w.Server, apiCase{method: "GET", target: "/streams/custom_msgs%2FNope/stream", header: bearer(w.admin), wantStatus: 404})
}

// waitInputsFree waits until nobody holds robotID's input streams: an upload takes its stream
// for as long as its commands come, and lets go with the deadman's zero 500 ms after the last.
// A test of what uploads answer waits for it between uploaders, as two scripts would.
func waitInputsFree(t *testing.T, s *servertest.Server, bearer, robotID string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var held struct{ Controls []any }
		resp := s.Do("GET", "/apigateway/v2/robots/"+robotID+"/controls", bearer, "")
		if resp.Status == 200 {
			resp.JSON(t, &held)
			if len(held.Controls) == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("robot %s's input streams still held after 5 s: %d %s", robotID, resp.Status, resp.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func uploadBody(fields map[string]any) string {
	b, _ := json.Marshal(fields)
	return string(b)
}

func TestUploadStream(t *testing.T) {
	w := newRobotWorld(t)
	target := w.robotPath("/upload-stream")
	twist := `{"linear":{"x":0.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0.25}}`
	good := func(changes map[string]any) string {
		f := map[string]any{"componentName": "base", "streamName": "cmd_vel", "source": "1", "streamJson": twist, "dataType": twistType}
		for k, v := range changes {
			if v == nil {
				delete(f, k)
			} else {
				f[k] = v
			}
		}
		return uploadBody(f)
	}
	cases := []apiCase{
		{name: "source as string", body: good(nil), wantStatus: 200},
		{name: "source as number", body: good(map[string]any{"source": 1}), wantStatus: 200},
		{name: "no source", body: good(map[string]any{"source": nil}), wantStatus: 200},
		{name: "streamJson as object", body: good(map[string]any{"streamJson": map[string]any{"linear": map[string]any{"x": 0.1}}}), wantStatus: 200},
		{name: "operator may not upload", header: jsonBody(w.operator), body: good(nil), wantStatus: 403},
		{name: "kiosk may not upload", header: jsonBody(w.kiosk), body: good(nil), wantStatus: 403},
		{name: "developer may", header: jsonBody(w.developer), body: good(nil), wantStatus: 200},
		{name: "dataType not in catalog", body: good(map[string]any{"dataType": "Platform.Messages.geometry_msgs.Nope"}), wantStatus: 400},
		{name: "no dataType", body: good(map[string]any{"dataType": nil}), wantStatus: 400},
		{name: "dataType not the stream's", body: good(map[string]any{"dataType": poseType, "streamJson": `{}`}), wantStatus: 400},
		{name: "JSON of another type", body: good(map[string]any{"streamJson": `{"position":{"x":1}}`}), wantStatus: 400},
		{name: "unknown field", body: good(map[string]any{"streamJson": `{"linear":{"x":1},"turbo":true}`}), wantStatus: 400},
		{name: "NaN", body: good(map[string]any{"streamJson": `{"linear":{"x":"NaN"}}`}), wantStatus: 400},
		{name: "Infinity", body: good(map[string]any{"streamJson": `{"angular":{"z":"-Infinity"}}`}), wantStatus: 400},
		{name: "number too large", body: good(map[string]any{"streamJson": `{"linear":{"x":1e400}}`}), wantStatus: 400},
		{name: "speed beyond 10x the robot's limit", body: good(map[string]any{"streamJson": `{"linear":{"x":1e300}}`}), wantStatus: 400},
		{name: "turn beyond 10x the robot's limit", body: good(map[string]any{"streamJson": `{"angular":{"z":-15.5}}`}), wantStatus: 400},
		{name: "streamJson not JSON", body: good(map[string]any{"streamJson": `{"linear":`}), wantStatus: 400},
		{name: "streamJson a number", body: good(map[string]any{"streamJson": 5}), wantStatus: 400},
		{name: "no streamJson", body: good(map[string]any{"streamJson": nil}), wantStatus: 400},
		{name: "source wrong", body: good(map[string]any{"source": "2"}), wantStatus: 404},
		{name: "source garbage", body: good(map[string]any{"source": "x"}), wantStatus: 400},
		{name: "source bool", body: good(map[string]any{"source": true}), wantStatus: 400},
		{name: "unknown component", body: good(map[string]any{"componentName": "arm"}), wantStatus: 404},
		{name: "output stream", body: good(map[string]any{"streamName": "pose", "dataType": poseType, "streamJson": `{}`}), wantStatus: 400},
		{name: "10 MiB of JSON", body: good(map[string]any{"streamJson": `{"linear":{"x":0` + strings.Repeat(" ", 10<<20) + `}}`}), wantStatus: 413},
		{name: "body not JSON", body: `streamJson=1`, wantStatus: 400},
		{name: "wrong content type", header: http.Header{"Authorization": {"bearer " + w.admin}, "Content-Type": {"text/plain"}}, body: good(nil), wantStatus: 415},
		{name: "offline robot", target: "/robots/" + w.secondRobot.ID + "/upload-stream", body: good(nil), wantStatus: 503},
		{name: "unknown robot", target: "/robots/" + unknownID() + "/upload-stream", body: good(nil), wantStatus: 404},
	}
	before := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.method = "POST"
			if c.target == "" {
				c.target = target
			}
			if c.header == nil {
				c.header = jsonBody(w.admin)
			}
			waitInputsFree(t, w.Server, w.admin, w.robot.ID) // its zero counted before
			before = len(w.bot.Published())
			resp := send(t, w.Server, c)
			n := len(w.bot.Published())
			if c.wantStatus == 200 && n != before+1 {
				t.Errorf("accepted upload published %d messages, want 1", n-before)
			}
			if c.wantStatus != 200 && n != before {
				t.Errorf("refused upload (%d) still reached the robot", resp.Status)
			}
			before = n
		})
	}
	var first catalogpb.Twist
	if err := proto.Unmarshal(w.bot.Published()[0].Payload, &first); err != nil {
		t.Fatal(err)
	}
	if first.GetLinear().GetX() != 0.5 || first.GetAngular().GetZ() != 0.25 {
		t.Errorf("the robot got %v, want linear.x 0.5 and angular.z 0.25", &first)
	}
}

// TestUploadStreamClampsToTheRobotsLimits: a command over the robot's declared speeds (here
// undeclared: fleetgate.DefaultSpeedLimits, 1 m/s and 1.5 rad/s) reaches it clamped.
func TestUploadStreamClampsToTheRobotsLimits(t *testing.T) {
	w := newRobotWorld(t)
	body := uploadBody(map[string]any{"componentName": "base", "streamName": "cmd_vel", "dataType": twistType,
		"streamJson": `{"linear":{"x":5,"y":-0.5},"angular":{"z":-9}}`})
	send(t, w.Server, apiCase{method: "POST", target: w.robotPath("/upload-stream"), header: jsonBody(w.admin), body: body, wantStatus: 200})
	var got catalogpb.Twist
	if err := proto.Unmarshal(w.bot.Published()[0].Payload, &got); err != nil {
		t.Fatal(err)
	}
	if got.GetLinear().GetX() != 1 || got.GetLinear().GetY() != -0.5 || got.GetAngular().GetZ() != -1.5 {
		t.Errorf("the robot got %v, want linear 1, -0.5 and angular.z -1.5", &got)
	}
}

func TestMetrics(t *testing.T) {
	w := newRobotWorld(t)
	resp := send(t, w.Server, apiCase{method: "GET", target: "/robots/metrics?robotId=" + w.robot.ID, header: bearer(w.kiosk), wantStatus: 200})
	checkJSON(t, resp.Body, `{"metrics":[{"metricType":1,"metricName":"Cpu"},{"metricType":2,"metricName":"Ram"},
		{"metricType":6,"metricName":"Traffic"},{"metricType":8,"metricName":"LicenseExpired"},{"metricType":14,"metricName":"AgentSw"},
		{"metricType":15,"metricName":"Recordings"},{"metricType":16,"metricName":"Components"},{"metricType":17,"metricName":"Configuration"},
		{"metricType":30,"metricName":"AgentOperationalState"},{"metricType":100,"metricName":"Custom"}]}`)

	basic := `"basicData":{"id":"` + w.robot.ID + `","name":"robot-one"}`
	for _, c := range []struct {
		target string
		want   string
	}{
		{"/metric/1", `{` + basic + `,"metric":{"$type":2,"name":"DoubleMetric","value":12.5}}`},
		{"/metric/2", `{` + basic + `,"metric":{"$type":5,"name":"UsageMetric","value":{"used":1024,"limit":4096}}}`},
		{"/metric/6", `{` + basic + `,"metric":{"$type":9,"name":"LongMetric","value":1099511627776}}`},
		{"/metric/8", `{` + basic + `,"metric":{"$type":6,"name":"LicenseExpirationMetric","value":"2026-11-20T08:30:00Z"}}`},
		{"/metric/14", `{` + basic + `,"metric":{"$type":7,"name":"AgentSwMetric","value":{"updateAvailable":true}}}`},
		{"/metric/30", `{` + basic + `,"metric":{"$type":8,"name":"AgentOperationalStateMetric","value":{"agentStatus":10,"version":"1.2.3"}}}`},
		{"/metric/15", `{` + basic + `,"metric":{"$type":10,"name":"AgentRecordingMetric","agentRecordings":{"agentRecorders":[
			{"recorderType":"rosbag","recorderState":"Recording","startTime":"2026-11-20T08:30:00Z","endTime":"2026-11-20T09:32:03Z","id":"rec-1","errorType":"","duration":"01:02:03","droppedSamples":0}]}}}`},
		{"/metric/16", `{` + basic + `,"metric":{"$type":11,"name":"ComponentInfoMetric","componentInfosDto":{"componentsInfoDto":[
			{"componentId":"base","componentUuid":"6d1f0c9e-2b1a-4f5e-9c1d-0a1b2c3d4e5f","version":"1.2.3","componentName":"base","componentState":"Active"}]}}}`},
		{"/metric/17", `{` + basic + `,"metric":{"$type":12,"name":"ConfigInfoMetric","configInfoDto":{"configName":"warehouse","version":"4","configState":"Ready"}}}`},
		{"/metric/100?metricName=activity", `{` + basic + `,"metric":{"$type":3,"name":"StringMetric","value":"moving"}}`},
	} {
		t.Run(c.target, func(t *testing.T) {
			resp := send(t, w.Server, apiCase{method: "GET", target: w.robotPath(c.target), header: bearer(w.operator), wantStatus: 200})
			checkJSON(t, resp.Body, c.want)
		})
	}
	for _, c := range []apiCase{
		{name: "custom without name", target: w.robotPath("/metric/100"), wantStatus: 400},
		{name: "custom unknown name", target: w.robotPath("/metric/100?metricName=nope"), wantStatus: 404},
		{name: "type not reported", target: w.robotPath("/metric/4"), wantStatus: 404},
		{name: "type unknown", target: w.robotPath("/metric/99"), wantStatus: 404},
		{name: "type not a number", target: w.robotPath("/metric/cpu"), wantStatus: 400},
		{name: "list without robotId", target: "/robots/metrics", wantStatus: 400},
		{name: "list of unknown robot", target: "/robots/metrics?robotId=" + unknownID(), wantStatus: 404},
		{name: "list of offline robot", target: "/robots/metrics?robotId=" + w.secondRobot.ID, wantStatus: 503},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.method, c.header = "GET", bearer(w.admin)
			send(t, w.Server, c)
		})
	}
}

func TestResourcesAndDownload(t *testing.T) {
	w := newRobotWorld(t)
	resp := send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/resources"), header: bearer(w.operator), wantStatus: 200})
	checkJSON(t, resp.Body, `{"resources":[{"resourceId":"`+w.logID+`","name":"agent.log","type":"text/plain","size":1088,"createdAt":"2026-11-20T08:30:00Z"}]}`)

	resp = send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/resource/" + w.logID + "/download"), header: bearer(w.operator), wantStatus: 200})
	var link struct{ URL string }
	resp.JSON(t, &link)
	u, err := url.Parse(link.URL)
	if err != nil || !strings.HasPrefix(link.URL, w.URL+"/files/"+w.logID+"?") || u.Query().Get("exp") == "" || u.Query().Get("sig") == "" {
		t.Fatalf("download url %q: want an absolute signed %s/files/%s URL", link.URL, w.URL, w.logID)
	}

	get := func(rawURL string, header http.Header) (int, http.Header, []byte) {
		req, _ := http.NewRequest("GET", rawURL, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, r.Header, b
	}
	status, h, body := get(link.URL, nil)
	if status != 200 || string(body) != string(w.logData) || h.Get("Content-Type") != "text/plain" {
		t.Errorf("download: %d %q, %d bytes; want 200 text/plain with the file", status, h.Get("Content-Type"), len(body))
	}
	status, _, body = get(link.URL, http.Header{"Range": {"bytes=17-33"}})
	if status != http.StatusPartialContent || string(body) != string(w.logData[17:34]) {
		t.Errorf("range download: %d %q", status, body)
	}
	status, _, _ = get(link.URL, nil)
	if status != 200 {
		t.Errorf("the link is reusable until it expires: second use %d", status)
	}
	tampered := strings.Replace(link.URL, "exp=", "exp=9", 1)
	if status, _, _ = get(tampered, nil); status != http.StatusForbidden {
		t.Errorf("tampered expiry: %d, want 403", status)
	}
	if status, _, _ = get(w.URL+"/files/"+w.logID, nil); status != http.StatusForbidden {
		t.Errorf("unsigned: %d, want 403", status)
	}
	// The file disappears from the robot: the link's resource is gone.
	w.bot.Lock()
	delete(w.bot.Files, w.logID)
	w.bot.Unlock()
	if status, _, _ = get(link.URL, nil); status != http.StatusNotFound {
		t.Errorf("deleted resource: %d, want 404", status)
	}

	for _, c := range []apiCase{
		{name: "unknown resource", target: w.robotPath("/resource/" + unknownID() + "/download"), header: bearer(w.admin), wantStatus: 404},
		{name: "kiosk may not download", target: w.robotPath("/resource/" + w.logID + "/download"), header: bearer(w.kiosk), wantStatus: 403},
		{name: "other organization", target: "/robots/" + w.otherRobot.ID + "/resources", header: bearer(w.admin), wantStatus: 404},
		{name: "offline robot", target: "/robots/" + w.secondRobot.ID + "/resources", header: bearer(w.admin), wantStatus: 503},
		{name: "no token", target: w.robotPath("/resources"), wantStatus: 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.method = "GET"
			send(t, w.Server, c)
		})
	}
}

// TestAgentLogOnlyForOrgAdmins: the agent's own log names every user and robot of its
// agent, so it is a resource of organization admins only; to an operator of one robot it
// does not exist (not listed, its link 404), and neither to an admin's fleet-bound token.
func TestAgentLogOnlyForOrgAdmins(t *testing.T) {
	w := newRobotWorld(t)
	agentLog := fleetgate.Resource{ID: uuid.NewString(), Name: "fleetgate.log", MIMEType: "text/plain", FileType: "log", Size: 3, CreatedAt: logAt, AdminOnly: true}
	w.bot.FileInfo = append(w.bot.FileInfo, agentLog)
	w.bot.Files[agentLog.ID] = []byte("log")
	listed := func(token string) bool {
		resp := send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/resources"), header: bearer(token), wantStatus: 200})
		return strings.Contains(string(resp.Body), agentLog.ID)
	}
	fleetBound := w.bearerFor(w.adminUser.ID, "", w.fleet.ID)
	if !listed(w.admin) {
		t.Error("the org admin does not see the agent log")
	}
	for name, token := range map[string]string{"operator": w.operator, "developer": w.developer, "admin's fleet-bound token": fleetBound} {
		if listed(token) {
			t.Errorf("%s sees the agent log", name)
		}
		send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/resource/" + agentLog.ID + "/download"), header: bearer(token), wantStatus: 404})
	}
	send(t, w.Server, apiCase{method: "GET", target: w.robotPath("/resource/" + agentLog.ID + "/download"), header: bearer(w.admin), wantStatus: 200})
}
