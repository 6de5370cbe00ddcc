package teleop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/msgs"
)

// Defaults of ControllerConfig: the contract's 20 movement commands per second and 500 ms
// deadman.
const (
	DefaultMinInterval = 50 * time.Millisecond
	DefaultDeadman     = 500 * time.Millisecond
)

// ControllerConfig configures a Controller.
type ControllerConfig struct {
	Clock clock.Clock // clock.Real when nil
	Type  string      // TwistType or AckermannType
	// Publish sends one command to the robot. It is never called concurrently with itself and
	// runs with the controller's lock held, so it must not call the Controller, and it must
	// not block long (the handler gives it a short deadline): commands wait behind it. The
	// controller does not touch m after Publish returns, so Publish may keep or modify it
	// (stamp a header, say).
	// ctx is the caller's context for a Submit (a REST upload waiting for its answer) and
	// context.Background otherwise: Publish bounds it with a deadline of its own.
	Publish func(ctx context.Context, m proto.Message) error
	// MinInterval keeps non-zero commands at least this far apart; 0 means
	// DefaultMinInterval.
	MinInterval time.Duration
	// Deadman is how long after the last valid command a zero goes out; 0 means
	// DefaultDeadman.
	Deadman time.Duration
	// OnPublishError is called once, for the first Publish failure outside Stop, without the
	// controller's lock held (it may call Stop). The handler closes the socket with 1011.
	OnPublishError func(err error)
	// OnDeadman, when set, is called after the deadman's zero went out, without the
	// controller's lock held: the owner of a controller that lives only while commands come
	// (the door's lease of a REST upload) retires it then (RetireIfIdle).
	OnDeadman func()
	// OnDeadmanStop, when set, is called (like OnDeadman, before it) when the deadman's zero
	// stopped a robot whose last command was a motion: commands stopped coming while it
	// moved, a safety event (the flight recorder's trigger), where a deadman after a zero
	// is how a session or an upload ends.
	OnDeadmanStop func()
}

// ErrStopped is Submit's answer after Stop, RetireIfIdle or a publish failure: the command
// was not taken.
var ErrStopped = errors.New("the controller has stopped")

// Controller applies the rate cap and the deadman to one input socket's commands and publishes
// them through ControllerConfig.Publish. Safe for concurrent use.
//
// Publish runs either in the goroutine that calls Command or Stop (a command that needs no
// rate wait goes out before Command returns, with no goroutine hop) or in a Clock timer
// goroutine (a coalesced command when its window opens, the deadman zero). Publishes happen one
// at a time, in the order the controller decides them; a zero is never followed by a motion
// command that arrived before it, and nothing is published after Stop.
type Controller struct {
	clock       clock.Clock
	typ         string
	publish     func(context.Context, proto.Message) error
	onError     func(error)
	onDeadman   func()
	onStop      func()
	minInterval time.Duration
	deadman     time.Duration

	// mu guards the fields below and is held while Publish runs, which is what serializes
	// publishing.
	mu      sync.Mutex
	stopped bool
	failed  bool // a Publish failed: the socket is closing, later commands are ignored

	moved      bool      // a non-zero command has been published
	moving     bool      // the last command published was a motion, not a zero (the deadman's trigger)
	atRest     bool      // the last command published was a zero, or none was (Halt's)
	lastMotion time.Time // when the last non-zero command was published
	pending    proto.Message
	rateTimer  clock.Timer // publishes pending when the window opens; nil when none is armed
	rateGen    uint64

	lastValid    time.Time   // when the last valid command arrived
	deadmanTimer clock.Timer // nil when disarmed: silence until the next valid command
	deadmanGen   uint64
}

