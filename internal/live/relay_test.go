package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// heldConn is a viewer's connection whose first write waits until the test lets it go.
type heldConn struct {
	writing chan struct{} // closed when the first write starts
	release chan struct{} // closed by the test: the first write returns
	closed  chan struct{}

	mu     sync.Mutex
	wrote  int
	change chan struct{} // signalled after each write
}

func (c *heldConn) Write(output.Frame, bool) error {
	c.mu.Lock()
	c.wrote++
	first := c.wrote == 1
	c.mu.Unlock()
	if first {
		close(c.writing)
		<-c.release
	}
	select {
	case c.change <- struct{}{}:
	default:
	}
	return nil
}

func (c *heldConn) Read(ctx context.Context, _ []byte) ([]byte, bool, error) {
	select {
	case <-c.closed:
	case <-ctx.Done():
	}
	return nil, false, context.Canceled
}
func (c *heldConn) Ping(context.Context) error { return nil }
func (c *heldConn) End(error)                  { c.Drop() }
func (c *heldConn) Drop() {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
}
func (c *heldConn) Closed() <-chan struct{} { return c.closed }

func (c *heldConn) writes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wrote
}

// videoOutput is a stream of H.264 access units on a video topic.
type videoOutput struct{ topic *fleet.Topic }

func (videoOutput) RobotID() string { return "r1" }
func (o videoOutput) Subscribe(context.Context, fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error) {
	sub, err := o.topic.Subscribe()
	return fleetgate.Stream{Component: "camera", Name: "front", Type: output.VideoType, Direction: fleetgate.Output}, sub, err
}

// TestVideoViewerGetsABurstWhole: pictures offered while the writer is busy with one (a
// stalled uplink's backlog arriving at once) are all written when it is free, without waiting
// for more pictures to come. Before, the writer wrote one picture per picture offered, so a
// viewer stayed as far behind as the burst until a keyframe let the backlog go.
func TestVideoViewerGetsABurstWhole(t *testing.T) {
	topic := fleet.NewVideoTopic(output.VideoType, nil)
	conn := &heldConn{writing: make(chan struct{}), release: make(chan struct{}), closed: make(chan struct{}), change: make(chan struct{}, 1)}
	ss := NewSessions(nil)
	ss.StartOutput(conn, videoOutput{topic}, OutputOptions{Format: output.Protobuf}, func(context.Context) error { return nil })
	defer conn.Drop()
	topic.PublishFrame([]byte("k1"), time.Now(), true, 0)
	<-conn.writing
	for _, p := range []string{"p1", "p2", "p3"} {
		topic.PublishFrame([]byte(p), time.Now(), false, 0)
	}
	close(conn.release)
	guard := time.NewTimer(10 * time.Second) // only ends a test that would hang
	defer guard.Stop()
	for conn.writes() < 4 {
		select {
		case <-conn.change:
		case <-guard.C:
			t.Fatalf("the viewer got %d of 4 pictures; the rest waited for more to come", conn.writes())
		}
	}
}
