package cloud

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// defaultDeadline bounds a request whose context has no deadline of its own.
const defaultDeadline = 10 * time.Second

// Limits on what an agent announces: a misbehaving agent must not flood the store (the
// number of robots is Config.MaxRobots).
const (
	maxInfoField    = 256
	maxKPIsPerRobot = 64
)

// session is one connected agent: its WebSocket, the requests in flight over it and the
// robots it hosts. It ends when the socket does; its robots go offline with it.
type session struct {
	acc   *Acceptor
	agent Agent
	link  uint64 // numbers this link among the acceptor's
	conn  *websocket.Conn
	log   *slog.Logger
	sync  *syncer
	live  *liveState // the live connection and the streams cloud viewers watch
	ans   *answers   // whether the agent answers within 2 s, while anyone needs to know (confirm.go)
	clock agentClock // the agent's clock against the cloud's, from its heartbeats (clock.go)

	nextID    atomic.Uint64
	lastHeard atomic.Int64 // unix nanoseconds of the last frame received
	// linkRTT is the round trip of the latest ping answered on the link, in nanoseconds (0:
	// none yet): what the agent adds to a cloud operator's delay, so their widget shows it too.
	linkRTT atomic.Int64

	mu       sync.Mutex
	ended    bool
	pending  map[uint64]*call
	robots   map[string]*RemoteRobot
	controls map[string]*remoteControl // cloud operators' controls at the agent, by id
	// releasing is read-held by each release frame on its way to the agent (control.go).
	releasing sync.RWMutex
	refusals  *refusalLog // what the agent sent for robots not its own

	done      chan struct{} // closed when the session ends
	closed    chan struct{} // closed when the socket is: the agent answered the close, or was not waited for
	closeOnce sync.Once
	// welcomed is closed once the welcome is on the wire. The robots are registered before
	// it (the welcome lists the refused ones), so a request may arrive in between; it waits
	// here, since an agent takes anything but a welcome as the answer to its hello as an error.
	welcomed chan struct{}
}

// call is a request waiting for its response.
type call struct {
	resp chan *linkpb.Response // buffered: the reader never blocks on a gone caller
	// chunk receives the resource chunks of an upload request, in the reader goroutine.
	chunk func(*linkpb.ResourceChunk) error

	mu       sync.Mutex // orders chunk calls before the caller's return
	over     bool       // the caller returned: chunk is not called again
	chunkErr error      // the first chunk failure
}

// finish stops chunk deliveries and returns the first chunk failure.
func (c *call) finish() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.over = true
	return c.chunkErr
}

func newSession(acc *Acceptor, agent Agent, conn *websocket.Conn) *session {
	s := &session{
		acc:      acc,
		agent:    agent,
		link:     acc.links.Add(1),
		conn:     conn,
		log:      acc.log.With("agent", agent.Name, "agent_id", agent.ID),
		pending:  map[uint64]*call{},
		robots:   map[string]*RemoteRobot{},
		controls: map[string]*remoteControl{},
		done:     make(chan struct{}),
		closed:   make(chan struct{}),
		welcomed: make(chan struct{}),
	}
	s.lastHeard.Store(acc.now().UnixNano())
	s.refusals = newRefusalLog(s.log, acc.now)
	s.clock.log = s.log
	s.sync = newSyncer(s)
	s.live = newLiveState()
	s.ans = newAnswers()
	return s
}

// close ends the session with a close code and reason for the agent; the first call to close
// or drop wins. It does not wait for the agent's answer: the reader ends when the socket does.
func (s *session) close(code websocket.StatusCode, reason string) {
	s.end(code, reason, true)
}

// drop ends the session without the close handshake, for an agent that cannot answer one:
// a handshake started first would hold the socket (and the robots) for its 5 s timeout.
func (s *session) drop(reason string) {
	s.end(websocket.StatusGoingAway, reason, false)
}

func (s *session) end(code websocket.StatusCode, reason string, handshake bool) {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
		close(s.done)
		s.log.Info("agent link closing", "code", int(code), "reason", reason)
		if !handshake {
			s.conn.CloseNow()
			close(s.closed)
			return
		}
		// Close waits up to 5 s for the agent's close frame, then closes the socket either way.
		go func() {
			s.conn.Close(code, reason)
			close(s.closed)
		}()
	})
}