// NewController returns a controller for commands of cfg.Type. A Type that is not an input
// type or a nil Publish is a programming error and panics.
func NewController(cfg ControllerConfig) *Controller {
	if !InputTypeAllowed(cfg.Type) {
		panic(fmt.Sprintf("live: NewController with type %q, which is not an input type", cfg.Type))
	}
	if cfg.Publish == nil {
		panic("live: NewController without Publish")
	}
	c := &Controller{
		clock:       cfg.Clock,
		typ:         cfg.Type,
		onError:     cfg.OnPublishError,
		atRest:      true,
		onDeadman:   cfg.OnDeadman,
		onStop:      cfg.OnDeadmanStop,
		minInterval: cfg.MinInterval,
		deadman:     cfg.Deadman,
	}
	c.publish = func(ctx context.Context, m proto.Message) error {
		zero := IsZero(m) // before Publish, which may keep and modify m
		err := cfg.Publish(ctx, m)
		if err == nil {
			c.atRest = zero
		}
		return err
	}
	if c.clock == nil {
		c.clock = clock.Real()
	}
	if c.minInterval <= 0 {
		c.minInterval = DefaultMinInterval
	}
	if c.deadman <= 0 {
		c.deadman = DefaultDeadman
	}
	if c.onError == nil {
		c.onError = func(error) {}
	}
	return c
}

// Command takes one valid command (decoded and policy-checked by DecodeCommand):
//
//   - a non-zero command goes out at once if at least MinInterval has passed since the last
//     non-zero publish; otherwise it becomes the pending command, replacing an older pending
//     one, and the pending command goes out when the window opens;
//   - a zero command goes out at once, does not count toward the rate, and drops the pending
//     command (a stop must not be followed by an older motion);
//   - every command re-arms the deadman: Deadman after the last valid command, with none
//     since, one zero command goes out, then nothing until the next valid command.
//
// A nil message, one of another type or one with a non-finite number is not a valid command:
// it is ignored and does not re-arm the deadman. After Stop or a publish failure Command does
// nothing.
func (c *Controller) Command(m proto.Message) {
	if !c.valid(m) {
		return
	}
	if err := c.command(context.Background(), m); err != nil {
		c.onError(err)
	}
}

// Submit is Command for a caller that waits for its answer (a REST upload): the error of the
// publish when the command went out at once (nil when it was coalesced, to go out when its
// window opens), ErrStopped when the controller no longer takes commands, and an error for a
// command that is not valid. OnPublishError is not called for it.
func (c *Controller) Submit(ctx context.Context, m proto.Message) error {
	if !c.valid(m) {
		return fmt.Errorf("not a valid %s command", c.typ)
	}
	c.mu.Lock()
	stopped := c.stopped || c.failed
	c.mu.Unlock()
	if stopped {
		return ErrStopped
	}
	return c.command(ctx, m)
}

// Halt publishes a zero, as Command does, when the robot may be moving: its last command was
// not a zero, or one waits for its turn. A robot at rest is not told again.
func (c *Controller) Halt() {
	c.mu.Lock()
	moving := !c.stopped && !c.failed && (!c.atRest || c.pending != nil)
	c.mu.Unlock()
	if moving {
		c.Command(Zero(c.typ))
	}
}

// Touch re-arms the deadman as a command does, publishing nothing: the holder is there while
// the robot drives itself (to a goal). It reports false after Stop or a publish failure.
func (c *Controller) Touch() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.failed {
		return false
	}
	c.armDeadman(c.clock.Now())
	return true
}

// RetireIfIdle stops the controller without a zero when it is idle: the deadman's zero was
// the last thing published and no command came since. It reports whether it did; a
// controller that took a command meanwhile goes on.
func (c *Controller) RetireIfIdle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.deadmanTimer != nil || c.pending != nil {
		return false
	}
	c.stopped = true
	return true
}

func (c *Controller) valid(m proto.Message) bool {
	return m != nil && string(m.ProtoReflect().Descriptor().FullName()) == c.typ && msgs.CheckFinite(m) == nil
}

// command returns the error to report through OnPublishError, if any; ctx goes to a publish
// made at once.
func (c *Controller) command(ctx context.Context, m proto.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock() // deferred: a panicking Publish must not leave the robot unstoppable
	if c.stopped || c.failed {
		return nil
	}
	now := c.clock.Now()
	c.armDeadman(now)
	switch {
	case IsZero(m):
		c.dropPending()
		c.moving = false
		return c.failure(c.publish(ctx, m))
	case !c.moved || now.Sub(c.lastMotion) >= c.minInterval:
		// Also when a pending command waits for a timer that is late: the newer one wins.
		c.dropPending()
		return c.failure(c.publishMotion(ctx, m, now))
	default:
		c.pending = m
		if c.rateTimer == nil {
			c.rateGen++
			gen := c.rateGen
			c.rateTimer = c.clock.AfterFunc(c.lastMotion.Add(c.minInterval).Sub(now), func() { c.rateFired(gen) })
		}
		return nil
	}
}

