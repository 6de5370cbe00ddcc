package record

import (
	"context"
	"os"
	"slices"
	"time"

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
	return w
}

// Unwrap is the robot recorded.
func (r *Robot) Unwrap() fleet.Robot { return r.Robot }

func (r *Robot) StartRecording(ctx context.Context, req fleet.RecordingRequest) (fleet.Recording, error) {
	return r.rec.start(ctx, r, req)
}

func (r *Robot) StopRecording(ctx context.Context, id string) (fleet.Recording, error) {
	return r.rec.stop(ctx, r.Info().ID, id)
}

func (r *Robot) Recordings(ctx context.Context) ([]fleet.Recording, error) {
	return r.rec.list(r.Info().ID), nil
}

// MIME type and second-convention file type of a recording.
const (
	MIMEType = "application/mcap"
	FileType = "mcap"
)

// Resources adds the robot's complete recordings to the robot's own resources.
func (r *Robot) Resources(ctx context.Context) ([]fleet.Resource, error) {
	list, err := r.Robot.Resources(ctx)
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(list), r.rec.resources(r.Info().ID)...), nil
}

func (r *Robot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleet.Resource, error) {
	if res, ok := r.rec.resource(r.Info().ID, id); ok {
		f, err := os.Open(r.rec.path(id))
		if err != nil {
			return nil, fleet.Resource{}, fleet.Errorf(fleet.ErrNotFound, "recording %s: %v", id, err)
		}
		return f, res, nil
	}
	return r.Robot.OpenResource(ctx, id)
}

// Metrics lists the Recordings metric beside the robot's own.
func (r *Robot) Metrics(ctx context.Context) ([]fleet.MetricType, error) {
	types, err := r.Robot.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(types, fleet.MetricRecordings) {
		types = append(slices.Clone(types), fleet.MetricRecordings)
		slices.Sort(types)
	}
	return types, nil
}

// recordersShown bounds the Recordings metric: the running recordings and the latest
// finished ones.
const recordersShown = 20

// Metric answers the Recordings metric from the recorder: the running recordings, with
// their end time the time of the reading, then the latest finished ones.
func (r *Robot) Metric(ctx context.Context, typ fleet.MetricType, name string) (fleet.Metric, error) {
	if typ != fleet.MetricRecordings {
		return r.Robot.Metric(ctx, typ, name)
	}
	if _, err := r.Robot.Streams(ctx); err != nil {
		return fleet.Metric{}, err // an offline robot reports nothing
	}
	now := r.rec.clock.Now()
	recs := r.rec.list(r.Info().ID)
	slices.SortStableFunc(recs, func(a, b fleet.Recording) int {
		return boolOrder(b.State == fleet.RecordingActive, a.State == fleet.RecordingActive)
	})
	out := []fleet.Recorder{}
	for _, rec := range recs[:min(len(recs), recordersShown)] {
		end := rec.EndTime
		if end.IsZero() {
			end = now
		}
		out = append(out, fleet.Recorder{ID: rec.ID, Type: FileType, State: rec.State, StartTime: rec.StartTime,
			EndTime: end, ErrorType: rec.ErrorType, Dropped: rec.Dropped})
	}
	return fleet.Metric{Type: typ, Value: out}, nil
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
func (r *Recorder) resources(robotID string) []fleet.Resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []fleet.Resource
	for _, e := range r.entries {
		if e.meta.RobotID == robotID && e.s == nil && e.file {
			out = append(out, e.meta.resource())
		}
	}
	slices.SortFunc(out, func(a, b fleet.Resource) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out
}

func (r *Recorder) resource(robotID, id string) (fleet.Resource, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[id]
	if !ok || e.meta.RobotID != robotID || e.s != nil || !e.file {
		return fleet.Resource{}, false
	}
	return e.meta.resource(), true
}

func (m meta) resource() fleet.Resource {
	return fleet.Resource{ID: m.ID, Name: m.Name, MIMEType: MIMEType, FileType: FileType, Size: m.Size,
		CreatedAt: m.Start.UTC().Truncate(time.Millisecond)}
}
