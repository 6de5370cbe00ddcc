package uplink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/time/rate"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// The agent's end of the live connection (LiveFrame in link.proto): the samples of the streams
// the cloud's viewers watch. One subscription per stream the cloud asks for, however many
// viewers it has; each keeps only its newest sample waiting (latest wins), which goes out when
// the stream's turn comes (round robin, one sample per stream per turn), its rate allows and
// the budget (Config.LiveBudget) has room. A slow uplink therefore drops old frames rather than
// queueing them, and TCP_NOTSENT_LOWAT keeps the kernel from queueing them instead.

// errNoLive: the cloud serves no live connection (an older version): not tried again.
var errNoLive = errors.New("the cloud serves no live view through the link")

// liveRetry is the wait between attempts to open the live connection while the link is up.
const liveRetry = 2 * time.Second

// runLive keeps the live connection open while the session lasts.
func (s *session) runLive() {
	if s.a.cfg.NoLive {
		return
	}
	for !s.over() {
		err := s.liveConnection()
		if errors.Is(err, errNoLive) {
			s.a.log.Info("no live view through the cloud", "err", err)
			return
		}
		if err != nil && !s.over() {
			s.a.log.Debug("live connection ended", "err", err)
		}
		select {
		case <-s.done:
			return
		case <-time.After(liveRetry):
		}
	}
}

// liveConnection dials the live connection and serves it until it or the session ends.
func (s *session) liveConnection() error {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	ctx = withDialed(ctx, func(c *net.TCPConn) { s.conns.live.Store(c) })
	conn, resp, err := websocket.Dial(ctx, strings.TrimSuffix(s.url, link.Path)+link.LivePath, &websocket.DialOptions{
		HTTPClient:      s.a.client(true),
		HTTPHeader:      http.Header{link.KeyHeader: {s.a.cfg.Key}},
		CompressionMode: websocket.CompressionDisabled,
	})
	cancel()
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return errNoLive
		}
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 10) // the cloud sends small frames only
	l := &liveSender{s: s, conn: conn, subs: map[uint64]*agentSub{}, ready: make(chan struct{}, 1), done: make(chan struct{})}
	defer l.close()
	s.conns.sender.Store(l)
	defer s.conns.sender.CompareAndSwap(l, nil)
	stop := context.AfterFunc(s.ctx, func() { conn.Close(websocket.StatusGoingAway, "the link closed") })
	defer stop()
	go l.write()
	for {
		f, err := link.ReadLive(conn)
		if err != nil {
			return err
		}
		switch b := f.Body.(type) {
		case *linkpb.LiveFrame_Subscribe:
			l.subscribe(b.Subscribe)
		case *linkpb.LiveFrame_Unsubscribe:
			l.unsubscribe(b.Unsubscribe.GetId())
		default:
			conn.Close(websocket.StatusProtocolError, "unexpected frame")
			return fmt.Errorf("the cloud sent an unexpected %T on the live connection", f.Body)
		}
	}
}

// liveSender serves one live connection.
type liveSender struct {
	s     *session
	conn  *websocket.Conn
	ready chan struct{} // signalled when a sample is waiting
	done  chan struct{}

	mu   sync.Mutex
	subs map[uint64]*agentSub
	last uint64 // the id whose sample went out last, for the round robin

	// busy: a sample is going out or waits for its turn (the bulk lane waits for it).
	busy atomic.Bool
	// linkFull: pictures wait for the uplink's queue (pictureRoom), so a frame replaced now
	// was dropped for the link, not for a busy computer: only those step the pictures down.
	linkFull atomic.Bool

	// rungs is the ladder of H.264 streams (nil: video.Ladder), and clock times their steps
	// (nil: the wall clock); tests give their own.
	rungs []video.Rung
	clock clock.Clock
}

