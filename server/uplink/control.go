package uplink

import (
	"context"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// governEvery is how often a cloud operator's control asks the governor between commands.
const governEvery = 250 * time.Millisecond

// measureLink pings the cloud every governEvery, one ping at a time, for the link's round
// trip (linkDelay); a ping unanswered ages the estimate, and keepAlive ends a silent link.
func (s *session) measureLink() {
	t := time.NewTicker(governEvery)
	defer t.Stop()
	for {
		s.linkDelay.PingSent(time.Now())
		if s.conn.Ping(s.ctx) != nil {
			return
		}
		s.linkDelay.PongAt(time.Now())
		select {
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

// connectedEvery is how often a cloud operator's control checks that its robot is still on the
// connection it was granted on.
const connectedEvery = time.Second

// cloudControl is a cloud operator driving one of this agent's robots. The cloud checked the
// operator; everything that keeps the robot safe runs here: the lease, the rate cap and the
// deadman (live.LocalDriver), the speed limits (checked again), and a zero on every end:
// release, a bad command, the robot leaving, the link dropping.
type cloudControl struct {
	s      *session
	id     string
	in     live.Input
	stream fleetgate.Stream
	driver live.Driver

	stopOnce sync.Once
	stopped  chan struct{}
}

// takeControl answers the cloud's TakeControl.
func (s *session) takeControl(ctx context.Context, robotID string, req *linkpb.TakeControl) (*linkpb.Response, error) {
	if req.GetControlId() == "" || len(req.GetControlId()) > 64 {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "a control id of 1 to 64 bytes is required")
	}
	mode := fleet.ControlMode{Override: req.GetOverride(), Answers: req.GetAnswers(), Ask: req.GetAsk()}
	in, err := s.openControl(ctx, robotID, req, mode)
	if held, ok := fleetgate.HeldBy(err); ok && !mode.Ask {
		return &linkpb.Response{Result: &linkpb.Response_Held{Held: &linkpb.ControlHeld{
			Key: req.GetKey(), Owner: held.Owner, Since: link.Time(held.Since)}}}, nil
	} else if err != nil {
		return nil, err
	}
	c := &cloudControl{s: s, id: req.GetControlId(), in: in, stream: in.Stream(), stopped: make(chan struct{})}
	c.driver = in.Drive(func(err error) { go c.end(err) })
	s.controlsMu.Lock()
	_, releasedFirst := s.released[c.id]
	delete(s.released, c.id)
	if s.over() || s.controls[c.id] != nil || releasedFirst {
		s.controlsMu.Unlock()
		c.stop()
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "the link is closing, control %s exists, or the cloud let go of it already", c.id)
	}
	s.controls[c.id] = c
	s.controlsMu.Unlock()
	if mode.Answers {
		c.tellRequests()
	}
	s.a.log.Info("a cloud operator took control", "robot", robotID, "stream", req.GetKey().GetComponent()+"/"+req.GetKey().GetName(),
		"user", req.GetUser(), "override", mode.Override, "asked", mode.Ask)
	go c.watch()
	return link.Granted(governedBy(in)), nil
}

// governedBy is the policy the agent's door holds control in to, for the grant.
func governedBy(in live.Input) fleet.Governed {
	g, ok := in.(Governed)
	if !ok {
		return fleet.Governed{}
	}
	p, ok := g.Policy()
	if !ok {
		return fleet.Governed{}
	}
	return fleet.GovernedBy(fleetgate.TeleopDelays{Full: p.Full, Quarter: p.Quarter, Stop: p.Stop})
}

// openControl takes control at the agent's door; a request for a held stream waits for its
// holder's answer, and the cloud's release of the control id meanwhile withdraws it.
func (s *session) openControl(ctx context.Context, robotID string, req *linkpb.TakeControl, mode fleet.ControlMode) (_ live.Input, err error) {
	key := link.KeyFromWire(req.GetKey())
	h, handsOver := s.a.cfg.Core.(HandsOver)
	if !handsOver || mode == (fleet.ControlMode{}) {
		return s.a.cfg.Core.OpenControlForCloud(ctx, robotID, key, req.GetUser())
	}
	if !mode.Ask {
		return h.OpenControlForCloudMode(ctx, robotID, key, req.GetUser(), mode)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	id := req.GetControlId()
	s.controlsMu.Lock()
	_, releasedFirst := s.released[id]
	if !releasedFirst {
		s.asking[id] = cancel
	}
	s.controlsMu.Unlock()
	if releasedFirst {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "the cloud withdrew request %s already", id)
	}
	defer func() {
		s.controlsMu.Lock()
		delete(s.asking, id)
		if err != nil {
			delete(s.released, id) // the release that withdrew it has nothing more to end
		}
		s.controlsMu.Unlock()
	}()
	return h.OpenControlForCloudMode(ctx, robotID, key, req.GetUser(), mode)
}

// tellRequests tells the cloud operator of every request for c's control, in order, on a
// goroutine of c's (the door's goroutines never wait for the link); a notice that finds the
// queue full is dropped: the next one says the rest.
func (c *cloudControl) tellRequests() {
	a, ok := c.in.(live.Answerer)
	if !ok {
		return
	}
	notices := make(chan live.Notice, 8)
	a.Watch(func(n live.Notice) {
		select {
		case notices <- n:
		default:
		}
	})
	go func() {
		for {
			select {
			case <-c.stopped:
				return
			case n := <-notices:
				f := &linkpb.ControlNotice{ControlId: c.id, Kind: n.Kind, By: n.By}
				if !n.Since.IsZero() {
					f.Since = link.Time(n.Since)
				}
				if c.s.write(&linkpb.Frame{Body: &linkpb.Frame_ControlNotice{ControlNotice: f}}, commandTimeout) != nil {
					return
				}
			}
		}
	}()
}

// answerRequest is a cloud operator's answer to the request for their control. One with
// nothing to answer (withdrawn, expired, control ended) is dropped: not the operator's fault.
func (s *session) answerRequest(a *linkpb.ControlAnswer) {
	c := s.control(a.GetControlId())
	if c == nil {
		return
	}
	if ans, ok := c.in.(live.Answerer); ok {
		_ = ans.Answer(a.GetGrant())
	}
}

// command is one of the cloud operator's commands, checked again before it drives anything.
func (s *session) command(cmd *linkpb.ControlCommand) {
	c := s.control(cmd.GetControlId())
	if c == nil {
		return // released or ended already
	}
	m, err := teleop.DecodeCommand(c.stream.Type, teleop.FormatProtobuf, true, cmd.GetPayload())
	if g, governed := c.driver.(live.Governed); governed && err == nil {
		// The operator's delay is the cloud's estimate plus this link's round trip. A cloud
		// that sends none leaves the delay unknown: the door holds the robot after its grace.
		linkRTT, known := s.linkDelay.Estimate(time.Now())
		if known && cmd.GetOperatorDelayKnown() {
			g.Observe(time.Duration(cmd.GetOperatorDelayMs())*time.Millisecond + linkRTT)
		}
	}
	if err == nil {
		// The driver is the door's control: it holds the command to the stream's speeds, and
		// logs and journals a refusal, as for every other path.
		err = c.driver.Command(m)
	}
	if err != nil {
		c.end(commandRefused(err))
	}
}

// commandRefused is why a cloud operator's control ends on a command the agent did not carry
// out. The door's code goes with its words: a command it refused (EInvalid) is the operator's
// to fix (1008 at the cloud), a publish that failed (EUnavailable) is not (1011).
func commandRefused(err error) error {
	code := fleetgate.ErrorCode(err)
	if code == fleetgate.EInternal {
		code = fleetgate.EInvalid // a command that does not decode
	}
	return &fleetgate.Error{Code: code, Message: "a command the agent refused: " + fleetgate.ErrorMessage(err), Err: err}
}

// maxEarlyReleases bounds the releases kept for controls not granted yet.
const maxEarlyReleases = 256

// release is the cloud operator letting go. A release can overtake its grant: the cloud gives
// up waiting for a slow TakeControl and lets go while the agent is still granting it. Such a
// release is kept, and the grant that follows ends at once, so the stream is not held by
// nobody until the link ends.
func (s *session) release(id string) {
	if c := s.take(id); c != nil {
		c.stop()
		return
	}
	s.controlsMu.Lock()
	defer s.controlsMu.Unlock()
	if withdraw := s.asking[id]; withdraw != nil {
		withdraw() // the asker left: the holder is told it is withdrawn
	}
	if len(s.released) < maxEarlyReleases {
		s.released[id] = struct{}{}
	}
}

func (s *session) control(id string) *cloudControl {
	s.controlsMu.Lock()
	defer s.controlsMu.Unlock()
	return s.controls[id]
}

func (s *session) take(id string) *cloudControl {
	s.controlsMu.Lock()
	defer s.controlsMu.Unlock()
	c := s.controls[id]
	delete(s.controls, id)
	return c
}

// stopControls zeroes every cloud operator's robot at once: the link is gone.
func (s *session) stopControls() {
	s.controlsMu.Lock()
	controls := s.controls
	s.controls = map[string]*cloudControl{}
	s.controlsMu.Unlock()
	var wg sync.WaitGroup
	for _, c := range controls {
		wg.Go(c.stop)
	}
	wg.Wait()
}

// heldControls answers the cloud's Controls.
func (s *session) heldControls(robotID string) *linkpb.Response {
	var list []*linkpb.ControlHeld
	for _, h := range s.a.cfg.Core.HeldControls(robotID) {
		list = append(list, &linkpb.ControlHeld{Key: link.KeyToWire(h.Key), Owner: h.Owner, Since: link.Time(h.Since)})
	}
	return &linkpb.Response{Result: &linkpb.Response_Controls{Controls: &linkpb.ControlList{Controls: list}}}
}

// stop publishes the zero and gives the lease back, once.
func (c *cloudControl) stop() {
	c.stopOnce.Do(func() {
		close(c.stopped)
		if err := c.driver.Stop(); err != nil {
			c.s.a.log.Error("the zero command did not reach the robot", "stream", c.in.Name(), "err", err)
		}
		c.in.Release()
	})
}

// end stops the control on the agent's own account and tells the cloud why, in why's code
// and public words.
func (c *cloudControl) end(why error) {
	if c.s.take(c.id) == nil {
		return // released, or ended already
	}
	c.stop()
	c.s.write(&linkpb.Frame{Body: &linkpb.Frame_ControlEnded{ControlEnded: &linkpb.ControlEnded{
		ControlId: c.id, Error: link.ErrorToWire(why)}}}, commandTimeout)
}

// commandTimeout bounds the write of a control's end to the cloud.
const commandTimeout = 5 * time.Second

// watch ends the control when its robot leaves the connection it was granted on, and asks
// the governor often: a delay that goes stale between commands holds the robot at once.
func (c *cloudControl) watch() {
	t := time.NewTicker(governEvery)
	defer t.Stop()
	g, governed := c.driver.(live.Governed)
	lastCheck := time.Now()
	for {
		select {
		case <-c.stopped:
			return
		case now := <-t.C:
			if governed {
				g.Limit()
			}
			if now.Sub(lastCheck) < connectedEvery {
				continue
			}
			lastCheck = now
			if !c.in.Connected() {
				c.end(fleetgate.Errorf(fleetgate.EOffline, "the robot went offline"))
				return
			}
		}
	}
}
