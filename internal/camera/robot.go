package camera

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

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

func (w *withCameras) camera(key fleet.StreamKey) *Camera {
	for _, c := range w.cams {
		if c.Stream().Key() == key {
			return c
		}
	}
	return nil
}

func (w *withCameras) Streams(ctx context.Context) ([]fleet.Stream, error) {
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

func (w *withCameras) Read(ctx context.Context, key fleet.StreamKey) (fleet.Sample, error) {
	if c := w.camera(key); c != nil {
		return c.Read(ctx)
	}
	return w.Robot.Read(ctx, key)
}

func (w *withCameras) Subscribe(ctx context.Context, key fleet.StreamKey) (*fleet.Subscription, error) {
	if c := w.camera(key); c != nil {
		return c.Subscribe()
	}
	return w.Robot.Subscribe(ctx, key)
}

func (w *withCameras) Publish(ctx context.Context, key fleet.StreamKey, typ string, payload []byte) error {
	if c := w.camera(key); c != nil {
		return fleet.Errorf(fleet.ErrInvalid, "camera %s is an output stream", c.cfg.Name)
	}
	return w.Robot.Publish(ctx, key, typ, payload)
}

// Unwrap is the decorated robot.
func (w *withCameras) Unwrap() fleet.Robot { return w.Robot }
