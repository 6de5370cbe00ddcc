package camera

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
)

func TestParseFlag(t *testing.T) {
	tests := []struct {
		flag        string
		robot, name string
		url         string
		err         string
	}{
		{flag: "dock=rtsp://10.0.0.5/live", name: "dock", url: "rtsp://10.0.0.5/live"},
		{flag: "sim-1/front=rtsp://u:p@10.0.0.6/s", robot: "sim-1", name: "front", url: "rtsp://10.0.0.6/s"},
		{flag: "usb=/dev/video0", name: "usb"},
		{flag: "nothing", err: "NAME=URL"},
		{flag: "/x=rtsp://h/s", err: "robot name is empty"},
		{flag: "a b=rtsp://h/s", err: "camera name"},
		{flag: "ok=ftp://h/s", err: "rtsp://"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			c, err := ParseFlag(tt.flag)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseFlag(%q) = %+v, %v; want an error saying %q", tt.flag, c, err, tt.err)
				}
				return
			}
			if err != nil || c.Robot != tt.robot || c.Name != tt.name || c.Spec.URL != tt.url {
				t.Fatalf("ParseFlag(%q) = %+v, %v", tt.flag, c, err)
			}
		})
	}
}

func TestWithCamerasAddsStreams(t *testing.T) {
	base := &fleettest.Robot{ID: "r1", Name: "sim-1", StreamList: []fleetgate.Stream{
		{Component: "camera", Name: "/camera/image/compressed", Type: ImageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "base", Name: "/cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
	}}
	cam, src, clock := newFakeCamera(t)
	r := WithCameras(base, cam)
	streams, err := r.Streams(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(streams) != 3 || streams[2] != cam.Stream() {
		t.Fatalf("streams %+v", streams)
	}
	if got := streams[2]; got.Component != Component || got.Source != fleetgate.SourceRTSP || got.SourceURL == "" {
		t.Fatalf("camera stream %+v", got)
	}
	// The camera's stream reads from the camera...
	sub, err := r.Subscribe(context.Background(), cam.Stream().Key(), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	send(t, src.next(t), sub, 3, clock.Now())
	// ... the robot's own from the robot.
	key := base.StreamList[0].Key()
	base.Emit(key, ImageType, []byte("sim frame"))
	s, err := r.Read(context.Background(), key)
	if err != nil || string(s.Payload) != "sim frame" {
		t.Fatalf("robot's own stream: %q, %v", s.Payload, err)
	}
	if err := doortest.Send(context.Background(), r, cam.Stream().Key(), ImageType, nil); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("publishing to a camera: %v", err)
	}
	if r.Info().Name != "sim-1" {
		t.Fatalf("info %+v", r.Info())
	}
}

func TestHostListsItsCameras(t *testing.T) {
	configured, _, _ := newFakeCamera(t)
	src := newFakeSource()
	devices := []VideoDevice{{Path: "/dev/video2", Card: "USB Camera"}}
	h := NewHost(HostConfig{
		Info:    fleetgate.Info{ID: "00000000-0000-4000-8000-000000000001", Name: "agent-host"},
		Cameras: []*Camera{configured},
		Camera:  Config{Clock: newFakeClock(), open: src.open},
		Devices: func() []VideoDevice { return devices },
	})
	defer h.Close()
	h.setDiscovered([]Device{{Endpoint: "urn:uuid:1", XAddr: "http://192.0.2.7/onvif/device_service", Name: "Dock"}})
	streams, err := h.Streams(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(streams))
	for i, s := range streams {
		names[i] = s.Name
	}
	if !slices.Equal(names, []string{"dock", "video2", "onvif-192.0.2.7"}) {
		t.Fatalf("streams %v", names)
	}
	if d := streams[1]; d.Source != fleetgate.SourceDevice || d.SourceEndpoint != "/dev/video2" || d.DisplayName != "USB Camera" || d.SourceURL != "" {
		t.Fatalf("device stream %+v", d)
	}
	if o := streams[2]; o.Source != fleetgate.SourceONVIF || o.SourceURL != "http://192.0.2.7/onvif/device_service" {
		t.Fatalf("discovered stream %+v", o)
	}
	for _, s := range streams {
		if s.Component != Component || s.Type != ImageType || s.Direction != fleetgate.Output {
			t.Fatalf("stream %+v", s)
		}
	}
	// A viewer of a listed device reads through its camera.
	sub, err := h.Subscribe(context.Background(), streams[1].Key(), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub.Close()
	src.next(t)
	if _, err := h.Subscribe(context.Background(), fleetgate.StreamKey{Component: Component, Name: "nope", Source: fleetgate.SourceRTSP}, fleetgate.SubscribeOptions{}); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Fatalf("an unknown camera: %v", err)
	}
	// A device that went away leaves the list (after the rescan period).
	devices = nil
	h.mu.Lock()
	h.devScanned = time.Time{}
	h.mu.Unlock()
	streams, _ = h.Streams(context.Background())
	if len(streams) != 2 {
		t.Fatalf("after unplugging: %+v", streams)
	}
}

func TestListDevicesSkipsWhatIsNotACaptureDevice(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "video0"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ListDevices(dir); len(got) != 0 {
		t.Fatalf("a plain file listed as a camera: %+v", got)
	}
}

// TestV4L2DeviceStreams reads a real video device of the host. The kernel module that makes
// a virtual one (v4l2loopback) cannot be loaded where the tests run, so without a camera
// plugged in there is nothing to read: the test says so and is skipped.
func TestV4L2DeviceStreams(t *testing.T) {
	devices := ListDevices("/dev")
	if len(devices) == 0 {
		t.Skip("NOT POSSIBLE HERE: no V4L2 capture device on this host (/dev/video* absent) and v4l2loopback cannot be loaded; " +
			"run with a USB camera plugged in to test video devices")
	}
	c := realCamera(t, devices[0].Path, nil)
	if s := c.Stream(); s.Source != fleetgate.SourceDevice || s.SourceEndpoint != devices[0].Path {
		t.Fatalf("descriptor %+v", s)
	}
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	imgs, _ := images(t, sub, 3)
	w, h := decodeJPEG(t, imgs[2].Data)
	t.Logf("%s (%s): %dx%d JPEG", devices[0].Path, devices[0].Card, w, h)
}
