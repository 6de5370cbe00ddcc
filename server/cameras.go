package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/source/camera"
)

// CameraConfig configures an agent's cameras.
type CameraConfig struct {
	// Cameras are the --camera flags: a camera of a robot (ROBOT/NAME=URL) joins that robot's
	// streams; one without a robot joins the agent's own camera robot.
	Cameras []camera.Configured
	// AllowPrivate lets ad-hoc camera URLs reach loopback and link-local addresses
	// (--camera-allow-private).
	AllowPrivate bool
	// Discovery lists the ONVIF devices that answer WS-Discovery on the local network
	// (--onvif-discovery), at most OnvifMaxCameras of them (--onvif-max-cameras; 0:
	// camera.DefaultMaxDiscovered), under the policy of cameras opened by address.
	Discovery       bool
	OnvifMaxCameras int
	// Devices lists the host's V4L2 capture devices (--camera-devices).
	Devices bool
}

// maxAdhocCameras bounds the cameras opened by address at once: each is an ffmpeg.
const maxAdhocCameras = 16

// cameras is the agent's camera source, wired: configured cameras by robot, the agent's own
// camera robot, and the ad-hoc cameras of W3 queries.
type cameras struct {
	cfg     CameraConfig
	tools   camera.Tools
	ffmpeg  bool // ffmpeg is installed
	log     *slog.Logger
	byRobot map[string][]*camera.Camera
	own     []*camera.Camera
	adhoc   *adhocCameras

	mu      sync.Mutex
	used    map[string]bool             // robots that took (or will take) their cameras
	wrapped map[fleet.Robot]fleet.Robot // each robot's decorated self, the same every time
	host    *camera.Host
}

// openCameras prepares the cameras of an agent; nothing runs until someone watches. Cameras
// configured on a host without ffmpeg are an error now, not at the first viewer.
func openCameras(cfg CameraConfig, log *slog.Logger) (*cameras, error) {
	c := &cameras{cfg: cfg, log: log.With("source", "camera"), byRobot: map[string][]*camera.Camera{}, used: map[string]bool{},
		wrapped: map[fleet.Robot]fleet.Robot{}}
	tools, err := camera.LookupTools()
	switch {
	case err == nil:
		c.tools, c.ffmpeg = tools, true
	case len(cfg.Cameras) > 0:
		return nil, fmt.Errorf("cameras are configured (--camera) but %v", err)
	default:
		c.log.Info("ffmpeg is not installed: no cameras (Debian: apt-get install ffmpeg)")
		return c, nil
	}
	names := map[string]bool{}
	for _, cc := range cfg.Cameras {
		key := cc.Robot + "/" + cc.Name
		if names[key] {
			return nil, fmt.Errorf("--camera %s is given twice", strings.TrimPrefix(key, "/"))
		}
		names[key] = true
		cam := camera.New(c.cameraConfig(cc.Name, cc.Spec))
		if cc.Robot == "" {
			c.own = append(c.own, cam)
		} else {
			c.byRobot[cc.Robot] = append(c.byRobot[cc.Robot], cam)
		}
	}
	c.adhoc = &adhocCameras{c: c, policy: camera.AddressPolicy{AllowPrivate: cfg.AllowPrivate}, open: map[*camera.Camera]bool{}}
	return c, nil
}

func (c *cameras) cameraConfig(name string, spec camera.Spec) camera.Config {
	return camera.Config{Name: name, Spec: spec, Tools: c.tools, Log: c.log}
}

// gatewayCameras is the ad-hoc camera opener for the core; nil without ffmpeg (a nil
// *adhocCameras in the interface would not be nil).
func (c *cameras) gatewayCameras() gateway.Cameras {
	if c.adhoc == nil {
		return nil
	}
	return c.adhoc
}

// decorate adds the cameras configured for robot (by its name) to its streams. Every robot
// source this agent hosts goes through it before it is registered; it returns the same value
// for the same robot every time, so that the registry removes what it added.
func (c *cameras) decorate(robot fleet.Robot) fleet.Robot {
	name := robot.Info().Name
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used[name] = true
	if w, ok := c.wrapped[robot]; ok {
		return w
	}
	w := camera.WithCameras(robot, c.byRobot[name]...)
	c.wrapped[robot] = w
	return w
}

// expect records a robot that will come online later (a ROS 1 robot when its master
// answers), so that its cameras are not reported as naming no robot.
func (c *cameras) expect(name string) {
	c.mu.Lock()
	c.used[name] = true
	c.mu.Unlock()
}

