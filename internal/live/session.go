package live

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

const (
	// tokenCheckPeriod is how often a session re-checks its token, so revocation and expiry
	// end it within about a second.
	tokenCheckPeriod = time.Second
	// writeStall is how long one frame may take to leave before the client is cut off.
	writeStall = 15 * time.Second
)

// A controller is pinged every controllerPingEvery and let go when a ping goes unanswered for
// controllerPingTimeout: a client whose machine vanished (no FIN, no RST) or froze would
// otherwise keep the robot's control, and everybody else 409, until TCP gives up minutes later
// or its token expires. Browsers answer pings by themselves. (Atomic: tests shorten them.)
var controllerPingEvery, controllerPingTimeout atomicDuration

func init() {
	controllerPingEvery.Store(int64(5 * time.Second))
	controllerPingTimeout.Store(int64(10 * time.Second))
}

type atomicDuration struct{ atomic.Int64 }

func (d *atomicDuration) get() time.Duration { return time.Duration(d.Load()) }

// SetControllerPing shortens the controller pings (tests); the returned func restores them.
func SetControllerPing(every, timeout time.Duration) (restore func()) {
	oldEvery, oldTimeout := controllerPingEvery.get(), controllerPingTimeout.get()
	controllerPingEvery.Store(int64(every))
	controllerPingTimeout.Store(int64(timeout))
	return func() {
		controllerPingEvery.Store(int64(oldEvery))
		controllerPingTimeout.Store(int64(oldTimeout))
	}
}

// Sessions runs and tracks the W3 sessions, whose connections http.Server.Shutdown does not
// wait for (they are hijacked): Shutdown zeroes every driven robot, ends every session with
// errShutdown, then waits for them. It owns the shared encodings of the output streams.
type Sessions struct {
	log   *slog.Logger
	feeds output.Feeds

	mu       sync.Mutex
	open     map[*session]struct{}
	wg       sync.WaitGroup
	shutting bool
}

// NewSessions returns an empty tracker; log may be nil.
func NewSessions(log *slog.Logger) *Sessions {
	if log == nil {
		log = slog.Default()
	}
	return &Sessions{log: log, open: map[*session]struct{}{}}
}

func (ss *Sessions) add(s *session) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.shutting {
		return false
	}
	ss.open[s] = struct{}{}
	ss.wg.Add(1)
	return true
}

func (ss *Sessions) remove(s *session) {
	ss.mu.Lock()
	delete(ss.open, s)
	ss.mu.Unlock()
	ss.wg.Done()
}

