package record

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Robot is a robot whose streams the recorder can record: it is the wrapped robot, plus its
// finished recordings among its resources, the Recordings metric, and the recording control.
type Robot struct {
	fleet.Robot
	rec *Recorder
}

var (
	_ fleet.Robot            = (*Robot)(nil)
	_ fleet.RecordingControl = (*Robot)(nil)
	_ fleet.FlightRecorder   = (*Robot)(nil)
)

// Wrap returns robot with recordings; the agent registers the wrapped robot. A robot is
// wrapped once: the same robot gives the same wrapper, so that a source which adds and
// removes its robot as it comes and goes finds it in the registry.
func (r *Recorder) Wrap(robot fleet.Robot) *Robot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.wrappers[robot]; ok {
		return w
	}
	w := &Robot{Robot: robot, rec: r}
	r.wrappers[robot] = w
	if r.cfg.Flight.Buffer > 0 && !r.closed {
		r.startFlight(w)
	}
	return w
}

// Unwrap is the robot recorded.
func (r *Robot) Unwrap() fleet.Robot { return r.Robot }

func (r *Robot) StartRecording(ctx context.Context, req fleetgate.RecordingRequest) (fleetgate.Recording, error) {
	return r.rec.start(ctx, r, req)
}

func (r *Robot) StopRecording(ctx context.Context, id string) (fleetgate.Recording, error) {
	return r.rec.stop(ctx, r.Info().ID, id)
}

func (r *Robot) Recordings(ctx context.Context) ([]fleetgate.Recording, error) {
	return r.rec.list(r.Info().ID), nil
}

// TriggerRecording turns the robot's flight buffer into a recording (Recorder.Trigger).
func (r *Robot) TriggerRecording(ctx context.Context, trigger, eventID string) (fleetgate.Recording, error) {
	return r.rec.Trigger(r.Info().ID, trigger, eventID)
}

// MIME type and second-convention file type of a recording.
const (
	MIMEType = "application/mcap"
	FileType = "mcap"
)

// Resources adds the robot's complete recordings to the robot's own resources.
func (r *Robot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	list, err := r.Robot.Resources(ctx)
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(list), r.rec.resources(r.Info().ID)...), nil
}

func (r *Robot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	if res, ok := r.rec.resource(r.Info().ID, id); ok {
		f, err := os.Open(r.rec.path(id))
		if err != nil {
			return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "recording %s: %v", id, err)
		}
		return f, res, nil
	}
	return r.Robot.OpenResource(ctx, id)
}

// Metrics lists the Recordings metric beside the robot's own.
func (r *Robot) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	types, err := r.Robot.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(types, fleetgate.MetricRecordings) {
		types = append(slices.Clone(types), fleetgate.MetricRecordings)
		slices.Sort(types)
	}
	return types, nil
}

// recordersShown bounds the Recordings metric: the running recordings and the latest
// finished ones.
const recordersShown = 20

// Metric answers the Recordings metric from the recorder: the running recordings, with
// their end time the time of the reading, then the latest finished ones.
func (r *Robot) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	if typ != fleetgate.MetricRecordings {
		return r.Robot.Metric(ctx, typ, name)
	}
	if _, err := r.Robot.Streams(ctx); err != nil {
		return fleetgate.Metric{}, err // an offline robot reports nothing
	}
	now := r.rec.clock.Now()
	recs := r.rec.list(r.Info().ID)
	slices.SortStableFunc(recs, func(a, b fleetgate.Recording) int {
		return boolOrder(b.State == fleetgate.RecordingActive, a.State == fleetgate.RecordingActive)
	})
	out := []fleetgate.Recorder{}
	for _, rec := range recs[:min(len(recs), recordersShown)] {
		end := rec.EndTime
		if end.IsZero() {
			end = now
		}
		out = append(out, fleetgate.Recorder{ID: rec.ID, Type: FileType, State: rec.State, StartTime: rec.StartTime,
			EndTime: end, ErrorType: rec.ErrorType, Dropped: rec.Dropped})
	}
	return fleetgate.Metric{Type: typ, Value: out}, nil
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// resources lists robotID's complete recordings as resources.
func (r *Recorder) resources(robotID string) []fleetgate.Resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []fleetgate.Resource
	for _, e := range r.entries {
		if e.meta.RobotID == robotID && e.s == nil && e.file {
			out = append(out, e.meta.resource())
		}
	}
	slices.SortFunc(out, func(a, b fleetgate.Resource) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out
}

func (r *Recorder) resource(robotID, id string) (fleetgate.Resource, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[id]
	if !ok || e.meta.RobotID != robotID || e.s != nil || !e.file {
		return fleetgate.Resource{}, false
	}
	return e.meta.resource(), true
}

func (m meta) resource() fleetgate.Resource {
	return fleetgate.Resource{ID: m.ID, Name: m.Name, MIMEType: MIMEType, FileType: FileType, Size: m.Size,
		CreatedAt: m.Start.UTC().Truncate(time.Millisecond)}
}
