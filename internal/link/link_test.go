package link

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// TestMetricRoundTrip: every metric value type crosses the link unchanged, so a robot behind
// the link answers endpoint 11 exactly as a local one.
func TestMetricRoundTrip(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 6, time.UTC)
	values := []any{nil, 7, int64(1 << 40), 12.5, "text", true, fleetgate.Usage{Used: 1, Limit: 2}, at,
		fleetgate.AgentSw{UpdateAvailable: true}, fleetgate.AgentOperationalState{AgentStatus: 10, Version: "1.2"},
		[]fleetgate.Recorder{{ID: "r", Type: "rosbag", State: "Recording", StartTime: at, EndTime: at.Add(time.Hour), ErrorType: "e"}},
		[]fleetgate.ComponentInfo{{ID: "base", UUID: "u", Name: "base", Version: "1", State: "Active"}},
		fleetgate.ConfigInfo{Name: "c", Version: "2", State: "Ready"}}
	for _, v := range values {
		m := fleetgate.Metric{Type: fleetgate.MetricCustom, Name: "k", Value: v}
		w, err := MetricToWire(m)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		back := MetricFromWire(w)
		if !reflect.DeepEqual(back, m) || back.Class() != m.Class() {
			t.Errorf("%T: %#v came back as %#v", v, m, back)
		}
	}
	if _, err := MetricToWire(fleetgate.Metric{Value: struct{}{}}); err == nil {
		t.Error("a value the link cannot carry was accepted")
	}
}

// TestErrorsCrossTheLink: every code crosses unchanged, with its public message and never
// the text behind it; a conflict keeps its holder.
func TestErrorsCrossTheLink(t *testing.T) {
	for _, r := range edge.Rows() {
		sent := &fleetgate.Error{Code: r.Code, Message: "detail", Err: errors.New("password=hunter2")}
		back := ErrorFromWire(ErrorToWire(sent))
		if r.Code == fleetgate.EInternal {
			if fleetgate.ErrorCode(back) != fleetgate.EInternal || fleetgate.ErrorMessage(back) != "internal error" {
				t.Errorf("an internal error came back as %q %q", fleetgate.ErrorCode(back), fleetgate.ErrorMessage(back))
			}
		} else if edge.Code(back) != r.Code || back.Error() != "detail" {
			t.Errorf("%s came back as %q: %v", r.Code, edge.Code(back), back)
		}
		if strings.Contains(back.Error(), "hunter2") {
			t.Errorf("%s: the cause's text crossed the link: %v", r.Code, back)
		}
	}
	since := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	held := ErrorFromWire(ErrorToWire(fleetgate.HeldError(fleetgate.Held{Owner: "op@example.com", Since: since})))
	if h, ok := fleetgate.HeldBy(held); !ok || h.Owner != "op@example.com" || !h.Since.Equal(since) {
		t.Errorf("a held stream came back as %#v", held)
	}

	for _, c := range []struct {
		name    string
		wire    *linkpb.Error
		code    string
		message string
	}{
		{"an agent's fault, its text kept from the caller", ErrorToWire(errors.New("dial 10.0.0.7: password=hunter2")), fleetgate.EInternal, "internal error"},
		{"an older agent's fault with its text", &linkpb.Error{Message: "dial 10.0.0.7: password=hunter2"}, fleetgate.EInternal, "internal error"},
		{"a deadline that ran out", ErrorToWire(fmt.Errorf("reading: %w", context.DeadlineExceeded)), fleetgate.EUnavailable, "the robot did not answer in time"},
		{"a kind of a newer peer", &linkpb.Error{Kind: 99, Message: "a newer refusal"}, fleetgate.EUnavailable, "a newer refusal"},
	} {
		back := ErrorFromWire(c.wire)
		if fleetgate.ErrorCode(back) != c.code || fleetgate.ErrorMessage(back) != c.message {
			t.Errorf("%s: %q %q, want %q %q", c.name, fleetgate.ErrorCode(back), fleetgate.ErrorMessage(back), c.code, c.message)
		}
	}
}

// TestStreamsRoundTrip: descriptors cross the link whole, the input stream's speed limits
// among them, so the cloud clamps commands to what the robot declared, and the camera's
// codecs, so the cloud offers what the agent can send.
func TestStreamsRoundTrip(t *testing.T) {
	streams := []fleetgate.Stream{
		{Component: "camera", Name: "front", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output,
			Source: fleetgate.SourceRTSP, DisplayName: "Front", SourceURL: "rtsp://cam/1", SourceEndpoint: "/dev/video0",
			Codecs: fleetgate.CodecsJPEG | fleetgate.CodecsH264},
		{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input,
			Source: fleetgate.SourceComponent, Limits: fleetgate.SpeedLimits{Linear: 0.8, Angular: 1.2}},
	}
	if back := StreamsFromWire(StreamsToWire(streams)); !reflect.DeepEqual(back, streams) {
		t.Errorf("%#v came back as %#v", streams, back)
	}
}

// TestResourcesRoundTrip: resource records cross the link whole; AdminOnly among them, so the
// cloud hides the agent's log from everybody but org admins as the agent does.
func TestResourcesRoundTrip(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	list := []fleetgate.Resource{
		{ID: "a", Name: "fleetgate.log", MIMEType: "text/plain", FileType: "log", Size: 10, CreatedAt: at, AdminOnly: true},
		{ID: "b", Name: "map.png", MIMEType: "image/png", FileType: "image", Size: 20, CreatedAt: at},
	}
	if back := ResourcesFromWire(ResourcesToWire(list)); !reflect.DeepEqual(back, list) {
		t.Errorf("%#v came back as %#v", list, back)
	}
}

// An agent older than the definition request refuses it as unknown (INVALID): the client says
// not implemented, which the cloud remembers; a definition over the bound is not taken.
func TestClientMessageDefinition(t *testing.T) {
	key := fleetgate.StreamKey{Name: "/accel", Source: fleetgate.SourceROS1}
	older := Client{Peer: "the agent", Do: func(context.Context, *linkpb.Request) (*linkpb.Response, error) {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "request *linkpb.Request_Definition is not known here; upgrade this side")
	}}
	if _, _, err := older.MessageDefinition(context.Background(), key); !fleetgate.Is(err, fleetgate.ENotImplemented) {
		t.Errorf("an older agent: %v", err)
	}
	huge := Client{Peer: "the agent", Do: func(context.Context, *linkpb.Request) (*linkpb.Response, error) {
		d := &linkpb.MessageDefinition{Encoding: "ros1msg", Text: strings.Repeat("x", MaxDefinitionBytes+1)}
		return &linkpb.Response{Result: &linkpb.Response_Definition{Definition: d}}, nil
	}}
	if _, _, err := huge.MessageDefinition(context.Background(), key); !fleetgate.Is(err, fleetgate.ETooLarge) {
		t.Errorf("a definition over %d bytes: %v", MaxDefinitionBytes, err)
	}
}
