package api_test

// Handler tests of single route groups over fakes of the interfaces they declare: no store, no
// server, no robot. They pin what a handler makes of a request (the core call and its
// arguments) and of the core's answer (status and body); the end-to-end tests beside them
// check the same routes over the real core.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
)

const fakeBearer = "fgb_fake"

// fakeCaller is who fakeBearer stands for.
var fakeCaller = &gateway.Caller{User: fleetgate.User{ID: "u1", Email: "op@example.com"}, Token: fleetgate.APIToken{ID: "t1"}}

// fakeAccounts knows fakeBearer alone. The routes under test ask it nothing else: any other
// method reaches the nil interface it embeds and panics.
type fakeAccounts struct{ api.Accounts }

func (fakeAccounts) Authenticate(_ context.Context, bearer string) (*gateway.Caller, error) {
	if bearer != fakeBearer {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "unknown token")
	}
	return fakeCaller, nil
}

// call is one call of the core: the caller it was made for, the method and its arguments.
type call []any

// calls records what the core was asked.
type calls struct {
	mu   sync.Mutex
	list []call
}

func (c *calls) add(caller *gateway.Caller, method string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, append(call{caller, method}, args...))
}

func (c *calls) take() []call {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.list
	c.list = nil
	return out
}

// fakeAPI is the API's routes over svc, with fakeAccounts behind the bearer tokens.
func fakeAPI(svc api.Services) *echo.Echo {
	svc.Accounts = fakeAccounts{}
	e := echo.New()
	e.HTTPErrorHandler = api.ErrorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	api.Register(e, svc, api.Options{})
	return e
}

// routeCase is one request to a route group and what must come of it.
type routeCase struct {
	name       string
	method     string
	target     string // below /apigateway/v2
	body       string
	bearer     string // fakeBearer when empty; "-" for none
	wantStatus int
	wantBody   string // the JSON answer, compared as values; "" for none
	wantCalls  []call // what the core was asked
}

