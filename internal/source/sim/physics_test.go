package sim

import (
	"math"
	"testing"
	"time"
)

// Robot 0 is a differential drive and robot 1 car-like: kinds alternate from the first.
var kinds = []struct {
	name  string
	index int
}{
	{"differential drive", 0},
	{"car-like", 1},
}

func TestKindsAlternate(t *testing.T) {
	s := mustNewSim(t, Config{Count: 4}, nil)
	want := []driveKind{diffDrive, carLike, diffDrive, carLike}
	inputs := []string{"cmd_vel", "drive", "cmd_vel", "drive"}
	for i, r := range s.robots {
		if r.body.kind != want[i] || r.input.Name != inputs[i] {
			t.Errorf("robot %d: kind %d input %s, want kind %d input %s", i, r.body.kind, r.input.Name, want[i], inputs[i])
		}
	}
}

func TestDriveIntoWallStopsAtContact(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 10))
			other := 1 - k.index
			place(s, other, 3, 8, 0)
			place(s, k.index, 5, 5, 0) // facing the east wall, whose face is at x = 19.8
			face := 20 - wallThickness
			driveFor(t, s, k.index, 1, 0, 20*time.Second, func() {
				if b := bodyOf(s, k.index); b.x+robotRadius > face+1e-9 {
					t.Fatalf("robot entered the wall: x = %.4f", b.x)
				}
			})
			b := bodyOf(s, k.index)
			if gap := face - (b.x + robotRadius); gap > 0.02 {
				t.Errorf("stopped %.4f m short of the wall, want within 2 cm of contact", gap)
			}
			if b.v != 0 {
				t.Errorf("speed at the wall = %v, want 0", b.v)
			}
			if got := b.activity(); got != "blocked" {
				t.Errorf("activity = %q, want blocked", got)
			}
			// Once the commands stop, it is idle at the wall, not blocked.
			run(s, 2*time.Second)
			if got := bodyOf(s, k.index).activity(); got != "idle" {
				t.Errorf("activity after the command timeout = %q, want idle", got)
			}
		})
	}
}

func TestTopSpeedIsClamped(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := mustNewSim(t, Config{Count: 2}, newEmptyHall(40, 10))
			place(s, 1-k.index, 3, 8, 0)
			place(s, k.index, 2, 5, 0)
			driveFor(t, s, k.index, 5, 0, 2*time.Second, nil) // asks for 5 m/s
			before := bodyOf(s, k.index)
			driveFor(t, s, k.index, 5, 0, time.Second, nil)
			after := bodyOf(s, k.index)
			if after.v != maxSpeed {
				t.Errorf("speed = %v, want %v", after.v, maxSpeed)
			}
			if d := after.x - before.x; !near(d, maxSpeed, 1e-6) {
				t.Errorf("travelled %.4f m in a second at top speed, want %v", d, maxSpeed)
			}
		})
	}
}

func TestAccelerationIsLimited(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	place(s, 0, 2, 5, 0)
	driveFor(t, s, 0, 1, 0, 500*time.Millisecond, nil)
	if v := bodyOf(s, 0).v; !near(v, 0.5, 1e-6) {
		t.Errorf("speed after 0.5 s at %v m/s² = %v", accel, v)
	}
}

func TestZeroCommandStopsWithin400ms(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := mustNewSim(t, Config{Count: 2}, newEmptyHall(40, 10))
			place(s, 1-k.index, 3, 8, 0)
			place(s, k.index, 2, 5, 0)
			driveFor(t, s, k.index, 1, 0, 2*time.Second, nil)
			if v := bodyOf(s, k.index).v; v != maxSpeed {
				t.Fatalf("not at top speed before stopping: %v", v)
			}
			command(t, s, k.index, 0, 0)
			run(s, 400*time.Millisecond)
			stopped := bodyOf(s, k.index)
			if stopped.v != 0 {
				t.Fatalf("speed 0.4 s after a zero command = %v", stopped.v)
			}
			if d := stopped.x; d < 2 {
				t.Fatalf("robot went backwards: x = %v", d)
			}
			run(s, time.Second)
			if b := bodyOf(s, k.index); b.x != stopped.x || b.y != stopped.y {
				t.Errorf("robot moved after stopping: (%v, %v) to (%v, %v)", stopped.x, stopped.y, b.x, b.y)
			}
		})
	}
}

