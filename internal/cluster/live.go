package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/clusterpb"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

const (
	// interestEvery is how often a watching replica renews its interest in a stream; the
	// holder stops publishing after missedInterest renewals are missed.
	interestEvery  = time.Second
	missedInterest = 3
	// maxRelaysPerRobot bounds the relays one robot's viewers on a replica may open (one per
	// stream and set of options).
	maxRelaysPerRobot = 64
	// maxHeldRelays bounds the streams a holder publishes for the other replicas.
	maxHeldRelays     = 4096
	liveSubjectPrefix = "fleetgate.live."
)

// relayKey names one relay of a robot: a stream with the options its viewers asked for.
type relayKey struct {
	key  fleetgate.StreamKey
	opts fleetgate.SubscribeOptions
}

// subject is the NATS subject the holder publishes the relay's samples on, the same for every
// replica watching the stream with these options.
func (k relayKey) subject(robotID string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%g\x00%t\x00%d", k.key.Component, k.key.Name, k.key.Source, k.opts.MaxRate, k.opts.Downsample, k.opts.MaxWidth))
	return liveSubjectPrefix + robotID + "." + hex.EncodeToString(sum[:8])
}

// relay brings one stream of a robot held elsewhere to this replica's viewers: a topic they
// all subscribe to, fed from one NATS subscription while anyone watches.
type relay struct {
	r       *Robot
	k       relayKey
	topic   *fleet.Topic
	subject string
	cancel  context.CancelFunc // of the running feed; guarded by the topic's activity order
}

// Subscribe follows an output stream of the robot through its relay on this replica.
func (r *Robot) Subscribe(ctx context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return nil, err
	}
	typ := ""
	for _, s := range streams {
		if s.Key() == key {
			if s.Direction == fleetgate.Input {
				return nil, fleetgate.Errorf(fleetgate.ENotFound, "stream %s/%s is an input stream", key.Component, key.Name)
			}
			typ = s.Type
		}
	}
	if typ == "" {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no stream %s/%s", r.info.Name, key.Component, key.Name)
	}
	k := relayKey{key: key, opts: opts}
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return nil, fleetgate.Errorf(fleetgate.EOffline, "robot %q went offline", r.info.Name)
	}
	rl := r.topics[k]
	if rl == nil {
		if len(r.topics) >= maxRelaysPerRobot {
			r.mu.Unlock()
			return nil, unavailable("robot %q: %d streams are relayed to this replica already", r.info.Name, maxRelaysPerRobot)
		}
		rl = &relay{r: r, k: k, subject: k.subject(r.info.ID)}
		rl.topic = fleet.NewTopic(typ, rl.active)
		r.topics[k] = rl
	}
	r.mu.Unlock()
	return rl.topic.Subscribe()
}

