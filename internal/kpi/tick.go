package kpi

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// endedWriteGrace is how long a subscription that has ended (revoked, shut down) may stay in
// a write before the hub cuts the connection: its close frame cannot go out until the write
// returns, so a client that stopped reading would otherwise keep it for StallTimeout.
const endedWriteGrace = time.Second

// tick is one collection: read the KPIs of the robots some subscriber sees, build one frame
// per distinct set of visible robots with something to say, offer it to the subscribers that
// see that set, and cut off stalled writes. Reads and the fleet listing share one deadline, ReadTimeout after the tick began.
func (h *Hub) tick(ctx context.Context, at time.Time, checked <-chan struct{}) {
	h.stats.ticks.Add(1)
	fleets := h.subscribedFleets()
	var pieces map[string][]byte
	var online map[string][]Robot
	if len(fleets) > 0 {
		readCtx, cancel := context.WithTimeout(ctx, h.cfg.ReadTimeout)
		online = h.onlineRobots(readCtx, fleets)
		pieces = h.readAll(readCtx, h.visibleRobots(online), at)
		if checked != nil {
			select {
			case <-checked:
			case <-readCtx.Done(): // the store is slow: the frames go out; the round ends later
			}
		}
		cancel()
	}

	now := h.cfg.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	// Views that differ (memberships in other fleets, robots offline) may come to the same
	// set of robots in a frame: such groups share one frame too.
	built := map[string]*Frame{}
	for _, g := range h.groups {
		f := h.frameFor(g, online[g.key.fleet], pieces, at, built)
		for s := range g.subs {
			if f != nil && s.Err() == nil { // an ended one is being closed by its owner
				s.offer(f)
			}
			h.cutIfStalled(s, now)
		}
	}
}

// cutIfStalled aborts a subscriber whose write has lasted too long: StallTimeout, or
// endedWriteGrace once the subscription has ended.
func (h *Hub) cutIfStalled(s *Subscriber, now time.Time) {
	limit := h.cfg.StallTimeout
	select {
	case <-s.done:
		limit = min(limit, endedWriteGrace)
	default:
	}
	if s.stalled(now, limit) {
		s.abortNow()
	}
}

// subscribedFleets lists the fleets with at least one subscriber.
func (h *Hub) subscribedFleets() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var fleets []string
	for key := range h.groups {
		if !slices.Contains(fleets, key.fleet) {
			fleets = append(fleets, key.fleet)
		}
	}
	return fleets
}

// onlineRobots asks the source for each fleet's online robots, ordered as frames list them
// (by name, then id). A fleet whose listing fails (the store unreachable) keeps its last
// listing: the KPIs themselves come from the robots, which the store's outage does not stop,
// and a robot of that listing that went offline meanwhile has no KPIs to give. A fleet never
// listed is left out of this tick.
func (h *Hub) onlineRobots(ctx context.Context, fleets []string) map[string][]Robot {
	h.listedMu.Lock()
	defer h.listedMu.Unlock()
	online := make(map[string][]Robot, len(fleets))
	for _, f := range fleets {
		robots, err := h.cfg.Source.OnlineRobots(ctx, f)
		if err != nil {
			last, ok := h.listed[f]
			h.log.Warn("listing a fleet's robots for custom KPIs failed", "fleet", f, "err", err, "last_listing_kept", ok)
			if ok {
				online[f] = last
			}
			continue
		}
		slices.SortFunc(robots, func(a, b Robot) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
		online[f] = robots
	}
	h.listed = online // the fleets no one subscribes to any more are forgotten
	return online
}

// visibleRobots is every online robot that at least one group sees: the robots worth a read.
func (h *Hub) visibleRobots(online map[string][]Robot) []Robot {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Robot
	for fleetID, robots := range online {
		for _, r := range robots {
			for key, g := range h.groups {
				if key.fleet == fleetID && g.sees(r.ID) {
					out = append(out, r)
					break
				}
			}
		}
	}
	return out
}

// readAll reads every robot's KPIs at once and encodes each robot's updates, waiting until
// ctx's deadline at most: a robot that has not answered by then (or failed) is left out of
// this tick. A read that ignores its context finishes in the background, unheard.
func (h *Hub) readAll(ctx context.Context, robots []Robot, at time.Time) map[string][]byte {
	type result struct {
		id    string
		piece []byte
	}
	results := make(chan result, len(robots)) // buffered: late readers never block
	for _, r := range robots {
		go func() { results <- result{r.ID, h.readRobot(ctx, r, at)} }()
	}
	pieces := make(map[string][]byte, len(robots))
	for range robots {
		select {
		case res := <-results:
			if res.piece != nil {
				pieces[res.id] = res.piece
			}
		case <-ctx.Done():
			return pieces
		}
	}
	return pieces
}

// frameFor returns g's frame: the pieces of the robots it sees, in the fleet's order, built
// once per distinct set of robots (built holds this tick's frames by set); nil when it sees no
// online robot with a value.
func (h *Hub) frameFor(g *group, robots []Robot, pieces map[string][]byte, at time.Time, built map[string]*Frame) *Frame {
	size, n := 0, 0
	set := []byte(g.key.fleet)
	for _, r := range robots {
		if p := pieces[r.ID]; p != nil && g.sees(r.ID) {
			size += len(p) + 1
			n++
			set = append(append(set, 0), r.ID...)
		}
	}
	if n == 0 {
		return nil
	}
	if f := built[string(set)]; f != nil {
		return f
	}
	buf := make([]byte, 0, len(frameHead)+size+len(frameTail))
	buf = append(buf, frameHead...)
	first := true
	for _, r := range robots {
		if p := pieces[r.ID]; p != nil && g.sees(r.ID) {
			if !first {
				buf = append(buf, ',')
			}
			buf = append(buf, p...)
			first = false
		}
	}
	buf = append(buf, frameTail...)
	f := &Frame{Data: buf, At: at}
	built[string(set)] = f
	h.stats.frames.Add(1)
	return f
}
