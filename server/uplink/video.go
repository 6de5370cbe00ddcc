package uplink

import (
	"context"

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
		again := l.relayVideo(ctx, sub, rs, passed, rung, adapt)
		rs.Close()
		if !again {
			return
		}
	}
}

// relayVideo hands rs's access units to the writer until the stream ends (false) or, for an
// encoded stream, the rung moves away from rung (true: follow the new rung's encoder).
func (l *liveSender) relayVideo(ctx context.Context, sub *agentSub, rs *fleet.Subscription, passed bool, rung int, adapt bool) bool {
	var skipped uint64
	for {
		smp, err := rs.Next(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.ended(sub, err)
			}
			return false
		}
		now := int(sub.rung.Load())
		if adapt && !passed && now != rung {
			return true
		}
		n := rs.Skipped()
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