// Shutdown ends every session (driven robots zeroed first) and waits for them, or ctx.
func (ss *Sessions) Shutdown(ctx context.Context) error {
	ss.mu.Lock()
	ss.shutting = true
	open := make([]*session, 0, len(ss.open))
	for s := range ss.open {
		open = append(open, s)
	}
	ss.mu.Unlock()
	// Every driven robot gets its zero at once, not one after another.
	var zeroed sync.WaitGroup
	for _, s := range open {
		zeroed.Go(func() { s.stop(errShutdown) })
	}
	zeroed.Wait()
	done := make(chan struct{})
	go func() { ss.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkNowWorkers bounds the re-checks CheckNow runs at once (they share the store's pool with
// every request).
const checkNowWorkers = 4

// CheckNow re-checks every session's token now rather than at its next period: a token was
// just revoked (here or on another replica), and its sockets must not outlive it by a period.
// It returns at once; the checks run in the background.
func (ss *Sessions) CheckNow() {
	ss.mu.Lock()
	open := make([]*session, 0, len(ss.open))
	for s := range ss.open {
		open = append(open, s)
	}
	ss.mu.Unlock()
	if len(open) == 0 {
		return
	}
	work := make(chan *session)
	for range min(checkNowWorkers, len(open)) {
		go func() {
			for s := range work {
				if s.recheck != nil && !s.stopped() {
					s.check(context.Background())
				}
			}
		}()
	}
	go func() {
		for _, s := range open {
			work <- s
		}
		close(work)
	}()
}

// Len is the number of open sessions.
func (ss *Sessions) Len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.open)
}

// Feeds is the number of streams with output sessions (tests and metrics).
func (ss *Sessions) Feeds() int { return ss.feeds.Len() }

// session is what output and input sessions share: the connection, the token re-check, the
// write-stall watch and the one stop.
type session struct {
	ss      *Sessions
	conn    Conn
	recheck Recheck
	// onStop runs once, first thing in stop: an input session zeroes its robot and releases
	// its lease there, before the client hears anything.
	onStop func()

	stopOnce sync.Once
	done     chan struct{} // closed by stop
	writing  atomicTime    // when the frame being written began; zero while none is
	// delay measures an input session's controller (governor.go).
	delay teleop.DelayMeter
}

func newSession(ss *Sessions, conn Conn, recheck Recheck) *session {
	return &session{ss: ss, conn: conn, recheck: recheck, done: make(chan struct{})}
}

// stop ends the session once with why: onStop first (a driven robot gets its zero), then the
// client its close code.
func (s *session) stop(why error) {
	s.stopOnce.Do(func() {
		close(s.done)
		if s.onStop != nil {
			s.onStop()
		}
		s.conn.End(why)
	})
}

// serve registers the session, runs body and the watch until the session ends, and waits for
// the close handshake. A session that arrives during shutdown ends at once.
func (s *session) serve(body func(ctx context.Context), watchInput func(ctx context.Context)) {
	if !s.ss.add(s) {
		s.refuse()
		return
	}
	s.run(body, watchInput)
}

// refuse ends a session that arrives during shutdown.
func (s *session) refuse() {
	s.stop(errShutdown)
	<-s.conn.Closed()
}

// run is serve for a registered session.
func (s *session) run(body func(ctx context.Context), watchInput func(ctx context.Context)) {
	defer s.ss.remove(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if watchInput != nil {
		go watchInput(ctx)
	}
	stopChecks := s.checkEvery(ctx, tokenCheckPeriod, s.check)
	defer stopChecks()
	body(ctx)
	<-s.conn.Closed()
}

// check ends the session when its token is revoked or expired, or a write stalls. It runs on a
// timer (checkEvery), not a goroutine of the session's own: an idle viewer costs no stack for it.
func (s *session) check(ctx context.Context) bool {
	checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := s.recheck(checkCtx)
	cancel()
	if isRevoked(err) {
		s.stop(err)
		return false
	}
	if since := s.writing.since(); since > writeStall {
		s.stop(errClientTooSlow)
		s.conn.Drop()
		return false
	}
	return true
}

// checkEvery calls check each period, on the timer's goroutine, until it returns false, ctx
// ends or the session stops; stop ends it (a check under way finishes, with ctx ended).
func (s *session) checkEvery(ctx context.Context, period time.Duration, check func(context.Context) bool) (stop func()) {
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	mu.Lock() // t is read under mu by its own function
	defer mu.Unlock()
	t = time.AfterFunc(period, func() {
		if ctx.Err() != nil || s.stopped() || !check(ctx) {
			return
		}
		mu.Lock()
		if !stopped {
			t.Reset(period)
		}
		mu.Unlock()
	})
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
	}
}

// every calls check each period until it returns false, ctx ends or the session stops.
func (s *session) every(ctx context.Context, period time.Duration, check func(context.Context) bool) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
		if !check(ctx) {
			return
		}
	}
}

// stopped reports whether stop has run.
func (s *session) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// atomicTime is a time read by the watch while the writer sets it.
type atomicTime struct {
	mu sync.Mutex
	t  time.Time
}

func (a *atomicTime) set(t time.Time) { a.mu.Lock(); a.t = t; a.mu.Unlock() }

func (a *atomicTime) since() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.t.IsZero() {
		return 0
	}
	return time.Since(a.t)
}
