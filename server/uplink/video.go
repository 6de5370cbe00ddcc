package uplink

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/video"
)

// An H.264 stream to the cloud changes rung make-before-break: the follower subscribes to
// an encoder of the new rung's settings while it still relays the old rung's pictures, and
// switches over at the new encoder's first keyframe of a picture no older than the last one
// relayed, dropping the old subscription then (which stops its encoder if nobody else
// watches it). ffmpeg takes 0.2 to 0.8 s to start, and the keyframe it starts with is the
// picture it was first given, by then older than the ones the old rung has relayed: the
// switch comes at its next keyframe, a KeyframeInterval after ffmpeg read its first picture
// (1.4 to 1.9 s after the step on this machine at load 10). Before, the old encoder stopped
// first and the viewer went without pictures for ffmpeg's start and more.
const (
	// switchWithin bounds how long the old rung is relayed once a step has begun: a step down
	// means the uplink cannot carry the old rung's bitrate, and it must not keep flooding the
	// link because the new encoder is slow to start. It is a little over what a normal
	// switch takes (above); past it the old rung's pictures stop and the new rung's next
	// keyframe goes. A new encoder that fails lets the old one's pictures go on whenever it
	// fails, before the bound or after.
	switchWithin = 2500 * time.Millisecond
	// rungRetry is how long after a new rung's encoder failed the follower tries again (at the
	// rung the ladder says then), relaying the old rung meanwhile: an encoder that cannot
	// start is not started again with every picture.
	rungRetry = 5 * time.Second
)

// followVideo reads an H.264 stream (LiveSubscribe.codec) into sub's slot, one access unit
// at a time: the next is taken from the subscription only when the writer has this one, so a
// slow uplink makes the subscription skip whole pictures to the next keyframe, before the
// uplink. The writer counts those skips on the stream's video.Adapter; when its rung changes,
// an encoded stream changes to an encoder of the new rung's settings (above), and a stream
// passed through sends keyframes only on the rungs that say so.
func (l *liveSender) followVideo(ctx context.Context, sub *agentSub, robotID string, robot fleet.Robot, key fleetgate.StreamKey) {
	r := &videoRelay{l: l, sub: sub, robotID: robotID, robot: robot, key: key, adapt: !l.s.a.cfg.NoLanes, rungs: l.rungs, clock: l.clock}
	if r.rungs == nil {
		r.rungs = video.Ladder
	}
	if r.clock == nil {
		r.clock = clock.Real()
	}
	// Where the pictures went, for the log: a viewer counts the gaps in sequence, and these say
	// which were the agent's (skipped before the uplink) and what the ladder cost.
	defer func() {
		st := &r.st
		l.s.a.log.Info("H.264 stream to the cloud ended", "robot", robotID, "stream", key.Name, "sent", st.sent,
			"skipped", st.skipped, "steps", st.steps, "switching", st.switching.Round(time.Millisecond), "rung", r.cur.rung)
	}()
	r.cur = &rungFeed{rung: int(sub.rung.Load())}
	var err error
	if r.cur.rs, r.cur.passed, err = r.subscribe(ctx, r.cur.rung); err != nil {
		l.ended(sub, err)
		return
	}
	defer func() {
		r.cur.rs.Close()
		if r.next != nil {
			r.next.rs.Close()
		}
	}()
	for {
		r.step(ctx)
		smp, err := r.picture(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.ended(sub, err)
			}
			return
		}
		sub.mu.Lock()
		sub.pending, sub.has = smp, true
		sub.mu.Unlock()
		select {
		case l.ready <- struct{}{}:
		default:
		}
		select {
		case <-sub.taken:
		case <-ctx.Done():
			return
		}
	}
}

// videoRelay is one H.264 stream's follower (followVideo).
type videoRelay struct {
	l       *liveSender
	sub     *agentSub
	robotID string
	robot   fleet.Robot
	key     fleetgate.StreamKey
	adapt   bool
	rungs   []video.Rung
	clock   clock.Clock
	st      videoStats

	cur *rungFeed // the rung whose pictures go
	// next is the rung being started (nil: none), and held its first keyframe of a picture
	// newer than the last relayed, which goes once cur has relayed the pictures before it.
	next    *rungFeed
	held    *fleetgate.Sample
	oldNext *fleetgate.Sample // taken from cur, not yet relayed: no older than held
	// curGone: cur ended while next started: next's first keyframe goes as soon as it comes.
	curGone bool
	// stopped is when cur's pictures stopped going before next's keyframe came (zero: they go).
	stopped time.Time
	retryAt time.Time // not before then is a failed rung's encoder started again

	lastTime time.Time // the picture relayed last
	lastSeq  uint64    // its number as the viewer sees it
}

