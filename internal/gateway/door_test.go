package gateway_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// TestCloudControlPassesTheAgentsDoor is the agent's end of a cloud operator's control: the
// agent does not trust that the cloud checked. A command beyond 10x the robot's limit is
// refused there (and nothing reaches the robot), one within it arrives held to the limit, and
// while the cloud operator drives nobody else may, on W3 or by upload.
func TestCloudControlPassesTheAgentsDoor(t *testing.T) {
	w, p := newLiveWorld(t)
	bot := p[w.r1.ID]
	key := fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
	in, err := w.g.OpenControlForCloud(w.ctx, w.r1.ID, key, "op@cloud.example.com")
	if err != nil {
		t.Fatal(err)
	}
	driver := in.Drive(func(error) {})
	if err := driver.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 50}}); !fleetgate.Is(err, fleetgate.EInvalid) || !errors.Is(err, teleop.ErrBeyondLimits) {
		t.Fatalf("x = 50 through the cloud's control: %v, want refused (invalid: 1008)", err)
	}
	if got := bot.Published(); len(got) != 0 {
		t.Fatalf("the robot received %+v", got)
	}
	if err := driver.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 5}}); err != nil {
		t.Fatal(err)
	}
	got := bot.Published()
	var tw catalogpb.Twist
	if len(got) != 1 || proto.Unmarshal(got[0].Payload, &tw) != nil || tw.GetLinear().GetX() != 1 {
		t.Fatalf("the robot received %+v, want one command of x = 1 (the limit)", got)
	}
	// Nobody else drives meanwhile, local or not, socket or upload.
	_, err = w.g.OpenLiveInput(w.ctx, w.callers["developer"], w.r1.ID, cmdVel)
	if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != "op@cloud.example.com via the cloud" {
		t.Errorf("a local W3 socket while the cloud operator drives: %v", err)
	}
	err = w.g.UploadStream(w.ctx, w.callers["developer"], w.r1.ID, twistUpload(cmdVel))
	if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != "op@cloud.example.com via the cloud" {
		t.Errorf("an upload while the cloud operator drives: %v", err)
	}
	if err := driver.Stop(); err != nil {
		t.Fatal(err)
	}
	in.Release()
	if n := len(bot.Published()); n != 2 {
		t.Errorf("%d commands at the robot after letting go, want the clamped one and the zero", n)
	}
	if err := w.g.UploadStream(w.ctx, w.callers["developer"], w.r1.ID, twistUpload(cmdVel)); err != nil {
		t.Errorf("an upload once the stream is free: %v", err)
	}
}

// TestCloudUploadPassesTheAgentsDoor is the agent's end of an upload to the cloud: whatever the
// cloud checked, the agent's door refuses a command beyond 10x the robot's limit (nothing
// reaches the robot), refuses it while somebody else drives the stream (naming them), and
// clamps one within the limit; a robot this agent does not host is offline.
func TestCloudUploadPassesTheAgentsDoor(t *testing.T) {
	w, p := newLiveWorld(t)
	bot := p[w.r1.ID]
	key := fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
	twist := func(x float64) []byte {
		b, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: x}})
		return b
	}
	const user = "op@cloud.example.com"
	if err := w.g.UploadFromCloud(w.ctx, w.r1.ID, key, twistType, twist(50), user); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("x = 50 uploaded through the cloud: %v, want refused (invalid)", err)
	}
	if got := bot.Published(); len(got) != 0 {
		t.Fatalf("the robot received %+v", got)
	}
	in, err := w.g.OpenLiveInput(w.ctx, w.callers["developer"], w.r1.ID, cmdVel)
	if err != nil {
		t.Fatal(err)
	}
	err = w.g.UploadFromCloud(w.ctx, w.r1.ID, key, twistType, twist(0.5), user)
	if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != w.callers["developer"].User.Email {
		t.Errorf("an upload through the cloud while a local operator drives: %v, want held by them", err)
	}
	in.Release()
	before := len(bot.Published())
	if err := w.g.UploadFromCloud(w.ctx, w.r1.ID, key, twistType, twist(5), user); err != nil {
		t.Fatal(err)
	}
	var tw catalogpb.Twist
	if got := bot.Published(); len(got) != before+1 || proto.Unmarshal(got[before].Payload, &tw) != nil || tw.GetLinear().GetX() != 1 {
		t.Fatalf("the robot received %+v after the upload, want one more command of x = 1 (the limit)", got[before:])
	}
	if err := w.g.UploadFromCloud(w.ctx, "no-such-robot", key, twistType, twist(0.5), user); !fleetgate.Is(err, fleetgate.EOffline) {
		t.Errorf("an upload for a robot this agent does not host: %v, want offline", err)
	}
}
