package link

import (
	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// MaxEventBatch is the most entries one EventBatch frame carries.
const MaxEventBatch = 100

// EventsToWire converts entries of an agent's own log for an EventBatch frame: each goes with
// its id there, which the cloud keeps as OriginID (one entry per agent and id).
func EventsToWire(events []fleetgate.Event) []*linkpb.LocalEvent {
	out := make([]*linkpb.LocalEvent, len(events))
	for i, e := range events {
		out[i] = &linkpb.LocalEvent{LocalId: e.ID, RobotId: e.RobotID, AuthorEmail: e.AuthorEmail, Message: e.Message, CreatedAt: Time(e.CreatedAt),
			Type: string(e.Type), Severity: string(e.Severity), RecordingId: e.RecordingID}
	}
	return out
}

// EventsFromWire converts an EventBatch frame's entries, their ids in the agent's log as
// OriginID.
func EventsFromWire(wire []*linkpb.LocalEvent) []fleetgate.Event {
	out := make([]fleetgate.Event, len(wire))
	for i, e := range wire {
		out[i] = fleetgate.Event{OriginID: e.GetLocalId(), RobotID: e.GetRobotId(), AuthorEmail: e.GetAuthorEmail(), Message: e.GetMessage(), CreatedAt: FromTime(e.GetCreatedAt()),
			Type: fleetgate.EventType(e.GetType()), Severity: fleetgate.EventSeverity(e.GetSeverity()), RecordingID: e.GetRecordingId()}
	}
	return out
}
