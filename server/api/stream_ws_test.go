package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/servertest"
)

const ackermannType = "Platform.Messages.ackermann_msgs.AckermannDriveStamped"

// liveAgent is a local gateway (W3 is served there only) with one scriptable robot.
type liveAgent struct {
	*servertest.Server
	bot    *fleettest.Robot
	admin  string
	robot  string
	ws     string // ws:// base of the API
	cancel context.CancelFunc
}

var (
	scanKey  = fleetgate.StreamKey{Component: "lidar", Name: "scan", Source: fleetgate.SourceComponent}
	driveKey = fleetgate.StreamKey{Component: "base", Name: "drive", Source: fleetgate.SourceComponent}
)

func newLiveAgent(t *testing.T) *liveAgent {
	t.Helper()
	s := servertest.MustOpen(t, servertest.Agent)
	a := &liveAgent{Server: s, admin: s.Login(servertest.AdminToken)}
	a.ws = "ws" + strings.TrimPrefix(s.URL, "http") + "/apigateway/v2"
	a.bot = &fleettest.Robot{
		ID: "5b0e8f0c-9a53-4c5f-8d0e-2f3b9c1d7a61", Name: "live-bot",
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: poseType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "lidar", Name: "scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "drive", Type: ackermannType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "lamp", Type: "Platform.Messages.std_msgs.Bool", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
	}
	a.robot = a.bot.ID
	if err := s.Registry().Add(context.Background(), a.bot, fleetgate.LocalFleetID); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a *liveAgent) url(query string) string {
	return a.ws + "/robots/" + a.robot + "/streams/connect?" + query
}

func (a *liveAgent) dial(t *testing.T, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, a.url(query), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + a.admin}}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", query, err, status)
	}
	conn.SetReadLimit(32 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

// refused dials and expects the upgrade to be refused with status; it returns the body.
func (a *liveAgent) refused(t *testing.T, rawURL string, header http.Header, status int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{HTTPHeader: header})
	if err == nil {
		conn.CloseNow()
		t.Fatalf("%s: upgraded, want %d", rawURL, status)
	}
	if resp == nil {
		t.Fatalf("%s: %v", rawURL, err)
	}
	if resp.StatusCode != status {
		t.Errorf("%s: status %d, want %d", rawURL, resp.StatusCode, status)
	}
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("%s: refusal Content-Type %q, want problem+json", rawURL, ct)
	}
	return string(body)
}

// closeCode reads until the server closes the socket and returns the close code.
func closeCode(t *testing.T, conn *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, _, err := conn.Read(ctx)
		if err != nil {
			if code := websocket.CloseStatus(err); code != -1 {
				return code
			}
			t.Fatalf("socket ended without a close frame: %v", err)
		}
	}
}

