package teleop

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// publication is one call of Publish as a recorder saw it.
type publication struct {
	at  time.Duration // since the recorder's start
	msg proto.Message
}

// recorder is a Publish that keeps what it was given and when, and fails while fail is set.
type recorder struct {
	clock clock.Clock
	start time.Time

	mu   sync.Mutex
	pubs []publication
	fail error
	// failN, when set, counts down the publishes that fail with failNErr.
	failN    *int
	failNErr error
}

func newRecorder(clock clock.Clock) *recorder { return &recorder{clock: clock, start: clock.Now()} }

func (r *recorder) Publish(_ context.Context, m proto.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pubs = append(r.pubs, publication{at: r.clock.Now().Sub(r.start), msg: proto.Clone(m)})
	if r.failN != nil && *r.failN > 0 {
		*r.failN--
		return r.failNErr
	}
	return r.fail
}

// failFirst makes the next *n publishes fail with err, the ones after them succeed.
func (r *recorder) failFirst(err error, n *int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failN, r.failNErr = n, err
}

func (r *recorder) setFail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

func (r *recorder) all() []publication {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]publication(nil), r.pubs...)
}

func (r *recorder) count() int { return len(r.all()) }

func (r *recorder) last(t *testing.T) publication {
	t.Helper()
	pubs := r.all()
	if len(pubs) == 0 {
		t.Fatal("nothing published")
	}
	return pubs[len(pubs)-1]
}

// motion returns a non-zero command of the type whose main value is v.
func motion(typ string, v float64) proto.Message {
	switch typ {
	case TwistType:
		return &catalogpb.Twist{Linear: &catalogpb.Vector3{X: v}, Angular: &catalogpb.Vector3{Z: -v / 2}}
	case AckermannType:
		return &catalogpb.AckermannDriveStamped{
			Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: 7}, FrameId: "base_link"},
			Drive:  &catalogpb.AckermannDrive{Speed: float32(v), SteeringAngle: float32(v / 10)},
		}
	}
	panic("motion of " + typ)
}

// newTestController returns a controller on a fake clock that records its publishes and counts
// OnPublishError calls.
func newTestController(t *testing.T, typ string) (*Controller, *clocktest.Fake, *recorder, *atomic.Int32) {
	t.Helper()
	clock := clocktest.New()
	rec := newRecorder(clock)
	var errs atomic.Int32
	c := NewController(ControllerConfig{
		Clock:          clock,
		Type:           typ,
		Publish:        rec.Publish,
		OnPublishError: func(error) { errs.Add(1) },
	})
	return c, clock, rec, &errs
}

func wantZero(t *testing.T, p publication, typ string, at time.Duration) {
	t.Helper()
	if got := string(p.msg.ProtoReflect().Descriptor().FullName()); got != typ {
		t.Fatalf("published a %s at %v, want a zero %s", got, p.at, typ)
	}
	if !IsZero(p.msg) || !proto.Equal(p.msg, Zero(typ)) {
		t.Fatalf("published %v at %v, want the zero command", p.msg, p.at)
	}
	if p.at != at {
		t.Fatalf("zero published at %v, want %v", p.at, at)
	}
}

func wantCount(t *testing.T, rec *recorder, n int, when string) {
	t.Helper()
	if got := rec.count(); got != n {
		t.Fatalf("%s: %d publishes, want %d: %v", when, got, n, rec.all())
	}
}

var inputTypes = []string{TwistType, AckermannType}

func TestDeadmanFiresOnceAtExactly500ms(t *testing.T) {
	for _, typ := range inputTypes {
		t.Run(typ, func(t *testing.T) {
			c, clock, rec, _ := newTestController(t, typ)
			c.Command(motion(typ, 1))
			wantCount(t, rec, 1, "after the command")

			clock.Advance(499 * time.Millisecond)
			wantCount(t, rec, 1, "at 499 ms")
			clock.Advance(time.Millisecond)
			wantCount(t, rec, 2, "at 500 ms")
			wantZero(t, rec.last(t), typ, 500*time.Millisecond)

			clock.Advance(10 * time.Second)
			wantCount(t, rec, 2, "10 s after the deadman zero")

			// A new command re-arms it.
			c.Command(motion(typ, 2))
			wantCount(t, rec, 3, "after the second command")
			clock.Advance(499 * time.Millisecond)
			wantCount(t, rec, 3, "499 ms after the second command")
			clock.Advance(time.Millisecond)
			wantCount(t, rec, 4, "500 ms after the second command")
			wantZero(t, rec.last(t), typ, 11*time.Second)
		})
	}
}

