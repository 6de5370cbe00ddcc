package fleet

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
)

// Tracker records robots coming and going in durable storage: the gateway core implements it
// (robot records, lastTimeSeen). Calls carry a short deadline and may fail; the registry logs
// the failure and goes on, since a robot's presence must not depend on the store.
type Tracker interface {
	// RobotOnline records that robot info, at home, is connected at at (creating or updating
	// its record). An error keeps the robot out of the registry; an EConflict or ENotFound one
	// keeps it out on purpose and says why in words fit for whoever announced the robot.
	RobotOnline(ctx context.Context, info fleetgate.Info, home Home, at time.Time) error
	// RobotSeen records that robot id was still connected at at.
	RobotSeen(ctx context.Context, id string, at time.Time) error
}

// Home is where a connected robot belongs: its fleet and, for a robot behind the agent link,
// the agent that hosts it (empty for robots of this process).
type Home struct {
	FleetID string
	AgentID string
}

// Registry holds the robots connected now. It is the one place that knows which robots are
// online; everything else asks it. Safe for concurrent use.
type Registry struct {
	tracker Tracker
	log     *slog.Logger
	now     func() time.Time

	mu     sync.RWMutex
	robots map[string]entry
	// changed is closed and replaced at every Add and Remove (see Changed).
	changed chan struct{}
}

type entry struct {
	robot Robot
	home  Home
}

// NewRegistry returns an empty registry. tracker may be nil (nothing is recorded).
func NewRegistry(tracker Tracker, log *slog.Logger, now func() time.Time) *Registry {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Registry{tracker: tracker, log: log, now: now, robots: map[string]entry{}, changed: make(chan struct{})}
}

// trackTimeout bounds a store write for presence; presence never waits longer.
const trackTimeout = 5 * time.Second

// Add registers a robot of this process, connected now, in fleet fleetID.
func (r *Registry) Add(ctx context.Context, robot Robot, fleetID string) error {
	return r.AddHosted(ctx, robot, Home{FleetID: fleetID})
}

// AddHosted registers a connected robot at home, replacing an earlier connection of the same
// id. The robot's record is written before it becomes visible, so a robot online in a list
// always has details.
func (r *Registry) AddHosted(ctx context.Context, robot Robot, home Home) error {
	_, err := r.AddHostedWhile(ctx, robot, home, nil)
	return err
}

// AddHostedWhile is AddHosted for a connection that may end while its robot is being
// recorded: the robot goes in only if live (when not nil) returns true, called under the
// registry's lock at the moment of insertion, so a connection that has ended, and may have
// been replaced by a newer one, never overwrites its successor's robot. live must not call
// the registry. It reports whether the robot went in.
func (r *Registry) AddHostedWhile(ctx context.Context, robot Robot, home Home, live func() bool) (bool, error) {
	info := robot.Info()
	if r.tracker != nil {
		ctx, cancel := context.WithTimeout(ctx, trackTimeout)
		err := r.tracker.RobotOnline(ctx, info, home, r.now())
		cancel()
		if err != nil {
			return false, err
		}
	}
	r.mu.Lock()
	if live != nil && !live() {
		r.mu.Unlock()
		return false, nil
	}
	r.robots[info.ID] = entry{robot: robot, home: home}
	r.notifyLocked()
	r.mu.Unlock()
	if home.AgentID != "" {
		r.log.Info("robot online", "robot", info.ID, "name", info.Name, "fleet", home.FleetID, "agent", home.AgentID)
	} else {
		r.log.Info("robot online", "robot", info.ID, "name", info.Name, "fleet", home.FleetID)
	}
	return true, nil
}

// notifyLocked wakes the watchers of Changed; r.mu is held.
func (r *Registry) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Changed returns a channel that is closed at the next Add or Remove: a watcher takes it,
// reads the registry, and waits on it.
func (r *Registry) Changed() <-chan struct{} {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.changed
}

// Remove forgets robot id if robot is the connection registered for it (a reconnect may have
// replaced it already), recording the time it was last seen.
func (r *Registry) Remove(robot Robot) {
	id := robot.Info().ID
	r.mu.Lock()
	e, ok := r.robots[id]
	if ok && e.robot == robot {
		delete(r.robots, id)
		r.notifyLocked()
	} else {
		ok = false
	}
	r.mu.Unlock()
	if !ok {
		return
	}
	r.seen(id)
	r.log.Info("robot offline", "robot", id)
}

func (r *Registry) seen(id string) {
	if r.tracker == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), trackTimeout)
	defer cancel()
	if err := r.tracker.RobotSeen(ctx, id, r.now()); err != nil {
		r.log.Warn("recording last time seen", "robot", id, "err", err)
	}
}

// Robot returns the connected robot id.
func (r *Registry) Robot(id string) (Robot, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.robots[id]
	return e.robot, ok
}

// Home is where connected robot id belongs.
func (r *Registry) Home(id string) (Home, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.robots[id]
	return e.home, ok
}

// Robots lists the connected robots, sorted by id.
func (r *Registry) Robots() []Robot {
	r.mu.RLock()
	out := make([]Robot, 0, len(r.robots))
	for _, e := range r.robots {
		out = append(out, e.robot)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Robot) int { return strings.Compare(a.Info().ID, b.Info().ID) })
	return out
}

// Online reports whether robot id is connected.
func (r *Registry) Online(id string) bool {
	_, ok := r.Robot(id)
	return ok
}

// IDs lists the connected robots' ids, sorted.
func (r *Registry) IDs() []string {
	r.mu.RLock()
	ids := make([]string, 0, len(r.robots))
	for id := range r.robots {
		ids = append(ids, id)
	}
	r.mu.RUnlock()
	slices.Sort(ids)
	return ids
}

// KeepSeen records every connected robot as seen each period until ctx ends, so that
// lastTimeSeen stays close to the truth even when the process dies without a goodbye.
func (r *Registry) KeepSeen(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, id := range r.IDs() {
				r.seen(id)
			}
		}
	}
}