// rungFeed is the stream at one rung: the subscription of an encoder of that rung's settings,
// or of the camera's own H.264 (passed).
type rungFeed struct {
	rs      *fleet.Subscription
	rung    int
	passed  bool
	since   time.Time // when it was subscribed to, as the next rung
	skipped uint64    // rs.Skipped() when last counted
	// The viewer's sequence goes on across a switch: a picture numbered seq in rs goes as
	// seq - first + from (the first feed keeps its source's numbers), so its gaps are the
	// pictures skipped before the uplink and nothing else.
	first, from uint64
}

// subscribe follows the stream at rung's settings.
func (r *videoRelay) subscribe(ctx context.Context, rung int) (*fleet.Subscription, bool, error) {
	settings := video.Settings{}
	if r.adapt {
		settings = r.rungs[rung].Settings
	}
	return r.l.s.a.cfg.Video.SubscribeAt(ctx, r.robotID, r.robot, r.key,
		fleetgate.SubscribeOptions{Codec: r.sub.codec, MaxWidth: r.sub.maxWidth}, settings)
}

// step starts the encoder of the rung the writer's adapter chose, when it is not cur's and
// none is starting; or gives up the one starting when the ladder came back to cur's rung.
func (r *videoRelay) step(ctx context.Context) {
	if !r.adapt || r.cur.passed {
		return
	}
	want := int(r.sub.rung.Load())
	if r.next != nil {
		// A rung that moves on while the next starts waits for it: restarting would never
		// finish on a link that keeps skipping, and the next step follows the switch.
		if want == r.cur.rung {
			r.dropNext()
		}
		return
	}
	now := r.clock.Now()
	if want == r.cur.rung || now.Before(r.retryAt) {
		return
	}
	rs, _, err := r.subscribe(ctx, want)
	if err != nil {
		r.nextFailed(now, want, err)
		return
	}
	r.next = &rungFeed{rs: rs, rung: want, since: now}
	r.sub.stepping.Store(true)
	r.l.s.a.log.Info("H.264 stream to the cloud steps", "robot", r.robotID, "stream", r.key.Name, "from", r.cur.rung, "to", want,
		"sent", r.st.sent, "skipped", r.st.skipped)
}

// dropNext gives up the rung being started; cur's pictures go again.
func (r *videoRelay) dropNext() {
	r.next.rs.Close()
	if !r.stopped.IsZero() {
		r.st.switching += r.clock.Now().Sub(r.stopped)
	}
	r.next, r.held, r.stopped = nil, nil, time.Time{}
	r.sub.stepping.Store(false)
}

// picture waits for the next access unit to relay: cur's, or next's first keyframe once cur
// has relayed the pictures before it (the switch).
func (r *videoRelay) picture(ctx context.Context) (fleetgate.Sample, error) {
	for {
		now := r.clock.Now()
		if r.next != nil {
			if err := r.watchNext(now); err != nil {
				return fleetgate.Sample{}, err
			}
		}
		oldStops := r.next != nil && (r.curGone || now.Sub(r.next.since) >= switchWithin)
		if oldStops && r.stopped.IsZero() {
			r.stopped = now
		}
		if !oldStops && r.oldNext == nil {
			r.takeOld()
		}
		switch {
		case r.held != nil && (oldStops || !r.held.Time.After(r.lastTime) || r.oldNext != nil && !r.oldNext.Time.Before(r.held.Time)):
			return r.switchOver(now), nil
		case r.oldNext != nil && !oldStops:
			smp := *r.oldNext
			r.oldNext = nil
			return r.relay(r.cur, smp), nil
		}
		if !r.curGone {
			select {
			case <-r.cur.rs.Done():
				if r.oldNext == nil && r.takeOld() {
					continue // it came with the end
				}
				if r.next == nil {
					return fleetgate.Sample{}, r.cur.rs.Err()
				}
				r.curGone = true // the old encoder failed: the next one's first keyframe goes
				continue
			default:
			}
		}
		var nextReady, nextDone <-chan struct{}
		if r.next != nil {
			nextReady, nextDone = r.next.rs.Ready(), r.next.rs.Done()
		}
		var curReady, curDone <-chan struct{}
		if !r.curGone {
			curReady, curDone = r.cur.rs.Ready(), r.cur.rs.Done()
		}
		select {
		case <-curReady:
		case <-curDone:
		case <-nextReady:
		case <-nextDone:
		case <-ctx.Done():
			return fleetgate.Sample{}, ctx.Err()
		}
	}
}

