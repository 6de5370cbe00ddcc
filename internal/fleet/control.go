package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RemoteDriven is implemented by a robot whose teleoperation another process governs: a robot
// behind the agent link, whose agent holds the one control lease per input stream that its
// local and cloud operators share, the rate cap and the deadman. The core asks such a robot for
// control instead of taking a lease of its own, and forwards checked commands.
type RemoteDriven interface {
	// TakeControl asks for control of an input stream for user. A stream driven by somebody
	// else is an error wrapping ErrHeld (a *HeldError says who and since when).
	TakeControl(ctx context.Context, key StreamKey, user string) (RemoteControl, error)
	// Controls lists who drives which input stream.
	Controls(ctx context.Context) ([]Held, error)
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

// Held is who drives an input stream, and since when.
type Held struct {
	Key   StreamKey
	Owner string
	Since time.Time
}

// ErrHeld is what TakeControl wraps when somebody else drives the stream.
var ErrHeld = errors.New("held")

// HeldError is TakeControl's refusal: the stream is Held by another operator.
type HeldError struct{ Held Held }

func (e *HeldError) Error() string {
	return fmt.Sprintf("stream %s/%s is controlled by %s since %s", e.Held.Key.Component, e.Held.Key.Name, e.Held.Owner, e.Held.Since.UTC().Format(time.RFC3339))
}

func (e *HeldError) Unwrap() error { return ErrHeld }
