package camera

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// HostConfig configures the robot of the agent's own cameras.
type HostConfig struct {
	Info fleetgate.Info // ID stable across restarts; Name the agent's host name
	// Cameras are the configured cameras without a robot.
	Cameras []*Camera
	// Camera is the template of the cameras the host finds (video devices, ONVIF devices):
	// tools, timings, log. Name and Spec are set per camera.
	Camera Config
	// Devices lists the host's video capture devices (ListDevices); nil: none are listed.
	Devices func() []VideoDevice
	// Discover probes for ONVIF devices (Discover), at most MaxDiscovered of them, every
	// DiscoverEvery; nil: off.
	Discover      func(ctx context.Context, limit int) ([]Device, error)
	DiscoverEvery time.Duration
	// MaxDiscovered bounds the ONVIF devices listed, across every answer of every probe;
	// 0: DefaultMaxDiscovered.
	MaxDiscovered int
	// Policy is the address policy of the ONVIF devices discovery finds, as of the cameras
	// opened by address: whoever answers a probe names the address the agent connects to.
	// nil: none (the agent's own tests).
	Policy *AddressPolicy
	Log    *slog.Logger
}

// Host is the robot of the agent's own cameras: the configured cameras that belong to no
// robot, the video capture devices on the agent's host, and with discovery on the ONVIF
// devices that answered on the local network. It is named after the agent's host, as
// those cameras are the agent's, not a robot's.
type Host struct {
	cfg HostConfig

	mu         sync.Mutex
	devices    map[string]*Camera // by device path
	devScanned time.Time
	discovered map[string]*Camera // by device service URL
	refused    map[string]bool    // device service URLs the policy refused, logged once
	closed     bool
}

var _ fleet.Robot = (*Host)(nil)

// deviceRescan is how often the device list may be read again: hot-plugged cameras appear
// on the next stream list after it.
const deviceRescan = 5 * time.Second

// NewHost returns the host robot; Run does its discovery.
func NewHost(cfg HostConfig) *Host {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.DiscoverEvery <= 0 {
		cfg.DiscoverEvery = time.Minute
	}
	if cfg.MaxDiscovered <= 0 {
		cfg.MaxDiscovered = DefaultMaxDiscovered
	}
	return &Host{cfg: cfg, devices: map[string]*Camera{}, discovered: map[string]*Camera{}, refused: map[string]bool{}}
}

// Run probes for ONVIF devices until ctx ends, when discovery is on.
func (h *Host) Run(ctx context.Context) {
	if h.cfg.Discover == nil {
		return
	}
	t := time.NewTicker(h.cfg.DiscoverEvery)
	defer t.Stop()
	for {
		probeCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		found, err := h.cfg.Discover(probeCtx, h.cfg.MaxDiscovered)
		cancel()
		if err != nil && ctx.Err() == nil {
			h.cfg.Log.Warn("ONVIF discovery failed", "err", err)
		} else {
			h.setDiscovered(found)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// setDiscovered replaces the discovered cameras; one still answering keeps its camera (and
// its viewers). Under the policy, a device at a refused address is not listed (one whose
// name leads there is refused when it opens, as a camera opened by address is), and at most
// MaxDiscovered are, whatever found holds.
func (h *Host) setDiscovered(found []Device) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	next := map[string]*Camera{}
	refused := map[string]bool{}
	dropped := 0
	for _, d := range found {
		if next[d.XAddr] != nil || refused[d.XAddr] {
			continue
		}
		if len(next) >= h.cfg.MaxDiscovered {
			dropped++
			continue
		}
		if c := h.discovered[d.XAddr]; c != nil {
			next[d.XAddr] = c
			continue
		}
		spec, err := ParseURL(d.XAddr)
		if err != nil {
			continue
		}
		if h.cfg.Policy != nil {
			if err := h.cfg.Policy.CheckLiteral(hostOf(spec.URL)); err != nil {
				refused[d.XAddr] = true
				if !h.refused[d.XAddr] {
					h.cfg.Log.Warn("ONVIF device not listed", "address", d.XAddr, "err", err)
				}
				continue
			}
		}
		cfg := h.cfg.Camera
		cfg.Name, cfg.Spec, cfg.Policy = discoveredName(d), spec, h.cfg.Policy
		next[d.XAddr] = New(cfg)
		h.cfg.Log.Info("ONVIF device found", "name", cfg.Name, "address", d.XAddr)
	}
	if dropped > 0 {
		h.cfg.Log.Warn("ONVIF devices not listed: over the limit (--onvif-max-cameras)", "limit", h.cfg.MaxDiscovered, "dropped", dropped)
	}
	for addr, c := range h.discovered {
		if next[addr] == nil {
			go c.Close()
		}
	}
	h.discovered, h.refused = next, refused
}

var notNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// discoveredName names a discovered camera after its host: ONVIF names are not unique.
func discoveredName(d Device) string {
	host := "device"
	if u, err := url.Parse(d.XAddr); err == nil {
		host = u.Host
	}
	return "onvif-" + strings.Trim(notNameChars.ReplaceAllString(host, "-"), "-")
}

// cameras is every camera of the host now, configured first, in a stable order.
func (h *Host) cameras() []*Camera {
	h.scanDevices()
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.cfg.Cameras)
	taken := map[string]bool{}
	for _, c := range out {
		taken[c.cfg.Name] = true
	}
	add := func(m map[string]*Camera) {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			if c := m[k]; !taken[c.cfg.Name] {
				taken[c.cfg.Name] = true
				out = append(out, c)
			}
		}
	}
	add(h.devices)
	add(h.discovered)
	return out
}

