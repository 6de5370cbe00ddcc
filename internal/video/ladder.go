package video

import "time"

// Encodings that fit an uplink (the agent's end of the cloud link, server/uplink). A stream
// watched through the cloud starts on the highest rung that fits the live budget; when the
// uplink drops pictures (its subscription skipped to a keyframe) it steps down: bitrate first,
// then frame rate, then resolution; once the uplink has carried every picture for a while it
// steps back up. A camera passed through cannot be re-encoded: below the second rung it
// sends keyframes only. A rung is an encoder of its own settings; the uplink changes to it
// make-before-break, relaying the old rung's pictures until the new encoder's first keyframe
// of a newer picture (server/uplink/video.go), so a step costs the viewer no picture.

// Ladder is the rungs, best first. KeyframesOnly applies to a stream passed through.
var Ladder = []Rung{
	{Settings: Settings{}},
	{Settings: Settings{Bitrate: 350_000}},
	{Settings: Settings{Bitrate: 200_000}, KeyframesOnly: true},
	{Settings: Settings{Bitrate: 200_000, MaxRate: 10}, KeyframesOnly: true},
	{Settings: Settings{Bitrate: 150_000, MaxRate: 5}, KeyframesOnly: true},
	{Settings: Settings{Bitrate: 100_000, MaxRate: 5, Width: 480}, KeyframesOnly: true},
	{Settings: Settings{Bitrate: 80_000, MaxRate: 5, Width: 320}, KeyframesOnly: true},
}

// Rung is one step of the ladder.
type Rung struct {
	Settings
	KeyframesOnly bool
}

// bitrate is the rung's bits per second.
func (r Rung) bitrate() int {
	if r.Bitrate > 0 {
		return r.Bitrate
	}
	return DefaultBitrate
}

const (
	// adaptEvery is how often the rung is reconsidered.
	adaptEvery = time.Second
	// stepDownSkips is the share of pictures skipped, over adaptEvery, that steps down.
	stepDownSkips = 0.1
	// stepUpAfter is how long every picture must have gone before a step up, at first; a
	// step up that comes down again within probeFails doubles it, up to stepUpAfterMax.
	stepUpAfter    = 4 * time.Second
	stepUpAfterMax = time.Minute
	probeFails     = 3 * time.Second
)

// Adapter is one stream's place on the Ladder. Not safe for concurrent use: its writer
// decides. Times are the caller's (a clock tests inject).
type Adapter struct {
	rung      int
	top       int // the best rung the budget allows
	sent      int
	skipped   int
	decided   time.Time
	cleanFrom time.Time
	upAfter   time.Duration
	steppedUp time.Time
}

// NewAdapter starts on the best rung whose bitrate fits budget bytes per second (0: any).
func NewAdapter(budget int64) *Adapter {
	a := &Adapter{upAfter: stepUpAfter}
	if budget > 0 {
		for a.top < len(Ladder)-1 && int64(Ladder[a.top].bitrate()) > budget*8 {
			a.top++
		}
	}
	a.rung = a.top
	return a
}

// Rung is the current rung's index in Ladder.
func (a *Adapter) Rung() int { return a.rung }

// Count records pictures that went and pictures skipped since the last call.
func (a *Adapter) Count(sent, skipped int) {
	a.sent += sent
	a.skipped += skipped
}

// Hold starts the adapter's account afresh at now, for the writer to call while the stream
// changes rung: the pictures going are still the old rung's (the new encoder is starting), so
// their skips say nothing of the new rung, and a step down counted from them would overshoot
// the ladder. A step up proves itself (probeFails) from its first picture.
func (a *Adapter) Hold(now time.Time) {
	if !a.steppedUp.IsZero() && a.steppedUp.Equal(a.cleanFrom) {
		a.steppedUp = now // the last move was that step up
	}
	a.sent, a.skipped, a.decided, a.cleanFrom = 0, 0, now, now
}

// Decide moves the rung by what the last adaptEvery saw, and reports whether it moved.
func (a *Adapter) Decide(now time.Time) bool {
	if a.decided.IsZero() {
		a.decided, a.cleanFrom = now, now
		return false
	}
	if now.Sub(a.decided) < adaptEvery {
		return false
	}
	was := a.rung
	total := a.sent + a.skipped
	switch {
	case total > 0 && float64(a.skipped)/float64(total) > stepDownSkips:
		a.rung = min(a.rung+1, len(Ladder)-1)
		a.cleanFrom = now
		if !a.steppedUp.IsZero() && now.Sub(a.steppedUp) <= probeFails {
			a.upAfter = min(2*a.upAfter, stepUpAfterMax)
		}
	case a.skipped > 0:
		a.cleanFrom = now
	case a.rung > a.top && now.Sub(a.cleanFrom) >= a.upAfter:
		a.rung--
		a.cleanFrom, a.steppedUp = now, now
	}
	a.sent, a.skipped, a.decided = 0, 0, now
	return a.rung != was
}
