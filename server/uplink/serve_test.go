package uplink

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// TestCloudUploadGoesToTheCore: the cloud's Publish (an upload to the cloud) reaches the
// robot only through the agent's core, which hands it to its door, with the cloud's user;
// the link never publishes to the robot itself, and the door's refusal is the answer. A
// request for a robot this agent does not host is offline, whatever it asks.
func TestCloudUploadGoesToTheCore(t *testing.T) {
	bot := &fleettest.Robot{ID: "r1", Name: "one", StreamList: []fleetgate.Stream{
		{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
	}}
	core := &fakeCore{robots: map[string]fleet.Robot{"r1": bot}}
	s := testSessionOver(core)
	key := fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
	payload, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}})
	publish := func(robotID string) *linkpb.Request {
		return &linkpb.Request{Id: 7, RobotId: robotID, Op: &linkpb.Request_Publish{Publish: &linkpb.Publish{
			Key: link.KeyToWire(key), Type: "Platform.Messages.geometry_msgs.Twist", Payload: payload, User: "op@cloud.example.com"}}}
	}
	resp, err := s.handle(context.Background(), publish("r1"))
	if err != nil || resp.GetDone() == nil {
		t.Fatalf("publish: %v, %v; want done", resp, err)
	}
	want := upload{robotID: "r1", key: key, typ: "Platform.Messages.geometry_msgs.Twist", payload: payload, user: "op@cloud.example.com"}
	if len(core.uploads) != 1 || core.uploads[0].robotID != want.robotID || core.uploads[0].key != want.key || core.uploads[0].typ != want.typ ||
		core.uploads[0].user != want.user || string(core.uploads[0].payload) != string(want.payload) {
		t.Fatalf("the core's door was handed %+v, want %+v", core.uploads, want)
	}
	if got := bot.Published(); len(got) != 0 {
		t.Errorf("the link published to the robot itself: %+v", got)
	}

	core.uploadErr = fleetgate.Errorf(fleetgate.EConflict, "held by admin@localhost")
	if _, err := s.handle(context.Background(), publish("r1")); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Errorf("a publish the door refused: %v, want its refusal", err)
	}

	for _, req := range []*linkpb.Request{
		publish("r2"),
		{RobotId: "r2", Op: &linkpb.Request_Streams{Streams: &linkpb.Empty{}}},
		{RobotId: "r2", Op: &linkpb.Request_TakeControl{TakeControl: &linkpb.TakeControl{ControlId: "c1", Key: link.KeyToWire(key), User: "op"}}},
	} {
		if _, err := s.handle(context.Background(), req); !fleetgate.Is(err, fleetgate.EOffline) {
			t.Errorf("%T for a robot this agent does not host: %v, want offline", req.GetOp(), err)
		}
	}
	if len(core.uploads) != 2 {
		t.Errorf("the core was handed %d uploads, want 2 (none for a robot it does not host)", len(core.uploads))
	}
}

// TestStreamsSayTheAgentsCodecs: the agent's stream list tells the cloud which codecs it offers
// each camera stream in, by its own ffmpeg (the cloud relays the agent's H.264 and has no say):
// h264 where this agent can encode, jpeg alone where it cannot, nothing for other streams.
func TestStreamsSayTheAgentsCodecs(t *testing.T) {
	camera := fleetgate.Stream{Component: "camera", Name: "image", Type: video.ImageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent}
	odom := fleetgate.Stream{Component: "base", Name: "odom", Type: "Platform.Messages.nav_msgs.Odometry", Direction: fleetgate.Output, Source: fleetgate.SourceComponent}
	bot := &fleettest.Robot{ID: "r1", Name: "one", StreamList: []fleetgate.Stream{camera, odom}}
	for _, tc := range []struct {
		name   string
		path   string // PATH while the agent's encoders look for ffmpeg
		camera []string
	}{
		{"with ffmpeg", os.Getenv("PATH"), []string{"jpeg", "h264"}},
		{"without ffmpeg", t.TempDir(), []string{"jpeg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "with ffmpeg" {
				if _, err := exec.LookPath("ffmpeg"); err != nil {
					t.Fatalf("ffmpeg is not installed (the test command installs it): %v", err)
				}
			}
			t.Setenv("PATH", tc.path)
			s := testSessionOver(&fakeCore{robots: map[string]fleet.Robot{"r1": bot}})
			s.a.cfg.Video = video.New()
			resp, err := s.handle(context.Background(), &linkpb.Request{RobotId: "r1", Op: &linkpb.Request_Streams{Streams: &linkpb.Empty{}}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, st := range link.StreamsFromWire(resp.GetStreams()) {
				got[st.Name] = st.Codecs.Names()
			}
			if !slices.Equal(got["image"], tc.camera) || got["odom"] != nil {
				t.Errorf("codecs told the cloud: %v, want image %v and none for odom", got, tc.camera)
			}
		})
	}
}