func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLiveStreamRefusals(t *testing.T) {
	a := newLiveAgent(t)
	auth := http.Header{"Authorization": {"bearer " + a.admin}}
	base := "componentName=base&streamName=cmd_vel&direction=input"
	cases := []struct {
		name   string
		url    string
		header http.Header
		status int
	}{
		{"no streamName", a.url("componentName=base"), auth, 400},
		{"bad format", a.url("componentName=base&streamName=pose&format=xml"), auth, 400},
		{"bad direction", a.url("componentName=base&streamName=pose&direction=sideways"), auth, 400},
		{"bad maxRate", a.url("componentName=base&streamName=pose&maxRate=fast"), auth, 400},
		{"negative maxRate", a.url("componentName=base&streamName=pose&maxRate=-1"), auth, 400},
		{"bad withoutDownSampling", a.url("componentName=base&streamName=pose&withoutDownSampling=maybe"), auth, 400},
		{"bad source", a.url("componentName=base&streamName=pose&source=x"), auth, 400},
		{"input on source 5", a.url(base + "&source=5"), auth, 400},
		{"unsupported input type", a.url(base + "&streamType=Platform.Messages.sensor_msgs.LaserScan"), auth, 400},
		// A goal (PoseStamped) is an input type (goal sockets, an extension); cmd_vel is none.
		{"goal type on a stream that is no goal stream", a.url(base + "&streamType=" + poseType), auth, 404},
		{"input stream of another type", a.url("componentName=base&streamName=lamp&direction=input"), auth, 400},
		{"bad query beats missing token", a.url("componentName=base"), nil, 400},
		{"no token", a.url(base), nil, 401},
		{"garbled header", a.url(base), http.Header{"Authorization": {"basic x"}}, 401},
		{"unknown token", a.url(base + "&access_token=fgb_nope"), nil, 401},
		{"unknown robot", a.ws + "/robots/" + unknownID() + "/streams/connect?" + base, auth, 404},
		{"unknown input stream", a.url("componentName=base&streamName=nope&direction=input"), auth, 404},
		{"output stream as input", a.url("componentName=base&streamName=pose&direction=input"), auth, 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { a.refused(t, c.url, c.header, c.status) })
	}
	t.Run("not an upgrade", func(t *testing.T) {
		resp := a.DoRaw("GET", "/apigateway/v2/robots/"+a.robot+"/streams/connect?"+base, auth, nil)
		if resp.Status != 400 {
			t.Errorf("plain GET: %d, want 400", resp.Status)
		}
		checkProblem(t, resp)
	})
	t.Run("query token with bearer prefix", func(t *testing.T) {
		conn, _, err := websocket.Dial(context.Background(), a.url("componentName=base&streamName=pose&access_token=Bearer%20"+a.admin), nil)
		if err != nil {
			t.Fatalf("access_token with a Bearer prefix: %v", err)
		}
		conn.CloseNow()
	})
	t.Run("token as the panel's subprotocol, never echoed", func(t *testing.T) {
		conn, resp, err := websocket.Dial(context.Background(), a.url("componentName=base&streamName=pose"),
			&websocket.DialOptions{Subprotocols: []string{"fleetgate", "fleetgate.token." + a.admin}})
		if err != nil {
			t.Fatalf("token subprotocol: %v", err)
		}
		defer conn.CloseNow()
		if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "fleetgate" {
			t.Errorf("selected subprotocol %q, want fleetgate (the token must not be echoed)", got)
		}
	})
	t.Run("wrong token as subprotocol", func(t *testing.T) {
		a.refused(t, a.url("componentName=base&streamName=pose"), http.Header{"Sec-WebSocket-Protocol": {"fleetgate, fleetgate.token.fgt_nope"}}, 401)
	})
}