func (c *Controller) publishMotion(ctx context.Context, m proto.Message, now time.Time) error {
	c.moved, c.moving, c.lastMotion = true, true, now
	return c.publish(ctx, m)
}

// failure records a publish error; it returns err only the first time, for OnPublishError.
func (c *Controller) failure(err error) error {
	if err == nil || c.failed {
		return nil
	}
	c.failed = true
	c.dropPending()
	return err
}

func (c *Controller) dropPending() {
	c.pending = nil
	if c.rateTimer != nil {
		c.rateTimer.Stop()
		c.rateTimer = nil
		c.rateGen++ // a callback already running finds a newer generation and returns
	}
}

func (c *Controller) rateFired(gen uint64) {
	if err := c.ratePublish(gen); err != nil {
		c.onError(err)
	}
}

func (c *Controller) ratePublish(gen uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.failed || gen != c.rateGen || c.pending == nil {
		return nil
	}
	now := c.clock.Now()
	if wait := c.lastMotion.Add(c.minInterval).Sub(now); wait > 0 {
		c.rateTimer = c.clock.AfterFunc(wait, func() { c.rateFired(gen) })
		return nil
	}
	m := c.pending
	c.pending, c.rateTimer = nil, nil
	return c.failure(c.publishMotion(context.Background(), m, now))
}

// armDeadman notes a valid command. One timer serves many commands: when it fires early
// because commands kept coming, it re-arms for the rest, so a command costs no timer
// operation on the hot path.
func (c *Controller) armDeadman(now time.Time) {
	c.lastValid = now
	if c.deadmanTimer != nil {
		return
	}
	c.deadmanGen++
	gen := c.deadmanGen
	c.deadmanTimer = c.clock.AfterFunc(c.deadman, func() { c.deadmanFired(gen) })
}

func (c *Controller) deadmanFired(gen uint64) {
	zeroed, wasMoving, err := c.deadmanPublish(gen)
	if err != nil {
		c.onError(err)
	}
	if zeroed && wasMoving && c.onStop != nil {
		c.onStop()
	}
	if zeroed && c.onDeadman != nil {
		c.onDeadman()
	}
}

// deadmanPublish reports whether it published the deadman's zero and whether the robot was
// moving on a motion command then, and the error to report.
func (c *Controller) deadmanPublish(gen uint64) (zeroed, wasMoving bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || gen != c.deadmanGen {
		return false, false, nil
	}
	now := c.clock.Now()
	if wait := c.lastValid.Add(c.deadman).Sub(now); wait > 0 {
		c.deadmanTimer = c.clock.AfterFunc(wait, func() { c.deadmanFired(gen) })
		return false, false, nil
	}
	c.deadmanTimer = nil
	c.dropPending()
	wasMoving, c.moving = c.moving, false
	// Even after a failure: the robot may still be moving on an earlier command.
	return true, wasMoving, c.failure(c.publish(context.Background(), Zero(c.typ)))
}

// Stop publishes a zero command at once and retires the controller: pending commands and
// timers are cancelled and later Commands do nothing. Call it on invalid data, close,
// disconnect, revocation and shutdown. Only the first call publishes, up to StopAttempts
// times until one goes through; it returns the last try's error (which does not go to
// OnPublishError), later calls return nil.
func (c *Controller) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	c.dropPending()
	if c.deadmanTimer != nil {
		c.deadmanTimer.Stop()
		c.deadmanTimer = nil
	}
	c.deadmanGen++
	// The final zero is the last command the robot gets: a publish that fails for a moment
	// (a timeout) is tried again before the robot is left to its own command timeout.
	var err error
	for range StopAttempts {
		if err = c.publish(context.Background(), Zero(c.typ)); err == nil {
			return nil
		}
	}
	return err
}

// StopAttempts is how many times Stop tries its zero command.
const StopAttempts = 3
