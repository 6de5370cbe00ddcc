package link

import (
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// The recorder's requests and answers (fleet.RecordingControl) on the wire.

func RecordingRequestToWire(r fleetgate.RecordingRequest) *linkpb.RecordingStart {
	out := &linkpb.RecordingStart{DurationMs: r.Duration.Milliseconds(), MaxBytes: r.MaxBytes, MaxRate: r.MaxRate}
	for _, k := range r.Streams {
		out.Streams = append(out.Streams, KeyToWire(k))
	}
	return out
}

func RecordingRequestFromWire(r *linkpb.RecordingStart) fleetgate.RecordingRequest {
	out := fleetgate.RecordingRequest{Duration: time.Duration(r.GetDurationMs()) * time.Millisecond, MaxBytes: r.GetMaxBytes(), MaxRate: r.GetMaxRate()}
	for _, k := range r.GetStreams() {
		out.Streams = append(out.Streams, KeyFromWire(k))
	}
	return out
}

func RecordingsToWire(list []fleetgate.Recording) *linkpb.RecordingList {
	out := &linkpb.RecordingList{Recordings: make([]*linkpb.Recording, len(list))}
	for i, r := range list {
		w := &linkpb.Recording{
			Id: r.ID, State: r.State, ErrorType: r.ErrorType, Reason: r.Reason, StartTime: Time(r.StartTime),
			EndTime: Time(r.EndTime), Request: RecordingRequestToWire(r.Request), Size: r.Size, Messages: r.Messages, Dropped: r.Dropped,
			Trigger: r.Trigger, EventId: r.EventID,
		}
		for _, s := range r.Streams {
			w.Streams = append(w.Streams, &linkpb.RecordedStream{Key: KeyToWire(s.Key), Type: s.Type, Topic: s.Topic})
		}
		out.Recordings[i] = w
	}
	return out
}

func RecordingsFromWire(l *linkpb.RecordingList) []fleetgate.Recording {
	out := make([]fleetgate.Recording, len(l.GetRecordings()))
	for i, w := range l.GetRecordings() {
		r := fleetgate.Recording{
			ID: w.GetId(), State: w.GetState(), ErrorType: w.GetErrorType(), Reason: w.GetReason(),
			StartTime: FromTime(w.GetStartTime()), EndTime: FromTime(w.GetEndTime()), Request: RecordingRequestFromWire(w.GetRequest()),
			Size: w.GetSize(), Messages: w.GetMessages(), Dropped: w.GetDropped(), Trigger: w.GetTrigger(), EventID: w.GetEventId(),
		}
		if r.Trigger == "" {
			r.Trigger = fleetgate.TriggerManual // an agent older than triggers
		}
		for _, s := range w.GetStreams() {
			r.Streams = append(r.Streams, fleetgate.RecordedStream{Key: KeyFromWire(s.GetKey()), Type: s.GetType(), Topic: s.GetTopic()})
		}
		out[i] = r
	}
	return out
}