// TestLiveStreamCloudAnswers404: with its live view off (--cloud-live=false) the cloud answers
// W3 with the contract's 404.
func TestLiveStreamCloudAnswers404(t *testing.T) {
	s := servertest.MustOpen(t, func(c *server.Config) { c.NoCloudLive = true })
	bearer := s.Login(servertest.AdminToken)
	_, fleet := s.DefaultOrg()
	r := s.AddRobot(fleet, "cloud-robot")
	ws := "ws" + strings.TrimPrefix(s.URL, "http") + "/apigateway/v2/robots/" + r.ID + "/streams/connect?componentName=base&streamName=pose"
	conn, resp, err := websocket.Dial(context.Background(), ws, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
	if err == nil {
		conn.CloseNow()
		t.Fatal("the cloud upgraded a W3 request")
	}
	if resp == nil || resp.StatusCode != 404 {
		t.Fatalf("cloud W3: %v %v, want 404", resp, err)
	}
}

func TestLiveOutputProtobuf(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=lidar&streamName=scan")
	// A scan with plenty of repetition: gzip pays, so the envelope carries it compressed.
	ranges := make([]float32, 2000)
	for i := range ranges {
		ranges[i] = 4
	}
	want := &catalogpb.LaserScan{Header: &catalogpb.Header{FrameId: "laser"}, RangeMax: 12, Ranges: ranges}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var last uint64
	for i := range 3 {
		// Emit until a frame arrives: the subscription may start after the first emit.
		got := make(chan []byte, 1)
		go func() {
			typ, b, err := conn.Read(ctx)
			if err == nil && typ == websocket.MessageBinary {
				got <- b
			}
			close(got)
		}()
		var frame []byte
		for frame == nil {
			a.bot.Emit(scanKey, "Platform.Messages.sensor_msgs.LaserScan", marshal(t, want))
			select {
			case frame = <-got:
				if frame == nil {
					t.Fatal("reading a frame failed")
				}
			case <-time.After(50 * time.Millisecond):
			}
		}
		var env streampb.MessageStream
		if err := proto.Unmarshal(frame, &env); err != nil {
			t.Fatalf("frame %d is not a MessageStream: %v", i, err)
		}
		if env.ComponentName != "lidar" || env.StreamName != "scan" || env.Source != 1 || env.DataType != "Platform.Messages.sensor_msgs.LaserScan" {
			t.Errorf("envelope identity: %+v", &env)
		}
		if env.Sequence <= last {
			t.Errorf("sequence %d after %d", env.Sequence, last)
		}
		last = env.Sequence
		if env.Compression != streampb.Compression_COMPRESSION_GZIP {
			t.Fatalf("a compressible scan was sent uncompressed (%d bytes)", len(env.Data))
		}
		zr, err := gzip.NewReader(bytes.NewReader(env.Data))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		var scan catalogpb.LaserScan
		if err := proto.Unmarshal(raw, &scan); err != nil || !proto.Equal(&scan, want) {
			t.Fatalf("payload after inflating: %v %v", &scan, err)
		}
	}
}

func TestLiveOutputJSON(t *testing.T) {
	a := newLiveAgent(t)
	a.bot.Emit(poseKey, poseType, marshal(t, &catalogpb.PoseStamped{Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 2}}}))
	conn := a.dial(t, "componentName=base&streamName=pose&format=json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	typ, b, err := conn.Read(ctx)
	if err != nil || typ != websocket.MessageText {
		t.Fatalf("json frame: %v %v", typ, err)
	}
	checkJSON(t, b, `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"pose":{"position":{"x":2,"y":0,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":0}}}`)
}

func TestLiveOutputCloseCodes(t *testing.T) {
	a := newLiveAgent(t)
	t.Run("unresolved stream closes 1008", func(t *testing.T) {
		conn := a.dial(t, "componentName=base&streamName=nope")
		if code := closeCode(t, conn); code != websocket.StatusPolicyViolation {
			t.Errorf("close %d, want 1008", code)
		}
	})
	t.Run("a data frame from an output client closes 1008", func(t *testing.T) {
		conn := a.dial(t, "componentName=base&streamName=pose")
		conn.Write(context.Background(), websocket.MessageText, []byte("hello"))
		if code := closeCode(t, conn); code != websocket.StatusPolicyViolation {
			t.Errorf("close %d, want 1008", code)
		}
	})
	t.Run("robot going offline closes 1001", func(t *testing.T) {
		conn := a.dial(t, "componentName=base&streamName=pose")
		time.Sleep(100 * time.Millisecond) // let the subscription start
		a.bot.Disconnect()
		if code := closeCode(t, conn); code != websocket.StatusGoingAway {
			t.Errorf("close %d, want 1001", code)
		}
	})
}

