package cloud

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Live view through the agent link: the cloud's end of an agent's live connection.
//
// Every stream cloud viewers watch is one remoteSub: a fleet.Topic the viewers subscribe to
// (each with its one-sample slot, latest wins), fed by one subscription at the agent, which
// sends each sample once however many viewers watch it, at the highest rate any of them asked
// for, downsampled when they take downsampled point clouds. The agent keeps only the newest
// sample of each subscription waiting, so a slow uplink drops old frames instead of queueing
// them. A stream nobody watches any more is given up after subLinger.

// subLinger is how long a stream stays subscribed at the agent after its last cloud viewer
// left: a page reload or a viewer switching widgets does not restart it.
const subLinger = 3 * time.Second

// liveAttachWait is how long a new subscription waits for the agent's live connection before
// it fails: an agent that has not opened one by then serves no live view (an older version).
const liveAttachWait = 5 * time.Second

// ServeLive upgrades r, the request of an authenticated agent, to its live connection and
// serves it until it or the agent's link ends. An agent without a link is refused (409).
func (a *Acceptor) ServeLive(w http.ResponseWriter, r *http.Request, agent Agent) {
	a.mu.Lock()
	s := a.sessions[agent.ID]
	a.mu.Unlock()
	if s == nil {
		http.Error(w, "the agent has no link: open it first", http.StatusConflict)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		a.log.Warn("agent live connection: upgrade failed", "agent", agent.Name, "err", err)
		return
	}
	conn.SetReadLimit(link.MaxFrame)
	s.serveLive(conn)
}

// liveState is a session's live connection and the streams its viewers watch.
type liveState struct {
	mu       sync.Mutex
	conn     *websocket.Conn // nil while the agent has none
	attached chan struct{}   // closed (and replaced) when a connection attaches
	subs     map[subKey]*remoteSub
	byID     map[uint64]*remoteSub
	nextID   uint64
	// heard is when the connection last carried a frame or a pong (unix nanoseconds).
	heard atomic.Int64
}

type subKey struct {
	robotID    string
	key        fleetgate.StreamKey
	downsample bool
	maxWidth   int    // viewers of another maxWidth are another subscription at the agent
	codec      string // H.264 viewers are another subscription at the agent, of access units
}

func newLiveState() *liveState {
	return &liveState{attached: make(chan struct{}), subs: map[subKey]*remoteSub{}, byID: map[uint64]*remoteSub{}}
}

// remoteSub is one stream the cloud's viewers watch, and its subscription at the agent.
type remoteSub struct {
	s     *session
	id    uint64
	k     subKey
	topic *fleet.Topic

	// parts is the payload of a sample arriving in parts (only the live reader touches it).
	parts []byte
	// waitKey: an access unit was lost (its parts out of order), so the ones after it wait
	// for the next keyframe, which refers to nothing before it (only the live reader touches it).
	waitKey bool

	mu      sync.Mutex
	rate    float64 // max rate sent to the agent; 0: every sample
	limited bool    // false once a viewer asked for every sample (rate 0 wins)
	linger  *time.Timer
	removed bool
}

// serveLive makes conn the session's live connection (closing an older one) and reads the
// agent's samples from it until it or the session ends.
func (s *session) serveLive(conn *websocket.Conn) {
	l := s.live
	l.heard.Store(s.acc.now().UnixNano())
	l.mu.Lock()
	old := l.conn
	l.conn = conn
	close(l.attached)
	l.attached = make(chan struct{})
	subs := make([]*remoteSub, 0, len(l.byID))
	for _, rs := range l.byID {
		subs = append(subs, rs)
	}
	l.mu.Unlock()
	if old != nil {
		old.Close(websocket.StatusGoingAway, "replaced by a newer live connection")
	}
	s.log.Info("agent live connection open")
	// The streams watched before this connection came (or through a lost one) start now.
	for _, rs := range subs {
		if rs.topic.Subscribers() > 0 {
			rs.send()
		}
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-s.done: // the link ended: so does its live connection
			conn.Close(websocket.StatusGoingAway, "the agent link closed")
		case <-ended:
		}
	}()
	defer close(ended)
	for {
		f, err := link.ReadLive(conn)
		if err != nil {
			break
		}
		l.heard.Store(s.acc.now().UnixNano())
		switch b := f.Body.(type) {
		case *linkpb.LiveFrame_Sample:
			if rs := l.sub(b.Sample.GetId()); rs != nil {
				rs.receive(b.Sample)
			}
		case *linkpb.LiveFrame_Ended:
			if rs := l.sub(b.Ended.GetId()); rs != nil {
				rs.end(link.ErrorFromWire(b.Ended.GetError()))
			}
		default:
			s.log.Warn("agent live connection: unexpected frame, closing", "frame", f.Body)
			conn.Close(websocket.StatusProtocolError, "unexpected frame")
		}
	}
	l.mu.Lock()
	if l.conn == conn {
		l.conn = nil
	}
	l.mu.Unlock()
	s.log.Info("agent live connection closed")
}

