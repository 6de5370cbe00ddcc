package agent

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
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

type fakeTeleop struct{ in *fakeInput }

func (t fakeTeleop) OpenControlForCloud(context.Context, string, fleetgate.StreamKey, string) (live.Input, error) {
	return t.in, nil
}
func (fakeTeleop) HeldControls(string) []fleetgate.Held { return nil }

func testSession(in *fakeInput) *session {
	a := &Agent{cfg: Config{Teleop: fakeTeleop{in}}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
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
