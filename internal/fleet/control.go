package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
)

// RemoteDriven is implemented by a robot whose input streams another process governs: a robot
// behind the agent link, whose agent's door holds the one control lease per input stream that
// its local and cloud operators share, the speed limits, the rate cap and the deadman. The
// core asks such a robot for control instead of taking a lease of its own, and forwards
// commands, which the agent checks again.
type RemoteDriven interface {
	// TakeControl asks for control of an input stream for user. A stream driven by somebody
	// else is fleetgate.HeldError (HeldBy says who and since when).
	TakeControl(ctx context.Context, key fleetgate.StreamKey, user string) (RemoteControl, error)
	// Controls lists who drives which input stream.
	Controls(ctx context.Context) ([]fleetgate.Held, error)
	// Send hands one message for an input stream (a REST upload) to the process that hosts
	// the robot, on behalf of user (whose lease it may be); that process's door checks and
	// publishes it. A stream somebody else drives is fleetgate.HeldError.
	Send(ctx context.Context, key fleetgate.StreamKey, typ string, payload []byte, user string) error
}

// RemoteControl is one operator's control of a remotely governed input stream.
type RemoteControl interface {
	// Command forwards one command (serialized, already checked and held to the robot's
	// limits). It does not wait for the robot.
	Command(payload []byte) error
	// Release lets go: the governing process publishes a zero and frees the stream.
	Release()
	// Done is closed when the governing process ended the control (the robot went away, a
	// publish failed, the link was lost); Err says why then.
	Done() <-chan struct{}
	Err() error
}

// ControlMode says how a remotely governed control is taken: the handover extension of W3
// input (docs/api.md, "Handing control over"), decided by the door of the process that hosts
// the robot; the zero mode is TakeControl's.
type ControlMode struct {
	// Override: the caller checked that user is a supervisor (an organization admin), who
	// takes the stream from whoever holds it, the holder's zero first.
	Override bool
	// Answers: the operator's client answers requests for this control (RemoteAnswerer); a
	// control that does not cannot be asked for.
	Answers bool
	// Ask: a held stream is asked of its holder, and the call waits for the answer (at most
	// the door's AnswerTimeout, or until ctx ends, which withdraws the request); a refusal is
	// a conflict in the door's words.
	Ask bool
}

// RemoteHandover is a RemoteDriven whose governing process hands control over.
type RemoteHandover interface {
	TakeControlMode(ctx context.Context, key fleetgate.StreamKey, user string, mode ControlMode) (RemoteControl, error)
}

// ControlNotice is a moment of a request for a remotely governed control, told to its holder:
// Kind is "requested" (By asks, since Since), "withdrawn" or "expired".
type ControlNotice struct {
	Kind, By string
	Since    time.Time
}

// RemoteAnswerer is a RemoteControl taken with ControlMode.Answers: its holder is told of
// requests for it and answers them.
type RemoteAnswerer interface {
	// Watch sets where notices go (on any goroutine; f must not block); notices that came
	// before are given to f at once.
	Watch(f func(ControlNotice))
	// Answer grants or refuses the pending request.
	Answer(grant bool) error
}

// LinkDelayer is a RemoteControl that knows the round trip of the way to the governing
// process (the agent link's pings), which that process adds to the operator's delay: the
// operator's widget shows the limit the robot will get.
type LinkDelayer interface {
	LinkDelay() (time.Duration, bool)
}

// Notices hands a remote control's notices to its watcher (RemoteAnswerer.Watch), keeping the
// few that come before Watch. The zero value is ready.
type Notices struct {
	mu    sync.Mutex
	watch func(ControlNotice)
	early []ControlNotice
}

// maxEarlyNotices bounds the notices kept for a control nobody watches yet.
const maxEarlyNotices = 8

// Watch sets where notices go, and gives f those that came before.
func (ns *Notices) Watch(f func(ControlNotice)) {
	ns.mu.Lock()
	early := ns.early
	ns.early, ns.watch = nil, f
	ns.mu.Unlock()
	for _, n := range early {
		f(n)
	}
}

// Tell hands n to the watcher, or keeps it for Watch.
func (ns *Notices) Tell(n ControlNotice) {
	ns.mu.Lock()
	f := ns.watch
	if f == nil && len(ns.early) < maxEarlyNotices {
		ns.early = append(ns.early, n)
	}
	ns.mu.Unlock()
	if f != nil {
		f(n)
	}
}

// DelayCarrier is a RemoteControl that hands its operator's delay on with each command (the
// cloud's end of the agent link): the governing process adds its own way's delay and holds
// the robot's speed to it (docs/reliability.md, "The governor").
type DelayCarrier interface {
	// SetOperatorDelay is the latest estimate of the operator's delay, for the commands to come.
	SetOperatorDelay(d time.Duration)
}

// As finds the first robot in r's chain of decorators (each offering Unwrap() fleet.Robot: a
// robot with cameras added, a recordable robot) that offers the optional capability T, as
// errors.As does for errors.
func As[T any](r Robot) (T, bool) {
	for r != nil {
		if t, ok := r.(T); ok {
			return t, true
		}
		u, ok := r.(interface{ Unwrap() Robot })
		if !ok {
			break
		}
		r = u.Unwrap()
	}
	var zero T
	return zero, false
}