// agentSub is one stream the cloud watches.
type agentSub struct {
	id     uint64
	cancel context.CancelFunc

	mu         sync.Mutex
	pending    fleetgate.Sample
	has        bool
	rate       float64
	downsample bool
	maxWidth   int    // camera images scaled down to this width (0: as they come); set once
	codec      string // "h264": the stream's access units, whole pictures only; set once
	// taken is signalled when the writer takes the sample waiting in the slot: an H.264
	// stream's follower waits for it before it takes the next access unit from its
	// subscription, which skips whole pictures to the next keyframe when the uplink is slow.
	taken chan struct{}
	next  time.Time // the earliest a sample may go, by rate
	// vadapt is an H.264 stream's place on video.Ladder (the writer's); rung is the rung it
	// chose, which the follower changes to, make-before-break (video.go).
	vadapt *video.Adapter
	rung   atomic.Int32
	// stepping: the follower relays the old rung's pictures while the new rung's encoder
	// starts; the adapter holds meanwhile (video.Adapter.Hold).
	stepping atomic.Bool

	replaced int // samples a newer one replaced in the slot before they went (adapt.go)

	// sending is the sample going out in parts (only the writer touches it).
	sending *outgoing
	// adapt is a camera's place on the ladder of picture sizes (adapt.go).
	adapt adapter
}

// outgoing is a sample on its way, part by part.
type outgoing struct {
	smp     fleetgate.Sample
	payload []byte // downsampled where asked
	off     int
}

func (l *liveSender) subscribe(m *linkpb.LiveSubscribe) {
	l.mu.Lock()
	if sub := l.subs[m.GetId()]; sub != nil {
		l.mu.Unlock()
		sub.mu.Lock()
		if sub.codec == "" {
			sub.rate = m.GetMaxRate()
		}
		sub.downsample = m.GetDownsample()
		sub.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(l.s.ctx)
	sub := &agentSub{id: m.GetId(), cancel: cancel, rate: m.GetMaxRate(), downsample: m.GetDownsample(), maxWidth: int(max(m.GetMaxWidth(), 0)),
		codec: m.GetCodec(), taken: make(chan struct{}, 1)}
	if sub.codec != "" {
		sub.rate = 0 // a rate would hold pictures back until the queue drops them: not for access units
		sub.vadapt = video.NewAdapter(l.s.a.cfg.LiveBudget)
		sub.rung.Store(int32(sub.vadapt.Rung()))
	}
	l.subs[sub.id] = sub
	l.mu.Unlock()
	go l.follow(ctx, sub, m.GetRobotId(), link.KeyFromWire(m.GetKey()))
}

func (l *liveSender) unsubscribe(id uint64) {
	l.mu.Lock()
	sub := l.subs[id]
	delete(l.subs, id)
	l.mu.Unlock()
	if sub != nil {
		sub.cancel()
	}
}

// follow reads the robot's stream into sub's slot until the cloud gives it up or it ends.
func (l *liveSender) follow(ctx context.Context, sub *agentSub, robotID string, key fleetgate.StreamKey) {
	defer sub.cancel()
	robot, ok := l.s.a.cfg.Core.HostedRobot(robotID)
	if !ok {
		l.ended(sub, fleetgate.Errorf(fleetgate.EOffline, "robot %s is not connected to this agent", robotID))
		return
	}
	if sub.codec != "" {
		l.followVideo(ctx, sub, robotID, robot, key)
		return
	}
	rs, err := robot.Subscribe(ctx, key, fleetgate.SubscribeOptions{})
	if err != nil {
		l.ended(sub, err)
		return
	}
	defer rs.Close()
	for {
		smp, err := rs.Next(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.ended(sub, err)
			}
			return
		}
		if smp.Type == imageType {
			smp.Payload = sub.adapt.shrink(smp.Payload, sub.maxWidth, !l.s.a.cfg.NoLanes)
		}
		sub.mu.Lock()
		if sub.has && l.linkFull.Load() {
			sub.replaced++
		}
		sub.pending, sub.has = smp, true
		sub.mu.Unlock()
		select {
		case l.ready <- struct{}{}:
		default:
		}
	}
}

// ended tells the cloud that a stream ended, unless it gave the stream up itself.
func (l *liveSender) ended(sub *agentSub, err error) {
	l.mu.Lock()
	_, ok := l.subs[sub.id]
	delete(l.subs, sub.id)
	l.mu.Unlock()
	if ok {
		link.WriteLive(l.conn, &linkpb.LiveFrame{Body: &linkpb.LiveFrame_Ended{Ended: &linkpb.LiveEnded{Id: sub.id, Error: link.ErrorToWire(err)}}}, l.s.writeTimeout())
	}
}

