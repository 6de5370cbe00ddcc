package live

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// remoteControl is a fleet.RemoteControl that keeps what it is given.
type remoteControl struct {
	mu       sync.Mutex
	sent     [][]byte
	released int
	fail     error
	done     chan struct{}
	err      error
}

func (c *remoteControl) Command(payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, payload)
	return c.fail
}
func (c *remoteControl) Release()              { c.mu.Lock(); c.released++; c.mu.Unlock() }
func (c *remoteControl) Done() <-chan struct{} { return c.done }
func (c *remoteControl) Err() error            { <-c.done; return c.err }

// TestForwardHandsCommandsToTheAgent: a cloud operator's command goes to the agent serialized,
// a failed hand-on is unavailable, Stop lets go once, and the agent's end of the control ends
// the session with its words.
func TestForwardHandsCommandsToTheAgent(t *testing.T) {
	ctl := &remoteControl{done: make(chan struct{})}
	faults := make(chan error, 1)
	d := Forward(ctl, func(err error) { faults <- err })
	cmd := &catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}}
	if err := d.Command(cmd); err != nil {
		t.Fatal(err)
	}
	want, _ := proto.Marshal(cmd)
	if len(ctl.sent) != 1 || string(ctl.sent[0]) != string(want) {
		t.Fatalf("the agent got %v, want the command serialized", ctl.sent)
	}
	ctl.fail = errors.New("link write: broken pipe")
	if err := d.Command(cmd); !fleetgate.Is(err, fleetgate.EUnavailable) || strings.Contains(fleetgate.ErrorMessage(err), "broken pipe") {
		t.Fatalf("a command the link could not take: %v, want unavailable in words of ours", err)
	}
	ctl.err = fleetgate.Errorf(fleetgate.EUnavailable, "the robot's gateway stopped answering; it stops the robot by itself")
	close(ctl.done)
	select {
	case err := <-faults:
		if !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(fleetgate.ErrorMessage(err), "stopped answering") {
			t.Fatalf("the session ended with %v, want the agent's words", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the agent's end of the control did not end the session")
	}
	d.Stop()
	d.Stop()
	if ctl.released != 1 {
		t.Fatalf("released %d times, want once", ctl.released)
	}
}

// TestForwardKeepsTheAgentsRefusal: a command the agent's door refused ends the cloud's
// session as a refusal in the agent's words (1008, as on the local gateway), not as a failed
// publish (1011).
func TestForwardKeepsTheAgentsRefusal(t *testing.T) {
	ctl := &remoteControl{done: make(chan struct{})}
	faults := make(chan error, 1)
	d := Forward(ctl, func(err error) { faults <- err })
	defer d.Stop()
	ctl.err = fleetgate.Errorf(fleetgate.EInvalid, "a command the agent refused: no path reaches (40.0, 3.0)")
	close(ctl.done)
	select {
	case err := <-faults:
		if !fleetgate.Is(err, fleetgate.EInvalid) || !strings.Contains(fleetgate.ErrorMessage(err), "no path reaches") {
			t.Fatalf("the session ended with %v, want the agent's refusal", err)
		}
		if code, _ := edge.Close(err); code != websocket.StatusPolicyViolation {
			t.Errorf("closed %v, want 1008 as on the local gateway", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the agent's end of the control did not end the session")
	}
}

// delayedControl is a remoteControl whose way to the agent has a known round trip, and that
// keeps the delay it is asked to carry.
type delayedControl struct {
	remoteControl
	rtt     time.Duration
	carried time.Duration
}

func (c *delayedControl) LinkDelay() (time.Duration, bool) { return c.rtt, c.rtt > 0 }
func (c *delayedControl) SetOperatorDelay(d time.Duration) { c.carried = d }

// TestForwardShowsTheLimitWithTheLinksRoundTrip: the cloud widget's limit is the one the agent
// applies (the operator's 50 ms plus the link's 600 ms round trip: 650 ms, 60% speed), while
// the agent is handed the operator's delay alone (it adds its own measure).
func TestForwardShowsTheLimitWithTheLinksRoundTrip(t *testing.T) {
	ctl := &delayedControl{remoteControl: remoteControl{done: make(chan struct{})}, rtt: 600 * time.Millisecond}
	d := Forward(ctl, func(error) {})
	defer d.Stop()
	g := d.(Governed)
	g.Observe(50 * time.Millisecond)
	l := g.Limit()
	if l.Delay != 650*time.Millisecond || math.Abs(l.Scale-0.6) > 0.001 {
		t.Fatalf("shown limit %+v, want the scale of 650 ms (60%%)", l)
	}
	if ctl.carried != 50*time.Millisecond {
		t.Fatalf("the agent was handed %v, want the operator's 50ms alone", ctl.carried)
	}
}

// governedControl is a remoteControl whose grant said the thresholds the agent governs it by.
type governedControl struct {
	remoteControl
	fleet.Governed
}

// TestForwardShowsTheLimitOfTheAgentsThresholds: the widget's limit follows the thresholds
// the agent's grant said (full speed up to 100 ms, a quarter at 700 ms: 600 ms allows 37.5%),
// not the defaults (65%); thresholds out of order, or none said, are the defaults.
func TestForwardShowsTheLimitOfTheAgentsThresholds(t *testing.T) {
	own := fleetgate.TeleopDelays{Full: 100 * time.Millisecond, Quarter: 700 * time.Millisecond, Stop: 1500 * time.Millisecond}
	for _, tc := range []struct {
		name  string
		ctl   fleet.RemoteControl
		scale float64
	}{
		{"the robot's own", &governedControl{remoteControl{done: make(chan struct{})}, fleet.GovernedBy(own)}, 0.375},
		{"none said (an older agent)", &governedControl{remoteControl{done: make(chan struct{})}, fleet.Governed{}}, 0.65},
		{"out of order", &governedControl{remoteControl{done: make(chan struct{})}, fleet.GovernedBy(fleetgate.TeleopDelays{Full: time.Second, Quarter: 700 * time.Millisecond, Stop: 2 * time.Second})}, 0.65},
	} {
		d := Forward(tc.ctl, func(error) {})
		g := d.(Governed)
		g.Observe(600 * time.Millisecond)
		if l := g.Limit(); math.Abs(l.Scale-tc.scale) > 0.001 {
			t.Errorf("%s: shown %+v, want %.3f", tc.name, l, tc.scale)
		}
		d.Stop()
	}
}
