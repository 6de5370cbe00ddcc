package live

import (
	"context"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// Output is an authorised output stream, as the core hands it out after its checks.
type Output interface {
	// RobotID names the robot whose stream encodings are shared by its sessions.
	RobotID() string
	// Subscribe resolves the stream and follows it, latest sample wins. Its error's code says
	// why not: ENotFound or EInvalid, no such output stream (closes 1008); any other, the
	// stream cannot be followed now (1011).
	Subscribe(ctx context.Context, opts fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error)
}

// OutputOptions are a client's choices for an output session.
type OutputOptions struct {
	Format     output.Format
	Downsample bool    // point clouds to output.DefaultMaxPoints (withoutDownSampling=false)
	MaxRate    float64 // frames per second at most; 0: as they come
}

// StartOutput subscribes to src and relays it to conn until the session ends, on goroutines
// of its own; it returns once the session is registered (Shutdown waits for it), so that the
// upgrade handler returns: its goroutine has grown a deep stack through the middleware and
// holds the request, which an idle viewer must not keep. Frames are encoded once per sample
// and variant for every session of the stream; a slow client skips to the newest sample
// rather than queueing old ones.
//
// An idle viewer costs one goroutine, the one reading its connection (control frames, the
// close handshake), which owns the session and ends it. Frames are written by a goroutine
// started when a sample is offered (relay.kick) that ends when none is left, so a quiet
// stream's thousand viewers keep a thousand stacks fewer.
func (ss *Sessions) StartOutput(conn Conn, src Output, opt OutputOptions, recheck Recheck) {
	s := newSession(ss, conn, recheck)
	if !ss.add(s) {
		go s.refuse()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	stream, sub, err := src.Subscribe(ctx, fleetgate.SubscribeOptions{MaxRate: opt.MaxRate, Downsample: opt.Downsample})
	if err != nil {
		s.stop(outputRefused(err))
		go func() {
			defer ss.remove(s)
			<-conn.Closed()
			cancel()
		}()
		return
	}
	feed, release := ss.feeds.Get(src.RobotID(), stream)
	pace := opt.MaxRate
	if sub.Type() == output.VideoType {
		// Pacing holds a frame and sends a newer one instead: of H.264 access units, that would
		// lose a picture that the next ones refer to. A video subscription drops whole pictures
		// to the next keyframe itself.
		pace = 0
	}
	r := &relay{s: s, sub: sub, feed: feed, variant: output.Variant{Format: opt.Format, Downsample: opt.Downsample},
		text: opt.Format == output.JSON, pacer: output.NewPacer(pace)}
	r.drainFn = r.drain
	go func() {
		defer ss.remove(s)
		defer cancel()
		stopChecks := s.checkEvery(ctx, tokenCheckPeriod, s.check)
		sub.OnReady(r.kick)
		s.readDiscarding()
		r.end()
		stopChecks()
		sub.Close()
		release()
		<-conn.Closed()
	}()
}

// readDiscarding reads an output session's connection for its control frames (pings, the
// close handshake) until it ends, and ends the session on a data frame, as the contract wants.
// No context: the connection's end (the close handshake, Drop, the client) ends the read.
func (s *session) readDiscarding() {
	if _, _, err := s.conn.Read(context.Background(), nil); err == nil || fleetgate.Is(err, fleetgate.ETooLarge) {
		s.stop(errDataOnOutput)
	} else {
		s.stop(errClientGone)
	}
}

// relay writes a subscription's samples to a session. At most one goroutine writes at a time
// (running); kick starts one when a sample is offered and none runs, or tells the running one
// to look again.
type relay struct {
	s       *session
	sub     *fleet.Subscription
	feed    *output.Feed
	variant output.Variant
	text    bool
	pacer   *output.Pacer // the writer's

	mu       sync.Mutex
	running  bool        // a writer goroutine (or a pacing timer) has the relay
	again    bool        // a sample was offered while running
	ended    bool        // the session is over: no more writers
	paceWait *time.Timer // while a paced writer waits
	held     fleetgate.Sample
	busy     sync.WaitGroup // the writer, for end
	drainFn  func()         // r.drain, made once: a go statement of a method value allocates

	// A relay that is one of a session's several (a Foxglove subscription) writes through
	// send, which frames the sample for its client, and ends with fail rather than the
	// session. nil: the relay is the session (W3).
	send func(output.Frame, fleetgate.Sample) error
	fail func(why error)
}

// stop ends what the relay serves with why: its session, or its part of one (fail).
func (r *relay) stop(why error) {
	if r.fail != nil {
		r.fail(why)
		return
	}
	r.s.stop(why)
}

// kick is the subscription's OnReady.
func (r *relay) kick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.ended:
	case r.running:
		r.again = true
	default:
		r.running = true
		r.busy.Add(1)
		go r.drainFn()
	}
}

