package teleop

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Target identifies what one controller holds: one input stream of a robot, as resolved from
// the W3 query (source, component and stream name).
type Target struct {
	RobotID   string
	Source    int
	Component string
	Stream    string
}

// Owner is who holds a target.
type Owner struct {
	SocketID string
	User     string // email
	Since    time.Time
}

// Held is one held target and its owner.
type Held struct {
	Target Target
	Owner  Owner
}

// Controls is the registry of held targets: at most one owner per Target, so two sockets never
// steer the same robot input at once. Safe for concurrent use.
type Controls struct {
	clock Clock

	mu   sync.Mutex
	held map[Target]*Lease
}

// NewControls returns an empty registry; Owner.Since comes from clock (RealClock when nil).
func NewControls(clock Clock) *Controls {
	if clock == nil {
		clock = RealClock()
	}
	return &Controls{clock: clock, held: make(map[Target]*Lease)}
}

// Acquire atomically takes t for the socket and user. On success it returns the lease and the
// new owner (Since set from the clock) with ok=true; if t is held it returns the current holder
// and ok=false.
func (c *Controls) Acquire(t Target, socketID, user string) (lease *Lease, holder Owner, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, held := c.held[t]; held {
		return nil, l.owner, false
	}
	l := &Lease{controls: c, target: t, owner: Owner{SocketID: socketID, User: user, Since: c.clock.Now()}}
	c.held[t] = l
	return l, l.owner, true
}

// Held lists the held targets of a robot, sorted by component, stream and source.
func (c *Controls) Held(robotID string) []Held {
	c.mu.Lock()
	var out []Held
	for t, l := range c.held {
		if t.RobotID == robotID {
			out = append(out, Held{Target: t, Owner: l.owner})
		}
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Held) int {
		return cmp.Or(
			cmp.Compare(a.Target.Component, b.Target.Component),
			cmp.Compare(a.Target.Stream, b.Target.Stream),
			cmp.Compare(a.Target.Source, b.Target.Source),
		)
	})
	return out
}

// Lease is one socket's hold on a target, from Acquire until Release.
type Lease struct {
	controls *Controls
	target   Target
	owner    Owner
}

// Target is the held target.
func (l *Lease) Target() Target { return l.target }

// Owner is the holder this lease names.
func (l *Lease) Owner() Owner { return l.owner }

// Release frees the target. It is idempotent, and a stale lease never frees a target that
// someone else has acquired since.
func (l *Lease) Release() {
	c := l.controls
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[l.target] == l {
		delete(c.held, l.target)
	}
}
