package door

import (
	"fmt"
	"log/slog"
	"sync"

	"golang.org/x/time/rate"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Refusals are logged, but a client that sends refused commands in a loop must not fill the
// disk: at most refusalBurst lines at once, refilled at refusalsPerSecond; the lines left out
// are counted in the next one.
const (
	refusalBurst      = 20
	refusalsPerSecond = 5
)

// refusalLog writes one warning per refused command, within a rate (a token bucket).
type refusalLog struct {
	log     *slog.Logger
	clock   clock.Clock
	lines   *rate.Limiter
	journal func(Change)

	mu         sync.Mutex
	suppressed int
}

func newRefusalLog(log *slog.Logger, c clock.Clock, journal func(Change)) *refusalLog {
	return &refusalLog{log: log, clock: c, lines: rate.NewLimiter(refusalsPerSecond, refusalBurst), journal: journal}
}

// refused logs that who's command for robot's stream key was refused, and why.
func (r *refusalLog) refused(robot fleet.Robot, key fleetgate.StreamKey, who Who, why string) {
	info := robot.Info()
	r.refusedSafety(info.ID, info.Name, key, who, why, "")
}

// refusedSafety is refused for a robot known by its id and name, of a refusal a safety rule
// made (Change.Safety; "" if none).
func (r *refusalLog) refusedSafety(robotID, robotName string, key fleetgate.StreamKey, who Who, why, safety string) {
	r.mu.Lock()
	if !r.lines.AllowN(r.clock.Now(), 1) {
		r.suppressed++
		r.mu.Unlock()
		return
	}
	suppressed := r.suppressed
	r.suppressed = 0
	r.mu.Unlock()
	args := []any{"robot", robotName, "robot_id", robotID, "stream", key.Component + "/" + key.Name,
		"user", who.User, "path", string(who.Path), "why", why}
	if suppressed > 0 {
		args = append(args, "refusals_not_logged", suppressed)
	}
	r.log.Warn("the door refused a command", args...)
	what := "refused a command for " + key.Component + "/" + key.Name + " (" + string(who.Path) + "): " + why
	if suppressed > 0 {
		what += fmt.Sprintf(" (and %d more not told)", suppressed)
	}
	r.journal(Change{At: r.clock.Now(), RobotID: robotID, Key: key, Who: who, What: what, Refusal: true, Safety: safety})
}
