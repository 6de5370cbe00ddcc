// Package sim simulates a fleet of warehouse robots, the embedded default fleet of
// `fleetgate agent --sim N`: a shared 2D warehouse with moving obstacles, differential-drive
// and car-like robots with speed and acceleration limits that stop at contact, and sensors
// (lidar, camera, depth) that cost CPU only while someone reads them.
package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/hoststat"
)

// Config configures a simulation.
type Config struct {
	Count        int           // number of robots (>= 1)
	Seed         int64         // world and start poses are deterministic for a seed
	CmdTimeout   time.Duration // brake to a stop when no command arrived for this long; default 1s
	DataDir      string        // the ids file and the map PNG live under DataDir/sim
	LogFile      string        // the agent's log file, offered as a resource; may be empty
	AgentVersion string
	Host         *hoststat.Sampler // may be nil: then no host metrics are listed
	Logger       *slog.Logger
	// ClockStrip burns each camera picture's capture time into its bottom sixteenth, in
	// black and white blocks a viewer can read back from the decoded picture (package
	// clockstrip): for glass-to-glass benchmarks, off for users (it hides the floor).
	ClockStrip bool
}

// DefaultCmdTimeout is how long a robot keeps driving on its last command.
const DefaultCmdTimeout = time.Second

// maxRobots bounds Count: the warehouse floor has room for this many with space around each.
const maxRobots = 100

// Rates. The physics step divides every period but the camera's, which runs on the step
// grid at 60 or 70 ms, 15 per second on average.
const (
	physicsStep   = 10 * time.Millisecond
	posePeriod    = 50 * time.Millisecond // pose and odom, 20 Hz
	scanPeriod    = 100 * time.Millisecond
	cameraPeriod  = time.Second / 15
	pointsPeriod  = 200 * time.Millisecond
	batteryPeriod = time.Second
)

// Sim is a running simulation: the world, its robots and the loop that moves them.
type Sim struct {
	cfg   Config
	log   *slog.Logger
	world *world
	dir   string // DataDir/sim

	mapSample fleetgate.Sample // the occupancy grid, published once and shared by every robot
	planOnce  sync.Once
	planner   *planGrid // the grid goals are planned on, built for the first goal
	mapFile   string    // the PNG of the map, a resource of every robot

	// mu guards the dynamic world: the time, the obstacles and every robot's body and
	// schedule. It is held only for physics and snapshots, never while rendering.
	mu     sync.Mutex
	now    time.Time
	robots []*robot

	async     bool // Start ran: heavy sensors render on their workers, not in step
	done      chan struct{}
	closed    atomic.Bool
	closeOnce sync.Once
	stopAfter func() bool
	wg        sync.WaitGroup
}

// Start builds the world and the robots and runs the simulation in real time until Close or
// until ctx ends.
func Start(ctx context.Context, cfg Config) (*Sim, error) {
	s, err := newSim(cfg, nil, time.Now())
	if err != nil {
		return nil, err
	}
	s.async = true
	for _, r := range s.robots {
		s.wg.Add(2)
		go r.sensorWorker(r.camKick, r.renderCamera)
		go r.sensorWorker(r.pointsKick, r.renderPoints)
	}
	s.wg.Add(1)
	go s.run()
	s.stopAfter = context.AfterFunc(ctx, s.Close)
	return s, nil
}

// newSim builds a simulation at time start without running it: tests drive it with step.
// w nil means the warehouse of cfg.Seed.
func newSim(cfg Config, w *world, start time.Time) (*Sim, error) {
	if cfg.Count < 1 || cfg.Count > maxRobots {
		return nil, fmt.Errorf("sim: robot count %d is not between 1 and %d", cfg.Count, maxRobots)
	}
	if cfg.DataDir == "" {
		return nil, errors.New("sim: no data directory")
	}
	if cfg.CmdTimeout <= 0 {
		cfg.CmdTimeout = DefaultCmdTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if w == nil {
		w = newWarehouse(cfg.Seed)
	}
	s := &Sim{cfg: cfg, log: cfg.Logger, world: w, dir: filepath.Join(cfg.DataDir, "sim"), now: start, done: make(chan struct{})}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	ids, err := loadIdentities(s.dir, cfg.Count, time.Now())
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	poses, err := w.startPoses(cfg.Count, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}

	cells, width, height := w.raster()
	png, err := mapPNG(cells, width, height)
	if err != nil {
		return nil, fmt.Errorf("sim: drawing the map: %w", err)
	}
	s.mapFile = filepath.Join(s.dir, "warehouse-map.png")
	if err := writeIfChanged(s.mapFile, png); err != nil {
		return nil, fmt.Errorf("sim: saving the map: %w", err)
	}
	s.mapSample = fleetgate.Sample{Type: typeGrid, Payload: mapPayload(occupancy(cells), width, height, start), Time: start, Seq: 1}

	// Start batteries between 60 and 95 percent, spread deterministically by index.
	for i := range cfg.Count {
		kind := diffDrive
		if i%2 == 1 {
			kind = carLike
		}
		b := body{kind: kind, x: poses[i].x, y: poses[i].y, theta: poses[i].theta, battery: 60 + math.Mod(float64(i)*23+float64(cfg.Seed%7)*5, 35)}
		s.robots = append(s.robots, newRobot(s, i, ids[i], b))
	}
	for _, r := range s.robots {
		r.schedule(start)
		r.publishState(start)
	}
	return s, nil
}

// Robots returns the simulated robots in index order.
func (s *Sim) Robots() []fleet.Robot {
	out := make([]fleet.Robot, len(s.robots))
	for i, r := range s.robots {
		out[i] = r
	}
	return out
}

// Close stops the simulation and ends every subscription with fleetgate.EOffline. The robots
// answer ErrOffline from then on. Close is idempotent.
func (s *Sim) Close() {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if s.stopAfter != nil {
			s.stopAfter()
		}
		close(s.done)
		s.wg.Wait()
		for _, r := range s.robots {
			r.closeTopics()
		}
	})
}

