package cloud

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// An agent speaks only for its own robots. What it pushes (KPI values, resource lists, and so
// the resource files and recordings the cloud copies from it) is taken only for the robots
// registered on its link; event-log entries only for the robots whose record names it as
// their agent (Core.SaveAgentEvents checks). Anything else is refused and logged with the
// agent's name, at a bounded rate.

// DefaultMaxRobots is how many robots one announcement may register when Config.MaxRobots is
// not set; the core bounds the robots an agent holds in all (--agent-max-robots).
const DefaultMaxRobots = 100

// hostedRobot is robot id of this link, or nil, with a refusal logged, when the agent pushed
// what (its KPI values, its resource list) for a robot that is not one of its robots here:
// another agent's, or one refused at its announcement (an agent of this version pushes
// nothing for those).
func (s *session) hostedRobot(id, what string) *RemoteRobot {
	r := s.robot(id)
	if r == nil {
		s.refusals.warn("agent push refused: not a robot this agent hosts", "what", what, "robot", loggedID(id))
	}
	return r
}

// storeEvents puts an agent's event-log entries into the cloud's log, then tells the agent
// which are stored. Nothing is acknowledged on a failure: the agent sends them again. Entries
// about robots the agent does not host are refused by the core and acknowledged all the same:
// sent again they would be refused again, and hold up the agent's log for ever.
func (s *session) storeEvents(events []fleetgate.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	refused, err := s.acc.cfg.Core.SaveAgentEvents(ctx, s.agent.ID, events)
	if err != nil {
		s.log.Warn("storing the agent's event-log entries failed; it sends them again", "entries", len(events), "err", err)
		return
	}
	if len(refused) > 0 {
		s.refusals.warn("agent event-log entries refused: not about robots this agent hosts or hosted (acknowledged, not stored)",
			"entries", len(refused), "of", len(events), "robots", robotIDs(refused, 5))
	}
	ids := make([]int64, len(events))
	for i, e := range events {
		ids[i] = e.OriginID
	}
	s.write(ctx, &linkpb.Frame{Body: &linkpb.Frame_EventsStored{EventsStored: &linkpb.EventsStored{LocalIds: ids}}}, 5*time.Second)
}

// robotIDs lists the distinct robot ids of events, at most n of them: a log line stays short.
func robotIDs(events []fleetgate.Event, n int) []string {
	var out []string
	for _, e := range events {
		if !slices.Contains(out, loggedID(e.RobotID)) {
			if len(out) == n {
				return append(out, "...")
			}
			out = append(out, loggedID(e.RobotID))
		}
	}
	return out
}

// loggedID is a robot id from an agent as a log line shows it: the agent chose it, so one that
// is not a UUID is cut, lest a megabyte-long id make each refusal a megabyte of log.
func loggedID(id string) string {
	if len(id) <= 36 {
		return id
	}
	return fmt.Sprintf("%.36q... (%d bytes)", id, len(id))
}

// Lines a link's refusals may write: refusalBurst at once, then one per refusalEvery.
const (
	refusalBurst = 10
	refusalEvery = 10 * time.Second
)

// refusalLog writes the refusals of one link at a bounded rate (a token bucket): an agent
// that sends frames about others' robots in a loop must not flood the cloud's log. The lines
// it holds back are counted, and the next line written (or the last, as the link ends) says
// how many.
type refusalLog struct {
	log   *slog.Logger
	now   func() time.Time
	lines *rate.Limiter

	mu   sync.Mutex
	held int
}

func newRefusalLog(log *slog.Logger, now func() time.Time) *refusalLog {
	return &refusalLog{log: log, now: now, lines: rate.NewLimiter(rate.Every(refusalEvery), refusalBurst)}
}

func (l *refusalLog) warn(msg string, args ...any) {
	l.mu.Lock()
	if !l.lines.AllowN(l.now(), 1) {
		l.held++
		l.mu.Unlock()
		return
	}
	held := l.held
	l.held = 0
	l.mu.Unlock()
	if held > 0 {
		args = append(args, "and_held_back", held)
	}
	l.log.Warn(msg, args...)
}

// flush says how many refusals were held back since the last line, as the link ends.
func (l *refusalLog) flush() {
	l.mu.Lock()
	held := l.held
	l.held = 0
	l.mu.Unlock()
	if held > 0 {
		l.log.Warn("agent link ended with refusals not logged one by one", "refusals", held)
	}
}
