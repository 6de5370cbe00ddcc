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
}

func seal(key fleetgate.StreamKey, typ string, payload []byte) Command {
	return Command{&command{key: key, typ: typ, payload: payload}}
}

// Open returns the command's input stream, message type (a catalog name) and serialized
// payload. A Command the door did not make is EInvalid.
func (c Command) Open() (key fleetgate.StreamKey, typ string, payload []byte, err error) {
	if c.c == nil {
		return fleetgate.StreamKey{}, "", nil, fleetgate.Errorf(fleetgate.EInvalid, "a command that did not pass the door")
	}
	return c.c.key, c.c.typ, c.c.payload, nil
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
