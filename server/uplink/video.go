package uplink

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/video"
)

// followVideo reads an H.264 stream (LiveSubscribe.codec) into sub's slot, one access unit
// at a time: the next is taken from the subscription only when the writer has this one, so a
// slow uplink makes the subscription skip whole pictures to the next keyframe, before the
// uplink. The writer counts those skips on the stream's video.Adapter; when its rung changes,
// an encoded stream follows an encoder of the new rung's settings (its first picture a
// keyframe), and a stream passed through sends keyframes only on the rungs that say so.
func (l *liveSender) followVideo(ctx context.Context, sub *agentSub, robotID string, robot fleet.Robot, key fleetgate.StreamKey) {
	adapt := !l.s.a.cfg.NoLanes
	// Where the pictures went, for the log: a viewer counts the gaps in sequence, and these say
	// which were the agent's (skipped before the uplink) and what the ladder cost.
	var st videoStats
	defer func() {
		l.s.a.log.Info("H.264 stream to the cloud ended", "robot", robotID, "stream", key.Name, "sent", st.sent,
			"skipped", st.skipped, "steps", st.steps, "switching", st.switching.Round(time.Millisecond), "rung", sub.rung.Load())
	}()
	for {
		rung := int(sub.rung.Load())
		settings := video.Settings{}
		if adapt {
			settings = video.Ladder[rung].Settings
		}
		rs, passed, err := l.s.a.cfg.Video.SubscribeAt(ctx, robotID, robot, key,
			fleetgate.SubscribeOptions{Codec: sub.codec, MaxWidth: sub.maxWidth}, settings)
		if err != nil {
			l.ended(sub, err)
			return
		}
		again := l.relayVideo(ctx, sub, robotID, key, rs, passed, rung, adapt, &st)
		rs.Close()
		if !again {
			return
		}
	}
}

// relayVideo hands rs's access units to the writer until the stream ends (false) or, for an
// encoded stream, the rung moves away from rung (true: follow the new rung's encoder).
func (l *liveSender) relayVideo(ctx context.Context, sub *agentSub, robotID string, key fleetgate.StreamKey, rs *fleet.Subscription, passed bool, rung int, adapt bool, st *videoStats) bool {
	var skipped uint64
	for {
		smp, err := rs.Next(ctx)
		if !st.left.IsZero() {
			st.switching += time.Since(st.left)
			st.left = time.Time{}
		}
		if err != nil {
			if ctx.Err() == nil {
				l.ended(sub, err)
			}
			return false
		}
		now := int(sub.rung.Load())
		if adapt && !passed && now != rung {
			l.s.a.log.Info("H.264 stream to the cloud steps", "robot", robotID, "stream", key.Name, "from", rung, "to", now, "sent", st.sent, "skipped", st.skipped)
			st.steps++
			st.left = time.Now()
			return true
		}
		n := rs.Skipped()
		st.skipped += int(n - skipped)
		st.sent++
		sub.mu.Lock()
		sub.replaced += int(n - skipped)
		sub.mu.Unlock()
		skipped = n
		if adapt && passed && video.Ladder[now].KeyframesOnly && !smp.Keyframe {
			continue // a camera passed through cannot be re-encoded: keyframes only
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
			return false
		}
	}
}

// videoStats count where an H.264 stream's pictures went, for the log.
type videoStats struct {
	sent, skipped, steps int
	switching            time.Duration // without pictures while the next rung's encoder started
	left                 time.Time     // when the last rung was left
}
