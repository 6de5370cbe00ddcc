package cloud

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Teleoperation through the agent link. The agent governs its robots' input streams for local
// and cloud operators alike: one control lease per stream, the 20 Hz rate cap and the 500 ms
// deadman all run there, so losing the link or the cloud process stops the robot within the
// deadman. The cloud checks each operator's token and role, then takes control at the agent,
// forwards the commands it checked, and lets go on every fault it sees.

var _ fleet.RemoteDriven = (*RemoteRobot)(nil)

// commandTimeout bounds the write of one command to the agent: a link that cannot take a few
// bytes for that long is failing, and the operator's session ends (the agent's deadman has
// stopped the robot by then).
const commandTimeout = time.Second

// TakeControl asks the agent for control of an input stream for user.
func (r *RemoteRobot) TakeControl(ctx context.Context, key fleetgate.StreamKey, user string) (fleet.RemoteControl, error) {
	return r.TakeControlMode(ctx, key, user, fleet.ControlMode{})
}

var _ fleet.RemoteHandover = (*RemoteRobot)(nil)

// TakeControlMode asks the agent for control of an input stream for user, in one of the
// handover extension's modes: the agent's door decides.
func (r *RemoteRobot) TakeControlMode(ctx context.Context, key fleetgate.StreamKey, user string, mode fleet.ControlMode) (fleet.RemoteControl, error) {
	id := uuid.NewString()
	c := &remoteControl{s: r.s, id: id, done: make(chan struct{})}
	// Registered before the request, so an end the agent sends right after granting is seen.
	if !r.s.addControl(c) {
		return nil, r.s.offline(r)
	}
	resp, err := r.call(ctx, &linkpb.Request{Op: &linkpb.Request_TakeControl{TakeControl: &linkpb.TakeControl{
		Key: link.KeyToWire(key), ControlId: id, User: user, Override: mode.Override, Answers: mode.Answers, Ask: mode.Ask}}})
	if err == nil && resp.GetGranted() == nil && resp.GetHeld() == nil {
		err = unexpected(resp)
	}
	if err != nil || resp.GetHeld() != nil {
		r.s.removeControl(id)
		if err == nil {
			h := resp.GetHeld()
			err = fleetgate.HeldError(fleetgate.Held{Key: key, Owner: h.GetOwner(), Since: link.FromTime(h.GetSince())})
		}
		// A grant that arrives after this caller gave up would hold the stream at the agent
		// until its deadman and the link's end: let go of it explicitly (and a request still
		// waiting for its holder is withdrawn).
		go r.s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Release{Release: &linkpb.ControlRelease{ControlId: id}}}, commandTimeout)
		return nil, err
	}
	c.Governed = link.GrantedDelays(resp)
	return c, nil
}

// Controls asks the agent who drives the robot's input streams.
func (r *RemoteRobot) Controls(ctx context.Context) ([]fleetgate.Held, error) {
	resp, err := r.call(ctx, &linkpb.Request{Op: &linkpb.Request_Controls{Controls: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetControls() == nil {
		return nil, unexpected(resp)
	}
	list := resp.GetControls().GetControls()
	out := make([]fleetgate.Held, len(list))
	for i, h := range list {
		out[i] = fleetgate.Held{Key: link.KeyFromWire(h.GetKey()), Owner: h.GetOwner(), Since: link.FromTime(h.GetSince())}
	}
	return out, nil
}

// remoteControl is a cloud operator's control at the agent.
type remoteControl struct {
	s  *session
	id string

	once sync.Once
	done chan struct{}
	err  error

	// delayMs is the operator's delay (SetOperatorDelay) plus one, 0 while unknown: it goes
	// with each command.
	delayMs atomic.Int64

	// The requests for this control the agent tells of (ControlMode.Answers).
	fleet.Notices
	// The thresholds the agent's door governs the control by, as its grant said.
	fleet.Governed
}

var _ fleet.GovernedControl = (*remoteControl)(nil)

var _ fleet.RemoteAnswerer = (*remoteControl)(nil)

// Answer hands the operator's answer to the agent, whose door moves the lease (or not).
func (c *remoteControl) Answer(grant bool) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	return c.s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_ControlAnswer{ControlAnswer: &linkpb.ControlAnswer{
		ControlId: c.id, Grant: grant}}}, commandTimeout)
}

var (
	_ fleet.DelayCarrier = (*remoteControl)(nil)
	_ fleet.LinkDelayer  = (*remoteControl)(nil)
)

