package fleet

import (
	"context"

	"github.com/fleetgate/fleetgate"
)

// RemoteDriven is implemented by a robot whose teleoperation another process governs: a robot
// behind the agent link, whose agent holds the one control lease per input stream that its
// local and cloud operators share, the rate cap and the deadman. The core asks such a robot for
// control instead of taking a lease of its own, and forwards checked commands.
type RemoteDriven interface {
	// TakeControl asks for control of an input stream for user. A stream driven by somebody
	// else is fleetgate.HeldError (HeldBy says who and since when).
	TakeControl(ctx context.Context, key fleetgate.StreamKey, user string) (RemoteControl, error)
	// Controls lists who drives which input stream.
	Controls(ctx context.Context) ([]fleetgate.Held, error)
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