func TestLiveOutputMaxRate(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=base&streamName=pose&maxRate=5")
	payload := marshal(t, &catalogpb.PoseStamped{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			a.bot.Emit(poseKey, poseType, payload)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	readCtx, stop := context.WithTimeout(ctx, 1200*time.Millisecond)
	defer stop()
	frames := 0
	for {
		if _, _, err := conn.Read(readCtx); err != nil {
			break
		}
		frames++
	}
	// 5 per second over 1.2 s: 6 or 7 frames with the first at once; never the ~500 emitted.
	if frames < 3 || frames > 8 {
		t.Errorf("maxRate=5 delivered %d frames in 1.2 s", frames)
	}
}

func (a *liveAgent) published(t *testing.T) []fleettest.Published { return a.bot.Published() }

// waitPublished waits until the robot has received n commands and returns them.
func waitPublished(t *testing.T, bot *fleettest.Robot, n int) []fleettest.Published {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if p := bot.Published(); len(p) >= n {
			return p
		}
		time.Sleep(5 * time.Millisecond)
	}
	p := bot.Published()
	t.Fatalf("the robot received %d commands, want %d", len(p), n)
	return p
}

func twistOf(t *testing.T, p fleettest.Published) *catalogpb.Twist {
	t.Helper()
	var tw catalogpb.Twist
	if p.Type != twistType || proto.Unmarshal(p.Payload, &tw) != nil {
		t.Fatalf("published %s %x, want a Twist", p.Type, p.Payload)
	}
	return &tw
}

func isZeroTwist(tw *catalogpb.Twist) bool {
	return tw.GetLinear().GetX() == 0 && tw.GetLinear().GetY() == 0 && tw.GetLinear().GetZ() == 0 &&
		tw.GetAngular().GetX() == 0 && tw.GetAngular().GetY() == 0 && tw.GetAngular().GetZ() == 0
}

func TestLiveInputDrivesAndStops(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=base&streamName=cmd_vel&direction=input&format=json")
	ctx := context.Background()
	// The deadman counts from the command's arrival, which is after this: the lower bound
	// below can only be met early by a deadman that fires early.
	sent := time.Now()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.4},"angular":{"z":0.1}}`)); err != nil {
		t.Fatal(err)
	}
	p := waitPublished(t, a.bot, 1)
	if tw := twistOf(t, p[0]); tw.GetLinear().GetX() != 0.4 || tw.GetAngular().GetZ() != 0.1 {
		t.Errorf("first command %v", tw)
	}
	// Silence: the deadman publishes one zero about 500 ms later, then nothing.
	p = waitPublished(t, a.bot, 2)
	took := time.Since(sent)
	if !isZeroTwist(twistOf(t, p[1])) {
		t.Errorf("deadman published %v, want a zero Twist", twistOf(t, p[1]))
	}
	if took < 450*time.Millisecond || took > 2*time.Second {
		t.Errorf("deadman after %v, want about 500 ms", took)
	}
	time.Sleep(700 * time.Millisecond)
	if n := len(a.bot.Published()); n != 2 {
		t.Errorf("%d publishes after the deadman's zero, want silence", n-2)
	}

	// The holder is visible, and a second controller is refused with 409 naming it.
	resp := a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, "")
	checkJSON(t, resp.Body, `{"controls":[{"componentName":"base","streamName":"cmd_vel","streamSourceType":1,"owner":"admin@localhost","since":"`+controlSince(t, resp.Body)+`"}]}`)
	body := a.refused(t, a.url("componentName=base&streamName=cmd_vel&direction=input"), http.Header{"Authorization": {"bearer " + a.admin}}, 409)
	var problem struct{ Owner, Since, Detail string }
	json.Unmarshal([]byte(body), &problem)
	if problem.Owner != "admin@localhost" || problem.Since == "" {
		t.Errorf("409 body does not name the owner and since: %s", body)
	}

	// Closing publishes a zero at once and frees the target.
	conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.2}}`))
	waitPublished(t, a.bot, 3)
	conn.Close(websocket.StatusNormalClosure, "")
	p = waitPublished(t, a.bot, 4)
	if !isZeroTwist(twistOf(t, p[3])) {
		t.Errorf("close published %v, want zero", twistOf(t, p[3]))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp = a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, "")
		if strings.Contains(string(resp.Body), `"controls":[]`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(string(resp.Body), `"controls":[]`) {
		t.Errorf("the target is still held after close: %s", resp.Body)
	}
	a.dial(t, "componentName=base&streamName=cmd_vel&direction=input").CloseNow()
}