// end stops the writers and waits for the one running, if any.
func (r *relay) end() {
	r.mu.Lock()
	r.ended = true
	if r.paceWait != nil && r.paceWait.Stop() {
		r.paceWait = nil
		r.running = false
		r.busy.Done()
	}
	r.mu.Unlock()
	r.busy.Wait()
}

type step int

const (
	stepDone    step = iota // found no sample
	stepWrote               // wrote a sample: another may be waiting (a video subscription queues)
	stepStopped             // the session is over
	stepPaced               // a timer writes the sample later (pace)
)

// drain writes pending samples until none is left, then lets its goroutine go. It takes
// until the subscription has none: a video subscription queues its pictures, and a burst
// offered while one was being written (a stalled uplink's backlog) stayed behind, one picture
// written per picture offered, until a keyframe let them go.
func (r *relay) drain() {
	for {
		r.mu.Lock()
		r.again = false
		r.mu.Unlock()
		switch r.step() {
		case stepPaced:
			return // the timer has the relay now
		case stepStopped:
			r.release()
			return
		case stepWrote:
			continue
		}
		r.mu.Lock()
		if r.again && !r.ended {
			r.mu.Unlock()
			continue
		}
		r.running = false
		r.mu.Unlock()
		r.busy.Done()
		return
	}
}

func (r *relay) release() {
	r.mu.Lock()
	r.running = false
	r.mu.Unlock()
	r.busy.Done()
}

// step writes the pending sample, if any.
func (r *relay) step() step {
	if r.s.stopped() {
		return stepStopped
	}
	sample, ok := r.sub.Take()
	if !ok {
		select {
		case <-r.sub.Done():
			r.stop(sourceFailed(r.sub.Err()))
			return stepStopped
		default:
			return stepDone
		}
	}
	if wait := r.pacer.Wait(time.Now()); wait > 0 {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.ended {
			return stepStopped
		}
		r.held = sample
		r.paceWait = time.AfterFunc(wait, r.paced)
		return stepPaced
	}
	return r.write(sample)
}

// paced writes the sample held for the pace, or a newer one (latest wins across the wait),
// then drains as usual. It runs on the timer's goroutine, which has the relay.
func (r *relay) paced() {
	r.mu.Lock()
	sample := r.held
	r.held, r.paceWait = fleetgate.Sample{}, nil
	r.mu.Unlock()
	if newer, ok := r.sub.Take(); ok {
		sample = newer
	}
	if r.s.stopped() || r.write(sample) == stepStopped {
		r.release()
		return
	}
	r.drain()
}

func (r *relay) write(sample fleetgate.Sample) step {
	frame, err := r.feed.Frame(sample, r.variant)
	if err != nil {
		r.stop(frameFailed(err))
		return stepStopped
	}
	if r.send != nil {
		err = r.send(frame, sample)
	} else {
		r.s.writing.set(time.Now())
		err = r.s.conn.Write(frame, r.text)
		r.s.writing.set(time.Time{})
	}
	if err != nil {
		r.s.stop(errClientGone)
		return stepStopped
	}
	r.pacer.Sent(time.Now())
	return stepWrote
}
