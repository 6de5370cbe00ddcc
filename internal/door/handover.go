package door

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// Handing control over (an extension of the contract, which has only the 409 of a held
// stream): a second operator asks the holder (Request), who grants or refuses (Answer), and
// no answer in AnswerTimeout refuses; a supervisor takes control from anyone (Override).
// Either way the lease moves in one step under the door's lock, the old holder's controller
// publishes its zero and takes nothing more before the new holder has a Control, so the robot
// is never driven by two, and the new holder starts from zero.

// AnswerTimeout is how long a holder has to answer a request for control: silence refuses.
const AnswerTimeout = 15 * time.Second

// NoticeKind says what a Notice tells a holder.
type NoticeKind string

// What a holder's client is told about its control.
const (
	NoticeRequested NoticeKind = "requested" // By asks for control, since Since: grant or refuse
	NoticeWithdrawn NoticeKind = "withdrawn" // the request of By is over: its asker left
	NoticeExpired   NoticeKind = "expired"   // the request of By went unanswered for AnswerTimeout: refused
	NoticeHanded    NoticeKind = "handed"    // the holder granted By control: this control is over
	NoticeTaken     NoticeKind = "taken"     // By (a supervisor) took control: this control is over
)

// Notice is a moment of a handover told to the holder's client.
type Notice struct {
	Kind  NoticeKind
	By    string    // who asked or took, as a lease names them (Who.holder)
	Since time.Time // when the request was made (NoticeRequested)
}

// ask is one operator's pending request for a lease.
type ask struct {
	who    Who
	goal   *fleetgate.Stream  // the goal stream of an asker's goal socket (Control.goal)
	policy teleop.DelayPolicy // the governor's policy of the asker's session, when granted
	since  time.Time
	timer  clock.Timer
	answer chan askResult // buffered: the answer never waits for the asker
}

type askResult struct {
	ctl *Control
	err error
}

// Watch makes c's holder answerable: requests for control reach f (NoticeRequested, and how
// each ended), and the holder answers with Answer. A control nobody watches cannot be asked
// for (its client does not speak the extension): a request for it is refused at once. f runs
// on the door's goroutines and must not block or call the door.
func (c *Control) Watch(f func(Notice)) {
	c.l.d.mu.Lock()
	c.l.watch = f
	c.l.d.mu.Unlock()
}

// OnLost sets what is called (once, on any goroutine) when c's control ends because the holder
// granted a request or a supervisor took it: the robot got c's zero already, c takes nothing
// more, and the session ends with err (a conflict naming who has the stream now). Set it
// before the first command.
func (c *Control) OnLost(f func(err error)) {
	c.l.d.mu.Lock()
	c.l.onLost = f
	lost := c.l.lost
	c.l.d.mu.Unlock()
	if lost != nil {
		f(lost) // lost before its session listened: it must not drive a control that is gone
	}
}