// startCameraHost checks that every robot named by a --camera exists, and registers the
// agent's own camera robot when there is anything for it to show: cameras without a robot,
// video devices on the host, or ONVIF discovery.
func (s *Server) startCameraHost(ctx context.Context) error {
	c := s.cams
	s.closers = append(s.closers, c.close)
	for robot, cams := range c.byRobot {
		c.mu.Lock()
		used := c.used[robot]
		c.mu.Unlock()
		if !used {
			return fmt.Errorf("--camera %s/%s: this agent hosts no robot named %q", robot, cams[0].Stream().Name, robot)
		}
	}
	if !c.ffmpeg {
		return nil
	}
	var devices func() []camera.VideoDevice
	if c.cfg.Devices {
		devices = func() []camera.VideoDevice { return camera.ListDevices("/dev") }
	}
	if len(c.own) == 0 && !c.cfg.Discovery && (devices == nil || len(devices()) == 0) {
		return nil
	}
	info, err := cameraHostInfo(s.cfg.DataDir, s.cfg.Version)
	if err != nil {
		return err
	}
	hc := camera.HostConfig{Info: info, Cameras: c.own, Camera: c.cameraConfig("", camera.Spec{}), Devices: devices, Log: c.log}
	if c.cfg.Discovery {
		hc.Discover, hc.MaxDiscovered, hc.Policy = camera.Discover, c.cfg.OnvifMaxCameras, &c.adhoc.policy
	}
	host := camera.NewHost(hc)
	c.mu.Lock()
	c.host = host
	c.mu.Unlock()
	if err := s.registry.Add(ctx, host, s.localFleetID()); err != nil {
		return fmt.Errorf("registering the camera robot: %w", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		host.Run(runCtx)
	}()
	s.closers = append(s.closers, func() {
		stop()
		<-done
		s.registry.Remove(host)
		host.Close()
	})
	c.log.Info("camera robot online", "name", info.Name, "cameras", len(c.own), "devices", c.cfg.Devices, "onvif-discovery", c.cfg.Discovery)
	return nil
}

// cameraHostInfo is the identity of the agent's camera robot: named after the host, its id
// kept in the data directory so that it is the same robot after a restart.
func cameraHostInfo(dataDir, version string) (fleetgate.Info, error) {
	path := filepath.Join(dataDir, "camera-robot-id")
	id := ""
	if b, err := os.ReadFile(path); err == nil {
		if u, err := uuid.Parse(strings.TrimSpace(string(b))); err == nil {
			id = u.String()
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fleetgate.Info{}, err
	}
	if id == "" {
		id = uuid.NewString()
		if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
			return fleetgate.Info{}, fmt.Errorf("keeping the camera robot's id: %w", err)
		}
	}
	name, err := os.Hostname()
	if err != nil || name == "" {
		name = "agent"
	}
	return fleetgate.Info{ID: id, Name: name, ConfigName: "cameras", AgentVersion: version}, nil
}

// close stops every camera (their ffmpeg reaped) once the robots are gone.
func (c *cameras) close() {
	for _, cams := range c.byRobot {
		for _, cam := range cams {
			cam.Close()
		}
	}
	for _, cam := range c.own {
		cam.Close()
	}
	if c.adhoc != nil {
		c.adhoc.close()
	}
}

// adhocCameras opens the cameras W3 queries name by address (gateway.Cameras): checked
// against the address policy, at most maxAdhocCameras at once, each closed when its socket
// ends.
type adhocCameras struct {
	c      *cameras
	policy camera.AddressPolicy

	mu     sync.Mutex
	open   map[*camera.Camera]bool
	closed bool
}

var _ gateway.Cameras = (*adhocCameras)(nil)

// spec reads a target as a camera Spec: the address, and the credentials (from username
// and password, or from the URL's user part, not both).
func (a *adhocCameras) spec(t gateway.CameraTarget) (camera.Spec, error) {
	if t.Source == fleetgate.SourceDevice {
		spec, err := camera.ParseDevice(t.Endpoint)
		if err != nil {
			return camera.Spec{}, fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
		}
		if t.Username != "" || t.Password != "" {
			return camera.Spec{}, fleetgate.Errorf(fleetgate.EInvalid, "a video device takes no username or password")
		}
		return spec, nil
	}
	spec, err := camera.ParseURL(t.URL)
	if err != nil {
		return camera.Spec{}, fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if spec.Source != t.Source {
		want := map[fleetgate.SourceType]string{fleetgate.SourceRTSP: "an rtsp:// or rtsps://", fleetgate.SourceONVIF: "an http(s):// ONVIF"}[t.Source]
		return camera.Spec{}, fleetgate.Errorf(fleetgate.EInvalid, "source %d takes %s URL", t.Source, want)
	}
	if t.Username != "" || t.Password != "" {
		if spec.Username != "" {
			return camera.Spec{}, fleetgate.Errorf(fleetgate.EInvalid, "give the credentials in username and password or in the URL, not both")
		}
		if err := camera.CheckCredentials(t.Username, t.Password); err != nil {
			return camera.Spec{}, fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
		}
		spec.Username, spec.Password = t.Username, t.Password
	}
	return spec, nil
}

func (a *adhocCameras) Check(t gateway.CameraTarget) error {
	spec, err := a.spec(t)
	if err != nil {
		return err
	}
	if spec.Source != fleetgate.SourceDevice {
		if err := a.policy.CheckLiteral(hostname(spec.URL)); err != nil {
			return fleetgate.Errorf(fleetgate.EForbidden, "%v", err)
		}
	}
	return nil
}

func (a *adhocCameras) Open(t gateway.CameraTarget, as fleetgate.Stream) (fleet.Robot, error) {
	spec, err := a.spec(t)
	if err != nil {
		return nil, err
	}
	cfg := a.c.cameraConfig(as.Name, spec)
	cfg.Policy = &a.policy
	cfg.Linger = -1 // one viewer: when it leaves, ffmpeg stops
	cam := camera.New(cfg)
	started := func() error {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.closed {
			return fleetgate.Errorf(fleetgate.EOffline, "the agent is stopping")
		}
		if len(a.open) >= maxAdhocCameras {
			return fleetgate.Errorf(fleetgate.EUnavailable, "%d cameras opened by address are running: the agent's limit", maxAdhocCameras)
		}
		a.open[cam] = true
		return nil
	}
	ended := func() {
		a.mu.Lock()
		delete(a.open, cam)
		a.mu.Unlock()
	}
	return camera.Single(cam, as, started, ended), nil
}

// close stops every ad-hoc camera still running.
func (a *adhocCameras) close() {
	a.mu.Lock()
	a.closed = true
	open := make([]*camera.Camera, 0, len(a.open))
	for cam := range a.open {
		open = append(open, cam)
	}
	a.mu.Unlock()
	for _, cam := range open {
		cam.Close()
	}
}

func hostname(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
