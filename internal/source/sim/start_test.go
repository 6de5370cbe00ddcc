package sim

import (
	"math"
	"testing"
	"time"
)

// demoSeed and demoCount are what fleetgate demo starts (--sim-seed's default, three
// robots); the browser tests start the first two of the same seed.
const (
	demoSeed  = 1
	demoCount = 3
)

// movedAhead is how far robot i went along the heading it started with.
func movedAhead(start, now body) float64 {
	return (now.x-start.x)*math.Cos(start.theta) + (now.y-start.y)*math.Sin(start.theta)
}

// TestFirstArrowUpMovesSim1: as a new user does it, the first thing tried on fleetgate demo
// is driving sim-1 forward (ArrowUp, full stick: the robot's 1 m/s). Held for two seconds, it
// moves sim-1 more than a metre ahead; once, as the README's first upload does (0.5 m/s, turning), it
// moves it too before the robot brakes by itself.
func TestFirstArrowUpMovesSim1(t *testing.T) {
	t.Run("ArrowUp held for two seconds", func(t *testing.T) {
		s := mustNewSim(t, Config{Count: demoCount, Seed: demoSeed}, nil)
		start := bodyOf(s, 0)
		driveFor(t, s, 0, 1, 0, 2*time.Second, nil)
		if d := movedAhead(start, bodyOf(s, 0)); d < 1 {
			t.Errorf("sim-1 moved %.2f m ahead in two seconds of ArrowUp, want at least 1 m (it starts facing something)", d)
		}
	})
	t.Run("the README's first upload", func(t *testing.T) {
		s := mustNewSim(t, Config{Count: demoCount, Seed: demoSeed}, nil)
		start := bodyOf(s, 0)
		command(t, s, 0, 0.5, 0.3)
		run(s, 3*time.Second) // the sim brakes by itself a second after the last command
		now := bodyOf(s, 0)
		if d := math.Hypot(now.x-start.x, now.y-start.y); d < 0.2 {
			t.Errorf("sim-1 moved %.2f m after one command of 0.5 m/s, want at least 0.2 m", d)
		}
	})
}

// TestEveryRobotStartsFacingOpenFloor: every robot of the demo, and of other seeds and
// counts, drives at least minFreeAhead straight ahead from its start before anything stops
// it: the simulator's own physics says so, not the placement's arithmetic.
func TestEveryRobotStartsFacingOpenFloor(t *testing.T) {
	cases := []struct{ seed, count int }{{demoSeed, demoCount}, {2, 3}, {3, 3}, {7, 3}, {42, 3}, {demoSeed, 8}}
	for _, c := range cases {
		for i := range c.count {
			s := mustNewSim(t, Config{Count: c.count, Seed: int64(c.seed)}, nil)
			start := bodyOf(s, i)
			// 1 m/s, ramping up at 1 m/s², covers minFreeAhead in 3.5 s; keep going, so that
			// only what stands ahead stops it.
			driveFor(t, s, i, 1, 0, 5*time.Second, nil)
			if d := movedAhead(start, bodyOf(s, i)); d < minFreeAhead-0.1 {
				t.Errorf("seed %d, robot %d of %d: drove %.2f m straight ahead from (%.1f, %.1f) facing %.0f°, want at least %.1f m",
					c.seed, i+1, c.count, d, start.x, start.y, start.theta*180/math.Pi, minFreeAhead)
			}
		}
	}
}

// TestStartPosesAreDeterministic: the same seed places the same robots the same way (the
// browser tests and the README count on sim-1 being where it was), and a smaller fleet is
// the first robots of a larger one.
func TestStartPosesAreDeterministic(t *testing.T) {
	a, err := newWarehouse(demoSeed).startPoses(demoCount, demoSeed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newWarehouse(demoSeed).startPoses(demoCount+2, demoSeed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("robot %d: %+v with %d robots, %+v with %d", i+1, a[i], demoCount, b[i], demoCount+2)
		}
	}
	c, err := newWarehouse(2).startPoses(demoCount, 2)
	if err != nil {
		t.Fatal(err)
	}
	if a[0] == c[0] {
		t.Errorf("seeds 1 and 2 place sim-1 alike (%+v): the seed does not reach the poses", a[0])
	}
}
