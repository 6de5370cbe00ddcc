package camera

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Configured is one --camera flag: NAME=URL, or ROBOT/NAME=URL for a camera of a robot.
type Configured struct {
	Robot string // the robot's name; "" for a camera of the agent itself
	Name  string
	Spec  Spec
}

// cameraName is what a camera may be called: it becomes a stream name.
var cameraName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ParseFlag reads a --camera value.
func ParseFlag(v string) (Configured, error) {
	key, raw, ok := strings.Cut(v, "=")
	if !ok {
		return Configured{}, fmt.Errorf("--camera %s: want NAME=URL or ROBOT/NAME=URL", redactURL(v))
	}
	var c Configured
	if robot, name, ok := strings.Cut(key, "/"); ok {
		c.Robot, c.Name = robot, name
		if robot == "" {
			return Configured{}, fmt.Errorf("--camera %s: the robot name is empty", key)
		}
	} else {
		c.Name = key
	}
	if !cameraName.MatchString(c.Name) {
		return Configured{}, fmt.Errorf("--camera %s: a camera name is 1 to 64 letters, digits, '.', '_' or '-'", key)
	}
	spec, err := ParseURL(raw)
	if err != nil {
		return Configured{}, fmt.Errorf("--camera %s: %w", key, err)
	}
	c.Spec = spec
	return c, nil
}

// WithCameras returns robot with cams added to its stream list, as output streams of the
// camera component: a decorator for any robot source (the simulator, ROS 1), which never
// knows. Reads and subscriptions of camera streams go to the cameras, everything else to
// robot. The caller closes the cameras.
func WithCameras(robot fleet.Robot, cams ...*Camera) fleet.Robot {
	if len(cams) == 0 {
		return robot
	}
	return &withCameras{Robot: robot, cams: cams}
}

type withCameras struct {
	fleet.Robot
	cams []*Camera
}

func (w *withCameras) camera(key fleetgate.StreamKey) *Camera {
	for _, c := range w.cams {
		if c.Stream().Key() == key {
			return c
		}
	}
	return nil
}

func (w *withCameras) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	streams, err := w.Robot.Streams(ctx)
	if err != nil {
		return nil, err
	}
	out := slices.Clip(streams)
	for _, c := range w.cams {
		out = append(out, c.Stream())
	}
	return out, nil
}

func (w *withCameras) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	if c := w.camera(key); c != nil {
		return c.Read(ctx)
	}
	return w.Robot.Read(ctx, key)
}

func (w *withCameras) Subscribe(ctx context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	if c := w.camera(key); c != nil {
		return c.SubscribeWith(opts)
	}
	return w.Robot.Subscribe(ctx, key, opts)
}

// Unwrap is the decorated robot.
func (w *withCameras) Unwrap() fleet.Robot { return w.Robot }

// Single is a robot of one output stream, as, served by camera c: an ad-hoc camera of one
// viewer behind the robot contract. Its first subscription starts the camera; when that
// subscription ends the camera closes, and the robot serves nothing more. started, when
// not nil, is asked before the camera starts and may refuse (a limit of cameras at once);
// ended is called once the camera has closed.
func Single(c *Camera, as fleetgate.Stream, started func() error, ended func()) fleet.Robot {
	return &single{c: c, as: as, started: started, ended: ended}
}

type single struct {
	c       *Camera
	as      fleetgate.Stream
	started func() error
	ended   func()
	once    sync.Once
	onceErr error
}

func (s *single) Info() fleetgate.Info { return fleetgate.Info{Name: s.as.Name} }

func (s *single) Streams(context.Context) ([]fleetgate.Stream, error) {
	return []fleetgate.Stream{s.as}, nil
}

func (s *single) check(key fleetgate.StreamKey) error {
	if key != s.as.Key() {
		return fleetgate.Errorf(fleetgate.ENotFound, "no stream %s", key.Name)
	}
	return nil
}

func (s *single) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	sub, err := s.Subscribe(ctx, key, fleetgate.SubscribeOptions{})
	if err != nil {
		return fleetgate.Sample{}, err
	}
	defer sub.Close()
	return sub.Next(ctx)
}

func (s *single) Subscribe(_ context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	if err := s.check(key); err != nil {
		return nil, err
	}
	first := false
	s.once.Do(func() {
		first = true
		if s.started != nil {
			s.onceErr = s.started()
		}
	})
	if !first {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "this camera served its viewer")
	}
	if s.onceErr != nil {
		return nil, s.onceErr
	}
	sub, err := s.c.SubscribeWith(opts)
	if err != nil {
		s.close()
		return nil, err
	}
	go func() {
		<-sub.Done()
		s.close()
	}()
	return sub, nil
}

func (s *single) close() {
	s.c.Close()
	if s.ended != nil {
		s.ended()
	}
}

func (s *single) Metrics(context.Context) ([]fleetgate.MetricType, error) { return nil, nil }

func (s *single) Metric(context.Context, fleetgate.MetricType, string) (fleetgate.Metric, error) {
	return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "a camera reports no metrics")
}

func (s *single) KPIs(context.Context) ([]fleetgate.KPI, error)           { return nil, nil }
func (s *single) Resources(context.Context) ([]fleetgate.Resource, error) { return nil, nil }

func (s *single) OpenResource(_ context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "no resource %s", id)
}
