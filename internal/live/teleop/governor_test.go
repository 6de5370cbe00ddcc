package teleop

import (
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

func TestDelayPolicyScale(t *testing.T) {
	var p DelayPolicy // the defaults: 250 ms, 1 s, 2 s
	for _, tc := range []struct {
		d    time.Duration
		want float64
	}{
		{0, 1},
		{250 * time.Millisecond, 1},
		{600 * time.Millisecond, 0.65},
		{800 * time.Millisecond, 0.45},
		{time.Second, 0.25},
		{1500 * time.Millisecond, 0.25},
		{2 * time.Second, 0.25},
		{2*time.Second + time.Millisecond, 0},
		{time.Hour, 0},
	} {
		if got := p.Scale(tc.d); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Scale(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
	custom := DelayPolicy{Full: 100 * time.Millisecond, Quarter: 500 * time.Millisecond, Stop: time.Second}
	if got := custom.Scale(300 * time.Millisecond); math.Abs(got-0.625) > 1e-9 {
		t.Errorf("custom Scale(300ms) = %v, want 0.625", got)
	}
	if err := (DelayPolicy{Full: time.Second, Quarter: time.Second}).Check(); err == nil {
		t.Error("a policy whose full speed ends where the quarter is was accepted")
	}
	if err := p.Check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

func TestGovernorLimit(t *testing.T) {
	c := clocktest.New()
	g := NewGovernor(c, DelayPolicy{})
	want := func(scale float64, why string) {
		t.Helper()
		l := g.Limit()
		if math.Abs(l.Scale-scale) > 1e-9 || l.Why != why {
			t.Fatalf("Limit() = %v %q, want %v %q", l.Scale, l.Why, scale, why)
		}
	}
	want(1, "delay not measured yet: full speed")
	c.Advance(UnknownGrace - time.Millisecond)
	want(1, "delay not measured yet: full speed")
	c.Advance(time.Millisecond)
	want(0, "delay not measured: stopped")

	g.Observe(600 * time.Millisecond)
	want(0.65, "picture 0.6 s late: 65% speed")
	g.Observe(100 * time.Millisecond)
	want(1, "picture 0.1 s late: full speed")
	g.Observe(1500 * time.Millisecond)
	want(0.25, "picture 1.5 s late: 25% speed")
	g.Observe(2300 * time.Millisecond)
	want(0, "picture 2.3 s late: stopped")

	// Between measurements the last one holds, until it is stale.
	g.Observe(100 * time.Millisecond)
	c.Advance(StaleAfter)
	want(1, "picture 0.1 s late: full speed")
	c.Advance(time.Millisecond)
	want(0, "no delay measured for 2.0 s: stopped")
	g.Observe(-time.Second) // a clock that jumped: never less than no delay
	want(1, "picture 0.0 s late: full speed")
}

func TestGovernCommand(t *testing.T) {
	limits := fleetgate.SpeedLimits{Linear: 1, Angular: 2}
	twist := func(lx, az float64) *catalogpb.Twist {
		return &catalogpb.Twist{Linear: &catalogpb.Vector3{X: lx}, Angular: &catalogpb.Vector3{Z: az}}
	}
	car := func(speed, steer float32) *catalogpb.AckermannDriveStamped {
		return &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Speed: speed, SteeringAngle: steer}}
	}
	for _, tc := range []struct {
		name  string
		in    proto.Message
		scale float64
		want  proto.Message
	}{
		{"full speed", twist(1, -2), 1, twist(1, -2)},
		{"scaled down", twist(1, -2), 0.65, twist(0.65, -1.3)},
		{"slower than the limit", twist(0.3, 0.5), 0.65, twist(0.3, 0.5)},
		{"held", twist(1, 2), 0, twist(0, 0)},
		{"a car scaled", car(-1, 0.4), 0.25, car(-0.25, 0.4)},
		{"a car held", car(1, 0.4), 0, car(0, 0)},
	} {
		GovernCommand(tc.in, limits, tc.scale)
		if !proto.Equal(tc.in, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.in, tc.want)
		}
	}
	held := twist(1, 1)
	GovernCommand(held, limits, 0)
	if !IsZero(held) {
		t.Errorf("a held command is not a stop: %v", held)
	}
}

func TestDelayMeter(t *testing.T) {
	c := clocktest.New()
	var m DelayMeter
	if _, known := m.Estimate(c.Now()); known {
		t.Fatal("known before any measurement")
	}
	m.PingSent(c.Now())
	c.Advance(time.Second)
	if _, known := m.Estimate(c.Now()); known {
		t.Fatal("a first ping out for 1 s made the delay known")
	}
	c.Advance(StaleAfter)
	if d, known := m.Estimate(c.Now()); !known || d != 3*time.Second {
		t.Fatalf("a first ping unanswered for 3 s: %v %v, want 3s known", d, known)
	}
	m.PongAt(c.Now())
	m.PingSent(c.Now())
	c.Advance(40 * time.Millisecond)
	m.PongAt(c.Now())
	if d, _ := m.Estimate(c.Now()); d != 40*time.Millisecond {
		t.Fatalf("after a 40 ms round trip: %v", d)
	}
	// A ping out longer than the last round trip is the delay: the controller is that late.
	m.PingSent(c.Now())
	c.Advance(300 * time.Millisecond)
	if d, _ := m.Estimate(c.Now()); d != 300*time.Millisecond {
		t.Fatalf("a ping out for 300 ms: %v", d)
	}
	m.PongAt(c.Now())
	m.Picture(800*time.Millisecond, c.Now())
	if d, _ := m.Estimate(c.Now()); d != 800*time.Millisecond {
		t.Fatalf("a picture 800 ms old: %v", d)
	}
	m.Picture(-5*time.Millisecond, c.Now())
	if d, _ := m.Estimate(c.Now()); d != 300*time.Millisecond {
		t.Fatalf("a negative picture age counts as none: %v", d)
	}
	c.Advance(StaleAfter + time.Second)
	if d, _ := m.Estimate(c.Now()); d != StaleAfter+time.Second {
		t.Fatalf("a widget that stopped reporting 3 s ago: %v", d)
	}
}