func TestDeadmanCountsFromTheLastValidCommand(t *testing.T) {
	tests := []struct {
		name   string
		after  time.Duration // the second command comes this long after the first
		second proto.Message
	}{
		{"non-zero", 300 * time.Millisecond, motion(TwistType, 2)},
		{"zero", 300 * time.Millisecond, Zero(TwistType)},
		{"coalesced non-zero", 20 * time.Millisecond, motion(TwistType, 2)}, // pending until 50 ms
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock, rec, _ := newTestController(t, TwistType)
			c.Command(motion(TwistType, 1))
			clock.Advance(tt.after)
			c.Command(tt.second)
			clock.Advance(500*time.Millisecond - time.Nanosecond)
			wantCount(t, rec, 2, "just before 500 ms after the second command")
			clock.Advance(time.Nanosecond)
			wantCount(t, rec, 3, "500 ms after the second command")
			wantZero(t, rec.last(t), TwistType, tt.after+500*time.Millisecond)
		})
	}
}

// A client whose connection died without a close frame sends nothing more and nobody calls
// Stop until the read times out: the deadman alone must stop the robot.
func TestDeadmanStopsASilentHalfOpenClient(t *testing.T) {
	for _, typ := range inputTypes {
		t.Run(typ, func(t *testing.T) {
			c, clock, rec, _ := newTestController(t, typ)
			c.Command(motion(typ, 3))
			for range 20 { // 1 s in 50 ms steps, no input at all
				clock.Advance(50 * time.Millisecond)
			}
			pubs := rec.all()
			if len(pubs) != 2 {
				t.Fatalf("%d publishes in 1 s, want the command and one zero: %v", len(pubs), pubs)
			}
			wantZero(t, pubs[1], typ, 500*time.Millisecond)
		})
	}
}

func TestRateCapAt100HzInput(t *testing.T) {
	for _, typ := range inputTypes {
		t.Run(typ, func(t *testing.T) {
			c, clock, rec, _ := newTestController(t, typ)
			const n = 300 // 3 s at 100 Hz
			for i := 1; i <= n; i++ {
				c.Command(motion(typ, float64(i)))
				if i == 1 {
					wantCount(t, rec, 1, "after the first command (leading edge)")
				}
				clock.Advance(10 * time.Millisecond)
			}
			clock.Advance(50 * time.Millisecond) // the window after the last command opens

			var moves []publication
			for _, p := range rec.all() {
				if !IsZero(p.msg) {
					moves = append(moves, p)
				}
			}
			if moves[0].at != 0 {
				t.Fatalf("first publish at %v, want at once", moves[0].at)
			}
			for i := 1; i < len(moves); i++ {
				if gap := moves[i].at - moves[i-1].at; gap < 50*time.Millisecond {
					t.Fatalf("publishes %d and %d are %v apart, want at least 50 ms", i-1, i, gap)
				}
			}
			// Any half-open 1 s window holds at most 20; checking windows that start at a
			// publish covers them all.
			for i, p := range moves {
				inWindow := 0
				for _, q := range moves[i:] {
					if q.at < p.at+time.Second {
						inWindow++
					}
				}
				if inWindow > 20 {
					t.Fatalf("%d non-zero publishes in [%v, %v), want at most 20", inWindow, p.at, p.at+time.Second)
				}
			}
			// 3 s of input at the cap is about 60 publishes: the cap does not starve either.
			if len(moves) < 59 {
				t.Fatalf("%d non-zero publishes in 3 s, want about 60", len(moves))
			}
			if newest := motion(typ, n); !proto.Equal(moves[len(moves)-1].msg, newest) {
				t.Fatalf("last published %v, want the newest command %v", moves[len(moves)-1].msg, newest)
			}
			// Coalescing keeps the newest: every publish is the newest command received by then.
			for _, p := range moves {
				// Command i arrives at (i-1)*10 ms, and a timer due at that instant runs before it.
				i := max(1, int(p.at/(10*time.Millisecond)))
				if want := motion(typ, float64(i)); !proto.Equal(p.msg, want) {
					t.Fatalf("published %v at %v, want the newest command then, %v", p.msg, p.at, want)
				}
			}
		})
	}
}