func TestCommandTimeoutBrakes(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := mustNewSim(t, Config{Count: 2, CmdTimeout: time.Second}, newEmptyHall(40, 10))
			place(s, 1-k.index, 3, 8, 0)
			place(s, k.index, 2, 5, 0)
			command(t, s, k.index, 1, 0) // once, then silence
			run(s, 900*time.Millisecond)
			if v := bodyOf(s, k.index).v; v <= 0.8 {
				t.Fatalf("speed before the timeout = %v, want still driving", v)
			}
			run(s, 100*time.Millisecond+400*time.Millisecond) // the timeout, then braking
			if v := bodyOf(s, k.index).v; v != 0 {
				t.Errorf("speed 0.4 s after the command timed out = %v, want 0", v)
			}
		})
	}
}

func TestDifferentialTurnsInPlace(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	place(s, 0, 5, 5, 0)
	driveFor(t, s, 0, 0, 1, 2*time.Second, nil)
	b := bodyOf(s, 0)
	if b.x != 5 || b.y != 5 {
		t.Errorf("turning in place moved the robot to (%v, %v)", b.x, b.y)
	}
	// 1 rad/s after ramping up at 3 rad/s²: 2 s - 1/6 s of the ramp's lost angle.
	if want := 2 - 1.0/6; !near(b.theta, want, 0.01) {
		t.Errorf("yaw after 2 s at 1 rad/s = %.4f, want %.4f", b.theta, want)
	}
	if b.activity() != "moving" {
		t.Errorf("activity while turning = %q", b.activity())
	}
	driveFor(t, s, 0, 0, 9, time.Second, nil) // asks for 9 rad/s
	if w := bodyOf(s, 0).w; w != maxAngular {
		t.Errorf("angular speed = %v, want clamped to %v", w, maxAngular)
	}
}

func TestCarCannotTurnInPlace(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 10))
	place(s, 0, 3, 8, 0)
	place(s, 1, 10, 5, 0)
	driveFor(t, s, 1, 0, maxSteer, time.Second, nil)
	if b := bodyOf(s, 1); b.x != 10 || b.y != 5 || b.theta != 0 {
		t.Errorf("a car at rest with the wheels turned moved: %+v", b)
	}
}

func TestAckermannFollowsArc(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 20))
	place(s, 0, 2, 2, 0)
	place(s, 1, 10, 8, 0)
	const speed, steer = 0.5, 0.3
	driveFor(t, s, 1, speed, steer, 2*time.Second, nil) // past the speed and steering ramps
	var pts [][2]float64
	var yaw []float64
	for range 3 {
		b := bodyOf(s, 1)
		pts = append(pts, [2]float64{b.x, b.y})
		yaw = append(yaw, b.theta)
		driveFor(t, s, 1, speed, steer, 2*time.Second, nil)
	}
	radius := wheelbase / math.Tan(steer)
	if got := circumradius(pts[0], pts[1], pts[2]); !near(got, radius, 0.01*radius) {
		t.Errorf("turning radius = %.4f m, want %.4f", got, radius)
	}
	rate := speed * math.Tan(steer) / wheelbase
	if got := normAngle(yaw[1]-yaw[0]) / 2; !near(got, rate, 1e-3) {
		t.Errorf("yaw rate = %.4f rad/s, want %.4f", got, rate)
	}
	if rate := bodyOf(s, 1).w; rate <= 0 {
		t.Errorf("positive steering turned right: w = %v", rate)
	}
}

// circumradius is the radius of the circle through three points.
func circumradius(a, b, c [2]float64) float64 {
	ab := math.Hypot(b[0]-a[0], b[1]-a[1])
	bc := math.Hypot(c[0]-b[0], c[1]-b[1])
	ca := math.Hypot(a[0]-c[0], a[1]-c[1])
	cross := (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
	return ab * bc * ca / (2 * math.Abs(cross))
}

func TestRobotsDoNotPassThroughEachOther(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 10))
	place(s, 0, 5, 5, 0)       // east
	place(s, 1, 8, 5, math.Pi) // west, towards robot 0
	for n := range 400 {
		if n%20 == 0 {
			command(t, s, 0, 1, 0)
			command(t, s, 1, 1, 0)
		}
		s.step(physicsStep)
		a, b := bodyOf(s, 0), bodyOf(s, 1)
		if d := math.Hypot(a.x-b.x, a.y-b.y); d < 2*robotRadius {
			t.Fatalf("step %d: robots overlap, centres %.4f m apart", n, d)
		}
	}
	a, b := bodyOf(s, 0), bodyOf(s, 1)
	if d := math.Hypot(a.x-b.x, a.y-b.y); d > 2*robotRadius+0.02 {
		t.Errorf("robots stopped %.4f m apart, want in contact", d-2*robotRadius)
	}
	if a.activity() != "blocked" || b.activity() != "blocked" {
		t.Errorf("activities = %q, %q, want both blocked", a.activity(), b.activity())
	}
}

