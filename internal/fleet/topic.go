package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
)

// Topic fans the values of one output stream out to its subscribers, latest value wins:
// each subscriber holds at most one pending sample, and a newer one replaces it. A source
// publishes into a Topic and learns from OnActive when anyone listens, so it can skip the
// work (rendering, raycasting) nobody would read.
type Topic struct {
	typ string

	// activeMu orders the onActive calls as the subscriber set changed: a quick subscribe
	// and close must not reach the source as false, then true.
	activeMu sync.Mutex
	mu       sync.Mutex
	subs     map[*Subscription]struct{}
	last     fleetgate.Sample
	prevTime time.Time // of the sample before last, for the stream's period
	seq      uint64
	closed   error
	// onActive is told when the first subscriber arrives (true) and the last leaves (false).
	onActive func(active bool)
	now      func() time.Time // time.Now; tests set another

	// video marks a topic of H.264 access units (NewVideoTopic): gop holds the last keyframe
	// and the frames since, which a new subscriber gets first.
	video bool
	gop   []fleetgate.Sample
}

// Bounds of a video topic: the frames kept for a new subscriber (a longer group of pictures
// is not cached; new subscribers then wait for the next keyframe), and the frames a
// subscriber may have pending before it is behind by more than pictures are worth: it then
// skips to the next keyframe.
const (
	MaxGOP          = 300
	MaxVideoPending = 120
)

// VideoBehind is how long a video reader may have had frames waiting before a keyframe
// replaces them. Before, any frame still waiting when a keyframe came was let go: at the cloud,
// where a 2 Mbit/s uplink with 1% loss delivers a stall's pictures in a burst, that lost two
// pictures at a time from a viewer that was a few milliseconds behind (8 in 15 s).
const VideoBehind = 250 * time.Millisecond

// MaxCachedAge bounds the age of the latest sample a new subscriber gets at once: sensors of
// many sources compute only while someone reads, so the latest sample may be minutes old, and
// a viewer must not be shown it as live. A sample older than twice the stream's period (the
// gap between its last two samples), and never older than this, is not handed out; the
// subscriber waits for the next one. A latched sample (fleetgate.Sample.Latched) is handed
// out whatever its age: its publisher may never send another (a map).
const MaxCachedAge = time.Second

// NewTopic returns a topic of message type typ. onActive may be nil; it must not subscribe to
// or close this topic.
func NewTopic(typ string, onActive func(active bool)) *Topic {
	return &Topic{typ: typ, subs: map[*Subscription]struct{}{}, onActive: onActive, now: time.Now}
}

// NewVideoTopic returns a topic of H.264 access units (samples published with PublishFrame):
// its subscribers get every frame in order, never a frame whose reference they missed. A
// subscriber that falls behind skips whole frames to the next keyframe, and a new one starts
// with the last keyframe and the frames since, so that it has a picture at once.
func NewVideoTopic(typ string, onActive func(active bool)) *Topic {
	t := NewTopic(typ, onActive)
	t.video = true
	return t
}

// Type is the message type of the topic's samples.
func (t *Topic) Type() string { return t.typ }

// Publish stores payload as the latest sample and hands it to every subscriber. payload must
// not be modified afterwards.
func (t *Topic) Publish(payload []byte, at time.Time) fleetgate.Sample {
	return t.PublishLatched(payload, at, false)
}

// PublishLatched is Publish of a sample whose publisher says whether it keeps it for late
// joiners (fleetgate.Sample.Latched): a new subscriber gets a latched sample whatever its age.
func (t *Topic) PublishLatched(payload []byte, at time.Time, latched bool) fleetgate.Sample {
	return t.PublishNumbered(payload, at, latched, 0)
}

// PublishNumbered is PublishLatched of a sample numbered elsewhere: a relay (the cloud's end of
// an agent's live connection) keeps its source's numbers, so a viewer sees in the gaps what
// was dropped before the relay. Numbers only grow: a seq not above the last counts on from it
// (0 always does).
func (t *Topic) PublishNumbered(payload []byte, at time.Time, latched bool, seq uint64) fleetgate.Sample {
	return t.publish(fleetgate.Sample{Payload: payload, Time: at, Latched: latched}, seq)
}

// PublishFrame publishes an access unit of a video topic (NewVideoTopic), numbered as
// PublishNumbered numbers; key says it is a keyframe.
func (t *Topic) PublishFrame(payload []byte, at time.Time, key bool, seq uint64) fleetgate.Sample {
	return t.publish(fleetgate.Sample{Payload: payload, Time: at, Keyframe: key}, seq)
}