func (l *liveSender) close() {
	close(l.done)
	l.mu.Lock()
	subs := l.subs
	l.subs = map[uint64]*agentSub{}
	l.mu.Unlock()
	for _, sub := range subs {
		sub.cancel()
	}
}

// write sends the waiting samples, a part of at most link.LiveChunk bytes per stream per
// turn (round robin, small samples first), within their rates and the budget.
func (l *liveSender) write() {
	budget := newBudget(l.s.a.cfg.LiveBudget)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		room := l.pictureRoom()
		l.linkFull.Store(!room)
		sub, wait := l.pick(time.Now(), room)
		l.busy.Store(sub != nil || wait == pictureRetry)
		if sub == nil {
			if wait > 0 {
				timer.Reset(wait)
			}
			select {
			case <-l.ready:
			case <-timer.C:
			case <-l.done:
				return
			}
			continue
		}
		out := sub.sending
		end := min(out.off+link.LiveChunk, len(out.payload))
		part := out.payload[out.off:end]
		f := &linkpb.LiveFrame{Body: &linkpb.LiveFrame_Sample{Sample: &linkpb.LiveSample{Id: sub.id,
			Sample: &linkpb.Sample{Type: out.smp.Type, Payload: part, Time: link.Time(out.smp.Time), Seq: out.smp.Seq, Latched: out.smp.Latched},
			Offset: uint64(out.off), Size: uint64(len(out.payload))}}}
		out.off = end
		if out.off == len(out.payload) {
			sub.sending = nil
		}
		if !budget.take(len(part), l.done) {
			return
		}
		if err := link.WriteLive(l.conn, f, l.s.writeTimeout()); err != nil {
			l.conn.CloseNow()
			return
		}
	}
}

// pick takes the stream whose part goes next: the first after the last one served that has a
// sample going out, or a waiting one its rate allows now (which then starts going out). With
// none, wait is how long until a rate-held one may go (0: none is waiting).
func (l *liveSender) pick(now time.Time, pictureRoom bool) (*agentSub, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]uint64, 0, len(l.subs))
	for id := range l.subs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	start, _ := slices.BinarySearch(ids, l.last+1)
	var wait time.Duration
	// Two lanes: small samples (a pose, odometry, a scan) first, so that feedback never waits
	// behind a picture's parts; then every stream in turn.
	for _, smallOnly := range []bool{true, false} {
		for i := range ids {
			sub := l.subs[ids[(start+i)%len(ids)]]
			if smallOnly && (l.s.a.cfg.NoLanes || !sub.small()) {
				continue
			}
			if !pictureRoom && !sub.small() {
				if sub.sending != nil || sub.waiting() {
					wait = pictureRetry // the uplink's queue is full: it waits, newer frames replace it
				}
				continue
			}
			if sub.sending == nil && !sub.start(now, &wait, !l.s.a.cfg.NoLanes) {
				continue
			}
			l.last = sub.id
			return sub, 0
		}
	}
	return nil, wait
}

// waiting reports whether a sample waits in sub's slot.
func (sub *agentSub) waiting() bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.has
}

// pictureQueueTime is how much queue pictures may build in the uplink beyond its round trip:
// a picture's part waits (and newer frames replace the waiting one) while the live
// connection has more unacknowledged than the link delivers in its round trip plus this. So
// the uplink's queue stays short for the feedback, control and the next picture, where
// pictures alone would fill it (BBR keeps about a round trip's worth queued, CUBIC the whole
// buffer). The window grows with what the link is measured to deliver.
const (
	pictureQueueTime = 30 * time.Millisecond
	pictureRetry     = 5 * time.Millisecond
)

