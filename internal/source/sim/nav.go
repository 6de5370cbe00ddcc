package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Going to a goal: the robot plans a path on its map (plan.go) and follows it by pure
// pursuit, within the speeds the door holds cmd_vel to. A goal on nav/goal replaces what the
// robot was doing; a pose on nav/waypoint is added to the end of the chain (and starts it when
// the robot has nothing to do). A motion command on cmd_vel (manual driving) and the door's
// cancel (the lease ended: released, the deadman, STOP, a lost link) end the chain.

// The follower's tuning. Speeds stay well inside maxSpeed and maxAngular (the door's limits).
const (
	navSpeed     = 0.7 // m/s on a straight
	navCarSpeed  = 0.5
	navTurn      = 1.2 // rad/s at most
	navLookahead = 0.6 // m
	navTurnFirst = 0.8 // rad: a differential drive turns in place when the path is further off its heading
	navReached   = 0.12
	navCarReach  = 0.3 // a car cannot turn on the spot to creep onto the point
	navPassed    = 0.35
	// navGiveUp is how long the follower waits, pressed against something (a person, another
	// robot), before it gives the goal up.
	navGiveUp = 8 * time.Second
	// navStatusPeriod is how often nav/status repeats while the robot drives.
	navStatusPeriod = 250 * time.Millisecond
)

// The states of nav/status.
const (
	navIdle        = "idle"
	navDriving     = "driving"
	navReachedGoal = "reached"
	navCancelled   = "cancelled"
	navFailed      = "failed"
)

// leg is one goal of the chain and the path to it, planned from where the previous leg ends.
type leg struct {
	goal point
	path []point
}

// nav is a robot's way to its goals. The Sim's mutex guards it.
type nav struct {
	state   string
	why     string // why the last chain ended, when it did not reach its goal
	legs    []leg  // the current leg first
	next    int    // the first point of legs[0].path not yet passed
	blocked time.Duration
	changed bool // nav/status has news to publish at once
}

// active reports whether the robot is driving to a goal.
func (n *nav) active() bool { return n.state == navDriving && len(n.legs) > 0 }

// end stops the chain in state with why.
func (n *nav) end(state, why string) {
	n.state, n.why, n.legs, n.next, n.blocked, n.changed = state, why, nil, 0, 0, true
}

// start replaces the chain with legs.
func (n *nav) start(legs []leg) {
	n.state, n.why, n.legs, n.next, n.blocked, n.changed = navDriving, "", legs, 1, 0, true
}

// steer sets b's command for this step towards the current leg's path; it ends the leg when
// the robot is there. It runs under the Sim's lock, every physics step.
func (n *nav) steer(b *body, now time.Time, dt time.Duration) {
	if !n.active() {
		return
	}
	l := &n.legs[0]
	reach := navReached
	if b.kind == carLike {
		reach = navCarReach
	}
	if math.Hypot(l.goal.x-b.x, l.goal.y-b.y) < reach {
		n.legs = n.legs[1:]
		n.next, n.changed = 1, true
		if len(n.legs) == 0 {
			n.end(navReachedGoal, "")
		}
		b.command(0, 0, 0, now)
		return
	}
	if b.blocked {
		n.blocked += dt
		if n.blocked >= navGiveUp {
			n.end(navFailed, "blocked on the way")
			b.command(0, 0, 0, now)
			return
		}
	} else {
		n.blocked = 0
	}
	// Pass the points the robot has come near or gone beyond (its projection on the segment
	// that ends at the point lies past it), then aim at the first point a lookahead away.
	for n.next < len(l.path)-1 {
		o, p := l.path[n.next-1], l.path[n.next]
		along := (b.x-o.x)*(p.x-o.x) + (b.y-o.y)*(p.y-o.y)
		if math.Hypot(p.x-b.x, p.y-b.y) >= navPassed && along < (p.x-o.x)*(p.x-o.x)+(p.y-o.y)*(p.y-o.y) {
			break
		}
		n.next++
	}
	target := n.carrot(b)
	dist := n.remaining(b)
	alpha := normAngle(math.Atan2(target.y-b.y, target.x-b.x) - b.theta)
	ld := math.Max(math.Hypot(target.x-b.x, target.y-b.y), 0.1)
	switch b.kind {
	case diffDrive:
		if math.Abs(alpha) > navTurnFirst {
			b.command(0, clamp(2.5*alpha, -navTurn, navTurn), 0, now)
			return
		}
		v := math.Min(navSpeed, 0.8*dist+0.08) * math.Cos(alpha)
		w := clamp(2*v*math.Sin(alpha)/ld+0.5*alpha, -navTurn, navTurn)
		b.command(v, w, 0, now)
	case carLike:
		v := math.Min(navCarSpeed, 0.8*dist+0.1)
		if math.Abs(alpha) > math.Pi/2 {
			v = 0.3 // wide of the path: round at full lock
		}
		steer := math.Atan(wheelbase * 2 * math.Sin(alpha) / ld)
		b.command(v, 0, clamp(steer, -maxSteer, maxSteer), now)
	}
}