// clock is the simulation's time.
func (s *Sim) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// run steps the physics in real time. Simulation time follows the wall clock in whole steps;
// after a stall (a suspended process) it jumps ahead instead of replaying the gap at speed.
func (s *Sim) run() {
	defer s.wg.Done()
	t := time.NewTicker(physicsStep)
	defer t.Stop()
	epoch := s.clock() // the wall time Start began at, with its monotonic reading
	var steps int64
	const maxCatchUp = 25 // steps per tick; beyond that the gap is skipped
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		due := int64(time.Since(epoch) / physicsStep)
		if lag := due - steps; lag > maxCatchUp {
			skip := time.Duration(lag-1) * physicsStep
			s.mu.Lock()
			s.now = s.now.Add(skip)
			s.mu.Unlock()
			steps += lag - 1
			s.log.Warn("simulation fell behind real time; skipping", "skipped", skip)
		}
		for ; steps < due; steps++ {
			s.step(physicsStep)
		}
	}
}

// step advances the simulation by dt: obstacles, then each robot, then the sensors that are
// due. Sensors run after the lock is released.
func (s *Sim) step(dt time.Duration) {
	var jobs []func()
	s.mu.Lock()
	s.now = s.now.Add(dt)
	now, sec := s.now, dt.Seconds()
	s.world.moveObstacles(sec, s.robotDiscsLocked(nil, nil))
	for _, r := range s.robots {
		r.nav.steer(&r.body, now, dt)
		s.moveLocked(r, now, sec)
	}
	for _, r := range s.robots {
		jobs = r.dueLocked(now, jobs)
	}
	s.mu.Unlock()
	for _, job := range jobs {
		job()
	}
}

// robotDiscsLocked appends every robot but except as a disc.
func (s *Sim) robotDiscsLocked(dst []disc, except *robot) []disc {
	for _, r := range s.robots {
		if r != except {
			dst = append(dst, disc{r.body.x, r.body.y, robotRadius, robotHeight, kindRobot})
		}
	}
	return dst
}

// collidesLocked reports whether robot r would touch anything at (x, y).
func (s *Sim) collidesLocked(r *robot, x, y float64) bool {
	if !s.world.freeOfBoxes(x, y, robotRadius) {
		return true
	}
	for _, o := range s.world.obstacles {
		ox, oy := o.pos()
		if math.Hypot(x-ox, y-oy) < robotRadius+obstacleRadius {
			return true
		}
	}
	for _, o := range s.robots {
		if o != r && math.Hypot(x-o.body.x, y-o.body.y) < 2*robotRadius {
			return true
		}
	}
	return false
}

// moveLocked runs r's drive for sec seconds. A motion that would touch something is cut at
// the contact (found by bisection to well under a millimetre) and the robot stops there:
// the way a bumper stops a real one.
func (s *Sim) moveLocked(r *robot, now time.Time, sec float64) {
	b := &r.body
	b.updateSpeeds(now, s.cfg.CmdTimeout, sec)
	dx, dy, dth := b.motion(sec)
	b.blocked = false
	if (dx != 0 || dy != 0) && s.collidesLocked(r, b.x+dx, b.y+dy) {
		lo, hi := 0.0, 1.0
		for range 16 {
			mid := (lo + hi) / 2
			if s.collidesLocked(r, b.x+dx*mid, b.y+dy*mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		dx, dy = dx*lo, dy*lo
		b.v = 0
		if b.kind == carLike {
			// A car turns only by rolling; a differential drive may still turn in place.
			dth *= lo
			b.w = 0
		}
		b.blocked = true
	}
	b.x += dx
	b.y += dy
	b.theta = normAngle(b.theta + dth)
	b.travelled += math.Hypot(dx, dy)
	b.drainBattery(sec, s.world.chargeZone.contains(b.x, b.y))
}

// view snapshots what robot r's sensors see now: its pose and the scene around it.
func (s *Sim) view(r *robot) (pose, *scene, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	discs := make([]disc, 0, len(s.world.obstacles)+len(s.robots))
	discs = s.world.obstacleDiscs(discs)
	discs = s.robotDiscsLocked(discs, r)
	return pose{r.body.x, r.body.y, r.body.theta}, &scene{boxes: s.world.boxes, discs: discs}, s.now
}

// errOffline is what a closed simulation's robots answer.
func (s *Sim) errOffline(name string) error {
	return fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline: the simulation stopped", name)
}