func TestZeroCommandsBypassTheRateCap(t *testing.T) {
	c, clock, rec, _ := newTestController(t, TwistType)
	c.Command(motion(TwistType, 1)) // t=0: published
	clock.Advance(10 * time.Millisecond)
	c.Command(motion(TwistType, 2)) // t=10: pending until 50
	wantCount(t, rec, 1, "after the pending command")

	clock.Advance(10 * time.Millisecond)
	for range 5 { // t=20: zeros inside the window all go out at once
		c.Command(Zero(TwistType))
	}
	wantCount(t, rec, 6, "after five zeros")
	for _, p := range rec.all()[1:] {
		wantZero(t, p, TwistType, 20*time.Millisecond)
	}

	clock.Advance(30 * time.Millisecond) // t=50: the pending motion was dropped
	wantCount(t, rec, 6, "when the window opened")
	// The zeros did not count: 50 ms after the last motion, a motion goes out at once.
	c.Command(motion(TwistType, 3))
	wantCount(t, rec, 7, "after a motion 50 ms after the last motion")
	if p := rec.last(t); !proto.Equal(p.msg, motion(TwistType, 3)) || p.at != 50*time.Millisecond {
		t.Fatalf("published %v at %v, want motion 3 at 50ms", p.msg, p.at)
	}
	clock.Advance(10 * time.Second)
	if p := rec.last(t); !IsZero(p.msg) || p.at != 550*time.Millisecond {
		t.Fatalf("last publish %v at %v, want the deadman zero at 550ms", p.msg, p.at)
	}
}

func TestStop(t *testing.T) {
	for _, typ := range inputTypes {
		t.Run(typ, func(t *testing.T) {
			c, clock, rec, _ := newTestController(t, typ)
			c.Command(motion(typ, 1))
			clock.Advance(10 * time.Millisecond)
			c.Command(motion(typ, 2)) // pending, with the rate timer and the deadman armed
			clock.Advance(10 * time.Millisecond)

			if err := c.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			wantCount(t, rec, 2, "after Stop")
			wantZero(t, rec.last(t), typ, 20*time.Millisecond)
			if n := clock.Pending(); n != 0 {
				t.Fatalf("%d timers armed after Stop, want 0", n)
			}

			if err := c.Stop(); err != nil {
				t.Fatalf("second Stop: %v", err)
			}
			c.Command(motion(typ, 3))
			c.Command(Zero(typ))
			clock.Advance(10 * time.Second)
			wantCount(t, rec, 2, "after a second Stop, commands and 10 s")
		})
	}
}

func TestStopReturnsThePublishError(t *testing.T) {
	c, _, rec, errs := newTestController(t, TwistType)
	boom := errors.New("robot unreachable")
	rec.setFail(boom)
	if err := c.Stop(); !errors.Is(err, boom) {
		t.Fatalf("Stop = %v, want %v", err, boom)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop = %v, want nil", err)
	}
	wantCount(t, rec, StopAttempts, "after two Stops that failed (Stop tries its zero again)")
	if n := errs.Load(); n != 0 {
		t.Fatalf("OnPublishError called %d times for Stop's error, want 0 (Stop returns it)", n)
	}
}

// TestStopTriesItsZeroAgain: a final zero that fails for a moment goes out on a later try,
// and Stop reports success.
func TestStopTriesItsZeroAgain(t *testing.T) {
	c, clock, rec, _ := newTestController(t, TwistType)
	c.Command(motion(TwistType, 1))
	failures := 2
	rec.failFirst(errors.New("publish timed out"), &failures)
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop = %v, want nil after a try that went through", err)
	}
	wantCount(t, rec, 1+3, "one motion, then the zero tried three times")
	wantZero(t, rec.last(t), TwistType, 0)
	clock.Advance(10 * time.Second)
	wantCount(t, rec, 4, "after Stop and 10 s")
}

