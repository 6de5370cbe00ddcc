// Package door is the one way to a robot's input streams on the gateway that hosts the
// robot. Every command, whichever path brought it (a W3 socket, a REST upload, a cloud
// operator's control over the agent link, an upload the cloud or another replica forwards),
// passes Door, which holds it to the stream's declared speed limits (clamped, refused beyond
// 10x), the rate cap (20 movement commands a second), the lease (one driver per input stream:
// a command from anyone else is refused, naming the holder) and the deadman (a zero 500 ms
// after the last command). The robot sources take commands only as a Command, which only
// this package makes (see Driven).
//
// On a gateway that does not host the robot (the cloud, a replica), the door hands a
// one-shot command to the robot's host (fleet.RemoteDriven); the host's door decides.
package door

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/msgs"
)

// Path says which way a command came: shown with the holder of a lease and in the log.
type Path string

// The paths that end at a robot's input stream (docs/reliability.md, "The doors").
const (
	PathW3       Path = "W3"                           // a W3 input socket on this gateway
	PathCloudW3  Path = "W3 through the cloud"         // a cloud operator's control over the agent link
	PathUpload   Path = "upload-stream"                // endpoint 9 or S8 on this gateway
	PathLink     Path = "upload-stream from the cloud" // an upload the cloud (or a replica) forwarded over the agent link
	PathFoxglove Path = "Foxglove"                     // clientPublish on the Foxglove WebSocket route on this gateway
)

// Who sends a command: the user (an email) and the path.
type Who struct {
	User string
	Path Path
	// Supervisor says the user may take control from anyone (Override): an organization
	// admin, as the edge that authenticated them decided.
	Supervisor bool
}

// fromCloud says the command came over the agent link: its user signed in on the cloud.
func (p Path) fromCloud() bool { return p == PathCloudW3 || p == PathLink }

// governed says the path's sessions measure their operator's delay, so their speed follows
// it (the governor): a W3 socket here or through the cloud.
func (p Path) governed() bool { return p == PathW3 || p == PathCloudW3 }

// holder names who's lease. A cloud account and an account of this gateway are different
// people even when they share an email (a demo's admin@localhost, a site that made its
// accounts the cloud's): one must never drive through the other's lease, so the cloud's
// users are named apart.
func (w Who) holder() string {
	if w.Path.fromCloud() {
		return w.User + " via the cloud"
	}
	return w.User
}

// Defaults of Config: a session's publish is short (its commands wait behind it); a one-shot
// command's robot calls (finding the stream, publishing) may take as long as a REST read.
const (
	DefaultPublishTimeout = 250 * time.Millisecond
	DefaultCallTimeout    = time.Second
)

// Config configures a Door. Every field has a default.
type Config struct {
	Clock clock.Clock // clock.Real when nil
	Log   *slog.Logger
	// MinInterval and Deadman are the rate cap and the deadman (teleop's defaults when 0).
	MinInterval, Deadman time.Duration
	// PublishTimeout bounds one publish of a session's (DefaultPublishTimeout when 0).
	PublishTimeout time.Duration
	// CallTimeout bounds each robot call of Send (DefaultCallTimeout when 0), within the
	// caller's deadline.
	CallTimeout time.Duration
	// Delay is the speed governor's policy for the live sessions (teleop.DelayPolicy's
	// defaults when zero): their commands are held to the share of the stream's limits their
	// operator's delay allows (Control.Observe).
	Delay teleop.DelayPolicy
	// Delays, when set, is a robot's own policy in place of Delay (policy.go).
	Delays func(ctx context.Context, robotID string) teleop.DelayPolicy
	// Journal, when set, is told every change of a stream's control and every refusal the
	// log writes (so within its rate): the event log's teleop entries. It is called on the
	// door's goroutines and must not block.
	Journal func(Change)
	// Published, when set, is told every command that went out to a robot hosted here (the
	// flight recorder keeps them), after the robot took it. It is called on the door's
	// goroutines and must not block; payload must not be changed.
	Published func(robotID string, key fleetgate.StreamKey, typ string, payload []byte, at time.Time)
}

