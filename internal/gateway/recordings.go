package gateway

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Recordings (an extension of the contract): an agent's recorder writes chosen output streams
// of a robot to MCAP files, which become resources of the robot.

var actRecord = action{minRole: fleetgate.RoleDeveloper, acts: true, what: "start or stop recordings"}

// RecordingTimeout bounds a recording request to a robot: stopping waits for the file to be
// complete, which takes longer than a read.
const RecordingTimeout = 10 * time.Second

// Limits of a recording request's stream names.
const (
	maxRecordingStreams = 64
	maxStreamNameLength = 256
)

// RecordingInput is a request to record, with streams named as people write them:
// "component/stream" (camera/image), a ROS topic (/scan), or a stream's name alone when no
// other output stream of the robot has it.
type RecordingInput struct {
	Streams  []string
	Duration time.Duration
	MaxBytes int64
	MaxRate  float64
}

// recorder returns a robot's recording control, authorising act.
func (ss *StreamService) recorder(ctx context.Context, c *Caller, robotID string, act action) (fleetgate.Robot, fleet.Robot, fleet.RecordingControl, error) {
	r, live, err := ss.robots.liveRobot(ctx, c, robotID, act)
	if err != nil {
		return fleetgate.Robot{}, nil, nil, err
	}
	rc, ok := fleet.As[fleet.RecordingControl](live)
	if !ok {
		return fleetgate.Robot{}, nil, nil, fleetgate.Errorf(fleetgate.EInvalid, "robot %q cannot record: its source has no recorder", r.Name)
	}
	return r, live, rc, nil
}

// recordingCall runs one recording request under RecordingTimeout.
func recordingCall[T any](ctx context.Context, r fleetgate.Robot, call func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, RecordingTimeout)
	defer cancel()
	v, err := call(ctx)
	if err != nil {
		var zero T
		if errors.Is(err, context.DeadlineExceeded) {
			return zero, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "robot " + quote(r.Name) + " did not answer within " + RecordingTimeout.String(), Err: err}
		}
		return zero, robotError(r, err)
	}
	return v, nil
}

// StartRecording starts recording streams of a connected robot (Developer and above).
func (ss *StreamService) StartRecording(ctx context.Context, c *Caller, robotID string, in RecordingInput) (fleetgate.Recording, error) {
	if len(in.Streams) == 0 {
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EInvalid, "name at least one stream to record")
	}
	if len(in.Streams) > maxRecordingStreams {
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EInvalid, "at most %d streams per recording", maxRecordingStreams)
	}
	r, live, rc, err := ss.recorder(ctx, c, robotID, actRecord)
	if err != nil {
		return fleetgate.Recording{}, err
	}
	streams, err := robotCall(ctx, r, live.Streams)
	if err != nil {
		return fleetgate.Recording{}, err
	}
	req := fleetgate.RecordingRequest{Duration: in.Duration, MaxBytes: in.MaxBytes, MaxRate: in.MaxRate}
	for _, name := range in.Streams {
		key, err := outputStreamNamed(r, streams, name)
		if err != nil {
			return fleetgate.Recording{}, err
		}
		req.Streams = append(req.Streams, key)
	}
	rec, err := recordingCall(ctx, r, func(ctx context.Context) (fleetgate.Recording, error) { return rc.StartRecording(ctx, req) })
	if err != nil {
		return fleetgate.Recording{}, err
	}
	ss.log.Info("recording started", "robot", r.Name, "recording", rec.ID, "by", c.User.Email, "streams", in.Streams)
	return rec, nil
}

// outputStreamNamed finds the output stream a person's name for it means.
func outputStreamNamed(r fleetgate.Robot, streams []fleetgate.Stream, name string) (fleetgate.StreamKey, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > maxStreamNameLength {
		return fleetgate.StreamKey{}, fleetgate.Errorf(fleetgate.EInvalid, "a stream name must have 1 to %d characters", maxStreamNameLength)
	}
	outputs := slices.DeleteFunc(slices.Clone(streams), func(s fleetgate.Stream) bool { return s.Direction == fleetgate.Input })
	var found []fleetgate.Stream
	for _, s := range outputs {
		if s.Component != "" && s.Component+"/"+strings.TrimPrefix(s.Name, "/") == strings.TrimPrefix(name, "/") {
			return s.Key(), nil
		}
		if s.Name == name || strings.TrimPrefix(s.Name, "/") == strings.TrimPrefix(name, "/") {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found[0].Key(), nil
	case 0:
		if slices.ContainsFunc(streams, func(s fleetgate.Stream) bool { return s.Name == name || s.Component+"/"+s.Name == name }) {
			return fleetgate.StreamKey{}, fleetgate.Errorf(fleetgate.EInvalid, "%s is an input stream: only output streams are recorded", name)
		}
		return fleetgate.StreamKey{}, fleetgate.Errorf(fleetgate.EInvalid, "robot %q has no output stream %q (%s)", r.Name, name, streamNames(outputs))
	default:
		return fleetgate.StreamKey{}, fleetgate.Errorf(fleetgate.EInvalid, "%q names %d streams of robot %q: give component/stream (%s)", name, len(found), r.Name, streamNames(found))
	}
}

func streamNames(streams []fleetgate.Stream) string {
	names := make([]string, len(streams))
	for i, s := range streams {
		names[i] = s.Name
		if s.Component != "" {
			names[i] = s.Component + "/" + s.Name
		}
	}
	return strings.Join(names, ", ")
}

// StopRecording stops a recording and returns it once its file is complete.
func (ss *StreamService) StopRecording(ctx context.Context, c *Caller, robotID, recordingID string) (fleetgate.Recording, error) {
	r, _, rc, err := ss.recorder(ctx, c, robotID, actRecord)
	if err != nil {
		return fleetgate.Recording{}, err
	}
	rec, err := recordingCall(ctx, r, func(ctx context.Context) (fleetgate.Recording, error) { return rc.StopRecording(ctx, recordingID) })
	if err != nil {
		return fleetgate.Recording{}, err
	}
	ss.log.Info("recording stopped", "robot", r.Name, "recording", rec.ID, "by", c.User.Email)
	return rec, nil
}

// Recordings lists a connected robot's recordings, newest first.
func (ss *StreamService) Recordings(ctx context.Context, c *Caller, robotID string) ([]fleetgate.Recording, error) {
	r, _, rc, err := ss.recorder(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	return recordingCall(ctx, r, rc.Recordings)
}

// MayRecord reports whether the caller may start and stop recordings of the robot.
func (ss *StreamService) MayRecord(ctx context.Context, c *Caller, robotID string) bool {
	_, _, err := ss.robots.authorizeRobot(ctx, c, robotID, actRecord)
	return err == nil
}