// scanDevices reads the device list again when it is older than deviceRescan.
func (h *Host) scanDevices() {
	if h.cfg.Devices == nil {
		return
	}
	h.mu.Lock()
	if h.closed || time.Since(h.devScanned) < deviceRescan {
		h.mu.Unlock()
		return
	}
	h.devScanned = time.Now()
	h.mu.Unlock()
	found := h.cfg.Devices() // outside the lock: it opens devices
	h.mu.Lock()
	defer h.mu.Unlock()
	next := map[string]*Camera{}
	for _, d := range found {
		if c := h.devices[d.Path]; c != nil {
			next[d.Path] = c
			continue
		}
		spec, err := ParseDevice(d.Path)
		if err != nil {
			continue
		}
		cfg := h.cfg.Camera
		cfg.Name, cfg.Spec = d.Name(), spec
		c := New(cfg)
		c.stream.DisplayName = d.Card
		next[d.Path] = c
	}
	for p, c := range h.devices {
		if next[p] == nil {
			go c.Close()
		}
	}
	h.devices = next
}

func (h *Host) camera(key fleetgate.StreamKey) (*Camera, error) {
	for _, c := range h.cameras() {
		if c.Stream().Key() == key {
			return c, nil
		}
	}
	return nil, fleetgate.Errorf(fleetgate.ENotFound, "no camera %s", key.Name)
}

func (h *Host) Info() fleetgate.Info { return h.cfg.Info }

func (h *Host) Streams(context.Context) ([]fleetgate.Stream, error) {
	cams := h.cameras()
	out := make([]fleetgate.Stream, len(cams))
	for i, c := range cams {
		out[i] = c.Stream()
	}
	return out, nil
}

func (h *Host) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	c, err := h.camera(key)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	return c.Read(ctx)
}

func (h *Host) Subscribe(_ context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	c, err := h.camera(key)
	if err != nil {
		return nil, err
	}
	return c.SubscribeWith(opts)
}

func (h *Host) Metrics(context.Context) ([]fleetgate.MetricType, error) { return nil, nil }

func (h *Host) Metric(_ context.Context, typ fleetgate.MetricType, _ string) (fleetgate.Metric, error) {
	return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "%s reports no metric %d", h.cfg.Info.Name, typ)
}

func (h *Host) KPIs(context.Context) ([]fleetgate.KPI, error) { return nil, nil }

func (h *Host) Resources(context.Context) ([]fleetgate.Resource, error) { return nil, nil }

func (h *Host) OpenResource(_ context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "no resource %s", id)
}

// Close closes the cameras the host found (the configured ones are the caller's).
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	found := make([]*Camera, 0, len(h.devices)+len(h.discovered))
	for _, c := range h.devices {
		found = append(found, c)
	}
	for _, c := range h.discovered {
		found = append(found, c)
	}
	h.devices, h.discovered = map[string]*Camera{}, map[string]*Camera{}
	h.mu.Unlock()
	for _, c := range found {
		c.Close()
	}
}

// String names the host robot in logs.
func (h *Host) String() string { return fmt.Sprintf("camera host %s", h.cfg.Info.Name) }