// Change is a moment of an input stream's control worth an event-log entry.
type Change struct {
	At      time.Time
	RobotID string
	Key     fleetgate.StreamKey
	Who     Who
	// What says it in words: "took control of base/cmd_vel (W3)", "refused: ...".
	What    string
	Refusal bool
	// Safety is set for the changes a safety rule made: "speed refusal" (a command beyond
	// the stream's limits) or "deadman" (the deadman stopped the robot): the flight
	// recorder's triggers.
	Safety string
}

// The Safety of a Change.
const (
	SafetySpeedRefusal = "speed refusal"
	SafetyDeadman      = "deadman"
)

// Door holds every input stream of the robots hosted here. Safe for concurrent use.
type Door struct {
	clock          clock.Clock
	log            *refusalLog
	journal        func(Change)
	published      func(robotID string, key fleetgate.StreamKey, typ string, payload []byte, at time.Time)
	minInterval    time.Duration
	deadman        time.Duration
	publishTimeout time.Duration
	callTimeout    time.Duration
	delay          teleop.DelayPolicy
	delays         func(ctx context.Context, robotID string) teleop.DelayPolicy

	mu     sync.Mutex
	leases map[target]*lease
	closed bool
}

// New returns a door with no stream held.
func New(cfg Config) *Door {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.PublishTimeout <= 0 {
		cfg.PublishTimeout = DefaultPublishTimeout
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	journal := cfg.Journal
	if journal == nil {
		journal = func(Change) {}
	}
	published := cfg.Published
	if published == nil {
		published = func(string, fleetgate.StreamKey, string, []byte, time.Time) {}
	}
	return &Door{clock: cfg.Clock, log: newRefusalLog(cfg.Log, cfg.Clock, journal), journal: journal, published: published, minInterval: cfg.MinInterval,
		deadman: cfg.Deadman, publishTimeout: cfg.PublishTimeout, callTimeout: cfg.CallTimeout, delay: cfg.Delay.OrDefault(), delays: cfg.Delays, leases: map[target]*lease{}}
}

// tell journals a change of l's control.
func (d *Door) tell(l *lease, what string) { d.tellSafety(l, what, "") }

// tellSafety journals a change of l's control that safety rule made ("" if none).
func (d *Door) tellSafety(l *lease, what, safety string) {
	d.journal(Change{At: d.clock.Now(), RobotID: l.target.robotID, Key: l.target.key, Who: l.who,
		What: what + " " + l.target.key.Component + "/" + l.target.key.Name + " (" + string(l.path) + ")", Safety: safety})
}

// publish sends a sealed command to driven and tells Published when the robot took it.
func (d *Door) publish(ctx context.Context, driven Driven, robotID string, key fleetgate.StreamKey, typ string, payload []byte) error {
	if err := driven.Publish(ctx, seal(key, typ, payload)); err != nil {
		return err
	}
	d.published(robotID, key, typ, payload, d.clock.Now())
	return nil
}

// target is one input stream of one robot: what a lease holds.
type target struct {
	robotID string
	key     fleetgate.StreamKey
}

// lease is the one driver of a target. An upload's lease lives only while its commands come:
// the deadman's zero ends it.
type lease struct {
	d      *Door
	target target
	owner  fleetgate.Held
	who    Who // who took it, as they came (the journal's author is their email)
	path   Path
	stream fleetgate.Stream
	driven Driven // the robot as it was connected when the lease began
	ctl    *teleop.Controller
	upload bool
	// gov follows the operator's delay on a live session (nil for uploads and Foxglove, whose
	// clients the gateway cannot measure); held says its last verdict held the robot at zero.
	gov   *teleop.Governor
	held  bool
	ended sync.Once // journals the end once
	// robotName names the robot in the log lines of a session's refusals.
	robotName string

	faultMu sync.Mutex
	onFault func(error)

	// The handover's state (handover.go), under d.mu: who the holder's client tells of
	// requests, what ends the holder's session when the lease moves, the pending request.
	watch  func(Notice)
	onLost func(error)
	lost   error // why the lease moved to somebody else, once it did
	ask    *ask

	goals goals // sent under this lease, cancelled when it ends (goal.go)
}

// Take gives who the control of robot's input stream key until Stop: the stream's one lease
// (fleetgate.HeldError when somebody else holds it; an upload lease of the same user is taken
// over), and a controller with the rate cap and the deadman. The robot must be hosted here.
// key may be a goal stream (GoalType): the control then holds the robot's motion lease, the
// lease of its drivable stream, and its commands are goals (goal.go).
func (d *Door) Take(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey, who Who) (*Control, error) {
	policy := d.sessionPolicy(ctx, robot.Info().ID, who)
	h, old, err := d.lockTarget(ctx, robot, key)
	if err != nil {
		return nil, err
	}
	if old != nil && !(old.upload && old.owner.Owner == who.holder()) {
		d.mu.Unlock()
		d.log.refused(robot, key, who, "held by "+old.owner.Owner+" ("+string(old.path)+")")
		return nil, fleetgate.HeldError(old.owner)
	}
	l := d.newLease(h.t, h.driven, h.stream, who, false)
	l.robotName = robot.Info().Name
	l.gov = d.governor(who, policy, h.goal)
	d.leases[h.t] = l
	d.mu.Unlock()
	if old != nil {
		// The user's own upload gives way to their socket: its zero goes out before the
		// socket's first command can.
		old.stop()
		old.end("handed over to a live session:")
	}
	d.tell(l, "took control of")
	return &Control{l: l, goal: h.goal}, nil
}

// hold is what a live session's control holds: the lease of the robot's drivable stream and,
// for a goal socket, the goal stream its goals go to (nil for a socket of motion commands).
type hold struct {
	driven Driven
	stream fleetgate.Stream
	goal   *fleetgate.Stream
	t      target
}

// drivable resolves robot's input stream key for a live session: a Twist or Ackermann input,
// or a goal stream, whose lease is the robot's motion lease (motionStream).
func (d *Door) drivable(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey) (hold, error) {
	driven, stream, err := d.resolve(ctx, robot, key)
	if err != nil {
		return hold{}, err
	}
	if stream.Type == GoalType {
		motion, err := d.motionStream(ctx, robot, stream)
		if err != nil {
			return hold{}, err
		}
		return hold{driven: driven, stream: motion, goal: &stream, t: target{robotID: robot.Info().ID, key: motion.Key()}}, nil
	}
	if !teleop.InputTypeAllowed(stream.Type) {
		return hold{}, fleetgate.Errorf(fleetgate.EInvalid, "stream %s/%s takes %s; only Twist, AckermannDriveStamped and goal (PoseStamped) streams are driven", key.Component, key.Name, stream.Type)
	}
	return hold{driven: driven, stream: stream, t: target{robotID: robot.Info().ID, key: stream.Key()}}, nil
}

// lockTarget resolves robot's stream key for a live session (drivable) and locks the door
// (the caller unlocks d.mu): what the session holds, and the lease that holds its target now
// (nil when free). On an error the door is not locked.
func (d *Door) lockTarget(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey) (hold, *lease, error) {
	h, err := d.drivable(ctx, robot, key)
	if err != nil {
		return hold{}, nil, err
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return hold{}, nil, errClosed
	}
	return h, d.leases[h.t], nil
}

// Refused logs and journals a command of who that an edge refused before it reached the door
// (a cloud's REST upload beyond 10x is refused there and never forwarded): the same line and
// entry as a refusal here, on the gateway that refused it.
func (d *Door) Refused(robot fleet.Robot, key fleetgate.StreamKey, who Who, err error) {
	d.log.refused(robot, key, who, fleetgate.ErrorMessage(err))
}

// Send is one command of who (a REST upload, or one the cloud forwarded) to robot's input
// stream key: checked and published here when the robot is hosted here, handed to the host
// when it is remote (fleet.RemoteDriven). A movement command goes through the stream's lease
// (fleetgate.HeldError when somebody else holds it), at the rate cap, and re-arms the deadman;
// an upload's lease ends with the deadman's zero. It returns the robot's error when the
// command went out at once; a command that came too soon after the last one goes out when its
// turn comes (the newest wins), and the answer does not wait for it.
func (d *Door) Send(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey, typ string, payload []byte, who Who) error {
	if rd, ok := fleet.As[fleet.RemoteDriven](robot); ok {
		ctx, cancel := context.WithTimeout(ctx, d.callTimeout)
		defer cancel()
		return rd.Send(ctx, key, typ, payload, who.User)
	}
	resolveCtx, cancel := context.WithTimeout(ctx, d.callTimeout)
	driven, stream, err := d.resolve(resolveCtx, robot, key)
	cancel()
	if err != nil {
		return err
	}
	if typ != stream.Type {
		return fleetgate.Errorf(fleetgate.EInvalid, "stream %s/%s takes %s, not %s", key.Component, key.Name, stream.Type, typ)
	}
	m, err := msgs.Decode(typ, payload)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if err := msgs.CheckFinite(m); err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if typ == GoalType {
		return d.sendGoal(ctx, robot, driven, stream, payload, who)
	}
	if !teleop.InputTypeAllowed(typ) {
		// Not a movement command (a ROS topic of another type): no speeds to hold, no lease.
		ctx, cancel := context.WithTimeout(ctx, d.callTimeout)
		defer cancel()
		return d.publish(ctx, driven, robot.Info().ID, stream.Key(), typ, payload)
	}
	// Held to the declared speeds: clamped, and refused beyond fleetgate.RefuseFactor times
	// them (EInvalid, naming field, value and limit).
	if err := teleop.LimitCommand(m, stream.Limits); err != nil {
		d.log.refusedSafety(robot.Info().ID, robot.Info().Name, key, who, fleetgate.ErrorMessage(err), SafetySpeedRefusal)
		return err
	}
	t := target{robotID: robot.Info().ID, key: stream.Key()}
	// A lease can end between finding it and submitting to it (its deadman fired): then the
	// next try makes a new one.
	for range 3 {
		l, stale, err := d.uploadLease(t, driven, stream, who)
		if err != nil {
			d.log.refused(robot, key, who, fleetgate.ErrorMessage(err))
			return err
		}
		if stale != nil {
			stale.stop()
		}
		if l.byHand(m) {
			return nil
		}
		err = l.ctl.Submit(ctx, m)
		if errors.Is(err, teleop.ErrStopped) {
			continue
		}
		if err != nil {
			d.retire(l)
			return publishError(robot, stream, err)
		}
		return nil
	}
	return fleetgate.Errorf(fleetgate.EUnavailable, "the stream %s/%s is changing hands; try again", key.Component, key.Name)
}

// uploadLease is the lease an upload of who goes through: the holder's when who holds the
// stream, a new upload lease when nobody does. stale is a lease of who on a connection of the
// robot that is gone, replaced: the caller stops it.
func (d *Door) uploadLease(t target, driven Driven, stream fleetgate.Stream, who Who) (l, stale *lease, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, nil, errClosed
	}
	if held := d.leases[t]; held != nil {
		if held.owner.Owner != who.holder() {
			return nil, nil, fleetgate.HeldError(held.owner)
		}
		if held.driven == driven {
			return held, nil, nil
		}
		// The robot reconnected since (a new connection of the same id): a lease of the same
		// user on the old one gives way.
		stale = held
	}
	l = d.newLease(t, driven, stream, who, true)
	d.leases[t] = l
	return l, stale, nil
}