// carrot is the point the robot heads for: navLookahead along the path from the robot's
// projection on the segment it follows. Aiming at the path's corners instead would swing the
// robot wide of a long segment, into the shelves beside it.
func (n *nav) carrot(b *body) point {
	path := n.legs[0].path
	o, p := path[n.next-1], path[n.next]
	seg := (p.x-o.x)*(p.x-o.x) + (p.y-o.y)*(p.y-o.y)
	t := 0.0
	if seg > 0 {
		t = clamp(((b.x-o.x)*(p.x-o.x)+(b.y-o.y)*(p.y-o.y))/seg, 0, 1)
	}
	cur := point{o.x + t*(p.x-o.x), o.y + t*(p.y-o.y)}
	rest := navLookahead
	for k := n.next; k < len(path); k++ {
		d := math.Hypot(path[k].x-cur.x, path[k].y-cur.y)
		if d >= rest {
			return point{cur.x + (path[k].x-cur.x)*rest/d, cur.y + (path[k].y-cur.y)*rest/d}
		}
		rest -= d
		cur = path[k]
	}
	return path[len(path)-1]
}

// remaining is the length of the path from b to the current leg's goal.
func (n *nav) remaining(b *body) float64 {
	if !n.active() {
		return 0
	}
	path := n.legs[0].path
	k := min(n.next, len(path)-1)
	return math.Hypot(path[k].x-b.x, path[k].y-b.y) + pathLength(path[k:])
}

// navStatus is the document nav/status carries (a std_msgs/String of JSON: docs/api.md, "Goals").
type navStatus struct {
	State string `json:"state"`
	// Text says it for an operator: "driving to goal, 4.2 m left".
	Text string `json:"text"`
	Why  string `json:"why,omitempty"`
	// Goal is the current goal and Waypoints the goals after it, in the map frame (metres).
	Goal      *navPoint  `json:"goal,omitempty"`
	Waypoints []navPoint `json:"waypoints,omitempty"`
	// Remaining is the distance left along the path to Goal; Path is that path, from the robot.
	Remaining float64    `json:"remaining"`
	Path      []navPoint `json:"path,omitempty"`
}

type navPoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// status is nav/status now.
func (n *nav) status(b *body) navStatus {
	st := navStatus{State: n.state, Why: n.why}
	if st.State == "" {
		st.State = navIdle
	}
	switch st.State {
	case navIdle:
		st.Text = "no goal"
	case navReachedGoal:
		st.Text = "goal reached"
	case navCancelled:
		st.Text = "goal cancelled"
		if n.why != "" {
			st.Text += ": " + n.why
		}
	case navFailed:
		st.Text = "goal given up: " + n.why
	}
	if !n.active() {
		return st
	}
	l := n.legs[0]
	st.Goal = &navPoint{round(l.goal.x, 2), round(l.goal.y, 2)}
	for _, w := range n.legs[1:] {
		st.Waypoints = append(st.Waypoints, navPoint{round(w.goal.x, 2), round(w.goal.y, 2)})
	}
	st.Remaining = round(n.remaining(b), 1)
	st.Path = append(st.Path, navPoint{round(b.x, 2), round(b.y, 2)})
	for _, p := range l.path[min(n.next, len(l.path)-1):] {
		st.Path = append(st.Path, navPoint{round(p.x, 2), round(p.y, 2)})
	}
	st.Text = fmt.Sprintf("driving to goal, %.1f m left", st.Remaining)
	if more := len(st.Waypoints); more > 0 {
		st.Text += fmt.Sprintf(" (then %d more)", more)
	}
	return st
}

