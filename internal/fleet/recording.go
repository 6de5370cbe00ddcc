package fleet

import (
	"context"

	"github.com/fleetgate/fleetgate"
)

// RecordingControl is what a robot offers when its agent records its streams to files
// (internal/record on the agent; the agent link carries it to the cloud). A robot without a
// recorder does not implement it. A finished recording is one of the robot's resources.
type RecordingControl interface {
	// StartRecording starts recording the output streams of req; EInvalid for a stream
	// that is not an output of the robot or a limit out of range, EUnavailable when the
	// agent cannot record now (no room, too many recordings).
	StartRecording(ctx context.Context, req fleetgate.RecordingRequest) (fleetgate.Recording, error)
	// StopRecording stops recording id (ENotFound if the robot has none such) and returns
	// it once its file is complete. Stopping a finished recording returns it as it is.
	StopRecording(ctx context.Context, id string) (fleetgate.Recording, error)
	// Recordings lists the robot's recordings, the running ones and those whose files are
	// kept, newest first.
	Recordings(ctx context.Context) ([]fleetgate.Recording, error)
}

// FlightRecorder is offered by a robot whose agent keeps a flight recorder's buffer of its
// streams (internal/record; the agent link carries it to the cloud).
type FlightRecorder interface {
	// TriggerRecording turns the buffer into a recording of the buffer and what follows,
	// named after trigger and linked to event-log entry eventID ("" if none); a trigger while
	// one is being made extends that one and returns it. EUnavailable when the agent's flight
	// recorder is off.
	TriggerRecording(ctx context.Context, trigger, eventID string) (fleetgate.Recording, error)
}

// MessageDefinitions is offered by robots whose streams carry types outside the catalog,
// relayed as opaque bytes (a ROS 1 topic of a type the catalog lacks): the source's own
// definition of such a stream's type, so that a recorder can describe what it stores.
type MessageDefinitions interface {
	// MessageDefinition returns the schema encoding of an MCAP file ("ros1msg") and the
	// definition (for ROS 1, the connection header's message_definition) of the type of
	// output stream key; ENotFound when the source does not know it (yet).
	MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (encoding string, definition string, err error)
}

// MessageTemplates is offered by robots whose streams carry types outside the catalog and
// whose source knows their definitions (a ROS 1 topic's, from its publisher): the template
// of endpoint 8 for such a type.
type MessageTemplates interface {
	// MessageTemplate returns an empty message of messageType as JSON, from the definition
	// of an output stream of the robot that carries it; ENotFound when no stream of the
	// robot carries the type, or its definition could not be learnt before ctx ended.
	MessageTemplate(ctx context.Context, messageType string) ([]byte, error)
}