// pictureRoom reports whether a picture's part may go now (pictureQueueTime).
func (l *liveSender) pictureRoom() bool {
	if l.s.a.cfg.NoLanes {
		return true
	}
	conn := l.s.conns.live.Load()
	if conn == nil {
		return true
	}
	q, ok := queueOf(conn)
	if !ok || q.rate == 0 {
		return true
	}
	window := max(2*link.LiveChunk, int(q.rate*int64(q.minRTT+pictureQueueTime)/int64(time.Second)))
	return q.bytes() < window
}

// smallSample is the largest sample of the feedback lane: one part, under 70 ms at 2 Mbit/s.
const smallSample = 16 << 10

// small reports whether sub's sample going out, or else the one waiting, is of the feedback
// lane. Called by the writer only.
func (sub *agentSub) small() bool {
	if sub.codec != "" {
		return false // access units are pictures, however small a P-frame is
	}
	if sub.sending != nil {
		return len(sub.sending.payload) <= smallSample
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.has && len(sub.pending.Payload) <= smallSample
}

// start begins sending sub's waiting sample if its rate allows; otherwise it lowers *wait to
// when it may. Called by the writer only.
func (sub *agentSub) start(now time.Time, wait *time.Duration, adapt bool) bool {
	sub.mu.Lock()
	if !sub.has {
		sub.mu.Unlock()
		return false
	}
	if d := sub.next.Sub(now); d > 0 {
		if *wait == 0 || d < *wait {
			*wait = d
		}
		sub.mu.Unlock()
		return false
	}
	smp, downsample, replaced := sub.pending, sub.downsample, sub.replaced
	sub.pending, sub.has, sub.replaced = fleetgate.Sample{}, false, 0
	select {
	case sub.taken <- struct{}{}:
	default:
	}
	if sub.rate > 0 {
		sub.next = now.Add(time.Duration(float64(time.Second) / sub.rate))
	}
	sub.mu.Unlock()
	payload := smp.Payload
	if downsample && smp.Type == output.PointCloudType {
		if p, err := output.DownsamplePointCloud(payload, output.DefaultMaxPoints); err == nil {
			payload = p
		}
	}
	switch {
	case !adapt || sub.vadapt == nil:
	case sub.stepping.Load():
		sub.vadapt.Hold(now) // the old rung's pictures, while the new one's encoder starts
	default:
		sub.vadapt.Count(1, replaced)
		if sub.vadapt.Decide(now) {
			sub.rung.Store(int32(sub.vadapt.Rung()))
		}
	}
	if adapt && smp.Type == imageType {
		// The step is decided here, by what went and what was dropped; the pictures are
		// shrunk as they arrive (follow), on their stream's goroutine, not the writer's.
		sub.adapt.sent++
		sub.adapt.dropped += replaced
		sub.adapt.decide(now)
	}
	sub.sending = &outgoing{smp: smp, payload: payload}
	return true
}

// budget caps the live connection's bytes per second with a token bucket a second's worth
// deep; nil: no cap.
type budget struct{ bytes *rate.Limiter }

func newBudget(bytesPerSecond int64) *budget {
	if bytesPerSecond <= 0 {
		return nil
	}
	return &budget{rate.NewLimiter(rate.Limit(bytesPerSecond), int(bytesPerSecond))}
}

// take waits until n bytes fit the budget; false when done closed meanwhile.
func (b *budget) take(n int, done <-chan struct{}) bool {
	if b == nil {
		return true
	}
	wait := b.reserve(time.Now(), n)
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false // the connection is over, and its budget with it
	}
}

// reserve takes n bytes at now and returns how long their sample waits: until the bucket holds
// them, or is full for a sample larger than a second's budget, whose bytes beyond that are
// owed at once (the samples after it wait them off) rather than refused.
func (b *budget) reserve(now time.Time, n int) time.Duration {
	burst := b.bytes.Burst()
	wait := b.bytes.ReserveN(now, min(n, burst)).DelayFrom(now)
	for owed := n - burst; owed > 0; owed -= burst {
		b.bytes.ReserveN(now, min(owed, burst))
	}
	return wait
}

// writeTimeout bounds one live frame's write: a connection that cannot take a frame for as
// long as the link may stay silent is broken.
func (s *session) writeTimeout() time.Duration {
	return time.Duration(link.MissedHeartbeats) * s.heartbeat
}
