package fleet

import (
	"context"
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
