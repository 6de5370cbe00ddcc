package door

import (
	"context"

	"github.com/fleetgate/fleetgate"
)

// Command is a message for one input stream of a robot that has passed the door. Its content
// is unexported and only this package fills it, so a robot source that takes Commands
// (Driven) cannot be driven around the door: outside this package a Command can be declared
// but not filled, and the zero Command opens to an error.
type Command struct{ c *command }

type command struct {
	key     fleetgate.StreamKey
	typ     string
	payload []byte
	cancel  bool
}

func seal(key fleetgate.StreamKey, typ string, payload []byte) Command {
	return Command{&command{key: key, typ: typ, payload: payload}}
}

// sealCancel is the cancel of the goal sent on a goal stream (goal.go).
func sealCancel(key fleetgate.StreamKey) Command {
	return Command{&command{key: key, cancel: true}}
}

// Open returns the command's input stream, message type (a catalog name) and serialized
// payload. A Command the door did not make is EInvalid, and so is a cancel (see Cancels): a
// source that does not know cancels fails on one rather than taking it for a message.
func (c Command) Open() (key fleetgate.StreamKey, typ string, payload []byte, err error) {
	if c.c == nil {
		return fleetgate.StreamKey{}, "", nil, fleetgate.Errorf(fleetgate.EInvalid, "a command that did not pass the door")
	}
	if c.c.cancel {
		return fleetgate.StreamKey{}, "", nil, fleetgate.Errorf(fleetgate.EInvalid, "the cancel of a goal on %s/%s carries no message", c.c.key.Component, c.c.key.Name)
	}
	return c.c.key, c.c.typ, c.c.payload, nil
}

// Cancels reports whether the command cancels the goal the robot was sent on goal stream key
// (the lease it was sent under ended: control released, the deadman, STOP, a lost link). The
// robot stops going there; a cancel of no goal does nothing. A source that takes goals checks
// it before Open.
func (c Command) Cancels() (key fleetgate.StreamKey, ok bool) {
	if c.c == nil || !c.c.cancel {
		return fleetgate.StreamKey{}, false
	}
	return c.c.key, true
}

// Driven is a robot hosted in this process that takes commands on its input streams: the
// simulator, a ROS 1 or ROS 2 robot. Its Publish is reachable only with a Command, so only
// through the door.
type Driven interface {
	// Publish sends cmd to its input stream, within ctx's deadline. The payload is one
	// message of the stream's type, decoded, finite and held to the stream's limits by the
	// door; the source checks again what it relies on.
	Publish(ctx context.Context, cmd Command) error
}