// newLease makes the lease of t for who, with its controller. d.mu is held.
func (d *Door) newLease(t target, driven Driven, stream fleetgate.Stream, who Who, upload bool) *lease {
	l := &lease{d: d, target: t, who: who, path: who.Path, stream: stream, driven: driven, upload: upload,
		owner: fleetgate.Held{Key: t.key, Owner: who.holder(), Since: d.clock.Now()}}
	timeout := d.publishTimeout
	if upload {
		timeout = d.callTimeout
	}
	cfg := teleop.ControllerConfig{
		Clock:       d.clock,
		Type:        stream.Type,
		MinInterval: d.minInterval,
		Deadman:     d.deadman,
		Publish: func(ctx context.Context, m proto.Message) error {
			payload, err := proto.Marshal(m)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return d.publish(ctx, driven, t.robotID, t.key, stream.Type, payload)
		},
		OnPublishError: l.fault,
	}
	if !upload {
		// A session's commands stopped coming while the robot moved (its client sends a
		// zero when its user lets go): an entry of its own, and the flight recorder's
		// trigger. An upload ends by the deadman as a rule.
		cfg.OnDeadmanStop = func() {
			d.tellSafety(l, "the deadman stopped the moving robot (no command for "+d.deadmanOrDefault().String()+") on", SafetyDeadman)
		}
	}
	cfg.OnDeadman = func() {
		if l.cancelGoals() {
			d.tellSafety(l, "the deadman cancelled the robot's goal (no command for "+d.deadmanOrDefault().String()+") on", SafetyDeadman)
		}
	}
	if upload {
		cfg.OnDeadman = func() {
			if l.cancelGoals() {
				d.tellSafety(l, "the deadman cancelled the robot's goal (no command for "+d.deadmanOrDefault().String()+") on", SafetyDeadman)
			}
			if l.ctl.RetireIfIdle() {
				d.forget(l)
				l.end("the deadman stopped the robot (no command for " + d.deadmanOrDefault().String() + ") and released")
			}
		}
	}
	l.ctl = teleop.NewController(cfg)
	if upload {
		d.tell(l, "took control of")
	}
	return l
}