// active starts the feed when the first viewer comes and stops it when the last one leaves
// (the topic orders these calls).
func (rl *relay) active(on bool) {
	if !on {
		if rl.cancel != nil {
			rl.cancel()
			rl.cancel = nil
		}
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	rl.cancel = cancel
	go rl.feed(ctx)
}

// feed takes the holder's samples into the topic and renews the interest every interestEvery
// until ctx ends, or the holder says the stream is gone (the relay then ends with its error).
func (rl *relay) feed(ctx context.Context) {
	n := rl.r.n
	sub, err := n.nc.Subscribe(rl.subject, func(m *nats.Msg) {
		s := &linkpb.Sample{}
		if proto.Unmarshal(m.Data, s) == nil {
			rl.topic.PublishLatched(s.GetPayload(), link.FromTime(s.GetTime()), s.GetLatched())
		}
	})
	if err != nil {
		rl.end(n.natsError(err, "robot "+quote(rl.r.info.Name)))
		return
	}
	defer sub.Unsubscribe()
	want, _ := proto.Marshal(&clusterpb.LiveInterest{
		RobotId: rl.r.info.ID, Key: link.KeyToWire(rl.k.key), Subject: rl.subject,
		MaxRate: rl.k.opts.MaxRate, Downsample: rl.k.opts.Downsample, MaxWidth: int32(rl.k.opts.MaxWidth),
	})
	tick := time.NewTicker(interestEvery)
	defer tick.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, interestEvery)
		msg, err := n.nc.RequestWithContext(rctx, liveSubject(rl.r.replica), want)
		cancel()
		if err == nil {
			resp := &linkpb.Response{}
			if proto.Unmarshal(msg.Data, resp) == nil && resp.GetError() != nil {
				if err := link.ErrorFromWire(resp.GetError()); !fleetgate.Is(err, fleetgate.EUnavailable) {
					rl.end(err) // the stream or the robot is gone there: the viewers learn why
					return
				}
			}
		} // a missed renewal is retried; a gone holder ends the robot (presence)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// end closes the relay with err and forgets it: the next viewer opens a new one.
func (rl *relay) end(err error) {
	rl.r.mu.Lock()
	if rl.r.topics[rl.k] == rl {
		delete(rl.r.topics, rl.k)
	}
	rl.r.mu.Unlock()
	rl.topic.Close(err)
}

// holder publishes the streams other replicas watch, one subject per stream and options,
// while their interest keeps coming.
type holder struct {
	n      *Node
	ctx    context.Context
	ready  chan struct{}
	mu     sync.Mutex
	relays map[string]*heldRelay // by subject
}

type heldRelay struct {
	cancel   context.CancelFunc
	interest atomic.Int64 // unix nanoseconds of the last renewal
}

func newHolder(n *Node) *holder {
	return &holder{n: n, relays: map[string]*heldRelay{}, ready: make(chan struct{})}
}

// run stops the relays nobody renewed, until ctx ends; then every relay.
func (h *holder) run(ctx context.Context) {
	h.mu.Lock()
	h.ctx = ctx
	h.mu.Unlock()
	close(h.ready)
	tick := time.NewTicker(interestEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		stale := h.n.now().Add(-missedInterest * interestEvery).UnixNano()
		h.mu.Lock()
		for subject, rel := range h.relays {
			if rel.interest.Load() < stale {
				rel.cancel()
				delete(h.relays, subject)
			}
		}
		h.mu.Unlock()
	}
}

// interest takes a renewal, or starts the relay a replica asks for.
func (h *holder) interest(m *nats.Msg) {
	li := &clusterpb.LiveInterest{}
	if err := proto.Unmarshal(m.Data, li); err != nil {
		h.n.reply(m, nil, fleetgate.Errorf(fleetgate.EInvalid, "a live interest that does not decode: %v", err))
		return
	}
	subject := li.GetSubject()
	if !strings.HasPrefix(subject, liveSubjectPrefix+li.GetRobotId()+".") || strings.ContainsAny(subject, " *>") {
		h.n.reply(m, nil, fleetgate.Errorf(fleetgate.EInvalid, "live subject %q is not the robot's", subject))
		return
	}
	h.mu.Lock()
	rel := h.relays[subject]
	if rel != nil {
		rel.interest.Store(h.n.now().UnixNano())
	}
	count := len(h.relays)
	h.mu.Unlock()
	if rel != nil {
		h.n.reply(m, &linkpb.Response{Result: &linkpb.Response_Done{Done: &linkpb.Empty{}}}, nil)
		return
	}
	if count >= maxHeldRelays {
		h.n.reply(m, nil, unavailable("replica %s relays %d streams already", h.n.cfg.Replica, count))
		return
	}
	go h.start(m, li) // subscribing may ask the agent: not on NATS's delivery goroutine
}

// start subscribes to the stream here and publishes it on the relay's subject.
func (h *holder) start(m *nats.Msg, li *clusterpb.LiveInterest) {
	<-h.ready
	robot, ok := h.n.cfg.Local.Robot(li.GetRobotId())
	if !ok {
		h.n.reply(m, nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is not held by replica %s", li.GetRobotId(), h.n.cfg.Replica))
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	opts := fleetgate.SubscribeOptions{MaxRate: li.GetMaxRate(), Downsample: li.GetDownsample(), MaxWidth: int(li.GetMaxWidth())}
	sub, err := robot.Subscribe(ctx, link.KeyFromWire(li.GetKey()), opts)
	if err != nil {
		cancel()
		h.n.reply(m, nil, err)
		return
	}
	rel := &heldRelay{cancel: cancel}
	rel.interest.Store(h.n.now().UnixNano())
	h.mu.Lock()
	if other := h.relays[li.GetSubject()]; other != nil {
		other.interest.Store(h.n.now().UnixNano()) // two first renewals raced: keep one
		h.mu.Unlock()
		cancel()
		sub.Close()
		h.n.reply(m, &linkpb.Response{Result: &linkpb.Response_Done{Done: &linkpb.Empty{}}}, nil)
		return
	}
	h.relays[li.GetSubject()] = rel
	h.mu.Unlock()
	h.n.reply(m, &linkpb.Response{Result: &linkpb.Response_Done{Done: &linkpb.Empty{}}}, nil)
	go h.forward(ctx, li.GetSubject(), sub, rel)
}

// forward publishes the subscription's samples until it or ctx ends.
func (h *holder) forward(ctx context.Context, subject string, sub *fleet.Subscription, rel *heldRelay) {
	defer func() {
		sub.Close()
		h.mu.Lock()
		if h.relays[subject] == rel {
			delete(h.relays, subject)
		}
		h.mu.Unlock()
	}()
	warned := false
	for {
		s, err := sub.Next(ctx)
		if err != nil {
			return // the next renewal learns why, and ends the watchers' relay
		}
		data, err := proto.Marshal(link.SampleToWire(s))
		if err != nil {
			continue
		}
		if int64(len(data)) > h.n.nc.MaxPayload() {
			if !warned {
				h.n.log.Warn("a live sample is larger than NATS max_payload: not relayed; raise max_payload", "subject", subject, "bytes", len(data), "max_payload", h.n.nc.MaxPayload())
				warned = true
			}
			continue
		}
		h.n.nc.Publish(subject, data)
	}
}
