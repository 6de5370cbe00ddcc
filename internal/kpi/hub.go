// Package kpi is the custom KPI hub behind the fleet KPI sockets (W1 on the cloud, W2 on the
// local gateway): once a second it reads the custom KPIs of every subscribed fleet's online
// robots, builds one frame for each distinct set of visible robots, marshalled once, and hands
// the same bytes to every subscriber of that set without ever waiting for one of them.
package kpi

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Defaults of Config.
const (
	// Period is the contract's collection rate; the hub never samples faster.
	Period = time.Second
	// DefaultReadTimeout bounds a tick's KPI reads, so one slow robot cannot hold the frame
	// of its fleet back by more than this.
	DefaultReadTimeout = 500 * time.Millisecond
	// DefaultStallTimeout is how long one frame may take to leave before the client is cut
	// off: the same patience as the live stream sockets.
	DefaultStallTimeout = 15 * time.Second
	// DefaultCheckTimeout bounds one round of token re-checks.
	DefaultCheckTimeout = 5 * time.Second
)

// Why a subscription ended (Subscriber.Err), besides the EUnauthorized of a token revoked
// or expired.
var (
	ErrStalled = errors.New("client stopped reading")
	ErrClosed  = errors.New("KPI hub stopped")
)

// Robot is an online robot of a fleet, as the hub reads it.
type Robot struct {
	ID   string
	Name string
	Live fleet.Robot
}

// View is what a subscriber may see of its fleet: every robot, or the robots listed.
type View struct {
	All    bool
	Robots []string // robot ids, when !All
}

// key identifies the set a view sees: subscribers with equal keys share their frames.
func (v View) key() string {
	if v.All {
		return "*"
	}
	ids := slices.Clone(v.Robots)
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), ",")
}

// Source is what the hub needs from the gateway core. The store and the robots may live in
// another process (a later cloud runs replicas), so every call takes a deadline.
type Source interface {
	// OnlineRobots lists the robots of fleetID that are connected now.
	OnlineRobots(ctx context.Context, fleetID string) ([]Robot, error)
	// Recheck authenticates token again and resolves what it may see of fleetID now. An
	// EUnauthorized error ends the token's subscriptions; any other error counts as transient.
	Recheck(ctx context.Context, token, fleetID string) (View, error)
}

// Config wires a Hub. Source is required.
type Config struct {
	Source Source
	// Ticks drives the hub; nil: one tick each Period, at the phase SetPhase says within the
	// wall clock's second. Tests inject their own.
	Ticks <-chan time.Time
	// ReadTimeout bounds the KPI reads of a tick (default DefaultReadTimeout).
	ReadTimeout time.Duration
	// StallTimeout is how long a write may last before its client is cut off.
	StallTimeout time.Duration
	// CheckTimeout bounds a round of token re-checks.
	CheckTimeout time.Duration
	// Now is the clock of stall detection; injectable for tests.
	Now    func() time.Time
	Logger *slog.Logger
}

// Hub fans custom KPI frames out to subscribers. Safe for concurrent use.
type Hub struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	closed bool
	groups map[groupKey]*group
	tokens map[tokenKey]map[*Subscriber]struct{}
	// members counts the subscriptions not yet closed, for the shutdown wait.
	members sync.WaitGroup
	// checkSoon asks Run's checker for a round of token checks now (CheckNow).
	checkSoon chan struct{}

	stats struct {
		ticks, frames, drops atomic.Uint64
	}
	// phase is where in each Period the hub ticks, after the wall clock's whole second.
	phase atomic.Int64
	// listedMu guards listed, each subscribed fleet's last listing that succeeded: a tick
	// whose listing fails (the store is down) frames the robots of that one, whose KPIs are
	// read live, rather than none.
	listedMu sync.Mutex
	listed   map[string][]Robot
}

// SetPhase has the hub tick phase after each whole second of the wall clock (modulo
// Period). Replicas of the cloud on one host tick at different phases, so their fan-outs take
// turns at the cores instead of all waking at once; a hub alone keeps phase 0.
func (h *Hub) SetPhase(phase time.Duration) {
	h.phase.Store(int64(((phase % Period) + Period) % Period))
}

// untilTick is how long from now until the next tick at the current phase.
func (h *Hub) untilTick(now time.Time) time.Duration {
	next := now.Truncate(Period).Add(time.Duration(h.phase.Load()))
	if !next.After(now) {
		next = next.Add(Period)
	}
	return next.Sub(now)
}

// ticker sends a tick at each Period's phase until ctx ends; a tick not taken in time is
// dropped, as a time.Ticker drops one.
func (h *Hub) ticker(ctx context.Context) <-chan time.Time {
	c := make(chan time.Time, 1)
	go func() {
		timer := time.NewTimer(h.untilTick(time.Now()))
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case at := <-timer.C:
				select {
				case c <- at:
				default:
				}
				timer.Reset(h.untilTick(time.Now()))
			}
		}
	}()
	return c
}

// groupKey names a distinct set of visible robots: a fleet and a view of it.
type groupKey struct {
	fleet string
	view  string
}

// group is the subscribers that see the same set, and so share one frame per tick.
type group struct {
	key  groupKey
	all  bool
	set  map[string]struct{} // the visible robot ids, when !all
	subs map[*Subscriber]struct{}
}

func (g *group) sees(robotID string) bool {
	if g.all {
		return true
	}
	_, ok := g.set[robotID]
	return ok
}

// tokenKey is what one re-check answers for: many kiosks share one token and one fleet.
type tokenKey struct {
	token string
	fleet string
}

