package link

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
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

func TestErrorKindsCrossTheLink(t *testing.T) {
	for _, kind := range []string{fleetgate.ENotFound, fleetgate.EInvalid, fleetgate.EOffline, fleetgate.EUnavailable} {
		back := ErrorFromWire(ErrorToWire(fleetgate.Errorf(kind, "detail")))
		if !fleetgate.Is(back, kind) || back.Error() != "detail" {
			t.Errorf("%v came back as %v", kind, back)
		}
	}
	if back := ErrorFromWire(ErrorToWire(errors.New("boom"))); !fleetgate.Is(back, fleetgate.EUnavailable) {
		t.Errorf("an agent failure is %v, want unavailable", back)
	}
}

// TestStreamsRoundTrip: descriptors cross the link whole, the input stream's speed limits
// among them, so the cloud clamps commands to what the robot declared.
func TestStreamsRoundTrip(t *testing.T) {
	streams := []fleetgate.Stream{
		{Component: "camera", Name: "front", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output,
			Source: fleetgate.SourceRTSP, DisplayName: "Front", SourceURL: "rtsp://cam/1", SourceEndpoint: "/dev/video0"},
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
