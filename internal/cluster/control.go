package cluster

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/clusterpb"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Teleoperation across replicas (see ControlTake in cluster.proto). Safety rests where it
// does for one process: the agent holds the lease, caps the rate and runs the deadman, so a
// replica, NATS or a link going away stops the robot within the deadman. On top of that every
// fault anybody here sees lets go at once: the viewer's commands fail when NATS is down, the
// holder releases the controls of a viewer gone silent or of its own lost NATS connection.

func controlSubject(replica string) string    { return "fleetgate.replica." + replica + ".control" }
func commandSubject(replica string) string    { return "fleetgate.replica." + replica + ".command" }
func controlEndSubject(replica string) string { return "fleetgate.replica." + replica + ".control_end" }
func controlNoticeSubject(replica string) string {
	return "fleetgate.replica." + replica + ".control_notice"
}

// askTimeout bounds the holder's wait for a request at the agent: the door answers within its
// 15 s, the rest is the way there and back.
const askTimeout = 25 * time.Second

// earlyReleaseTTL is how long the holder remembers a release that came before its grant (a
// viewer that gave up waiting): a grant after it is let go at once.
const earlyReleaseTTL = 30 * time.Second

// controls is a replica's share of cross-replica teleoperation: the controls it holds at its
// agents for other replicas' operators, and those its own operators hold through others.
type controls struct {
	mu      sync.Mutex
	held    map[string]*heldControl       // as holder, by control id
	early   map[string]time.Time          // as holder: releases that came before their grant
	asking  map[string]context.CancelFunc // as holder: requests waiting at the agent; a release withdraws them
	viewing map[string]*forwardedControl  // as viewer, by control id
}

func newControls() *controls {
	return &controls{held: map[string]*heldControl{}, early: map[string]time.Time{}, asking: map[string]context.CancelFunc{},
		viewing: map[string]*forwardedControl{}}
}

// heldControl is a control this replica holds at an agent for another replica's operator.
type heldControl struct {
	rc     fleet.RemoteControl
	viewer string
}

var (
	_ fleet.RemoteDriven   = (*Robot)(nil)
	_ fleet.RemoteHandover = (*Robot)(nil)
	_ fleet.RemoteAnswerer = (*forwardedControl)(nil)
)

// TakeControl asks the holding replica for control of an input stream for user.
func (r *Robot) TakeControl(ctx context.Context, key fleetgate.StreamKey, user string) (fleet.RemoteControl, error) {
	return r.TakeControlMode(ctx, key, user, fleet.ControlMode{})
}

// TakeControlMode asks the holding replica for control in one of the handover extension's
// modes; the agent's door decides, the holder only carries it.
func (r *Robot) TakeControlMode(ctx context.Context, key fleetgate.StreamKey, user string, mode fleet.ControlMode) (fleet.RemoteControl, error) {
	n := r.n
	c := &forwardedControl{n: n, holder: r.replica, id: uuid.NewString(), done: make(chan struct{})}
	if err := n.reachable("robot " + quote(r.info.Name)); err != nil {
		return nil, err
	}
	// Registered first: an end the holder sends right after granting is not missed.
	n.ctl.mu.Lock()
	n.ctl.viewing[c.id] = c
	n.ctl.mu.Unlock()
	r.mu.Lock()
	ended := r.ended
	if !ended {
		r.controls[c.id] = c
	}
	r.mu.Unlock()
	if ended {
		n.ctl.forget(c.id)
		return nil, fleetgate.Errorf(fleetgate.EOffline, "robot %q went offline", r.info.Name)
	}
	data, _ := proto.Marshal(&clusterpb.ControlTake{RobotId: r.info.ID, Key: link.KeyToWire(key), User: user, ControlId: c.id, Viewer: n.cfg.Replica,
		Override: mode.Override, Answers: mode.Answers, Ask: mode.Ask})
	msg, err := n.request(ctx, controlSubject(r.replica), data, "robot "+quote(r.info.Name))
	var resp linkpb.Response
	switch {
	case err != nil: // said in words already
	case proto.Unmarshal(msg.Data, &resp) != nil:
		err = unavailable("robot %q: replica %s answered with something that does not decode", r.info.Name, r.replica)
	case resp.GetError() != nil:
		err = link.ErrorFromWire(resp.GetError())
	case resp.GetHeld() != nil && mode.Ask:
		err = fleetgate.Errorf(fleetgate.EConflict, "%s drives robot %q, and its gateway cannot ask them for control", resp.GetHeld().GetOwner(), r.info.Name)
	case resp.GetHeld() != nil:
		h := resp.GetHeld()
		err = fleetgate.HeldError(fleetgate.Held{Key: key, Owner: h.GetOwner(), Since: link.FromTime(h.GetSince())})
	case resp.GetGranted() == nil:
		err = unavailable("robot %q: replica %s answered with %T", r.info.Name, r.replica, resp.GetResult())
	}
	if err != nil {
		// A grant that comes after this caller gave up would hold the stream: let go of it.
		c.Release()
		c.end(err)
		return nil, err
	}
	c.Governed = link.GrantedDelays(&resp)
	return c, nil
}

