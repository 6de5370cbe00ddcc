package cloud

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Whether the agent answers, within 2 s, while anyone needs to know.
//
// The link's heartbeats (every 5 s; three missed end it) decide presence, and they are too
// slow for what an operator is told while watching or driving: a frozen agent (SIGSTOP, a hung
// machine, a cable cut without FIN or RST) kept "live · driving" on the cloud's panel for 15 s
// while its deadman had stopped the robot. So while a cloud viewer watches one of the agent's
// robots, a cloud operator drives one, or a page asked for a robot's state (Confirm) within
// confirmKeep, the cloud pings the link and the live connection every pingEvery. An agent
// that sent nothing (no frame, no pong) for silentAfter on either has stopped answering: its
// cloud viewers and controllers end at once, in words, and until it answers again its robots'
// requests fail at once and Confirm says how long it has been silent (the panel shows the
// robot's state as not confirmed). The link stays up: a stall of a second or two does not
// take the robots offline and back, which would churn their records; the heartbeats still
// end a link silent for 15 s.

const (
	// pingEvery is how often each connection is pinged while someone needs an answer.
	pingEvery = 500 * time.Millisecond
	// silentAfter without a frame or pong is an agent that stopped answering: with pongs
	// every pingEvery, a healthy agent has sent two by then; and detection (at most
	// silentAfter plus answerCheck after the freeze) leaves room within the 2 s the panel
	// may show a state it has not confirmed.
	silentAfter = 1500 * time.Millisecond
	// answerCheck is how often the answers are checked while someone needs them, idleCheck
	// otherwise (a new viewer, controller or Confirm starts the pings at once).
	answerCheck = 100 * time.Millisecond
	idleCheck   = time.Second
	// confirmKeep is how long one Confirm keeps the pings going: a page refreshing a robot's
	// state every second keeps them going while it is open, and they stop soon after.
	confirmKeep = 5 * time.Second
)

// stoppedAnsweringWords end what a frozen agent's cloud viewers and controllers were doing,
// for the operator: what happened, and that the robot is safe (the agent's deadman zeroes a
// driven robot 500 ms after the last command it received, whatever the cloud does).
const stoppedAnsweringWords = "the robot's gateway stopped answering; it stops the robot by itself"

// answers is a session's bookkeeping of confirm.go.
type answers struct {
	silent       atomic.Bool  // the agent stopped answering on the link, and has not answered since
	watchedUntil atomic.Int64 // unix nanoseconds: a Confirm keeps the pings going until then
	wake         chan struct{}
	linkPing     atomic.Bool // a ping in flight on the link
	livePing     atomic.Bool // and on the live connection

	mu   sync.Mutex
	pong chan struct{} // closed (and replaced) at each pong on the link
}

func newAnswers() *answers {
	return &answers{wake: make(chan struct{}, 1), pong: make(chan struct{})}
}

// poke starts the pings now: someone needs the agent's answers.
func (a *answers) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *answers) nextPong() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pong
}

func (a *answers) ponged() {
	a.mu.Lock()
	close(a.pong)
	a.pong = make(chan struct{})
	a.mu.Unlock()
}

var _ fleet.Confirmer = (*RemoteRobot)(nil)

// Confirm is fleet.Confirmer: when the robot's agent last answered on the link.
func (r *RemoteRobot) Confirm(ctx context.Context) time.Time { return r.s.confirm(ctx) }

func (s *session) confirm(ctx context.Context) time.Time {
	now := s.acc.now()
	s.ans.watchedUntil.Store(now.Add(confirmKeep).UnixNano())
	heard := time.Unix(0, s.lastHeard.Load())
	if now.Sub(heard) <= silentAfter || s.ans.silent.Load() {
		return heard
	}
	// Nobody asked for a while, so the last word may be a heartbeat seconds old: ask now.
	pong := s.ans.nextPong()
	s.ans.poke()
	select {
	case <-pong:
	case <-ctx.Done():
	case <-s.done:
	}
	return time.Unix(0, s.lastHeard.Load())
}

// notAnswering is the error of a request or a new viewer while the agent does not answer.
func (s *session) notAnswering(r *RemoteRobot) error {
	return fleetgate.Errorf(fleetgate.EUnavailable, "robot %q does not answer: %s", r.info.Name, stoppedAnsweringWords)
}