// TestLiveInputClampsToTheRobotsLimits: a command over the robot's speeds reaches it clamped
// (this robot declares none: fleetgate.DefaultSpeedLimits, 1 m/s and 1.5 rad/s).
func TestLiveInputClampsToTheRobotsLimits(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=base&streamName=cmd_vel&direction=input&format=json")
	defer conn.CloseNow()
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(`{"linear":{"x":-3},"angular":{"z":9.5}}`)); err != nil {
		t.Fatal(err)
	}
	tw := twistOf(t, waitPublished(t, a.bot, 1)[0])
	if tw.GetLinear().GetX() != -1 || tw.GetAngular().GetZ() != 1.5 {
		t.Errorf("the robot got %v, want linear.x -1 and angular.z 1.5", tw)
	}
}

func controlSince(t *testing.T, body []byte) string {
	var out struct{ Controls []struct{ Since string } }
	json.Unmarshal(body, &out)
	if len(out.Controls) != 1 {
		t.Fatalf("controls: %s", body)
	}
	return out.Controls[0].Since
}

func TestLiveInputCloseCodes(t *testing.T) {
	a := newLiveAgent(t)
	twist := marshal(t, &catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.3}})
	cases := []struct {
		name  string
		query string
		typ   websocket.MessageType
		data  []byte
		code  websocket.StatusCode
	}{
		{"text frame on protobuf", "", websocket.MessageText, []byte(`{}`), websocket.StatusUnsupportedData},
		{"binary frame on json", "&format=json", websocket.MessageBinary, twist, websocket.StatusUnsupportedData},
		{"malformed protobuf", "", websocket.MessageBinary, []byte{0xff, 0xff, 0xff}, websocket.StatusInvalidFramePayloadData},
		{"malformed json", "&format=json", websocket.MessageText, []byte(`{"linear":`), websocket.StatusInvalidFramePayloadData},
		{"NaN", "&format=json", websocket.MessageText, []byte(`{"linear":{"x":"NaN"}}`), websocket.StatusPolicyViolation},
		{"Infinity", "&format=json", websocket.MessageText, []byte(`{"angular":{"z":"-Infinity"}}`), websocket.StatusPolicyViolation},
		{"speed beyond 10x the limit (json)", "&format=json", websocket.MessageText, []byte(`{"linear":{"x":1e300}}`), websocket.StatusPolicyViolation},
		{"turn beyond 10x the limit (protobuf)", "", websocket.MessageBinary, marshal(t, &catalogpb.Twist{Angular: &catalogpb.Vector3{Z: 16}}), websocket.StatusPolicyViolation},
		{"over 64 KiB", "&format=json", websocket.MessageText, []byte(`{"linear":{"x":1}}` + strings.Repeat(" ", 64<<10)), websocket.StatusMessageTooBig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(a.bot.Published())
			conn := a.dial(t, "componentName=base&streamName=cmd_vel&direction=input"+c.query)
			// A valid command first, so the zero on the fault is visible.
			valid, validType := twist, websocket.MessageBinary
			if c.query != "" {
				valid, validType = []byte(`{"linear":{"x":0.3}}`), websocket.MessageText
			}
			conn.Write(context.Background(), validType, valid)
			waitPublished(t, a.bot, before+1)
			conn.Write(context.Background(), c.typ, c.data)
			if code := closeCode(t, conn); code != c.code {
				t.Errorf("close %d, want %d", code, c.code)
			}
			p := waitPublished(t, a.bot, before+2)
			if !isZeroTwist(twistOf(t, p[before+1])) {
				t.Errorf("after the fault the robot got %v, want a zero", twistOf(t, p[before+1]))
			}
			for _, q := range p[before+1:] {
				if tw := twistOf(t, q); !isZeroTwist(tw) {
					t.Errorf("invalid input reached the robot: %v", tw)
				}
			}
			waitFree(t, a)
		})
	}
	t.Run("publish failure closes 1011", func(t *testing.T) {
		a.bot.Lock()
		a.bot.PublishErr = errors.New("motor controller gone")
		a.bot.Unlock()
		defer func() { a.bot.Lock(); a.bot.PublishErr = nil; a.bot.Unlock() }()
		conn := a.dial(t, "componentName=base&streamName=cmd_vel&direction=input")
		conn.Write(context.Background(), websocket.MessageBinary, twist)
		if code := closeCode(t, conn); code != websocket.StatusInternalError {
			t.Errorf("close %d, want 1011", code)
		}
		waitFree(t, a)
	})
}

