package fleetgate

import "time"

// RecordingRequest says what to record and when to stop.
type RecordingRequest struct {
	Streams []StreamKey
	// Duration stops the recording after this long; 0: when stopped (or a limit is hit).
	Duration time.Duration
	// MaxBytes stops the recording before its file grows past this size; 0: no limit but
	// the agent's quota.
	MaxBytes int64
	// MaxRate caps each stream at this many samples per second (the newest is kept); 0: as
	// they come.
	MaxRate float64
}

// States of a recording (the Recordings metric's recorderState).
const (
	RecordingActive  = "Recording" // being written
	RecordingStopped = "Stopped"   // its file is complete: stopped, a limit, or the robot or agent went away
	RecordingFailed  = "Failed"    // storage ended it early (ErrorType says why); the file keeps what was written
)

// Error types of a recording (the Recordings metric's errorType); empty when none.
const (
	RecordingDiskFull      = "DiskFull"      // the disk filled up
	RecordingWriteError    = "WriteError"    // another write error
	RecordingQuotaExceeded = "QuotaExceeded" // recordings being written filled the agent's quota
	RecordingInterrupted   = "Interrupted"   // the agent died while recording; its next start finalised the file
	RecordingRobotOffline  = "RobotOffline"  // the robot went away
)

// Recording is one recording of a robot's streams.
type Recording struct {
	ID      string // also the id of its file as a resource
	Streams []RecordedStream
	State   string
	// ErrorType is one of the RecordingX error types, or empty; Reason says in words why the
	// recording ended ("stop requested", "duration limit", ...), empty while it runs.
	ErrorType string
	Reason    string
	StartTime time.Time
	EndTime   time.Time // zero while it runs
	Request   RecordingRequest
	// Size of the file in bytes, Messages written, and samples Dropped because the disk
	// was slower than the streams.
	Size     int64
	Messages int64
	Dropped  int64
	// Trigger (an extension) says what made the recording: "manual" for one started by
	// request, else what turned the flight recorder's buffer into it ("pallet dropped", "speed
	// refusal", "snapshot"); EventID is the event-log entry it was made for, if any.
	Trigger string
	EventID string
}

// TriggerManual is the Trigger of a recording started by request.
const TriggerManual = "manual"

// RecordedStream is a stream of a recording and the MCAP topic it is recorded on.
type RecordedStream struct {
	Key   StreamKey
	Type  string
	Topic string
}

// Duration is how long the recording ran, until now while it runs.
func (r Recording) Duration(now time.Time) time.Duration {
	end := r.EndTime
	if end.IsZero() {
		end = now
	}
	return max(end.Sub(r.StartTime), 0)
}