func TestRobotAndObstacleNeverOverlap(t *testing.T) {
	w := newEmptyHall(20, 10)
	w.obstacles = []*obstacle{{ax: 2, ay: 5, bx: 18, by: 5, speed: 0.6, s: 4, dir: 1}}
	s := mustNewSim(t, Config{}, w)
	place(s, 0, 10, 2, math.Pi/2) // north, across the obstacle's path
	for n := range 3000 {
		if n%20 == 0 {
			v := 0.5
			if (n/500)%2 == 1 {
				v = -0.5 // back and forth across the path
			}
			command(t, s, 0, v, 0)
		}
		s.step(physicsStep)
		b := bodyOf(s, 0)
		s.mu.Lock()
		ox, oy := w.obstacles[0].pos()
		s.mu.Unlock()
		if d := math.Hypot(b.x-ox, b.y-oy); d < robotRadius+obstacleRadius {
			t.Fatalf("step %d: robot and obstacle overlap, %.4f m apart", n, d)
		}
	}
}

func TestObstaclesAreDeterministic(t *testing.T) {
	trajectory := func(seed int64) (starts []pose, path [][2]float64) {
		s := mustNewSim(t, Config{Count: 3, Seed: seed}, nil)
		for _, r := range s.robots {
			starts = append(starts, pose{r.body.x, r.body.y, r.body.theta})
		}
		for range 20 {
			run(s, 250*time.Millisecond)
			s.mu.Lock()
			for _, o := range s.world.obstacles {
				x, y := o.pos()
				path = append(path, [2]float64{x, y})
			}
			s.mu.Unlock()
		}
		return starts, path
	}
	starts1, path1 := trajectory(1)
	starts1b, path1b := trajectory(1)
	starts2, path2 := trajectory(2)

	if len(path1) == 0 {
		t.Fatal("no obstacles in the warehouse")
	}
	moved := false
	for i := range path1 {
		if path1[i] != path1b[i] {
			t.Fatalf("same seed, different obstacle positions at sample %d: %v and %v", i, path1[i], path1b[i])
		}
		if path1[i] != path1[i%3] {
			moved = true
		}
	}
	if !moved {
		t.Error("obstacles did not move")
	}
	for i := range starts1 {
		if starts1[i] != starts1b[i] {
			t.Errorf("same seed, different start of robot %d: %v and %v", i, starts1[i], starts1b[i])
		}
	}
	sameStarts, samePath := true, len(path1) == len(path2)
	for i := range starts1 {
		sameStarts = sameStarts && starts1[i] == starts2[i]
	}
	for i := 0; samePath && i < len(path1); i++ {
		samePath = path1[i] == path2[i]
	}
	if sameStarts || samePath {
		t.Errorf("seeds 1 and 2 gave the same starts (%v) or the same obstacle paths (%v)", sameStarts, samePath)
	}
}

func TestStartPosesAreFree(t *testing.T) {
	for _, seed := range []int64{0, 1, 2, 42, -7} {
		s := mustNewSim(t, Config{Count: 12, Seed: seed}, nil)
		s.mu.Lock()
		for _, r := range s.robots {
			if s.collidesLocked(r, r.body.x, r.body.y) {
				t.Errorf("seed %d: %s starts in contact with something at (%.2f, %.2f)", seed, r.info.Name, r.body.x, r.body.y)
			}
		}
		s.mu.Unlock()
	}
}

func TestBatteryChargesAtDockAndDrainsWhenMoving(t *testing.T) {
	s := mustNewSim(t, Config{Count: 1}, nil)
	dock := s.world.chargeZone
	place(s, 0, (dock.minX+dock.maxX)/2, (dock.minY+dock.maxY)/2, 0)
	s.mu.Lock()
	s.robots[0].body.battery = 50
	s.mu.Unlock()
	run(s, 10*time.Second)
	b := bodyOf(s, 0)
	if !near(b.battery, 50+10*chargeRate, 1e-6) || b.activity() != "charging" {
		t.Errorf("after 10 s at the dock: battery %.3f%%, activity %q; want %.3f%%, charging", b.battery, b.activity(), 50+10*chargeRate)
	}
	// Drive off east and keep going: the battery drains faster than at rest.
	driveFor(t, s, 0, 1, 0, 3*time.Second, nil)
	moving := bodyOf(s, 0)
	if moving.battery >= b.battery || moving.charging {
		t.Errorf("battery while driving %.4f%% (charging %v), want below %.4f%%", moving.battery, moving.charging, b.battery)
	}
}
