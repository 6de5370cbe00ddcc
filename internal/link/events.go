package link

import (
	"time"

	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Event is an event-log entry posted on an agent's local gateway, as the link carries it to
// the cloud's log.
type Event struct {
	LocalID   int64 // its id in the agent's own log: the cloud keeps one entry per (agent, id)
	RobotID   string
	Author    string // the author's email on the local gateway
	Message   string
	CreatedAt time.Time
}

// MaxEventBatch is the most entries one EventBatch frame carries.
const MaxEventBatch = 100

// EventsToWire converts entries for an EventBatch frame.
func EventsToWire(events []Event) []*linkpb.LocalEvent {
	out := make([]*linkpb.LocalEvent, len(events))
	for i, e := range events {
		out[i] = &linkpb.LocalEvent{LocalId: e.LocalID, RobotId: e.RobotID, AuthorEmail: e.Author, Message: e.Message, CreatedAt: Time(e.CreatedAt)}
	}
	return out
}

// EventsFromWire converts an EventBatch frame's entries.
func EventsFromWire(wire []*linkpb.LocalEvent) []Event {
	out := make([]Event, len(wire))
	for i, e := range wire {
		out[i] = Event{LocalID: e.GetLocalId(), RobotID: e.GetRobotId(), Author: e.GetAuthorEmail(), Message: e.GetMessage(), CreatedAt: FromTime(e.GetCreatedAt())}
	}
	return out
}