// publish hands a whole sample to the viewers with the agent's number (of an H.264 stream,
// an access unit: not one whose reference was lost).
func (rs *remoteSub) publish(payload []byte, smp *linkpb.Sample) {
	at := rs.s.clock.toCloud(link.FromTime(smp.GetTime())) // the agent's time on the cloud's clock
	if rs.k.codec == "" {
		rs.topic.PublishNumbered(payload, at, smp.GetLatched(), smp.GetSeq())
		return
	}
	key := video.PayloadIsKeyframe(payload)
	if rs.waitKey && !key {
		return
	}
	rs.waitKey = false
	rs.topic.PublishFrame(payload, at, key, smp.GetSeq())
}

// lost drops the sample being assembled.
func (rs *remoteSub) lost() {
	rs.waitKey = rs.k.codec != ""
	rs.parts = nil
}

// receive takes a sample or a part of one; the viewers get a sample when it is whole. A part
// out of order (a lost connection's leftovers) drops what was assembled.
func (rs *remoteSub) receive(m *linkpb.LiveSample) {
	smp := m.GetSample()
	part, off, size := smp.GetPayload(), m.GetOffset(), m.GetSize()
	switch {
	case size == 0 || off == 0 && size == uint64(len(part)):
		rs.parts = nil
		rs.publish(part, smp)
		return
	case size > link.MaxFrame || off+uint64(len(part)) > size:
		rs.lost()
		return
	case off == 0:
		rs.parts = append(make([]byte, 0, size), part...)
	case rs.parts != nil && off == uint64(len(rs.parts)):
		rs.parts = append(rs.parts, part...)
	default:
		rs.lost()
		return
	}
	if uint64(len(rs.parts)) == size {
		whole := rs.parts
		rs.parts = nil
		rs.publish(whole, smp)
	}
}