func (rc routeCase) run(t *testing.T, e *echo.Echo, asked *calls) {
	t.Helper()
	var body io.Reader
	if rc.body != "" {
		body = strings.NewReader(rc.body)
	}
	req := httptest.NewRequest(rc.method, api.V2Prefix+rc.target, body)
	if rc.body != "" {
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	}
	switch rc.bearer {
	case "":
		req.Header.Set(echo.HeaderAuthorization, "bearer "+fakeBearer)
	case "-":
	default:
		req.Header.Set(echo.HeaderAuthorization, "bearer "+rc.bearer)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != rc.wantStatus {
		t.Errorf("status %d, want %d; body %s", rec.Code, rc.wantStatus, rec.Body)
	}
	if rc.wantStatus >= 400 {
		if ct := rec.Header().Get(echo.HeaderContentType); ct != "application/problem+json" {
			t.Errorf("Content-Type %q, want application/problem+json", ct)
		}
	} else if rc.wantBody == "" && rec.Body.Len() != 0 {
		t.Errorf("body %q, want none", rec.Body)
	}
	if rc.wantBody != "" {
		var got, want any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("answer %q: %v", rec.Body, err)
		}
		if err := json.Unmarshal([]byte(rc.wantBody), &want); err != nil {
			t.Fatalf("wantBody: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("answer %s\nwant   %s", rec.Body, rc.wantBody)
		}
	}
	if got := asked.take(); !reflect.DeepEqual(got, rc.wantCalls) {
		t.Errorf("core asked %+v\nwant       %+v", got, rc.wantCalls)
	}
}

// fakeStreams is the core's stream operations: robot r1 has two streams, r2 is offline, and
// any other robot is unknown.
type fakeStreams struct{ asked *calls }

var fakeStreamList = []fleetgate.Stream{
	{Component: "base", Name: "odom", Type: "Platform.Messages.nav_msgs.Odometry", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
	{Component: "camera", Name: "front", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output,
		Source: fleetgate.SourceRTSP, DisplayName: "Front", SourceURL: "rtsp://cam/front"},
}

func (f fakeStreams) robot(id string) error {
	switch id {
	case "r1":
		return nil
	case "r2":
		return fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is offline", id)
	}
	return fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", id)
}

func (f fakeStreams) Streams(_ context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Stream, error) {
	f.asked.add(c, "Streams", robotID)
	return fakeStreamList, f.robot(robotID)
}

// Codecs offers h264 for camera streams, as a gateway with ffmpeg does.
func (f fakeStreams) Codecs(s fleetgate.Stream) []string {
	if s.Type == "Platform.Messages.sensor_msgs.CompressedImage" {
		return []string{"jpeg", "h264"}
	}
	return nil
}

func (f fakeStreams) ReadStream(_ context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector) ([]byte, error) {
	f.asked.add(c, "ReadStream", robotID, sel)
	return []byte(`{"pose":{}}`), f.robot(robotID)
}

func (f fakeStreams) Template(_ context.Context, c *gateway.Caller, messageType string) ([]byte, error) {
	f.asked.add(c, "Template", messageType)
	if messageType != "geometry_msgs/msg/Twist" {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "no message type %q", messageType)
	}
	return []byte(`{"linear":{},"angular":{}}`), nil
}

func (f fakeStreams) UploadStream(_ context.Context, c *gateway.Caller, robotID string, in gateway.UploadInput) error {
	f.asked.add(c, "UploadStream", robotID, in.Stream, in.DataType, string(in.JSON))
	return f.robot(robotID)
}

// TestStreamRoutes: endpoints 6 to 9 over a fake of Streams.
func TestStreamRoutes(t *testing.T) {
	asked := &calls{}
	e := fakeAPI(api.Services{Streams: fakeStreams{asked}})
	type sel = gateway.StreamSelector
	cases := []routeCase{
		{name: "list", method: http.MethodGet, target: "/robots/r1/streams", wantStatus: http.StatusOK,
			wantBody: `{"robotStreams":[
				{"componentName":"base","streamName":"odom","streamType":"Platform.Messages.nav_msgs.Odometry","direction":"output","streamSourceType":2,
				 "displayName":null,"sourceUrl":null,"sourceEndpoint":null},
				{"componentName":"camera","streamName":"front","streamType":"Platform.Messages.sensor_msgs.CompressedImage","direction":"output","streamSourceType":5,
				 "displayName":"Front","sourceUrl":"rtsp://cam/front","sourceEndpoint":null,"codecs":["jpeg","h264"]}]}`,
			wantCalls: []call{{fakeCaller, "Streams", "r1"}}},
		{name: "list of an unknown robot", method: http.MethodGet, target: "/robots/r9/streams", wantStatus: http.StatusNotFound,
			wantCalls: []call{{fakeCaller, "Streams", "r9"}}},
		{name: "list without a token", method: http.MethodGet, target: "/robots/r1/streams", bearer: "-", wantStatus: http.StatusUnauthorized},
		{name: "list with an unknown token", method: http.MethodGet, target: "/robots/r1/streams", bearer: "fgb_other", wantStatus: http.StatusUnauthorized},
		{name: "list with a wrong method", method: http.MethodPost, target: "/robots/r1/streams", wantStatus: http.StatusMethodNotAllowed},

		{name: "read", method: http.MethodGet, target: "/robots/r1/stream?componentName=base&streamName=odom&source=2&streamType=nav", wantStatus: http.StatusOK,
			wantBody: `{"robotStream":"{\"pose\":{}}"}`, wantCalls: []call{{fakeCaller, "ReadStream", "r1", sel{Component: "base", Name: "odom", Source: fleetgate.SourceROS1, Type: "nav"}}}},
		{name: "read of any source", method: http.MethodGet, target: "/robots/r1/stream?streamName=odom", wantStatus: http.StatusOK,
			wantBody: `{"robotStream":"{\"pose\":{}}"}`, wantCalls: []call{{fakeCaller, "ReadStream", "r1", sel{Name: "odom"}}}},
		{name: "read without a stream name", method: http.MethodGet, target: "/robots/r1/stream?componentName=base", wantStatus: http.StatusBadRequest},
		{name: "read of source 7", method: http.MethodGet, target: "/robots/r1/stream?streamName=odom&source=7", wantStatus: http.StatusBadRequest},
		{name: "read of an offline robot", method: http.MethodGet, target: "/robots/r2/stream?streamName=odom", wantStatus: http.StatusServiceUnavailable,
			wantCalls: []call{{fakeCaller, "ReadStream", "r2", sel{Name: "odom"}}}},

		{name: "template of an escaped ROS name", method: http.MethodGet, target: "/streams/geometry_msgs%2Fmsg%2FTwist/stream", wantStatus: http.StatusOK,
			wantBody: `{"emptyJson":"{\"linear\":{},\"angular\":{}}"}`, wantCalls: []call{{fakeCaller, "Template", "geometry_msgs/msg/Twist"}}},
		{name: "template of an unknown type", method: http.MethodGet, target: "/streams/nothing/stream", wantStatus: http.StatusNotFound,
			wantCalls: []call{{fakeCaller, "Template", "nothing"}}},

		{name: "upload of a document in a string", method: http.MethodPost, target: "/robots/r1/upload-stream", wantStatus: http.StatusOK,
			body:      `{"componentName":"base","streamName":"cmd_vel","source":"2","streamJson":"{\"linear\":{\"x\":1}}","dataType":"geometry_msgs/Twist"}`,
			wantCalls: []call{{fakeCaller, "UploadStream", "r1", sel{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceROS1}, "geometry_msgs/Twist", `{"linear":{"x":1}}`}}},
		{name: "upload of an object, source a number", method: http.MethodPost, target: "/robots/r1/upload-stream", wantStatus: http.StatusOK,
			body:      `{"componentName":"base","streamName":"cmd_vel","source":2,"streamJson":{"linear":{"x":1}}}`,
			wantCalls: []call{{fakeCaller, "UploadStream", "r1", sel{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceROS1}, "", `{"linear":{"x":1}}`}}},
		{name: "upload without a document", method: http.MethodPost, target: "/robots/r1/upload-stream", wantStatus: http.StatusBadRequest,
			body: `{"componentName":"base","streamName":"cmd_vel"}`},
		{name: "upload of a number as the document", method: http.MethodPost, target: "/robots/r1/upload-stream", wantStatus: http.StatusBadRequest,
			body: `{"streamName":"cmd_vel","streamJson":5}`},
		{name: "upload of a bad source", method: http.MethodPost, target: "/robots/r1/upload-stream", wantStatus: http.StatusBadRequest,
			body: `{"streamName":"cmd_vel","source":"ros","streamJson":"{}"}`},
		{name: "upload to an offline robot", method: http.MethodPost, target: "/robots/r2/upload-stream", wantStatus: http.StatusServiceUnavailable,
			body:      `{"streamName":"cmd_vel","streamJson":"{}"}`,
			wantCalls: []call{{fakeCaller, "UploadStream", "r2", sel{Name: "cmd_vel"}, "", "{}"}}},
	}
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) { rc.run(t, e, asked) })
	}
}