// waitFree waits until nobody controls the robot's cmd_vel.
func waitFree(t *testing.T, a *liveAgent) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		resp := a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, "")
		if strings.Contains(string(resp.Body), `"controls":[]`) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the input stream is still held")
}

func TestLiveInputAckermann(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=base&streamName=drive&direction=input&format=json")
	conn.Write(context.Background(), websocket.MessageText, []byte(`{"drive":{"speed":0.5,"steeringAngle":0.2}}`))
	p := waitPublished(t, a.bot, 1)
	var cmd catalogpb.AckermannDriveStamped
	if p[0].Key != driveKey || proto.Unmarshal(p[0].Payload, &cmd) != nil || cmd.GetDrive().GetSpeed() != 0.5 || cmd.GetDrive().GetSteeringAngle() != 0.2 {
		t.Fatalf("ackermann published %+v", p[0])
	}
}

func TestLiveSocketsEndOnRevocation(t *testing.T) {
	a := newLiveAgent(t)
	admin, err := a.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	if err != nil {
		t.Fatal(err)
	}
	secret, tok := a.AddToken(admin.ID, "", "")
	bearer := a.Login(secret)
	ctx := context.Background()
	conn, _, err := websocket.Dial(ctx, a.url("componentName=base&streamName=cmd_vel&direction=input&format=json&access_token="+bearer), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.3}}`))
	waitPublished(t, a.bot, 1)
	// The operator keeps driving, so the deadman never fires: the zero at the end can only be
	// the revocation's.
	driving := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-driving:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.3}}`)) != nil {
				return
			}
		}
	}()
	revoked := time.Now()
	if err := a.Store.RevokeAPIToken(ctx, tok.ID, revoked); err != nil {
		t.Fatal(err)
	}
	code := closeCode(t, conn)
	close(driving)
	<-stopped
	if code != websocket.StatusPolicyViolation {
		t.Errorf("close %d after revocation, want 1008", code)
	}
	// The issue asks for within 1 s; the check runs every second, so allow its period twice
	// on a loaded CI machine.
	if took := time.Since(revoked); took > 2500*time.Millisecond {
		t.Errorf("revocation closed the socket after %v", took)
	}
	p := a.bot.Published()
	if len(p) < 3 || !isZeroTwist(twistOf(t, p[len(p)-1])) || twistOf(t, p[len(p)-2]).GetLinear().GetX() != 0.3 {
		t.Fatalf("publishes %d, last %v; want motion up to the revocation, then one zero", len(p), twistOf(t, p[len(p)-1]))
	}
	for _, q := range p[1 : len(p)-1] {
		if isZeroTwist(twistOf(t, q)) {
			t.Errorf("a zero before the revocation's: the deadman fired while the operator drove")
		}
	}
}