// Request asks the holder of robot's input stream key to hand it to who, and waits for the
// answer: a Control when granted (or at once when nobody holds the stream), a conflict when
// refused, unanswered in AnswerTimeout, or asked of a holder that cannot answer. The request is
// withdrawn when ctx ends.
func (d *Door) Request(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey, who Who) (*Control, error) {
	policy := d.sessionPolicy(ctx, robot.Info().ID, who)
	h, l, err := d.lockTarget(ctx, robot, key)
	if err != nil {
		return nil, err
	}
	if l == nil || (l.upload && l.owner.Owner == who.holder()) {
		// Nobody to ask (or only the asker's own upload): taken as by Take.
		d.mu.Unlock()
		return d.Take(ctx, robot, key, who)
	}
	var refusal string
	switch {
	case l.owner.Owner == who.holder():
		refusal = "you hold this stream already (" + string(l.path) + ")"
	case l.watch == nil:
		refusal = l.owner.Owner + " drives " + key.Component + "/" + key.Name + " (" + string(l.path) + ") on a client that cannot answer requests for control"
	case l.ask != nil:
		refusal = l.ask.who.holder() + " is asking " + l.owner.Owner + " for control already"
	}
	if refusal != "" {
		owner := l.owner
		d.mu.Unlock()
		d.log.refused(robot, key, who, refusal)
		return nil, &fleetgate.Error{Code: fleetgate.EConflict, Owner: owner.Owner, Since: owner.Since, Message: refusal}
	}
	a := &ask{who: who, goal: h.goal, policy: policy, since: d.clock.Now(), answer: make(chan askResult, 1)}
	a.timer = d.clock.AfterFunc(AnswerTimeout, func() { d.expire(l, a) })
	l.ask = a
	watch := l.watch
	d.mu.Unlock()
	d.tellAsk(l, who, "asked "+l.owner.Owner+" for control of")
	watch(Notice{Kind: NoticeRequested, By: who.holder(), Since: a.since})

	select {
	case r := <-a.answer:
		if r.err == errLetGo {
			return d.Take(ctx, robot, key, who)
		}
		return r.ctl, r.err
	case <-ctx.Done():
	}
	d.mu.Lock()
	withdrawn := l.ask == a
	if withdrawn {
		l.ask = nil
		a.timer.Stop()
	}
	watch = l.watch
	d.mu.Unlock()
	if withdrawn {
		if watch != nil {
			watch(Notice{Kind: NoticeWithdrawn, By: who.holder()})
		}
		return nil, ctx.Err()
	}
	// Answered meanwhile: a grant nobody will drive is given back at once.
	if r := <-a.answer; r.ctl != nil {
		r.ctl.Stop()
	}
	return nil, ctx.Err()
}

// errLetGo answers a request whose holder let go of the stream: the asker takes it.
var errLetGo = fleetgate.Errorf(fleetgate.EConflict, "the holder let go")

// letGo answers a's asker (when a request was pending) that the holder let go.
func letGo(a *ask) {
	if a != nil {
		a.timer.Stop()
		a.answer <- askResult{err: errLetGo}
	}
}

// expire refuses a request its holder left unanswered.
func (d *Door) expire(l *lease, a *ask) {
	d.mu.Lock()
	if l.ask != a {
		d.mu.Unlock()
		return
	}
	l.ask = nil
	watch := l.watch
	d.mu.Unlock()
	why := l.owner.Owner + " did not answer within " + AnswerTimeout.String() + ": refused"
	a.answer <- askResult{err: &fleetgate.Error{Code: fleetgate.EConflict, Owner: l.owner.Owner, Since: l.owner.Since, Message: why}}
	d.tellAsk(l, a.who, "got no answer from "+l.owner.Owner+" for control of")
	if watch != nil {
		watch(Notice{Kind: NoticeExpired, By: a.who.holder()})
	}
}

// Answer is the holder's answer to the pending request for c's stream: a grant moves the
// lease to the asker (c's zero goes out first, and c takes nothing more), a refusal leaves it.
// EInvalid when no request is pending (it was withdrawn or expired).
func (c *Control) Answer(grant bool) error {
	l, d := c.l, c.l.d
	d.mu.Lock()
	a := l.ask
	if a == nil || d.leases[l.target] != l {
		d.mu.Unlock()
		return fleetgate.Errorf(fleetgate.EInvalid, "no request for control is waiting for an answer")
	}
	l.ask = nil
	a.timer.Stop()
	if !grant {
		d.mu.Unlock()
		a.answer <- askResult{err: &fleetgate.Error{Code: fleetgate.EConflict, Owner: l.owner.Owner, Since: l.owner.Since,
			Message: l.owner.Owner + " refused to hand over control"}}
		d.tellAsk(l, a.who, "was refused control by "+l.owner.Owner+" of")
		return nil
	}
	next := d.newLease(l.target, l.driven, l.stream, a.who, false)
	next.robotName, next.gov = l.robotName, d.governor(a.who, a.policy, a.goal)
	d.swap(l, next)
	d.mu.Unlock()
	d.handOver(l, "handed over to "+next.owner.Owner+": zeroed and released", NoticeHanded, next.owner.Owner,
		"control of "+l.target.key.Component+"/"+l.target.key.Name+" handed to "+next.owner.Owner)
	d.tell(next, "took control (granted by "+l.owner.Owner+") of")
	a.answer <- askResult{ctl: &Control{l: next, goal: a.goal}}
	return nil
}