func navPayload(st navStatus) []byte {
	doc, err := json.Marshal(st)
	if err != nil {
		panic("sim: nav status: " + err.Error()) // plain numbers and strings always marshal
	}
	return marshal(&catalogpb.String{Data: string(doc)})
}

// planGrid is the grid goals are planned on, built for the first goal.
func (s *Sim) planGrid() *planGrid {
	s.planOnce.Do(func() { s.planner = newPlanGrid(s.world) })
	return s.planner
}

// goTo takes a goal (nav/goal: the chain is replaced) or a waypoint (nav/waypoint: added to
// the chain), a PoseStamped in the map frame. A goal no path leads to is EInvalid and
// changes nothing. The orientation is not driven to: the robot stops where it arrives.
func (r *robot) goTo(key fleetgate.StreamKey, typ string, payload []byte) error {
	if typ != typePoseStamped {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s/%s takes %s, not %s", key.Component, key.Name, typePoseStamped, typ)
	}
	m, err := msgs.Decode(typ, payload)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if err := msgs.CheckFinite(m); err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	ps := m.(*catalogpb.PoseStamped)
	if f := ps.GetHeader().GetFrameId(); f != "" && f != frameMap {
		return fleetgate.Errorf(fleetgate.EInvalid, "a goal in frame %q: this robot takes goals in the %q frame", f, frameMap)
	}
	goal := point{ps.GetPose().GetPosition().GetX(), ps.GetPose().GetPosition().GetY()}
	chain := key == r.waypointIn.Key()
	g := r.sim.planGrid()
	// Plan outside the lock (milliseconds), from where the chain will be when this goal
	// starts: the robot, or the end of the chain a waypoint joins.
	r.sim.mu.Lock()
	from := point{r.body.x, r.body.y}
	var kept []leg
	if chain && r.nav.active() {
		kept = r.nav.legs
		from = kept[len(kept)-1].goal
	}
	r.sim.mu.Unlock()
	path, ok := g.plan(from, goal)
	if !ok {
		return fleetgate.Errorf(fleetgate.EInvalid, "no way to (%.2f, %.2f): it is not open floor the robot reaches", goal.x, goal.y)
	}
	r.sim.mu.Lock()
	defer r.sim.mu.Unlock()
	switch {
	case chain && r.nav.active() && len(r.nav.legs) == len(kept) && &r.nav.legs[0] == &kept[0]:
		r.nav.legs = append(r.nav.legs, leg{goal, path})
		r.nav.changed = true
	case chain && r.nav.active():
		return fleetgate.Errorf(fleetgate.EUnavailable, "the robot's goals changed meanwhile: send the waypoint again")
	default:
		// A goal (or a waypoint with nothing before it) replaces the chain. The robot moved
		// a few millimetres while it was planned: the follower takes that up.
		r.nav.start([]leg{{goal, path}})
	}
	return nil
}

// cancelGoal ends the chain: the door's cancel (the lease ended) on a goal stream. The robot
// brakes at once.
func (r *robot) cancelGoal(key fleetgate.StreamKey) error {
	if key != r.goalIn.Key() && key != r.waypointIn.Key() {
		return fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no goal stream %s/%s", r.info.Name, key.Component, key.Name)
	}
	r.sim.mu.Lock()
	defer r.sim.mu.Unlock()
	if r.nav.active() {
		r.nav.end(navCancelled, "")
		r.body.command(0, 0, 0, r.sim.now)
	}
	return nil
}