// end journals the end of l's control, once.
func (l *lease) end(how string) {
	l.ended.Do(func() { l.d.tell(l, how) })
}

// deadmanOrDefault is the deadman the controllers use.
func (d *Door) deadmanOrDefault() time.Duration {
	if d.deadman > 0 {
		return d.deadman
	}
	return teleop.DefaultDeadman
}

// fault is a publish that failed outside Stop: the lease's session ends (its handler zeroes
// the robot and releases), an upload's lease ends here.
func (l *lease) fault(err error) {
	if l.upload {
		l.d.retire(l)
		return
	}
	l.faultMu.Lock()
	f := l.onFault
	l.faultMu.Unlock()
	if f != nil {
		f(err)
	}
}

// retire ends a lease with a zero.
func (d *Door) retire(l *lease) {
	d.forget(l)
	l.stop()
	l.end("lost control (the robot did not take a command) of")
}

// forget frees l's target, unless somebody else holds it now.
func (d *Door) forget(l *lease) {
	d.mu.Lock()
	if d.leases[l.target] == l {
		delete(d.leases, l.target)
	}
	a := l.ask
	l.ask = nil
	d.mu.Unlock()
	letGo(a)
}

// resolve finds the robot's input stream key and the source that takes its commands.
func (d *Door) resolve(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey) (Driven, fleetgate.Stream, error) {
	name := robot.Info().Name
	driven, ok := fleet.As[Driven](robot)
	if !ok {
		return nil, fleetgate.Stream{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no input streams", name)
	}
	streams, err := robot.Streams(ctx)
	if err != nil {
		return nil, fleetgate.Stream{}, err
	}
	for _, s := range streams {
		if s.Key() != key {
			continue
		}
		if s.Direction != fleetgate.Input {
			return nil, fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "%s/%s is an output stream: it takes no messages", key.Component, key.Name)
		}
		return driven, s, nil
	}
	return nil, fleetgate.Stream{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no input stream %s/%s", name, key.Component, key.Name)
}

func publishError(robot fleet.Robot, stream fleetgate.Stream, err error) error {
	var e *fleetgate.Error
	if errors.As(err, &e) {
		return err
	}
	return fleetgate.Errorf(fleetgate.EUnavailable, "publishing to robot %q %s/%s failed: %v", robot.Info().Name, stream.Component, stream.Name, err)
}

var errClosed = fleetgate.Errorf(fleetgate.EUnavailable, "the gateway is stopping: it takes no more commands")

// Held lists who drives which input stream of robotID, sorted by component, stream and source.
func (d *Door) Held(robotID string) []fleetgate.Held {
	d.mu.Lock()
	var out []fleetgate.Held
	for t, l := range d.leases {
		if t.robotID == robotID {
			out = append(out, l.owner)
		}
	}
	d.mu.Unlock()
	slices.SortFunc(out, func(a, b fleetgate.Held) int {
		return cmp.Or(
			cmp.Compare(a.Key.Component, b.Key.Component),
			cmp.Compare(a.Key.Name, b.Key.Name),
			cmp.Compare(a.Key.Source, b.Key.Source),
		)
	})
	return out
}

// Close zeroes every driven stream at once and takes no more commands: the gateway is
// stopping, before its robot sources do. Sessions still open get their Stop's zero as a no-op.
func (d *Door) Close() {
	d.mu.Lock()
	d.closed = true
	leases := make([]*lease, 0, len(d.leases))
	for _, l := range d.leases {
		leases = append(leases, l)
	}
	d.leases = map[target]*lease{}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range leases {
		wg.Go(func() {
			l.stop()
			l.end("the gateway stopped: zeroed and released")
		})
	}
	wg.Wait()
}

// Control is one session's hold on an input stream (a W3 socket, a cloud operator's
// control): its commands go through the door's checks and the lease's controller, and Stop
// zeroes the robot and frees the stream.
type Control struct {
	l *lease
	// goal is the goal stream of a goal socket's control, whose commands are goals (goal.go);
	// nil for one of motion commands.
	goal *fleetgate.Stream
}

// Stream is the input stream the session sends on, as its robot declares it (type and
// limits): the goal stream of a goal socket.
func (c *Control) Stream() fleetgate.Stream {
	if c.goal != nil {
		return *c.goal
	}
	return c.l.stream
}

// OnFault sets what is called (once, on any goroutine) when a publish fails: the session ends
// then. Set it before the first command.
func (c *Control) OnFault(f func(error)) {
	c.l.faultMu.Lock()
	c.l.onFault = f
	c.l.faultMu.Unlock()
}

// Command takes one decoded command of the stream's type: held to the stream's speeds (a
// value beyond 10x is refused, EInvalid, and nothing is published), then paced by the rate
// cap, re-arming the deadman.
func (c *Control) Command(m proto.Message) error {
	if c.goal != nil {
		return c.sendGoal(m)
	}
	if m == nil || string(m.ProtoReflect().Descriptor().FullName()) != c.l.stream.Type {
		return fmt.Errorf("door: a command that is not a %s", c.l.stream.Type)
	}
	if err := teleop.LimitCommand(m, c.l.stream.Limits); err != nil {
		c.l.d.log.refusedSafety(c.l.target.robotID, c.l.robotName, c.l.target.key, c.l.who, fleetgate.ErrorMessage(err), SafetySpeedRefusal)
		return err
	}
	if c.l.gov != nil {
		lim, _ := c.limit()
		teleop.GovernCommand(m, c.l.stream.Limits, lim.Scale) // at zero, m is the zero
	}
	if c.l.byHand(m) {
		return nil
	}
	c.l.ctl.Command(m)
	return nil
}

// Observe takes a fresh measurement of the operator's delay: the age of the picture they
// see and the command's way here. A session that does not measure is held at zero after
// teleop.UnknownGrace, and one that stops measuring teleop.StaleAfter after its last.
func (c *Control) Observe(delay time.Duration) {
	if c.l.gov != nil {
		c.l.gov.Observe(delay)
	}
}

// Policy is the governor's policy of the session, read once when it began; ok is false for
// a path that is not governed.
func (c *Control) Policy() (p teleop.DelayPolicy, ok bool) {
	if c.l.gov == nil {
		return teleop.DelayPolicy{}, false
	}
	return c.l.gov.Policy(), true
}

// Limit is the share of the stream's limits the operator's delay allows now (full speed for a
// path that is not governed). The session calls it often (every few hundred ms): when the
// verdict turns to zero between commands, the robot gets its zero here, at once.
func (c *Control) Limit() teleop.SpeedLimit {
	if c.l.gov == nil {
		return teleop.SpeedLimit{Scale: 1, Why: "full speed"}
	}
	lim, stopping := c.limit()
	if stopping {
		c.l.ctl.Halt()
	}
	return lim
}

// limit is the governor's verdict; stopping says it has just turned to zero.
func (c *Control) limit() (lim teleop.SpeedLimit, stopping bool) {
	lim = c.l.gov.Limit()
	c.l.d.mu.Lock()
	stopping = lim.Scale == 0 && !c.l.held
	c.l.held = lim.Scale == 0
	c.l.d.mu.Unlock()
	return lim, stopping
}

// Stop publishes the zero and frees the stream. Only the first call publishes; it returns
// the error of a zero that did not reach the robot.
func (c *Control) Stop() error {
	err := c.l.stop()
	c.l.d.forget(c.l)
	c.l.end("released")
	return err
}

// Owner is who holds this control, and since when.
func (c *Control) Owner() fleetgate.Held { return c.l.owner }
