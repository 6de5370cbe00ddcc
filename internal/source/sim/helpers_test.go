package sim

import (
	"context"
	"log/slog"
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// testStart is the simulated time tests begin at.
var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mustNewSim builds a simulation driven by step, in w (nil: the warehouse of cfg.Seed), with
// its data under a temporary directory unless cfg says otherwise.
func mustNewSim(tb testing.TB, cfg Config, w *world) *Sim {
	tb.Helper()
	if cfg.Count == 0 {
		cfg.Count = 1
	}
	if cfg.DataDir == "" {
		cfg.DataDir = tb.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := newSim(cfg, w, testStart)
	if err != nil {
		tb.Fatalf("newSim: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// run steps s for d of simulated time.
func run(s *Sim, d time.Duration) {
	for range int(d / physicsStep) {
		s.step(physicsStep)
	}
}

// place puts robot i at (x, y) facing theta, at rest.
func place(s *Sim, i int, x, y, theta float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := &s.robots[i].body
	b.x, b.y, b.theta, b.v, b.w, b.steer = x, y, theta, 0, 0, 0
}

// bodyOf copies robot i's physical state.
func bodyOf(s *Sim, i int) body {
	b, _ := s.robots[i].snapshot()
	return b
}

func streamKey(component, name string) fleetgate.StreamKey {
	return fleetgate.StreamKey{Component: component, Name: name, Source: fleetgate.SourceComponent}
}

var (
	cmdVel = streamKey("base", "cmd_vel")
	drive  = streamKey("base", "drive")
)

func mustMarshal(tb testing.TB, m proto.Message) []byte {
	tb.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func twistPayload(tb testing.TB, v, w float64) []byte {
	return mustMarshal(tb, &catalogpb.Twist{Linear: &catalogpb.Vector3{X: v}, Angular: &catalogpb.Vector3{Z: w}})
}

func drivePayload(tb testing.TB, speed, steer float64) []byte {
	return mustMarshal(tb, &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Speed: float32(speed), SteeringAngle: float32(steer)}})
}

// command publishes a drive command fitting robot i's kind: v and w for a differential drive,
// v and w taken as the steering angle for a car-like robot.
func command(tb testing.TB, s *Sim, i int, v, w float64) {
	tb.Helper()
	r := s.robots[i]
	var err error
	if r.input.Type == typeTwist {
		err = doortest.Send(context.Background(), r, cmdVel, typeTwist, twistPayload(tb, v, w))
	} else {
		err = doortest.Send(context.Background(), r, drive, typeAckermann, drivePayload(tb, v, w))
	}
	if err != nil {
		tb.Fatalf("publishing a command to %s: %v", r.info.Name, err)
	}
}

// driveFor keeps commanding robot i for d of simulated time, re-sending the command every
// 200 ms as a teleop client would, and calls each after every step.
func driveFor(tb testing.TB, s *Sim, i int, v, w float64, d time.Duration, each func()) {
	tb.Helper()
	for n := range int(d / physicsStep) {
		if n%20 == 0 {
			command(tb, s, i, v, w)
		}
		s.step(physicsStep)
		if each != nil {
			each()
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