func (t *Topic) publish(s fleetgate.Sample, seq uint64) fleetgate.Sample {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq = max(t.seq+1, seq)
	s.Type, s.Seq = t.typ, t.seq
	t.prevTime = t.last.Time
	t.last = s
	if t.video {
		switch {
		case s.Keyframe:
			clear(t.gop)
			t.gop = append(t.gop[:0], s)
		case len(t.gop) > 0 && len(t.gop) < MaxGOP:
			t.gop = append(t.gop, s)
		default:
			clear(t.gop)
			t.gop = t.gop[:0]
		}
	}
	for sub := range t.subs {
		sub.offer(s)
	}
	return s
}

// DropCache forgets a video topic's cached frames: its publisher stopped, and nobody may be
// handed them as live again.
func (t *Topic) DropCache() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.gop)
	t.gop = nil
}

// Latest returns the last published sample, if any.
func (t *Topic) Latest() (fleetgate.Sample, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.seq > 0
}

// Subscribers is the number of open subscriptions.
func (t *Topic) Subscribers() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.subs)
}

// Subscribe opens a subscription. The latest sample, when there is one and it is latched or
// fresh (freshLocked), is pending at once so a new viewer does not wait a period for its first
// frame, nor forever for a map published once.
func (t *Topic) Subscribe() (*Subscription, error) {
	t.activeMu.Lock()
	defer t.activeMu.Unlock()
	t.mu.Lock()
	if t.closed != nil {
		err := t.closed
		t.mu.Unlock()
		return nil, err
	}
	sub := &Subscription{topic: t, ready: make(chan struct{}, 1), done: make(chan struct{})}
	switch {
	case t.video:
		sub.video, sub.waitKey, sub.depth = true, true, MaxVideoPending
		// A second, not two periods: the frames come in bursts from an encoder, later
		// than their pictures' times, and a group of pictures is no older than its keyframe
		// interval.
		if len(t.gop) > 0 && t.now().Sub(t.last.Time) <= MaxCachedAge {
			for _, s := range t.gop {
				sub.offer(s)
			}
		}
	case t.seq > 0 && (t.last.Latched || t.freshLocked()):
		sub.offer(t.last)
	}
	t.subs[sub] = struct{}{}
	first := len(t.subs) == 1
	t.mu.Unlock()
	if first && t.onActive != nil {
		t.onActive(true)
	}
	return sub, nil
}

// freshLocked reports whether the latest sample is recent enough to hand a new subscriber as
// live: younger than twice the stream's period and than MaxCachedAge. t.mu is held.
func (t *Topic) freshLocked() bool {
	maxAge := MaxCachedAge
	if !t.prevTime.IsZero() {
		if period := t.last.Time.Sub(t.prevTime); period > 0 && 2*period < maxAge {
			maxAge = 2 * period
		}
	}
	return t.now().Sub(t.last.Time) <= maxAge
}

// Close ends every subscription with err (EOffline when the robot goes away) and refuses
// new ones.
func (t *Topic) Close(err error) {
	t.activeMu.Lock()
	defer t.activeMu.Unlock()
	t.mu.Lock()
	if t.closed != nil {
		t.mu.Unlock()
		return
	}
	t.closed = err
	subs := t.subs
	t.subs = map[*Subscription]struct{}{}
	t.mu.Unlock()
	for sub := range subs {
		sub.end(err)
	}
	if len(subs) > 0 && t.onActive != nil {
		t.onActive(false)
	}
}

func (t *Topic) unsubscribe(sub *Subscription) {
	t.activeMu.Lock()
	defer t.activeMu.Unlock()
	t.mu.Lock()
	_, ok := t.subs[sub]
	delete(t.subs, sub)
	last := ok && len(t.subs) == 0
	t.mu.Unlock()
	if last && t.onActive != nil {
		t.onActive(false)
	}
}

// Subscription is one reader of a Topic with a one-sample slot.
type Subscription struct {
	topic *Topic
	ready chan struct{} // signalled when the slot fills
	done  chan struct{} // closed when the subscription ends

	mu      sync.Mutex
	pending fleetgate.Sample
	has     bool
	// With a buffer (Buffer), samples wait in queue, oldest first, up to depth.
	depth int
	queue []fleetgate.Sample
	err   error
	once  sync.Once
	// onReady, when set (OnReady), is called after each offer and at the end.
	onReady func()
	// video: a subscription of a video topic, whose queue holds whole pictures only; waitKey
	// says frames are skipped until the next keyframe.
	video, waitKey bool
	skipped        uint64    // frames let go, for tests and the uplink's adaptation
	behindSince    time.Time // when the video queue last went from empty to pending
}

// Type is the message type of the subscription's samples (its topic's).
func (s *Subscription) Type() string { return s.topic.typ }

