package uplink

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// fakeInput is a granted control that records its zero and release.
type fakeInput struct {
	mu       sync.Mutex
	zeros    int
	released int
}

func (f *fakeInput) Stream() fleetgate.Stream {
	return fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input}
}
func (f *fakeInput) Drive(func(error)) live.Driver { return fakeDriver{f} }
func (f *fakeInput) Connected() bool               { return true }
func (f *fakeInput) Release()                      { f.mu.Lock(); f.released++; f.mu.Unlock() }
func (f *fakeInput) Name() string                  { return "fake" }

type fakeDriver struct{ f *fakeInput }

func (fakeDriver) Command(proto.Message) error { return nil }
func (d fakeDriver) Stop() error               { d.f.mu.Lock(); d.f.zeros++; d.f.mu.Unlock(); return nil }

// fakeCore is an agent's core hosting robots, whose controls grant in and whose door
// records the uploads handed to it and answers them with uploadErr.
type fakeCore struct {
	in        *fakeInput
	robots    map[string]fleet.Robot
	uploadErr error

	mu      sync.Mutex
	uploads []upload
}

// upload is one message the core's door was handed.
type upload struct {
	robotID, typ, user string
	key                fleetgate.StreamKey
	payload            []byte
}

func (c *fakeCore) HostedRobots() []fleet.Robot          { return slices.Collect(maps.Values(c.robots)) }
func (c *fakeCore) HostedRobotsChanged() <-chan struct{} { return nil }
func (c *fakeCore) HostedRobot(id string) (fleet.Robot, bool) {
	r, ok := c.robots[id]
	return r, ok
}
func (c *fakeCore) HeldControls(string) []fleetgate.Held                        { return nil }
func (c *fakeCore) Unforwarded(context.Context, int) ([]fleetgate.Event, error) { return nil, nil }
func (c *fakeCore) Forwarded(context.Context, []int64) error                    { return nil }
func (c *fakeCore) Posted() <-chan struct{}                                     { return nil }
func (c *fakeCore) OpenControlForCloud(context.Context, string, fleetgate.StreamKey, string) (live.Input, error) {
	return c.in, nil
}
func (c *fakeCore) UploadFromCloud(_ context.Context, robotID string, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.uploads = append(c.uploads, upload{robotID: robotID, key: key, typ: typ, payload: payload, user: user})
	return c.uploadErr
}

func testSession(in *fakeInput) *session { return testSessionOver(&fakeCore{in: in}) }

func testSessionOver(core *fakeCore) *session {
	a := &Agent{cfg: Config{Core: core}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s := &session{a: a, done: make(chan struct{}), controls: map[string]*cloudControl{}, released: map[string]struct{}{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// TestReleaseBeforeItsGrant: a cloud that gave up on a slow TakeControl lets go before the
// agent has granted it; the grant that follows ends at once (zero, lease back) rather than
// holding the stream for nobody until the link ends.
func TestReleaseBeforeItsGrant(t *testing.T) {
	in := &fakeInput{}
	s := testSession(in)
	s.release("c1")
	if _, err := s.takeControl(context.Background(), "robot", &linkpb.TakeControl{ControlId: "c1", User: "op"}); err == nil {
		t.Fatal("a control released before its grant was granted")
	}
	if in.zeros != 1 || in.released != 1 {
		t.Errorf("zeros %d, releases %d; want the zero and the lease back", in.zeros, in.released)
	}
	if len(s.controls) != 0 || len(s.released) != 0 {
		t.Errorf("controls %d, kept releases %d; want none", len(s.controls), len(s.released))
	}
	// A control granted normally is held until released or the link ends.
	if _, err := s.takeControl(context.Background(), "robot", &linkpb.TakeControl{ControlId: "c2", User: "op"}); err != nil {
		t.Fatal(err)
	}
	s.end()
	s.stopControls() // the link is gone
	if in.zeros != 2 || in.released != 2 {
		t.Errorf("after the link ended: zeros %d, releases %d; want the second zero and lease back", in.zeros, in.released)
	}
}

// TestCommandRefusedKeepsTheDoorsCode: a command the agent's door refused ends the cloud's
// control as the operator's mistake (invalid: 1008 at the cloud), a publish that failed as
// the robot's fault (unavailable: 1011), each in the door's words.
func TestCommandRefusedKeepsTheDoorsCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fleetgate.Errorf(fleetgate.EInvalid, "no way to (1000.00, 1000.00)"), fleetgate.EInvalid},
		{fleetgate.Errorf(fleetgate.EUnavailable, "publishing to the robot failed"), fleetgate.EUnavailable},
		{fleetgate.Errorf(fleetgate.EConflict, "held by ops@example.com"), fleetgate.EConflict},
	} {
		got := commandRefused(tc.err)
		if !fleetgate.Is(got, tc.want) || !strings.Contains(fleetgate.ErrorMessage(got), fleetgate.ErrorMessage(tc.err)) {
			t.Errorf("%v ended the control with %v, want %s in its words", tc.err, got, tc.want)
		}
	}
}