// LinkDelay is the round trip of the link's latest answered ping (the cloud pings an agent
// while anybody drives through it): the share of the operator's delay the agent adds.
func (c *remoteControl) LinkDelay() (time.Duration, bool) {
	rtt := c.s.linkRTT.Load()
	return time.Duration(rtt), rtt > 0
}

func (c *remoteControl) SetOperatorDelay(d time.Duration) {
	c.delayMs.Store(max(d.Milliseconds(), 0) + 1)
}

func (c *remoteControl) Command(payload []byte) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	cmd := &linkpb.ControlCommand{ControlId: c.id, Payload: payload}
	if ms := c.delayMs.Load(); ms > 0 {
		cmd.OperatorDelayMs, cmd.OperatorDelayKnown = uint32(min(ms-1, math.MaxUint32)), true
	}
	return c.s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Command{Command: cmd}}, commandTimeout)
}

// Release lets go: the agent publishes the zero and frees the stream. The frame goes out in
// the background; if it cannot, the link is failing and its end zeroes the robot at the agent.
func (c *remoteControl) Release() {
	if c.s.removeControl(c.id) {
		c.s.releasing.RLock() // the cloud's shutdown waits for it (releaseAll)
		go func() {
			defer c.s.releasing.RUnlock()
			c.s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Release{Release: &linkpb.ControlRelease{ControlId: c.id}}}, commandTimeout)
		}()
	}
	c.end(nil)
}

// releaseAll lets go of every cloud operator's control at the agent before the cloud closes
// the link on its shutdown: the releases on their way (Release) are waited for and the others
// written here, so they are on the wire before the close. The agent's reader takes frames in
// order and zeroes a released robot before it reads the close and answers it, and the close
// handshake is what the shutdown waits for: the driven robots are still before the cloud
// exits, not a deadman later (issue 32's cloud restart).
func (s *session) releaseAll() {
	s.releasing.Lock()
	s.releasing.Unlock() // held for nothing: taking it waited for the releases under way
	s.mu.Lock()
	controls := s.controls
	s.controls = map[string]*remoteControl{}
	s.mu.Unlock()
	for _, c := range controls {
		s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Release{Release: &linkpb.ControlRelease{ControlId: c.id}}}, commandTimeout)
		c.end(fleetgate.Errorf(fleetgate.EGoingAway, "the cloud is shutting down"))
	}
}

func (c *remoteControl) Done() <-chan struct{} { return c.done }

func (c *remoteControl) Err() error {
	<-c.done
	return c.err
}

func (c *remoteControl) end(err error) {
	c.once.Do(func() {
		c.err = err
		close(c.done)
	})
}

// addControl registers c; false when the session has ended.
func (s *session) addControl(c *remoteControl) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.controls[c.id] = c
	s.ans.poke()
	return true
}

// removeControl forgets control id; false when it was not there.
func (s *session) removeControl(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.controls[id]
	delete(s.controls, id)
	return ok
}

// controlEnded is the agent ending a cloud operator's control.
func (s *session) controlEnded(e *linkpb.ControlEnded) {
	s.mu.Lock()
	c := s.controls[e.GetControlId()]
	delete(s.controls, e.GetControlId())
	s.mu.Unlock()
	if c != nil {
		c.end(link.ErrorFromWire(e.GetError()))
	}
}

// controlNotice is the agent telling a cloud operator of a request for their control.
func (s *session) controlNotice(n *linkpb.ControlNotice) {
	s.mu.Lock()
	c := s.controls[n.GetControlId()]
	s.mu.Unlock()
	if c != nil {
		c.Tell(fleet.ControlNotice{Kind: n.GetKind(), By: n.GetBy(), Since: link.FromTime(n.GetSince())})
	}
}

// endControls ends every cloud operator's control of the session: the link is gone, and the
// agent has zeroed their robots on its side.
func (s *session) endControls() {
	s.endControlsWith(fleetgate.Errorf(fleetgate.EOffline, "the link to agent %q closed", s.agent.Name), false)
}

// endControlsWith ends every cloud operator's control of the session with why; release also
// lets go of them at the agent (the link is up, but the agent stopped answering: when it
// answers again it frees the streams, after its deadman has zeroed the robots).
func (s *session) endControlsWith(why error, release bool) {
	s.mu.Lock()
	controls := s.controls
	s.controls = map[string]*remoteControl{}
	s.mu.Unlock()
	for _, c := range controls {
		if release {
			go s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Release{Release: &linkpb.ControlRelease{ControlId: c.id}}}, s.writeTimeout())
		}
		c.end(why)
	}
}

// hasControls reports whether a cloud operator drives one of the agent's robots.
func (s *session) hasControls() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.controls) > 0
}