func TestPublishFailureIsReportedOnce(t *testing.T) {
	tests := []struct {
		name string
		// run drives the controller until a publish fails; fail makes Publish fail from then on.
		run func(c *Controller, clock *clocktest.Fake, fail func())
	}{
		{"command published at once", func(c *Controller, clock *clocktest.Fake, fail func()) {
			fail()
			c.Command(motion(TwistType, 1))
		}},
		{"zero command", func(c *Controller, clock *clocktest.Fake, fail func()) {
			fail()
			c.Command(Zero(TwistType))
		}},
		{"coalesced command from the timer", func(c *Controller, clock *clocktest.Fake, fail func()) {
			c.Command(motion(TwistType, 1))
			clock.Advance(10 * time.Millisecond)
			c.Command(motion(TwistType, 2))
			fail()
			clock.Advance(40 * time.Millisecond)
		}},
		{"deadman zero", func(c *Controller, clock *clocktest.Fake, fail func()) {
			c.Command(motion(TwistType, 1))
			fail()
			clock.Advance(500 * time.Millisecond)
		}},
	}
	boom := errors.New("robot unreachable")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock, rec, errs := newTestController(t, TwistType)
			tt.run(c, clock, func() { rec.setFail(boom) })
			if n := errs.Load(); n != 1 {
				t.Fatalf("OnPublishError called %d times after the failure, want 1", n)
			}
			before := rec.count()
			// The socket is closing: later commands are ignored, further failures are not
			// reported again, and Stop still tries a zero.
			for i := range 10 {
				c.Command(motion(TwistType, float64(i+5)))
				clock.Advance(100 * time.Millisecond)
			}
			for _, p := range rec.all()[before:] {
				if !IsZero(p.msg) {
					t.Fatalf("published %v after the failure, want only zeros", p.msg)
				}
			}
			if err := c.Stop(); !errors.Is(err, boom) {
				t.Fatalf("Stop = %v, want %v", err, boom)
			}
			last := rec.last(t)
			wantZero(t, last, TwistType, last.at)
			if n := errs.Load(); n != 1 {
				t.Fatalf("OnPublishError called %d times in all, want 1", n)
			}
		})
	}
}

func TestInvalidCommandsAreIgnored(t *testing.T) {
	tests := []struct {
		name string
		m    proto.Message
	}{
		{"nil", nil},
		{"another type", &catalogpb.TwistStamped{Twist: &catalogpb.Twist{Linear: &catalogpb.Vector3{X: 1}}}},
		{"the other input type", motion(AckermannType, 1)},
		{"NaN", &catalogpb.Twist{Linear: &catalogpb.Vector3{X: math.NaN()}}},
		{"infinity", &catalogpb.Twist{Angular: &catalogpb.Vector3{Z: math.Inf(-1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock, rec, _ := newTestController(t, TwistType)
			c.Command(tt.m)
			clock.Advance(time.Second)
			wantCount(t, rec, 0, "after an invalid command and 1 s (no publish, no deadman)")
		})
	}
}

func TestNewControllerRefusesOtherTypes(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewController with a non-input type did not panic")
		}
	}()
	NewController(ControllerConfig{Type: "Platform.Messages.sensor_msgs.Image", Publish: func(context.Context, proto.Message) error { return nil }})
}

// With the real clock, a command that needs no rate wait is published before Command returns,
// in the caller's goroutine: the handler's input-to-publish latency is the publish itself.
func TestCommandPublishesSynchronously(t *testing.T) {
	rec := newRecorder(clock.Real())
	c := NewController(ControllerConfig{Type: TwistType, Publish: rec.Publish})
	defer c.Stop()
	c.Command(motion(TwistType, 1))
	wantCount(t, rec, 1, "when Command returned")
	c.Command(Zero(TwistType))
	wantCount(t, rec, 2, "when the zero Command returned")
}

// Publish is never entered twice at once and never after Stop returns, however commands,
// timers and Stop race (run with -race).
func TestPublishIsSerialized(t *testing.T) {
	var inFlight, overlaps atomic.Int32
	var stopped atomic.Bool
	var afterStop atomic.Int32
	c := NewController(ControllerConfig{
		Type:        TwistType,
		MinInterval: time.Millisecond,
		Deadman:     2 * time.Millisecond,
		Publish: func(context.Context, proto.Message) error {
			if inFlight.Add(1) > 1 {
				overlaps.Add(1)
			}
			if stopped.Load() {
				afterStop.Add(1)
			}
			time.Sleep(50 * time.Microsecond) // widen the window for an overlap
			inFlight.Add(-1)
			return nil
		},
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if i%7 == 0 {
					c.Command(Zero(TwistType))
				} else {
					c.Command(motion(TwistType, float64(g*1000+i)))
				}
			}
		})
	}
	wg.Wait()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped.Store(true)
	deadline := time.Now().Add(20 * time.Millisecond) // past every timer the controller armed
	for time.Now().Before(deadline) {
		c.Command(motion(TwistType, 1))
		time.Sleep(time.Millisecond)
	}
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("Publish entered while another was running %d times", n)
	}
	if n := afterStop.Load(); n != 0 {
		t.Fatalf("%d publishes after Stop returned", n)
	}
}