// Controls asks the holder who drives the robot's input streams.
func (r *Robot) Controls(ctx context.Context) ([]fleetgate.Held, error) {
	resp, err := r.call(ctx, &linkpb.Request{Op: &linkpb.Request_Controls{Controls: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetControls() == nil {
		return nil, unavailable("robot %q: replica %s answered with %T", r.info.Name, r.replica, resp.GetResult())
	}
	list := resp.GetControls().GetControls()
	out := make([]fleetgate.Held, len(list))
	for i, h := range list {
		out[i] = fleetgate.Held{Key: link.KeyFromWire(h.GetKey()), Owner: h.GetOwner(), Since: link.FromTime(h.GetSince())}
	}
	return out, nil
}

// forwardedControl is this replica's operator's control of a stream held through another
// replica.
type forwardedControl struct {
	n      *Node
	holder string
	id     string
	// delayMs is the operator's delay (SetOperatorDelay) plus one, 0 while unknown.
	delayMs atomic.Uint64

	once sync.Once
	done chan struct{}
	err  error

	// The requests for this control the agent tells of, through the holder.
	fleet.Notices
	// The thresholds the agent's door governs the control by, as the holder's grant said.
	fleet.Governed
}

var _ fleet.GovernedControl = (*forwardedControl)(nil)

// Answer hands the operator's answer to the holder, for the agent's door.
func (c *forwardedControl) Answer(grant bool) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	if err := c.n.reachable("answering a request for control"); err != nil {
		return err
	}
	data, _ := proto.Marshal(&clusterpb.ControlMessage{ControlId: c.id, Action: &clusterpb.ControlMessage_Answer{Answer: grant}})
	if err := c.n.nc.Publish(commandSubject(c.holder), data); err != nil {
		return c.n.natsError(err, "answering a request for control")
	}
	return nil
}

// controlNotice is the holder telling of a request for a control this replica's operator holds.
func (n *Node) controlNotice(m *nats.Msg) {
	var cn linkpb.ControlNotice
	if proto.Unmarshal(m.Data, &cn) != nil {
		return
	}
	n.ctl.mu.Lock()
	c := n.ctl.viewing[cn.GetControlId()]
	n.ctl.mu.Unlock()
	if c != nil {
		c.Tell(fleet.ControlNotice{Kind: cn.GetKind(), By: cn.GetBy(), Since: link.FromTime(cn.GetSince())})
	}
}

var _ fleet.DelayCarrier = (*forwardedControl)(nil)

// SetOperatorDelay is the operator's delay as this replica measures it, sent with the
// commands to come: the holder hands it on to the agent, whose door governs by it.
func (c *forwardedControl) SetOperatorDelay(d time.Duration) {
	c.delayMs.Store(uint64(max(d.Milliseconds(), 0)) + 1)
}

// Command forwards one command; with NATS down it fails, and the operator's session ends.
func (c *forwardedControl) Command(payload []byte) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	if err := c.n.reachable("forwarding a command"); err != nil {
		c.end(err)
		return err
	}
	msg := &clusterpb.ControlMessage{ControlId: c.id, Action: &clusterpb.ControlMessage_Command{Command: payload}}
	if ms := c.delayMs.Load(); ms > 0 {
		msg.OperatorDelayMs, msg.OperatorDelayKnown = uint32(min(ms-1, math.MaxUint32)), true
	}
	data, _ := proto.Marshal(msg)
	if err := c.n.nc.Publish(commandSubject(c.holder), data); err != nil {
		err = c.n.natsError(err, "forwarding a command")
		c.end(err)
		return err
	}
	return nil
}

// Release lets go: the holder releases at the agent, which publishes the zero. If the release
// cannot go out, NATS is down, and the holder lets go of its own accord (and the agent's
// deadman has stopped the robot).
func (c *forwardedControl) Release() {
	c.n.ctl.forget(c.id)
	data, _ := proto.Marshal(&clusterpb.ControlMessage{ControlId: c.id, Action: &clusterpb.ControlMessage_Release{Release: &linkpb.Empty{}}})
	if c.n.nc.IsConnected() {
		c.n.nc.Publish(commandSubject(c.holder), data)
	}
	c.end(nil)
}

func (c *forwardedControl) Done() <-chan struct{} { return c.done }

func (c *forwardedControl) Err() error {
	<-c.done
	return c.err
}

func (c *forwardedControl) end(err error) {
	c.once.Do(func() {
		c.err = err
		close(c.done)
	})
}

// forget drops a control this replica's operator held through another.
func (ctl *controls) forget(id string) {
	ctl.mu.Lock()
	delete(ctl.viewing, id)
	ctl.mu.Unlock()
}

// controlEnded takes the holder's word that a control ended.
func (n *Node) controlEnded(m *nats.Msg) {
	var e clusterpb.ControlEnd
	if proto.Unmarshal(m.Data, &e) != nil {
		return
	}
	n.ctl.mu.Lock()
	c := n.ctl.viewing[e.GetControlId()]
	delete(n.ctl.viewing, e.GetControlId())
	n.ctl.mu.Unlock()
	if c == nil {
		return
	}
	var err error
	if e.GetError() != nil {
		err = link.ErrorFromWire(e.GetError())
	} else {
		err = fleetgate.Errorf(fleetgate.EUnavailable, "the control ended at the robot's agent")
	}
	c.end(err)
}

// endViewing ends every control this replica's operators hold through others (NATS lost:
// their commands cannot go out).
func (n *Node) endViewing(err error) {
	n.ctl.mu.Lock()
	list := n.ctl.viewing
	n.ctl.viewing = map[string]*forwardedControl{}
	n.ctl.mu.Unlock()
	for _, c := range list {
		c.end(err)
	}
}

// takeControl serves another replica's ControlTake: control at the agent, as for an operator
// of this replica.
func (n *Node) takeControl(m *nats.Msg) {
	var req clusterpb.ControlTake
	if err := proto.Unmarshal(m.Data, &req); err != nil {
		n.reply(m, nil, fleetgate.Errorf(fleetgate.EInvalid, "a control request that does not decode: %v", err))
		return
	}
	go func() {
		robot, ok := n.cfg.Local.Robot(req.GetRobotId())
		if !ok {
			n.reply(m, nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is not held by replica %s", req.GetRobotId(), n.cfg.Replica))
			return
		}
		rd, ok := fleet.As[fleet.RemoteDriven](robot)
		if !ok {
			n.reply(m, nil, fleetgate.Errorf(fleetgate.EInvalid, "robot %q cannot be driven from another replica", robot.Info().Name))
			return
		}
		mode := fleet.ControlMode{Override: req.GetOverride(), Answers: req.GetAnswers(), Ask: req.GetAsk()}
		rc, err := n.takeAtAgent(rd, &req, mode)
		if held, ok := fleetgate.HeldBy(err); ok && !mode.Ask {
			n.reply(m, &linkpb.Response{Result: &linkpb.Response_Held{Held: &linkpb.ControlHeld{
				Key: req.GetKey(), Owner: held.Owner, Since: link.Time(held.Since)}}}, nil)
			return
		}
		if err != nil {
			n.reply(m, nil, err)
			return
		}
		id := req.GetControlId()
		n.ctl.mu.Lock()
		_, releasedEarly := n.ctl.early[id]
		delete(n.ctl.early, id)
		if !releasedEarly {
			n.ctl.held[id] = &heldControl{rc: rc, viewer: req.GetViewer()}
		}
		n.ctl.mu.Unlock()
		if releasedEarly {
			rc.Release()
			return
		}
		if a, ok := rc.(fleet.RemoteAnswerer); ok && mode.Answers {
			viewer := req.GetViewer()
			a.Watch(func(cn fleet.ControlNotice) {
				f := &linkpb.ControlNotice{ControlId: id, Kind: cn.Kind, By: cn.By}
				if !cn.Since.IsZero() {
					f.Since = link.Time(cn.Since)
				}
				data, _ := proto.Marshal(f)
				n.nc.Publish(controlNoticeSubject(viewer), data) // buffered by the client: never waits
			})
		}
		n.reply(m, link.Granted(link.GovernedOf(rc)), nil)
		go n.watchHeld(id, rc, req.GetViewer())
	}()
}

// takeAtAgent takes control at the robot's agent in mode; a request waits for its holder's
// answer, and the viewer's release meanwhile withdraws it.
func (n *Node) takeAtAgent(rd fleet.RemoteDriven, req *clusterpb.ControlTake, mode fleet.ControlMode) (fleet.RemoteControl, error) {
	key := link.KeyFromWire(req.GetKey())
	h, handsOver := rd.(fleet.RemoteHandover)
	if !handsOver || mode == (fleet.ControlMode{}) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return rd.TakeControl(ctx, key, req.GetUser())
	}
	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	id := req.GetControlId()
	n.ctl.mu.Lock()
	n.ctl.asking[id] = cancel
	n.ctl.mu.Unlock()
	defer func() {
		n.ctl.mu.Lock()
		delete(n.ctl.asking, id)
		n.ctl.mu.Unlock()
	}()
	return h.TakeControlMode(ctx, key, req.GetUser(), mode)
}

// watchHeld tells the viewer when the agent ends a control it holds for it.
func (n *Node) watchHeld(id string, rc fleet.RemoteControl, viewer string) {
	<-rc.Done()
	n.ctl.mu.Lock()
	_, still := n.ctl.held[id]
	delete(n.ctl.held, id)
	n.ctl.mu.Unlock()
	if !still {
		return // released by the viewer
	}
	end := &clusterpb.ControlEnd{ControlId: id}
	if err := rc.Err(); err != nil {
		end.Error = link.ErrorToWire(err)
	}
	data, _ := proto.Marshal(end)
	n.nc.Publish(controlEndSubject(viewer), data)
}

// controlMessage carries a viewer's command or release to the agent, in order.
func (n *Node) controlMessage(m *nats.Msg) {
	var msg clusterpb.ControlMessage
	if proto.Unmarshal(m.Data, &msg) != nil {
		return
	}
	id := msg.GetControlId()
	n.ctl.mu.Lock()
	h := n.ctl.held[id]
	_, isRelease := msg.GetAction().(*clusterpb.ControlMessage_Release)
	if isRelease {
		delete(n.ctl.held, id)
		if withdraw := n.ctl.asking[id]; withdraw != nil {
			withdraw() // the operator asking left: the holder is told it is withdrawn
		}
		if h == nil {
			n.ctl.early[id] = n.now()
			for k, at := range n.ctl.early {
				if n.now().Sub(at) > earlyReleaseTTL {
					delete(n.ctl.early, k)
				}
			}
		}
	}
	n.ctl.mu.Unlock()
	if h == nil {
		return
	}
	if isRelease {
		h.rc.Release()
		return
	}
	if answer, ok := msg.GetAction().(*clusterpb.ControlMessage_Answer); ok {
		if a, answers := h.rc.(fleet.RemoteAnswerer); answers {
			_ = a.Answer(answer.Answer) // nothing to answer any more: not the operator's fault
		}
		return
	}
	if dc, ok := h.rc.(fleet.DelayCarrier); ok && msg.GetOperatorDelayKnown() {
		dc.SetOperatorDelay(time.Duration(msg.GetOperatorDelayMs()) * time.Millisecond)
	}
	if err := h.rc.Command(msg.GetCommand()); err != nil {
		n.log.Warn("forwarding a command to the agent failed: letting go", "err", err)
		n.ctl.mu.Lock()
		delete(n.ctl.held, id)
		n.ctl.mu.Unlock()
		h.rc.Release()
		end, _ := proto.Marshal(&clusterpb.ControlEnd{ControlId: id, Error: link.ErrorToWire(fleetgate.Errorf(fleetgate.EUnavailable, "the command did not reach the agent: %v", err))})
		n.nc.Publish(controlEndSubject(h.viewer), end)
	}
}

// releaseHeld lets go of the controls held for viewer (every viewer when viewer is empty):
// a viewer gone silent cannot send its release, and without NATS no command arrives.
func (n *Node) releaseHeld(viewer string) {
	n.ctl.mu.Lock()
	var list []*heldControl
	for id, h := range n.ctl.held {
		if viewer == "" || h.viewer == viewer {
			list = append(list, h)
			delete(n.ctl.held, id)
		}
	}
	n.ctl.mu.Unlock()
	for _, h := range list {
		h.rc.Release()
	}
	if len(list) > 0 {
		n.log.Warn("released teleoperation held for other replicas", "viewer", viewer, "controls", len(list))
	}
}
