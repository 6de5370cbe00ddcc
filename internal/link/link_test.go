package link

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// TestMetricRoundTrip: every metric value type crosses the link unchanged, so a robot behind
// the link answers endpoint 11 exactly as a local one.
func TestMetricRoundTrip(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 6, time.UTC)
	values := []any{nil, 7, int64(1 << 40), 12.5, "text", true, fleet.Usage{Used: 1, Limit: 2}, at,
		fleet.AgentSw{UpdateAvailable: true}, fleet.AgentOperationalState{AgentStatus: 10, Version: "1.2"},
		[]fleet.Recorder{{ID: "r", Type: "rosbag", State: "Recording", StartTime: at, EndTime: at.Add(time.Hour), ErrorType: "e"}},
		[]fleet.ComponentInfo{{ID: "base", UUID: "u", Name: "base", Version: "1", State: "Active"}},
		fleet.ConfigInfo{Name: "c", Version: "2", State: "Ready"}}
	for _, v := range values {
		m := fleet.Metric{Type: fleet.MetricCustom, Name: "k", Value: v}
		w, err := MetricToWire(m)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		back := MetricFromWire(w)
		if !reflect.DeepEqual(back, m) || back.Class() != m.Class() {
			t.Errorf("%T: %#v came back as %#v", v, m, back)
		}
	}
	if _, err := MetricToWire(fleet.Metric{Value: struct{}{}}); err == nil {
		t.Error("a value the link cannot carry was accepted")
	}
}

func TestErrorKindsCrossTheLink(t *testing.T) {
	for _, kind := range []error{fleet.ErrNotFound, fleet.ErrInvalid, fleet.ErrOffline, fleet.ErrUnavailable} {
		back := ErrorFromWire(ErrorToWire(fleet.Errorf(kind, "detail")))
		if !errors.Is(back, kind) || back.Error() != "detail" {
			t.Errorf("%v came back as %v", kind, back)
		}
	}
	if back := ErrorFromWire(ErrorToWire(errors.New("boom"))); !errors.Is(back, fleet.ErrUnavailable) {
		t.Errorf("an agent failure is %v, want unavailable", back)
	}
}

// TestStreamsRoundTrip: descriptors cross the link whole, the input stream's speed limits
// among them, so the cloud clamps commands to what the robot declared.
func TestStreamsRoundTrip(t *testing.T) {
	streams := []fleet.Stream{
		{Component: "camera", Name: "front", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleet.Output,
			Source: fleet.SourceRTSP, DisplayName: "Front", SourceURL: "rtsp://cam/1", SourceEndpoint: "/dev/video0"},
		{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleet.Input,
			Source: fleet.SourceComponent, Limits: fleet.SpeedLimits{Linear: 0.8, Angular: 1.2}},
	}
	if back := StreamsFromWire(StreamsToWire(streams)); !reflect.DeepEqual(back, streams) {
		t.Errorf("%#v came back as %#v", streams, back)
	}
}

// TestResourcesRoundTrip: resource records cross the link whole; AdminOnly among them, so the
// cloud hides the agent's log from everybody but org admins as the agent does.
func TestResourcesRoundTrip(t *testing.T) {
	at := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	list := []fleet.Resource{
		{ID: "a", Name: "fleetgate.log", MIMEType: "text/plain", FileType: "log", Size: 10, CreatedAt: at, AdminOnly: true},
		{ID: "b", Name: "map.png", MIMEType: "image/png", FileType: "image", Size: 20, CreatedAt: at},
	}
	if back := ResourcesFromWire(ResourcesToWire(list)); !reflect.DeepEqual(back, list) {
		t.Errorf("%#v came back as %#v", list, back)
	}
}