func TestLiveSocketsShutdown(t *testing.T) {
	a := newLiveAgent(t)
	in := a.dial(t, "componentName=base&streamName=cmd_vel&direction=input&format=json")
	out := a.dial(t, "componentName=base&streamName=pose")
	in.Write(context.Background(), websocket.MessageText, []byte(`{"linear":{"x":0.3}}`))
	waitPublished(t, a.bot, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Sessions().Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if p := a.bot.Published(); len(p) != 2 || !isZeroTwist(twistOf(t, p[1])) {
		t.Errorf("shutdown must zero the robot before returning: %d publishes", len(p))
	}
	for _, conn := range []*websocket.Conn{in, out} {
		if code := closeCode(t, conn); code != websocket.StatusGoingAway {
			t.Errorf("close %d on shutdown, want 1001", code)
		}
	}
}

// A large frame that is not gzipped goes out without copying its payload, as one message in one
// frame written with one writev (its header, head, payload, tail); the client reads exactly
// proto.Marshal's envelope, and a small one, sent whole, the same way.
func TestLiveOutputLargeImageIsTheMarshalledEnvelope(t *testing.T) {
	a := newLiveAgent(t)
	camKey := fleetgate.StreamKey{Component: "camera", Name: "image", Source: fleetgate.SourceComponent}
	const imageType = "Platform.Messages.sensor_msgs.CompressedImage"
	cam := &fleettest.Robot{ID: "0d7c4a52-51f3-4c29-9d55-6a8e1f0b2c33", Name: "camera-bot",
		StreamList: []fleetgate.Stream{{Component: "camera", Name: "image", Type: imageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent}}}
	if err := a.Registry().Add(context.Background(), cam, fleetgate.LocalFleetID); err != nil {
		t.Fatal(err)
	}
	a.robot = cam.ID
	conn := a.dial(t, "componentName=camera&streamName=image")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, size := range []int{300 << 10, 700 << 10, 2 << 10} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>8) // the bytes do not matter: images are never gzipped
		}
		payload := marshal(t, &catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "camera"}, Format: "jpeg", Data: data})
		emitted := map[uint64]fleetgate.Sample{}
		got := make(chan []byte, 1)
		go func() {
			typ, b, err := conn.Read(ctx)
			if err == nil && typ == websocket.MessageBinary {
				got <- b
			}
			close(got)
		}()
		var frame []byte
		for frame == nil {
			s := cam.Emit(camKey, imageType, payload)
			emitted[s.Seq] = s
			select {
			case frame = <-got:
				if frame == nil {
					t.Fatal("reading a frame failed")
				}
			case <-time.After(50 * time.Millisecond):
			}
		}
		var env streampb.MessageStream
		if err := proto.Unmarshal(frame, &env); err != nil {
			t.Fatal(err)
		}
		s, ok := emitted[env.Sequence]
		if !ok {
			t.Fatalf("sequence %d was not emitted in this round", env.Sequence)
		}
		want := marshal(t, &streampb.MessageStream{ComponentName: "camera", StreamName: "image", Source: 1, DataType: imageType,
			Data: payload, Sequence: s.Seq, PublishTime: &catalogpb.Time{Sec: int32(s.Time.Unix()), Nanosec: uint32(s.Time.Nanosecond())}})
		if !bytes.Equal(frame, want) {
			t.Errorf("%d-byte image: the message (%d bytes) is not the marshalled envelope (%d bytes)", size, len(frame), len(want))
		}
		// Drain what the emit loop left in flight, so the next round reads its own samples.
		last := cam.Emit(camKey, imageType, payload)
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var e streampb.MessageStream
			if proto.Unmarshal(b, &e) == nil && e.Sequence == last.Seq {
				break
			}
		}
	}
}

// TestLiveControllerThatStopsAnsweringIsLetGo: a controller whose client stops answering
// pings (gone without a FIN, or frozen) loses control, and another operator may drive; one
// that answers keeps it.
func TestLiveControllerThatStopsAnsweringIsLetGo(t *testing.T) {
	defer api.SetControllerPing(100*time.Millisecond, 300*time.Millisecond)()
	a := newLiveAgent(t)
	const input = "componentName=base&streamName=cmd_vel&direction=input&format=json"
	frozen := a.dial(t, input) // never reads, so never answers a ping
	frozen.Write(context.Background(), websocket.MessageText, []byte(`{"linear":{"x":0.3}}`))
	waitPublished(t, a.bot, 1)
	var next *websocket.Conn
	deadline := time.Now().Add(5 * time.Second)
	for next == nil {
		conn, resp, err := websocket.Dial(context.Background(), a.url(input), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + a.admin}}})
		switch {
		case err == nil:
			next = conn
		case resp == nil || resp.StatusCode != http.StatusConflict:
			t.Fatalf("second controller: %v", err)
		case time.Now().After(deadline):
			t.Fatal("the frozen controller still holds the robot after 5 s")
		default:
			time.Sleep(50 * time.Millisecond)
		}
	}
	defer next.CloseNow()
	if p := a.bot.Published(); !isZeroTwist(twistOf(t, p[len(p)-1])) {
		t.Errorf("the robot's last command before the hand-over is %v, want a zero", twistOf(t, p[len(p)-1]))
	}
	// The new controller answers pings (its reader runs): it keeps control past many pings.
	readCtx := next.CloseRead(context.Background())
	time.Sleep(time.Second)
	before := len(a.bot.Published())
	if err := next.Write(context.Background(), websocket.MessageText, []byte(`{"linear":{"x":0.2}}`)); err != nil || readCtx.Err() != nil {
		t.Fatalf("a controller that answers pings lost control: %v, %v", err, readCtx.Err())
	}
	p := waitPublished(t, a.bot, before+1)
	if tw := twistOf(t, p[before]); tw.GetLinear().GetX() != 0.2 {
		t.Errorf("last command %v, want the new controller's", tw)
	}
}