// Skipped is how many samples a video subscription let go (to catch up at a keyframe).
func (s *Subscription) Skipped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// OnReady has f called, on the caller's goroutine, whenever a sample has been offered and when
// the subscription ends, instead of a reader waiting on Ready: a reader that is woken only
// when there is work keeps no goroutine (and no stack) while the stream is quiet. f must not
// block; it is called once at once if a sample is pending or the subscription has ended.
func (s *Subscription) OnReady(f func()) {
	s.mu.Lock()
	s.onReady = f
	now := s.has || len(s.queue) > 0 || s.err != nil
	s.mu.Unlock()
	if now {
		f()
	}
}

// Buffer lets the subscription hold up to n samples, oldest first, instead of only the
// latest one; when it is full, the oldest is let go. A recorder, which must not lose samples
// to a moment without CPU, asks for a few; live viewers keep the latest-wins slot.
func (s *Subscription) Buffer(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.video {
		return // a video subscription queues its pictures already
	}
	s.depth = max(n, 1)
	if s.depth > 1 && s.has {
		s.queue = append(s.queue, s.pending)
		s.pending, s.has = fleetgate.Sample{}, false
	}
}

func (s *Subscription) offer(sample fleetgate.Sample) {
	s.mu.Lock()
	if s.video {
		if !s.offerFrame(sample) {
			s.mu.Unlock()
			return
		}
	} else if s.depth > 1 {
		if len(s.queue) >= s.depth {
			n := copy(s.queue, s.queue[1:])
			s.queue[n] = fleetgate.Sample{}
			s.queue = s.queue[:n]
		}
		s.queue = append(s.queue, sample)
	} else {
		s.pending, s.has = sample, true
	}
	onReady := s.onReady
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
	if onReady != nil {
		onReady()
	}
}

// offerFrame queues an access unit of a video topic, s.mu held: latest wins by pictures. A
// keyframe replaces whatever is still pending when the reader has been behind for longer
// than VideoBehind (it jumps to it: nothing after it refers to what came before); a reader
// only as far behind as a burst of frames makes (a stalled TCP connection delivers what it
// held at once) takes them all, keyframe last. A frame after a skip waits for the next
// keyframe, and a reader MaxVideoPending frames behind lets them all go and waits for the
// next keyframe. It reports whether the frame was queued.
func (s *Subscription) offerFrame(sample fleetgate.Sample) bool {
	now := s.topic.now()
	switch {
	case sample.Keyframe && len(s.queue) > 0 && now.Sub(s.behindSince) <= VideoBehind:
		s.waitKey = false
	case sample.Keyframe:
		s.skipped += uint64(len(s.queue))
		clear(s.queue)
		s.queue = s.queue[:0]
		s.waitKey = false
	case s.waitKey:
		s.skipped++
		return false
	case len(s.queue) >= s.depth:
		s.skipped += uint64(len(s.queue)) + 1
		clear(s.queue)
		s.queue = s.queue[:0]
		s.waitKey = true
		return false
	}
	if len(s.queue) == 0 {
		s.behindSince = now
	}
	s.queue = append(s.queue, sample)
	return true
}

func (s *Subscription) end(err error) {
	s.once.Do(func() {
		s.mu.Lock()
		s.err = err
		onReady := s.onReady
		s.mu.Unlock()
		close(s.done)
		if onReady != nil {
			onReady()
		}
	})
}

// Ready is signalled when a sample is pending; call Take after it fires.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Done is closed when the subscription ends; Err says why.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err is why the subscription ended: context.Canceled after Close, EOffline when the
// source went away.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Take returns the pending sample and empties the slot (with a buffer: the oldest one).
func (s *Subscription) Take() (fleetgate.Sample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		sample := s.queue[0]
		n := copy(s.queue, s.queue[1:])
		s.queue[n] = fleetgate.Sample{}
		s.queue = s.queue[:n]
		return sample, true
	}
	sample, ok := s.pending, s.has
	s.pending, s.has = fleetgate.Sample{}, false
	return sample, ok
}

// Next waits for the next sample, the end of the subscription or of ctx.
func (s *Subscription) Next(ctx context.Context) (fleetgate.Sample, error) {
	for {
		if sample, ok := s.Take(); ok {
			return sample, nil
		}
		select {
		case <-s.ready:
		case <-s.done:
			if sample, ok := s.Take(); ok {
				return sample, nil
			}
			return fleetgate.Sample{}, s.Err()
		case <-ctx.Done():
			return fleetgate.Sample{}, ctx.Err()
		}
	}
}

// Close ends the subscription; the topic forgets it.
func (s *Subscription) Close() {
	s.end(context.Canceled)
	s.topic.unsubscribe(s)
}