// fakeEvents is the core's event log: robot r1 takes entries, r3 is one the caller may only
// view, and any other robot is unknown.
type fakeEvents struct{ asked *calls }

func (f fakeEvents) PostEvent(_ context.Context, c *gateway.Caller, in gateway.PostEventInput) (fleetgate.Event, error) {
	f.asked.add(c, "PostEvent", in)
	switch in.RobotID {
	case "r1":
		return fleetgate.Event{ID: 1, RobotID: in.RobotID, FleetID: in.FleetID, Message: in.Message}, nil
	case "r3":
		return fleetgate.Event{}, fleetgate.Errorf(fleetgate.EForbidden, "a kiosk token may not post events")
	}
	return fleetgate.Event{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", in.RobotID)
}

// QueryEvents answers two entries of r1 and a next page, and refuses robot r9.
func (f fakeEvents) QueryEvents(_ context.Context, c *gateway.Caller, filter fleetgate.EventFilter) ([]fleetgate.EventRow, *fleetgate.EventCursor, error) {
	f.asked.add(c, "QueryEvents", filter)
	if filter.RobotID == "r9" {
		return nil, nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", filter.RobotID)
	}
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	rows := []fleetgate.EventRow{
		{Event: fleetgate.Event{ID: 7, RobotID: "r1", AgentID: "a1", AuthorEmail: "op@example.com", Message: "=HYPERLINK(\"x\")", CreatedAt: at,
			Type: fleetgate.EventAlert, Severity: fleetgate.SeverityError, RecordingID: "rec-1"}, RobotName: "tugger", AgentName: "dock-7", Author: "op@example.com via agent dock-7"},
		{Event: fleetgate.Event{ID: 5, RobotID: "r1", FleetID: "f1", AuthorEmail: "op@example.com", Message: "docked", CreatedAt: at.Add(-time.Second),
			Type: fleetgate.EventNote, Severity: fleetgate.SeverityInfo}, RobotName: "tugger", FleetName: "main", Author: "op@example.com"},
	}
	if filter.After == nil {
		return rows, &fleetgate.EventCursor{CreatedAt: at.Add(-time.Second), ID: 5}, nil
	}
	return nil, nil, nil
}

// TestEventRoutes: endpoint 12 over a fake of Events. Its fields are query parameters and it
// takes no body.
func TestEventRoutes(t *testing.T) {
	asked := &calls{}
	e := fakeAPI(api.Services{Events: fakeEvents{asked}})
	cases := []routeCase{
		{name: "post", method: http.MethodPost, target: "/events/log?robotId=r1&fleetId=f1&message=docked%20at%20bay%203", wantStatus: http.StatusOK,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r1", FleetID: "f1", Message: "docked at bay 3"}}}},
		{name: "post without a fleet", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi", wantStatus: http.StatusOK,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r1", FleetID: "", Message: "hi"}}}},
		{name: "post without a message", method: http.MethodPost, target: "/events/log?robotId=r1", wantStatus: http.StatusBadRequest},
		{name: "post without a robot", method: http.MethodPost, target: "/events/log?message=hi", wantStatus: http.StatusBadRequest},
		{name: "post with a message twice", method: http.MethodPost, target: "/events/log?robotId=r1&message=a&message=b", wantStatus: http.StatusBadRequest},
		{name: "post with a body", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi", body: `{"message":"hi"}`, wantStatus: http.StatusBadRequest},
		{name: "post the core refuses", method: http.MethodPost, target: "/events/log?robotId=r3&message=hi", wantStatus: http.StatusForbidden,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r3", FleetID: "", Message: "hi"}}}},
		{name: "post on an unknown robot", method: http.MethodPost, target: "/events/log?robotId=r9&message=hi", wantStatus: http.StatusNotFound,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r9", FleetID: "", Message: "hi"}}}},
		{name: "post without a token", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi", bearer: "-", wantStatus: http.StatusUnauthorized},
		{name: "get", method: http.MethodGet, target: "/events/log?robotId=r1&message=hi", wantStatus: http.StatusMethodNotAllowed},
		{name: "post an alert", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi&type=alert&severity=warning", wantStatus: http.StatusOK,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r1", Message: "hi", Type: fleetgate.EventAlert, Severity: fleetgate.SeverityWarning}}}},
		{name: "post of an unknown type", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi&type=gossip", wantStatus: http.StatusBadRequest},
		{name: "post of an unknown severity", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi&severity=dire", wantStatus: http.StatusBadRequest},
		{name: "post with record=true", method: http.MethodPost, target: "/events/log?robotId=r1&message=pallet%20dropped&record=true", wantStatus: http.StatusOK,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r1", Message: "pallet dropped", Record: true}}}},
		{name: "post with record=false", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi&record=false", wantStatus: http.StatusOK,
			wantCalls: []call{{fakeCaller, "PostEvent", gateway.PostEventInput{RobotID: "r1", Message: "hi"}}}},
		{name: "post with record=maybe", method: http.MethodPost, target: "/events/log?robotId=r1&message=hi&record=maybe", wantStatus: http.StatusBadRequest},
	}
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) { rc.run(t, e, asked) })
	}
}