// TestLiveControllerLetGoWhenTheRobotLeaves: an input socket ends (1001) when its robot goes
// offline, so the control lease does not outlive the connection it was for.
func TestLiveControllerLetGoWhenTheRobotLeaves(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=base&streamName=cmd_vel&direction=input&format=json")
	conn.Write(context.Background(), websocket.MessageText, []byte(`{"linear":{"x":0.3}}`))
	waitPublished(t, a.bot, 1)
	a.Registry().Remove(a.bot)
	if code := closeCode(t, conn); code != websocket.StatusGoingAway {
		t.Errorf("close %d when the robot left, want 1001", code)
	}
}

// maxRate paces a viewer in real time: frames at least 1/maxRate apart, the newest sample
// after each wait (latest wins across it), and a viewer that leaves while a frame waits for
// its turn ends its session (the writer that waits is a timer, stopped with the session).
func TestLiveOutputMaxRatePacesLatestWins(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, "componentName=base&streamName=pose&maxRate=5")
	type receipt struct {
		seq uint64
		at  time.Time
	}
	got := make(chan receipt, 256)
	go func() {
		defer close(got)
		for {
			_, b, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			var env streampb.MessageStream
			if proto.Unmarshal(b, &env) == nil {
				got <- receipt{env.Sequence, time.Now()}
			}
		}
	}()
	// The subscription starts after the upgrade: wait for the first frame, then publish at
	// about 100 Hz for a second.
	var first receipt
	for first.seq == 0 {
		a.bot.Emit(poseKey, poseType, marshal(t, &catalogpb.PoseStamped{Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 1}}}))
		select {
		case first = <-got:
		case <-time.After(50 * time.Millisecond):
		}
	}
	var last fleetgate.Sample
	for i := range 100 {
		last = a.bot.Emit(poseKey, poseType, marshal(t, &catalogpb.PoseStamped{Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: float64(i)}}}))
		time.Sleep(10 * time.Millisecond)
	}
	list := []receipt{first}
	deadline := time.After(time.Second)
	for list[len(list)-1].seq != last.Seq {
		select {
		case r, ok := <-got:
			if !ok {
				t.Fatal("the socket ended")
			}
			list = append(list, r)
		case <-deadline:
			t.Fatalf("the last sample (sequence %d) never came; got %v", last.Seq, list)
		}
	}
	for i := 1; i < len(list); i++ {
		if gap := list[i].at.Sub(list[i-1].at); gap < 150*time.Millisecond {
			t.Errorf("frames %d and %d %v apart at maxRate=5", i-1, i, gap)
		}
	}
	if len(list) > 9 {
		t.Errorf("%d frames in about 1.2 s at maxRate=5", len(list))
	}
	// A frame waits for its turn now; the viewer leaves meanwhile.
	a.bot.Emit(poseKey, poseType, marshal(t, &catalogpb.PoseStamped{}))
	conn.CloseNow()
	for end := time.Now().Add(5 * time.Second); a.Sessions().Len() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d sessions 5 s after the viewer left", a.Sessions().Len())
		}
	}
}