// watched reports whether anyone needs to know now that the agent answers.
func (s *session) watched(now time.Time) bool {
	return now.UnixNano() < s.ans.watchedUntil.Load() || s.hasControls() || s.live.watched()
}

// watchAnswers pings the agent while it is watched and ends its cloud viewers and controllers
// when it stops answering (see the top of this file). It runs for the session's life.
func (s *session) watchAnswers() {
	ctx, cancel := context.WithCancel(context.Background())
	var pings sync.WaitGroup
	defer pings.Wait()
	defer cancel() // before the Wait: pings waiting for a pong end with the session
	check := time.NewTimer(idleCheck)
	defer check.Stop()
	var since, lastPing time.Time // since: when this round of pinging began (zero: idle)
	for {
		select {
		case <-s.done:
			return
		case <-check.C:
		case <-s.ans.wake:
		}
		now := s.acc.now()
		heard := time.Unix(0, s.lastHeard.Load())
		if s.ans.silent.Load() && now.Sub(heard) < silentAfter {
			s.ans.silent.Store(false)
			s.log.Info("agent answers again")
		}
		if !s.watched(now) {
			since = time.Time{}
			check.Reset(idleCheck)
			continue
		}
		check.Reset(answerCheck)
		if since.IsZero() {
			since = now // answers from before were not asked for: silence counts from now
		}
		live := s.live.current()
		if now.Sub(lastPing) >= pingEvery {
			lastPing = now
			s.ping(ctx, &pings, s.conn, &s.ans.linkPing, &s.lastHeard, true)
			if live != nil {
				s.ping(ctx, &pings, live, &s.ans.livePing, &s.live.heard, false)
			}
		}
		if s.ans.silent.Load() {
			continue // told already
		}
		if quiet := now.Sub(later(heard, since)); quiet > silentAfter {
			s.ans.silent.Store(true)
			s.log.Warn("agent stopped answering: ending its cloud viewers and controls", "silent_for", now.Sub(heard).Round(time.Millisecond))
			s.endWatching()
			continue
		}
		if live != nil {
			liveHeard := time.Unix(0, s.live.heard.Load())
			if quiet := now.Sub(later(liveHeard, since)); quiet > silentAfter {
				// The link answers but the live connection does not: it is broken (a frozen
				// agent is seen on the link within the same check or the next). Its viewers
				// and controllers end the same way, since an operator driving without a
				// picture is not told the truth either; the agent opens a new one.
				s.log.Warn("agent live connection stopped answering: closing it", "silent_for", quiet.Round(time.Millisecond))
				s.endWatching()
			}
		}
	}
}

// endWatching ends the agent's cloud viewers and controllers with stoppedAnsweringWords, and
// drops its live connection: the streams it follows there for the viewers that end now would
// come back stale when it answers again. No close handshake: a frozen agent cannot answer one.
func (s *session) endWatching() {
	why := fleetgate.Errorf(fleetgate.EUnavailable, "%s", stoppedAnsweringWords)
	s.endControlsWith(why, true)
	s.endStreams(why, func(conn *websocket.Conn) { conn.CloseNow() })
}

// ping pings conn unless a ping is in flight there already, and records when the pong came
// in heard. The ping may wait as long as the link's writes may (writeTimeout): its context
// ending while the ping is written would close the connection (coder/websocket's rule), and
// silence is judged from heard, not from the ping's error.
func (s *session) ping(ctx context.Context, pings *sync.WaitGroup, conn *websocket.Conn, inFlight *atomic.Bool, heard *atomic.Int64, onLink bool) {
	if !inFlight.CompareAndSwap(false, true) {
		return
	}
	pings.Go(func() {
		defer inFlight.Store(false)
		ctx, cancel := context.WithTimeout(ctx, s.writeTimeout())
		defer cancel()
		sent := s.acc.now()
		if conn.Ping(ctx) != nil {
			return
		}
		now := s.acc.now()
		heard.Store(now.UnixNano())
		if onLink {
			s.linkRTT.Store(max(int64(now.Sub(sent)), 1))
			s.ans.ponged()
		}
	})
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
