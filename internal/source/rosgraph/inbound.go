package rosgraph

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
	"github.com/fleetgate/fleetgate/internal/video"
)

// errDropped ends a topic whose reader was dropped; nobody subscribes then, so nobody sees it.
var errDropped = errors.New("the topic's reader was dropped")

// inboundFor returns the reader of an output topic, made on first use; a topic that came back
// with another type gets a new one.
func (r *Robot) inboundFor(t Topic) (*inbound, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.online {
		return nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline", r.cfg.Info.Name)
	}
	in, ok := r.inbound[t.Name]
	if ok && in.topic.Type == t.Type {
		return in, nil
	}
	if ok {
		go in.shutdown(fleetgate.Errorf(fleetgate.ENotFound, "topic %s changed type", t.Name))
	}
	in = &inbound{r: r, topic: t, typ: t.streamType()}
	in.timer = time.AfterFunc(r.cfg.Linger, in.expire)
	if t.catalogType() != "" {
		c, err := r.transport.Codec(t.Type)
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.EUnavailable, "%s: %v", t.Name, err)
		}
		in.codec = c
	}
	r.inbound[t.Name] = in
	return in, nil
}

// inbound is an output topic being read: one transport reader however many subscribers, with
// the fleet.Topic that fans its messages out. The reader starts with the first subscriber and
// ends Linger after the last; its fleet.Topic goes with it, so a later subscriber never starts
// on a stale message.
type inbound struct {
	r     *Robot
	topic Topic
	typ   string        // sample type: catalog name or ROS type
	codec *rosmsg.Codec // nil: the transport's bytes, relayed as they are

	// lastUse (unix nanoseconds) and timer are touched without mu: the fleet.Topic calls
	// onActive under its own lock, which subscribe takes under mu.
	lastUse atomic.Int64
	timer   *time.Timer // drops the reader Linger after the last use; set once

	mu     sync.Mutex
	fanout *fleet.Topic
	reader Reader
	ended  error // set by shutdown: no new readers

	badLogged time.Time // rate limit of the decoding-error log line
}

// startLocked makes the transport's reader and its fleet.Topic if there are none. in.mu is
// held.
func (in *inbound) startLocked(ctx context.Context) error {
	if in.ended != nil {
		return in.ended
	}
	if in.fanout != nil {
		return nil
	}
	fanout := fleet.NewTopic(in.typ, in.onActive)
	if in.typ == video.Type {
		// H.264 access units: latest wins by pictures, as a pass-through camera's.
		fanout = fleet.NewVideoTopic(in.typ, in.onActive)
	}
	rd, err := in.r.transport.Subscribe(ctx, in.topic, func(msg []byte, latched bool) { in.deliver(fanout, msg, latched) })
	if err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "reading %s: %v", in.topic.Name, err)
	}
	in.fanout, in.reader = fanout, rd
	in.touch()
	return nil
}

// deliver converts a message to the catalog's type and publishes it on fanout, latched as its
// publisher said (a latched message reaches a viewer joining later, whatever its age). Bytes
// that do not decode are dropped with a log line (once a minute per topic), never a crash.
func (in *inbound) deliver(fanout *fleet.Topic, msg []byte, latched bool) {
	now := time.Now()
	payload := msg
	if in.codec != nil {
		var err error
		if payload, err = in.codec.ToCatalog(msg); err != nil {
			in.mu.Lock()
			logIt := now.Sub(in.badLogged) > time.Minute
			if logIt {
				in.badLogged = now
			}
			in.mu.Unlock()
			if logIt {
				in.r.log.Warn("dropping a message that does not decode (logged once a minute)", "topic", in.topic.Name, "type", in.topic.Type, "bytes", len(msg), "err", err)
			}
			return
		}
	}
	if in.typ == video.Type {
		fanout.PublishFrame(payload, now, video.PayloadIsKeyframe(payload), 0)
		return
	}
	fanout.PublishLatched(payload, now, latched)
}

func (in *inbound) subscribe(ctx context.Context) (*fleet.Subscription, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.startLocked(ctx); err != nil {
		return nil, err
	}
	in.touch()
	return in.fanout.Subscribe()
}

// onActive is the fleet.Topic's callback; it must not take in.mu (subscribe runs under it).
// The last subscriber leaving starts the linger.
func (in *inbound) onActive(active bool) {
	if !active {
		in.touch()
	}
}

// touch records a use and sets the timer to drop the reader Linger later.
func (in *inbound) touch() {
	in.lastUse.Store(time.Now().UnixNano())
	in.timer.Reset(in.r.cfg.Linger)
}

// expire drops the reader if nobody read the topic for Linger.
func (in *inbound) expire() {
	in.mu.Lock()
	if in.fanout == nil || in.fanout.Subscribers() > 0 {
		in.mu.Unlock()
		return // the last one leaving arms the timer again
	}
	if left := in.r.cfg.Linger - time.Since(time.Unix(0, in.lastUse.Load())); left > 0 {
		in.timer.Reset(left)
		in.mu.Unlock()
		return
	}
	fanout, rd := in.fanout, in.reader
	in.fanout, in.reader = nil, nil
	in.mu.Unlock()
	rd.Close()
	fanout.Close(errDropped)
	in.r.log.Debug("topic reader dropped: nobody reads it", "topic", in.topic.Name)
}

// shutdown ends the subscribers with err and the reader; the inbound takes no more.
func (in *inbound) shutdown(err error) {
	in.mu.Lock()
	in.ended = err
	fanout, rd := in.fanout, in.reader
	in.fanout, in.reader = nil, nil
	in.timer.Stop()
	in.mu.Unlock()
	if rd != nil {
		rd.Close()
	}
	if fanout != nil {
		fanout.Close(err)
	}
}

// latest is the live reader's last message, if there is one; it counts as a use.
func (in *inbound) latest() (fleetgate.Sample, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.fanout == nil {
		return fleetgate.Sample{}, false
	}
	in.touch()
	return in.fanout.Latest()
}

// kick starts the reader without waiting for a message, for callers that come back (the KPI
// hub asks every second) and take what is there.
func (in *inbound) kick(ctx context.Context) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.startLocked(ctx); err != nil {
		in.r.log.Debug("reading a topic for metrics", "topic", in.topic.Name, "err", err)
		return
	}
	in.touch()
}

func (in *inbound) read(ctx context.Context) (fleetgate.Sample, error) {
	if s, ok := in.latest(); ok {
		return s, nil
	}
	sub, err := in.subscribe(ctx)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	defer sub.Close()
	wait, cancel := context.WithTimeout(ctx, in.r.cfg.ReadTimeout)
	defer cancel()
	s, err := sub.Next(wait)
	if err == nil {
		return s, nil
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fleetgate.Sample{}, ctx.Err()
	}
	in.mu.Lock()
	rd := in.reader
	in.mu.Unlock()
	if rf, ok := rd.(Refuser); ok {
		if refused := rf.Refused(); refused != nil {
			return fleetgate.Sample{}, fleetgate.Errorf(fleetgate.EUnavailable, "%v", refused)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The graph answers, the topic stayed quiet until the caller's deadline or ReadTimeout:
		// not an unreachable robot.
		return fleetgate.Sample{}, fleet.NoSample(fleetgate.StreamKey{Name: in.topic.Name})
	}
	return fleetgate.Sample{}, err
}