func (l *liveState) sub(id uint64) *remoteSub {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

// subscribe is RemoteRobot.Subscribe: a viewer of robot r's stream, of type typ.
func (s *session) subscribe(ctx context.Context, r *RemoteRobot, key fleetgate.StreamKey, typ string, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	l := s.live
	if s.ans.silent.Load() {
		return nil, s.notAnswering(r)
	}
	if err := s.waitLive(ctx, r); err != nil {
		return nil, err
	}
	k := subKey{robotID: r.info.ID, key: key, downsample: opts.Downsample, maxWidth: max(opts.MaxWidth, 0), codec: opts.Codec}
	l.mu.Lock()
	select {
	case <-s.done:
		l.mu.Unlock()
		return nil, s.offline(r)
	default:
	}
	rs := l.subs[k]
	if rs == nil {
		l.nextID++
		rs = &remoteSub{s: s, id: l.nextID, k: k, limited: true}
		if k.codec != "" {
			// The agent's access units, in order: viewers skip whole pictures, as the
			// agent does before the uplink.
			rs.topic = fleet.NewVideoTopic(video.Type, rs.onActive)
		} else {
			rs.topic = fleet.NewTopic(typ, rs.onActive)
		}
		l.subs[k], l.byID[rs.id] = rs, rs
	}
	// Under l.mu, so that a lingering removal cannot take rs away between here and the
	// subscription (neither want nor onActive takes l.mu; their sends go out after it).
	raised := rs.want(opts.MaxRate)
	first := rs.topic.Subscribers() == 0
	sub, err := rs.topic.Subscribe()
	l.mu.Unlock()
	if err == nil && raised && !first {
		rs.send() // the first viewer's send (onActive) carries the rate already
	}
	return sub, err
}

// waitLive waits for the agent's live connection, for up to liveAttachWait (or ctx).
func (s *session) waitLive(ctx context.Context, r *RemoteRobot) error {
	l := s.live
	l.mu.Lock()
	conn, attached := l.conn, l.attached
	l.mu.Unlock()
	if conn != nil {
		return nil
	}
	t := time.NewTimer(liveAttachWait)
	defer t.Stop()
	select {
	case <-attached:
		return nil
	case <-s.done:
		return s.offline(r)
	case <-ctx.Done():
		return fleetgate.Errorf(fleetgate.EUnavailable, "the agent %q of robot %q has no live connection open yet", s.agent.Name, r.info.Name)
	case <-t.C:
		return fleetgate.Errorf(fleetgate.EUnavailable, "the agent %q of robot %q opened no live connection: its version serves no live view through the cloud", s.agent.Name, r.info.Name)
	}
}

// want raises the rate asked of the agent to maxRate (0: every sample) when a viewer needs
// more than asked so far, and says whether it did. The rate does not come down while the stream is watched; a stream
// given up and watched again starts afresh.
func (rs *remoteSub) want(maxRate float64) (raised bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	switch {
	case !rs.limited:
		return false
	case maxRate <= 0:
		rs.limited, rs.rate = false, 0
		return true
	case maxRate > rs.rate:
		rs.rate = maxRate
		return true
	}
	return false
}

// onActive is the topic's: the first viewer starts the agent's subscription, the last one
// leaving gives it up after subLinger.
func (rs *remoteSub) onActive(active bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.linger != nil {
		rs.linger.Stop()
		rs.linger = nil
	}
	if active {
		rs.s.ans.poke()
		go rs.send()
		return
	}
	rs.linger = time.AfterFunc(subLinger, rs.giveUp)
}

// giveUp ends a stream nobody watched for subLinger.
func (rs *remoteSub) giveUp() {
	l := rs.s.live
	l.mu.Lock()
	if rs.topic.Subscribers() > 0 || l.subs[rs.k] != rs {
		l.mu.Unlock()
		return
	}
	delete(l.subs, rs.k)
	delete(l.byID, rs.id)
	l.mu.Unlock()
	rs.mu.Lock()
	rs.removed = true
	rs.mu.Unlock()
	rs.s.writeLive(&linkpb.LiveFrame{Body: &linkpb.LiveFrame_Unsubscribe{Unsubscribe: &linkpb.LiveUnsubscribe{Id: rs.id}}})
	rs.topic.Close(fleetgate.Errorf(fleetgate.EUnavailable, "unavailable"))
}

// send asks the agent for the stream (again, when the rate changed or a connection attached).
func (rs *remoteSub) send() {
	rs.mu.Lock()
	if rs.removed {
		rs.mu.Unlock()
		return
	}
	msg := &linkpb.LiveSubscribe{Id: rs.id, RobotId: rs.k.robotID, Key: link.KeyToWire(rs.k.key), MaxRate: rs.rate, Downsample: rs.k.downsample,
		MaxWidth: int32(rs.k.maxWidth), Codec: rs.k.codec}
	rs.mu.Unlock()
	rs.s.writeLive(&linkpb.LiveFrame{Body: &linkpb.LiveFrame_Subscribe{Subscribe: msg}})
}

// end closes the stream for its viewers: the agent ended it (the robot went away).
func (rs *remoteSub) end(err error) {
	l := rs.s.live
	l.mu.Lock()
	if l.subs[rs.k] == rs {
		delete(l.subs, rs.k)
	}
	delete(l.byID, rs.id)
	l.mu.Unlock()
	rs.mu.Lock()
	rs.removed = true
	rs.mu.Unlock()
	if !fleetgate.Is(err, fleetgate.EOffline) {
		err = &fleetgate.Error{Code: fleetgate.EOffline, Message: "the agent ended the stream: " + fleetgate.ErrorMessage(err), Err: err}
	}
	rs.topic.Close(err)
}

// writeLive sends a small frame to the agent on the live connection, if there is one (a
// connection that attaches later is told every watched stream).
func (s *session) writeLive(f *linkpb.LiveFrame) {
	s.live.mu.Lock()
	conn := s.live.conn
	s.live.mu.Unlock()
	if conn == nil {
		return
	}
	if err := link.WriteLive(conn, f, s.writeTimeout()); err != nil {
		s.log.Debug("agent live connection: write failed", "err", err)
	}
}

// endLive ends every stream of the session (its link ended: the robots are offline) and its
// live connection.
func (s *session) endLive() {
	s.endStreams(fleetgate.Errorf(fleetgate.EOffline, "robot is offline: its agent %q disconnected", s.agent.Name), func(conn *websocket.Conn) {
		// Not waited for: an agent that went silent cannot answer the close handshake, and
		// its robots must go offline now, not after the handshake's timeout.
		go conn.Close(websocket.StatusGoingAway, "the agent link closed")
	})
}

// current is the live connection, nil while the agent has none.
func (l *liveState) current() *websocket.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn
}

// watched reports whether any cloud viewer watches a stream now.
func (l *liveState) watched() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, rs := range l.byID {
		if rs.topic.Subscribers() > 0 {
			return true
		}
	}
	return false
}

// endStreams ends every stream of the session with why and hands the live connection, if
// any, to closeConn.
func (s *session) endStreams(why error, closeConn func(*websocket.Conn)) {
	l := s.live
	l.mu.Lock()
	subs := l.byID
	l.subs, l.byID = map[subKey]*remoteSub{}, map[uint64]*remoteSub{}
	conn := l.conn
	l.conn = nil
	l.mu.Unlock()
	for _, rs := range subs {
		rs.mu.Lock()
		rs.removed = true
		if rs.linger != nil {
			rs.linger.Stop()
		}
		rs.mu.Unlock()
		rs.topic.Close(why)
	}
	if conn != nil {
		closeConn(conn)
	}
}