// The whole path in real time, once: the deadman fires after 500 ms and not much later. The
// upper bound is generous because CI is a loaded 2-core machine.
func TestDeadmanRealTime(t *testing.T) {
	const trials = 5
	for trial := range trials {
		zeros := make(chan time.Time, 4)
		c := NewController(ControllerConfig{
			Type: TwistType,
			Publish: func(_ context.Context, m proto.Message) error {
				if IsZero(m) {
					zeros <- time.Now()
				}
				return nil
			},
		})
		start := time.Now()
		c.Command(motion(TwistType, 1))
		select {
		case at := <-zeros:
			if d := at.Sub(start); d < 500*time.Millisecond || d > 900*time.Millisecond {
				t.Errorf("trial %d: deadman zero after %v, want between 500 ms and 900 ms", trial, d)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("trial %d: no deadman zero within 5 s", trial)
		}
		c.Stop()
	}
}

// BenchmarkCommand measures the synchronous path from Command to Publish (no rate wait): it is
// what the handler adds to a command's input-to-publish latency besides decoding.
func BenchmarkCommand(b *testing.B) {
	c := NewController(ControllerConfig{Type: TwistType, MinInterval: time.Nanosecond, Publish: func(context.Context, proto.Message) error { return nil }})
	defer c.Stop()
	m := motion(TwistType, 1)
	for b.Loop() {
		c.Command(m)
	}
}

// OnDeadmanStop tells the deadman's zero that stopped a robot moving on a motion command
// (its client went silent), before OnDeadman; a deadman after a zero, a coalesced motion's
// or Stop's zero do not count, and each silence counts once.
func TestDeadmanStopTellsAMovingRobotOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		commands []proto.Message
		gaps     []time.Duration // before each command after the first
		stops    int
	}{
		{"silent while moving", []proto.Message{motion(TwistType, 1)}, nil, 1},
		{"a zero, then silence", []proto.Message{motion(TwistType, 1), Zero(TwistType)}, []time.Duration{100 * time.Millisecond}, 0},
		{"a zero straight away", []proto.Message{Zero(TwistType)}, nil, 0},
		{"moving again after a zero", []proto.Message{Zero(TwistType), motion(TwistType, 2)}, []time.Duration{100 * time.Millisecond}, 1},
		{"a coalesced motion last", []proto.Message{motion(TwistType, 1), motion(TwistType, 2)}, []time.Duration{10 * time.Millisecond}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := clocktest.New()
			rec := newRecorder(clock)
			var order []string
			var mu sync.Mutex
			note := func(s string) func() {
				return func() { mu.Lock(); order = append(order, s); mu.Unlock() }
			}
			c := NewController(ControllerConfig{Clock: clock, Type: TwistType, Publish: rec.Publish,
				OnDeadman: note("deadman"), OnDeadmanStop: note("stop")})
			for i, m := range tc.commands {
				if i > 0 {
					clock.Advance(tc.gaps[i-1])
				}
				c.Command(m)
			}
			clock.Advance(5 * time.Second)
			c.Command(Zero(TwistType)) // and a quiet end: nothing more to tell
			clock.Advance(5 * time.Second)
			c.Stop()
			mu.Lock()
			defer mu.Unlock()
			stops := 0
			for i, s := range order {
				if s == "stop" {
					stops++
					if i+1 >= len(order) || order[i+1] != "deadman" {
						t.Errorf("OnDeadmanStop not followed by its OnDeadman: %v", order)
					}
				}
			}
			if stops != tc.stops {
				t.Fatalf("OnDeadmanStop told %d times, want %d (%v)", stops, tc.stops, order)
			}
		})
	}
}