// refuse tells the agent why before closing: the refusal frame survives proxies that drop
// close reasons. An agent not heard from for two heartbeat intervals is dropped after it,
// since it may not answer a close handshake (which would keep its robots online 5 s longer);
// a live agent, which sends a heartbeat each interval, gets the handshake and its close code
// (4001 tells a replaced agent to stop).
func (s *session) refuse(code websocket.StatusCode, reason string) {
	s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Refusal{Refusal: &linkpb.Refusal{Reason: reason}}}, time.Second)
	s.end(code, reason, s.quiet() <= 2*s.acc.heartbeat)
}

// quiet is how long the agent has not been heard from.
func (s *session) quiet() time.Duration {
	return s.acc.now().Sub(time.Unix(0, s.lastHeard.Load()))
}

// writeTimeout bounds one frame's write: a link that cannot take a frame for as long as it may
// stay silent is broken, and the write's failure closes it.
func (s *session) writeTimeout() time.Duration {
	return time.Duration(link.MissedHeartbeats) * s.acc.heartbeat
}

// run serves the session until the socket ends, then takes its robots offline.
func (s *session) run() {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.keepAlive() }()
	go func() { defer wg.Done(); s.sync.run() }()
	go func() { defer wg.Done(); s.watchAnswers() }()
	s.readLoop()
	s.close(websocket.StatusNormalClosure, "")
	s.endLive()
	s.endControls()
	wg.Wait()
	s.mu.Lock()
	robots := s.robots
	s.robots = map[string]*RemoteRobot{}
	s.mu.Unlock()
	for _, r := range robots {
		s.acc.cfg.Registry.Remove(r)
	}
}

func (s *session) readLoop() {
	for {
		f, err := link.ReadFrame(s.conn)
		if err != nil {
			switch {
			case errors.Is(err, link.ErrMalformed):
				s.log.Warn("agent link: malformed frame, closing", "err", err)
				s.close(websocket.StatusProtocolError, "malformed frame")
			case websocket.CloseStatus(err) != -1:
				s.log.Info("agent closed the link", "code", int(websocket.CloseStatus(err)), "err", err)
			default:
				select {
				case <-s.done:
				default:
					s.log.Info("agent link lost", "err", err)
				}
			}
			return
		}
		s.lastHeard.Store(s.acc.now().UnixNano())
		if err := s.handle(f); err != nil {
			s.log.Warn("agent link: protocol error, closing", "err", err)
			s.close(websocket.StatusProtocolError, err.Error())
			return
		}
	}
}

// handle acts on one frame from the agent, in the reader goroutine.
func (s *session) handle(f *linkpb.Frame) error {
	switch b := f.Body.(type) {
	case *linkpb.Frame_Heartbeat:
		s.clock.heartbeat(link.FromTime(b.Heartbeat.GetSent()), s.acc.now())
	case *linkpb.Frame_Response:
		s.deliver(b.Response)
	case *linkpb.Frame_Chunk:
		s.deliverChunk(b.Chunk)
	case *linkpb.Frame_Robots:
		refused := s.setRobots(b.Robots.GetRobots())
		s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Accepted{Accepted: &linkpb.RobotsAccepted{Refused: refused}}}, 5*time.Second)
	case *linkpb.Frame_Kpis:
		if r := s.hostedRobot(b.Kpis.GetRobotId(), "KPI values"); r != nil && len(b.Kpis.GetKpis()) <= maxKPIsPerRobot {
			r.setKPIs(link.KPIsFromWire(b.Kpis.GetKpis()), s.acc.now())
		}
	case *linkpb.Frame_Resources:
		if r := s.hostedRobot(b.Resources.GetRobotId(), "a resource list"); r != nil {
			s.sync.listed(r.info.ID, link.ResourcesFromWire(b.Resources.GetResources()), b.Resources.GetResources())
		}
	case *linkpb.Frame_ControlEnded:
		s.controlEnded(b.ControlEnded)
	case *linkpb.Frame_ControlNotice:
		s.controlNotice(b.ControlNotice)
	case *linkpb.Frame_Events:
		if n := len(b.Events.GetEvents()); n == 0 || n > link.MaxEventBatch {
			return fmt.Errorf("an event batch of %d entries (1 to %d)", n, link.MaxEventBatch)
		}
		// Stored off the reader goroutine: the agent sends one batch at a time and waits.
		go s.storeEvents(link.EventsFromWire(b.Events.GetEvents()))
	default:
		return fmt.Errorf("unexpected %T from an agent", f.Body)
	}
	return nil
}