// takeOld takes cur's next access unit to relay, if one waits.
func (r *videoRelay) takeOld() bool {
	for {
		smp, ok := r.cur.rs.Take()
		if !ok {
			return false
		}
		if r.adapt && r.cur.passed && r.rungs[r.sub.rung.Load()].KeyframesOnly && !smp.Keyframe {
			continue // a camera passed through cannot be re-encoded: keyframes only
		}
		r.oldNext = &smp
		return true
	}
}

// watchNext takes the rung being started's access units up to its first keyframe of a picture
// no older than the last relayed, and gives the
// rung up when its encoder failed: the old one's pictures go on, and the step is tried again
// after rungRetry. An error: neither rung has pictures any more.
func (r *videoRelay) watchNext(now time.Time) error {
	for r.held == nil {
		smp, ok := r.next.rs.Take()
		if !ok {
			break
		}
		// The pictures before it are none of the viewer's: the old rung shows them. A keyframe
		// of the picture relayed last may go (the same picture again, at the new settings):
		// the old encoder, already running, has each picture out a little before the new one.
		// An older one never goes, not even once the old rung stopped going: the viewer's
		// pictures do not go back in time (a running encoder hands a new subscriber its last
		// keyframe, up to a KeyframeInterval old).
		if !smp.Keyframe || smp.Time.Before(r.lastTime) {
			continue
		}
		r.held = &smp
		r.next.skipped = r.next.rs.Skipped()
	}
	select {
	case <-r.next.rs.Done():
	default:
		return nil
	}
	err := r.next.rs.Err()
	rung := r.next.rung
	r.dropNext()
	r.nextFailed(now, rung, err)
	if r.curGone {
		return err
	}
	return nil
}

// nextFailed says that rung's encoder failed to start, and holds the next try for rungRetry.
func (r *videoRelay) nextFailed(now time.Time, rung int, err error) {
	r.l.s.a.log.Warn("H.264 stream to the cloud keeps its rung: the next rung's encoder failed", "robot", r.robotID, "stream", r.key.Name,
		"from", r.cur.rung, "to", rung, "err", err, "retry", rungRetry)
	r.retryAt = now.Add(rungRetry)
}

// switchOver makes the rung being started cur's, its held keyframe the picture that goes.
func (r *videoRelay) switchOver(now time.Time) fleetgate.Sample {
	old, key := r.cur, *r.held
	// The old rung's pictures before the keyframe that did not go (it stopped at switchWithin,
	// or was behind) are a gap: those it skipped since its last went, and those still waiting.
	// On a normal switch there are none.
	skipped := old.rs.Skipped() - old.skipped
	for waiting := r.oldNext; ; waiting = nil {
		if waiting == nil {
			smp, ok := old.rs.Take()
			if !ok {
				break
			}
			waiting = &smp
		}
		if !waiting.Time.Before(key.Time) {
			break
		}
		skipped++
	}
	old.rs.Close()
	r.cur, r.next = r.next, nil
	r.held, r.oldNext, r.curGone = nil, nil, false
	r.sub.stepping.Store(false)
	r.cur.first, r.cur.from = key.Seq, r.lastSeq+1+skipped
	r.st.steps++
	if !r.stopped.IsZero() {
		r.st.switching += now.Sub(r.stopped)
		r.stopped = time.Time{}
	}
	r.st.skipped += int(skipped)
	r.l.s.a.log.Debug("H.264 stream to the cloud switched rung", "robot", r.robotID, "stream", r.key.Name,
		"from", old.rung, "to", r.cur.rung, "after", now.Sub(r.cur.since).Round(time.Millisecond))
	return r.relay(r.cur, key)
}

// relay numbers smp of f for the viewer and counts what f skipped before it.
func (r *videoRelay) relay(f *rungFeed, smp fleetgate.Sample) fleetgate.Sample {
	n := f.rs.Skipped()
	skipped := int(n - f.skipped)
	f.skipped = n
	r.st.skipped += skipped
	r.st.sent++
	r.sub.mu.Lock()
	r.sub.replaced += skipped
	r.sub.mu.Unlock()
	smp.Seq = smp.Seq - f.first + f.from
	r.lastTime, r.lastSeq = smp.Time, smp.Seq
	return smp
}

// videoStats count where an H.264 stream's pictures went, for the log.
type videoStats struct {
	sent, skipped, steps int
	// switching is the time the viewer went without pictures while a step's new encoder
	// started: none when its keyframe came within switchWithin.
	switching time.Duration
}