// Override gives who, a supervisor (Who.Supervisor: an organization admin or a supervisor of the
// robot's fleet, as the core decided),
// control of robot's input stream key whoever holds it: the holder's zero goes out first, their
// session ends naming who took it, and a pending request is refused. Anybody else is
// EForbidden.
func (d *Door) Override(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey, who Who) (*Control, error) {
	if !who.Supervisor {
		err := fleetgate.Errorf(fleetgate.EForbidden, "only an organization admin or a supervisor of the robot's fleet takes control from another operator")
		d.log.refused(robot, key, who, fleetgate.ErrorMessage(err))
		return nil, err
	}
	policy := d.sessionPolicy(ctx, robot.Info().ID, who)
	h, old, err := d.lockTarget(ctx, robot, key)
	if err != nil {
		return nil, err
	}
	t := h.t
	if old != nil && old.owner.Owner == who.holder() && !old.upload {
		d.mu.Unlock()
		return nil, fleetgate.HeldError(old.owner)
	}
	next := d.newLease(t, h.driven, h.stream, who, false)
	next.robotName, next.gov = robot.Info().Name, d.governor(who, policy, h.goal)
	var a *ask
	if old != nil {
		a, old.ask = old.ask, nil
		d.swap(old, next)
	} else {
		d.leases[t] = next
	}
	d.mu.Unlock()
	if old == nil {
		d.tell(next, "took control (supervisor) of")
		return &Control{l: next, goal: h.goal}, nil
	}
	if a != nil {
		a.timer.Stop()
		a.answer <- askResult{err: &fleetgate.Error{Code: fleetgate.EConflict, Owner: next.owner.Owner, Since: next.owner.Since,
			Message: next.owner.Owner + " took control (supervisor override)"}}
	}
	d.handOver(old, "taken over by "+next.owner.Owner+" (supervisor override): zeroed and released", NoticeTaken, next.owner.Owner,
		"control of "+t.key.Component+"/"+t.key.Name+" taken by "+next.owner.Owner+" (supervisor override)")
	d.tell(next, "took control (supervisor override, from "+old.owner.Owner+") of")
	return &Control{l: next, goal: h.goal}, nil
}

// swap gives old's stream to next. d.mu is held. The old holder's zero goes out here, under the
// lock, before next is anybody's: no command of next's user (not even their upload, which would
// find next by its name) can reach the robot before it, and none of the old holder's after it
// (its controller takes nothing once stopped). The lock is held for one publish (the robot's
// call timeout, three tries at worst): the price of never having two drivers.
func (d *Door) swap(old, next *lease) {
	old.stop()
	d.leases[old.target] = next
}

// handOver tells of old's control, which swap gave to somebody else: its journal entry, then
// its holder's session, which ends.
func (d *Door) handOver(old *lease, how string, kind NoticeKind, by, why string) {
	old.end(how)
	err := &fleetgate.Error{Code: fleetgate.EConflict, Message: why}
	d.mu.Lock()
	watch, lost := old.watch, old.onLost
	old.lost = err
	d.mu.Unlock()
	if watch != nil {
		watch(Notice{Kind: kind, By: by})
	}
	if lost != nil {
		lost(err)
	}
}

// tellAsk journals a moment of who's request for l's stream: the entry is the asker's.
func (d *Door) tellAsk(l *lease, who Who, what string) {
	d.journal(Change{At: d.clock.Now(), RobotID: l.target.robotID, Key: l.target.key, Who: who,
		What: what + " " + l.target.key.Component + "/" + l.target.key.Name + " (" + string(who.Path) + ")"})
}