func (s *session) robot(id string) *RemoteRobot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.robots[id]
}

func (s *session) deliver(resp *linkpb.Response) {
	s.mu.Lock()
	c := s.pending[resp.GetId()]
	s.mu.Unlock()
	if c == nil {
		return // an answer after its caller gave up
	}
	select {
	case c.resp <- resp:
	default:
	}
}

func (s *session) deliverChunk(ch *linkpb.ResourceChunk) {
	s.mu.Lock()
	c := s.pending[ch.GetRequestId()]
	s.mu.Unlock()
	if c == nil || c.chunk == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.over && c.chunkErr == nil {
		c.chunkErr = c.chunk(ch)
	}
}

// setRobots makes the registry hold exactly the announced robots of this agent, returning
// those refused with why. Runs in the reader goroutine (or before it starts).
func (s *session) setRobots(infos []*linkpb.RobotInfo) []*linkpb.RobotRefused {
	var refused []*linkpb.RobotRefused
	want := map[string]fleetgate.Info{}
	var order []string // as announced: the robots past a limit are the last ones
	for _, wi := range infos {
		info := link.InfoFromWire(wi)
		if reason := checkInfo(info, want, s.acc.maxRobots); reason != "" {
			refused = append(refused, &linkpb.RobotRefused{Id: info.ID, Reason: reason})
			continue
		}
		want[info.ID] = info
		order = append(order, info.ID)
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil
	}
	var gone []*RemoteRobot
	for id, r := range s.robots {
		if info, ok := want[id]; !ok || info != r.info {
			gone = append(gone, r)
			delete(s.robots, id)
		}
	}
	s.mu.Unlock()
	for _, r := range gone {
		s.acc.cfg.Registry.Remove(r)
	}
	home := fleet.Home{FleetID: s.agent.FleetID, AgentID: s.agent.ID}
	for _, id := range order {
		info := want[id]
		if s.robot(id) != nil {
			continue
		}
		r := &RemoteRobot{s: s, info: info}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		// The robot joins s.robots in the same step as the registry, so the teardown (which
		// takes s.robots after the end) cannot miss it; a session that has ended meanwhile,
		// replaced by a newer link of its agent, adds nothing and so never overwrites the
		// newer link's robot.
		added, err := s.acc.cfg.Registry.AddHostedWhile(ctx, r, home, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.ended {
				return false
			}
			s.robots[id] = r
			return true
		})
		cancel()
		if err != nil {
			reason := "the cloud could not register it"
			if code := fleetgate.ErrorCode(err); code == fleetgate.EConflict || code == fleetgate.ENotFound {
				// Kept out on purpose (a robot of another organization, a fleet that is
				// gone), in words fit for the agent.
				reason = fleetgate.ErrorMessage(err)
			}
			s.refusals.warn("robot refused", "robot", id, "err", err)
			refused = append(refused, &linkpb.RobotRefused{Id: id, Reason: reason})
			continue
		}
		if !added {
			break // the session ended
		}
	}
	return refused
}

// checkInfo says why an announced robot cannot be registered, or "".
func checkInfo(info fleetgate.Info, seen map[string]fleetgate.Info, maxRobots int) string {
	switch {
	case !isUUID(info.ID):
		return "robot id is not a UUID"
	case info.Name == "":
		return "robot name is empty"
	case len(info.Name) > maxInfoField || len(info.ConfigName) > maxInfoField ||
		len(info.ConfigVersion) > maxInfoField || len(info.AgentVersion) > maxInfoField:
		return fmt.Sprintf("a robot field is longer than %d bytes", maxInfoField)
	case len(seen) >= maxRobots:
		return fmt.Sprintf("refused: an agent may register at most %d robots here (the cloud's --agent-max-robots)", maxRobots)
	}
	if _, dup := seen[info.ID]; dup {
		return "robot announced twice"
	}
	return ""
}