// New returns a hub over cfg; Run makes it tick.
func New(cfg Config) *Hub {
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = DefaultCheckTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Hub{
		cfg:       cfg,
		log:       cfg.Logger,
		groups:    map[groupKey]*group{},
		tokens:    map[tokenKey]map[*Subscriber]struct{}{},
		checkSoon: make(chan struct{}, 1),
	}
}

// Request is a subscription to ask for.
type Request struct {
	FleetID string
	// Token is the bearer token behind the subscription, re-checked every tick.
	Token string
	View  View
	// Abort closes the subscriber's connection at once, without a close handshake; the hub
	// calls it when a write has stalled, since a writer blocked in the kernel cannot notice.
	Abort func()
}

// Subscribe adds a subscriber; frames reach it from the next tick on. ErrClosed once the hub
// has stopped. The caller must Close the subscriber.
func (h *Hub) Subscribe(req Request) (*Subscriber, error) {
	s := &Subscriber{
		hub:   h,
		token: tokenKey{token: req.Token, fleet: req.FleetID},
		abort: req.Abort,
		ready: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	h.joinLocked(s, req.View)
	subs := h.tokens[s.token]
	if subs == nil {
		subs = map[*Subscriber]struct{}{}
		h.tokens[s.token] = subs
	}
	subs[s] = struct{}{}
	h.members.Add(1)
	return s, nil
}

// joinLocked puts s in the group of its fleet and view, creating the group.
func (h *Hub) joinLocked(s *Subscriber, v View) {
	key := groupKey{fleet: s.token.fleet, view: v.key()}
	g := h.groups[key]
	if g == nil {
		g = &group{key: key, all: v.All, subs: map[*Subscriber]struct{}{}}
		if !v.All {
			g.set = make(map[string]struct{}, len(v.Robots))
			for _, id := range v.Robots {
				g.set[id] = struct{}{}
			}
		}
		h.groups[key] = g
	}
	g.subs[s] = struct{}{}
	s.group = g
}

// leaveGroupLocked takes s out of its group, dropping the group when it empties.
func (h *Hub) leaveGroupLocked(s *Subscriber) {
	g := s.group
	if g == nil {
		return
	}
	delete(g.subs, s)
	if len(g.subs) == 0 {
		delete(h.groups, g.key)
	}
	s.group = nil
}

// remove forgets s; Subscriber.Close calls it once.
func (h *Hub) remove(s *Subscriber) {
	h.mu.Lock()
	h.leaveGroupLocked(s)
	if subs := h.tokens[s.token]; subs != nil {
		delete(subs, s)
		if len(subs) == 0 {
			delete(h.tokens, s.token)
		}
	}
	h.mu.Unlock()
	h.members.Done()
}

// Stats are the hub's counters since it started.
type Stats struct {
	Subscribers int
	Groups      int
	Ticks       uint64
	Frames      uint64 // frames built (one per group and tick with something to say)
	Drops       uint64 // frames replaced before their subscriber took them
}

// Stats returns the hub's counters.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	n := 0
	for _, g := range h.groups {
		n += len(g.subs)
	}
	st := Stats{Subscribers: n, Groups: len(h.groups)}
	h.mu.Unlock()
	st.Ticks = h.stats.ticks.Load()
	st.Frames = h.stats.frames.Load()
	st.Drops = h.stats.drops.Load()
	return st
}

// CheckNow re-checks every subscription's token now rather than at the next tick: a token
// was just revoked (here or on another replica).
func (h *Hub) CheckNow() {
	select {
	case h.checkSoon <- struct{}{}:
	default: // one is pending already
	}
}

// shutdownWait is how long Run waits, once stopped, for the sockets to say goodbye (1001)
// before cutting off the ones that have not.
const shutdownWait = 3 * time.Second

// Run ticks until ctx ends, then ends every subscription with ErrClosed and waits (a few
// seconds at most) for their owners to close them.
func (h *Hub) Run(ctx context.Context) {
	ticks := h.cfg.Ticks
	if ticks == nil {
		tickCtx, stopTicks := context.WithCancel(ctx)
		defer stopTicks()
		ticks = h.ticker(tickCtx)
	}
	// Token checks run beside the ticks: a slow store must not delay frames beyond the
	// tick's read deadline. A tick waits for the round it started (until that deadline) so
	// that its frames follow the revocations and membership changes that round found.
	checkNow := make(chan chan struct{}, 1)
	var checker sync.WaitGroup
	checker.Add(1)
	go func() {
		defer checker.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case round := <-checkNow:
				h.checkTokens(ctx)
				close(round)
			case <-h.checkSoon:
				h.checkTokens(ctx)
			}
		}
	}()
	defer func() {
		checker.Wait()
		h.shutdown()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-ticks:
			round := make(chan struct{})
			select {
			case checkNow <- round:
			default: // a round is still running; it covers this tick
				round = nil
			}
			h.tick(ctx, at, round)
		}
	}
}

// shutdown ends every subscription and waits for them to close, cutting off stragglers.
func (h *Hub) shutdown() {
	h.mu.Lock()
	h.closed = true
	var all []*Subscriber
	for _, g := range h.groups {
		for s := range g.subs {
			all = append(all, s)
		}
	}
	h.mu.Unlock()
	for _, s := range all {
		s.end(ErrClosed)
	}
	done := make(chan struct{})
	go func() { h.members.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(shutdownWait):
	}
	for _, s := range all {
		s.abortNow()
	}
	select {
	case <-done:
	case <-time.After(shutdownWait):
		h.log.Warn("KPI sockets still open after shutdown")
	}
}
