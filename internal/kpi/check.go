package kpi

import (
	"context"
	"sync"

	"github.com/fleetgate/fleetgate"
)

// checkWorkers bounds the re-checks in flight: the store's read pool is small (4), and a
// round of thousands of distinct tokens must not crowd out the REST requests or the ticks'
// own listings, so it takes half of it at most.
const checkWorkers = 2

// checkTokens re-checks every distinct (token, fleet) once: subscriptions of a revoked or
// expired token end with EUnauthorized (the socket closes 1008), and a token whose view changed
// (a membership added or removed) moves to the group of its new view.
func (h *Hub) checkTokens(ctx context.Context) {
	h.mu.Lock()
	keys := make([]tokenKey, 0, len(h.tokens))
	for k := range h.tokens {
		keys = append(keys, k)
	}
	h.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CheckTimeout)
	defer cancel()
	work := make(chan tokenKey)
	var wg sync.WaitGroup
	for range min(checkWorkers, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				h.checkToken(ctx, k)
			}
		}()
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
}

func (h *Hub) checkToken(ctx context.Context, k tokenKey) {
	view, err := h.cfg.Source.Recheck(ctx, k.token, k.fleet)
	switch {
	case fleetgate.Is(err, fleetgate.EUnauthorized):
		// Ended with the hub's words, not the check's (which may say more than a client
		// needs).
		h.endToken(k, fleetgate.Errorf(fleetgate.EUnauthorized, "token revoked or expired"))
	case err != nil:
		if ctx.Err() == nil {
			// Never the token itself in a log line.
			h.log.Warn("re-checking a KPI socket's token failed; keeping it", "fleet", k.fleet, "err", err)
		}
	default:
		h.regroup(k, view)
	}
}

// endToken ends every subscription of k.
func (h *Hub) endToken(k tokenKey, err error) {
	h.mu.Lock()
	subs := make([]*Subscriber, 0, len(h.tokens[k]))
	for s := range h.tokens[k] {
		subs = append(subs, s)
	}
	h.mu.Unlock()
	for _, s := range subs {
		s.end(err)
	}
}

// regroup moves k's subscribers to the group of view when their set changed.
func (h *Hub) regroup(k tokenKey, view View) {
	key := groupKey{fleet: k.fleet, view: view.key()}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.tokens[k] {
		if s.group != nil && s.group.key != key {
			h.leaveGroupLocked(s)
			h.joinLocked(s, view)
			s.frame.Swap(nil) // built for the old view: it may show a robot no longer visible
		}
	}
}