// keepAlive sends heartbeats and ends a session that has been silent for MissedHeartbeats
// intervals: a silent drop (no FIN, no RST) is noticed only this way.
func (s *session) keepAlive() {
	every := s.acc.heartbeat
	check := every / 20
	silence := time.Duration(link.MissedHeartbeats)*every - check
	tick := time.NewTicker(check)
	defer tick.Stop()
	nextBeat := s.acc.now().Add(every)
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		now := s.acc.now()
		if quiet := now.Sub(time.Unix(0, s.lastHeard.Load())); quiet > silence {
			s.log.Warn("agent link silent, closing", "silent_for", quiet.Round(time.Millisecond))
			s.drop("no heartbeat")
			return
		}
		if !now.Before(nextBeat) {
			nextBeat = now.Add(every)
			s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Heartbeat{Heartbeat: &linkpb.Heartbeat{Sent: link.Time(now)}}}, every)
		}
	}
}

// write sends one frame within timeout (and ctx). A write that times out leaves the socket
// closed (the library's rule): the session ends and its robots go offline.
func (s *session) write(ctx context.Context, f *linkpb.Frame, timeout time.Duration) error {
	data, err := proto.Marshal(f)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return s.conn.Write(ctx, websocket.MessageBinary, data)
}

// request sends req for robot r and waits for its answer until ctx ends (defaultDeadline
// when ctx has no deadline). chunk, when not nil, receives the chunks of an upload.
func (s *session) request(ctx context.Context, r *RemoteRobot, req *linkpb.Request, chunk func(*linkpb.ResourceChunk) error) (*linkpb.Response, error) {
	start := s.acc.now()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultDeadline)
		defer cancel()
	}
	deadline, _ := ctx.Deadline()
	c := &call{resp: make(chan *linkpb.Response, 1), chunk: chunk}
	id := s.nextID.Add(1)
	if s.ans.silent.Load() {
		return nil, s.notAnswering(r) // not after a deadline: the operator is told now
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, s.offline(r)
	}
	s.pending[id] = c
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		c.finish()
	}()
	select {
	case <-s.welcomed:
	case <-s.done:
		return nil, s.offline(r)
	case <-ctx.Done():
		return nil, s.tooSlow(r, start)
	}

	req.Id, req.RobotId = id, r.info.ID
	req.DeadlineMs = uint32(max(time.Until(deadline).Milliseconds(), 1))
	// A write cut off by its context closes the socket (coder/websocket's rule), so the
	// caller's deadline must not bound it: that would take every robot of the agent offline
	// for one impatient caller. The frame goes out under the link's own timeout while the
	// caller waits at most until its deadline; an answer after that is dropped.
	sent := make(chan error, 1)
	go func() {
		sent <- s.write(context.Background(), &linkpb.Frame{Body: &linkpb.Frame_Request{Request: req}}, s.writeTimeout())
	}()
	select {
	case err := <-sent:
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is unreachable: sending to its agent %q failed: %v", r.info.Name, s.agent.Name, err)
		}
	case <-ctx.Done():
		return nil, s.tooSlow(r, start)
	case <-s.done:
		return nil, s.offline(r)
	}
	select {
	case resp := <-c.resp:
		chunkErr := c.finish()
		if resp.GetError() != nil {
			return nil, link.ErrorFromWire(resp.GetError())
		}
		if chunkErr != nil {
			return nil, chunkErr
		}
		return resp, nil
	case <-ctx.Done():
		return nil, s.tooSlow(r, start)
	case <-s.done:
		return nil, s.offline(r)
	}
}

func (s *session) offline(r *RemoteRobot) error {
	return fleetgate.Errorf(fleetgate.EOffline, "robot %q is offline: its agent %q disconnected", r.info.Name, s.agent.Name)
}

// tooSlow tells an unreachable agent (nothing heard for over a heartbeat interval) from a
// connected but slow one.
func (s *session) tooSlow(r *RemoteRobot, start time.Time) error {
	now := s.acc.now()
	waited := now.Sub(start).Round(time.Millisecond)
	if quiet := s.quiet(); quiet > s.acc.heartbeat+time.Second {
		return fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is unreachable: its agent %q has not been heard from for %s",
			r.info.Name, s.agent.Name, quiet.Round(time.Second))
	}
	return fleetgate.Errorf(fleetgate.EUnavailable, "robot %q did not answer within %s: its agent %q is connected but too slow",
		r.info.Name, waited, s.agent.Name)
}
