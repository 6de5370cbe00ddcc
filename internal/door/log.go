package door

import (
	"log/slog"
	"sync"
	"time"

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

// refusalLog writes one warning per refused command, within a rate.
type refusalLog struct {
	log   *slog.Logger
	clock clock.Clock

	mu         sync.Mutex
	tokens     float64
	last       time.Time
	suppressed int
}

func newRefusalLog(log *slog.Logger, c clock.Clock) *refusalLog {
	return &refusalLog{log: log, clock: c, tokens: refusalBurst, last: c.Now()}
}

// refused logs that who's command for robot's stream key was refused, and why.
func (r *refusalLog) refused(robot fleet.Robot, key fleetgate.StreamKey, who Who, why string) {
	r.mu.Lock()
	now := r.clock.Now()
	r.tokens = min(refusalBurst, r.tokens+now.Sub(r.last).Seconds()*refusalsPerSecond)
	r.last = now
	if r.tokens < 1 {
		r.suppressed++
		r.mu.Unlock()
		return
	}
	r.tokens--
	suppressed := r.suppressed
	r.suppressed = 0
	r.mu.Unlock()
	info := robot.Info()
	args := []any{"robot", info.Name, "robot_id", info.ID, "stream", key.Component + "/" + key.Name,
		"user", who.User, "path", string(who.Path), "why", why}
	if suppressed > 0 {
		args = append(args, "refusals_not_logged", suppressed)
	}
	r.log.Warn("the door refused a command", args...)
}
