package teleop

import (
	"fmt"
	"math"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The speed governor: a controller's speed limits follow what the operator can see. An
// operator steering by a picture 1 s old reacts 1 s late, so the robot must be slow enough
// for that; beyond a point nobody can steer by it and the robot is held at zero.

// Defaults of DelayPolicy (docs/reliability.md, "The governor").
const (
	DefaultDelayFull    = 250 * time.Millisecond
	DefaultDelayQuarter = time.Second
	DefaultDelayStop    = 2 * time.Second
)

// UnknownGrace is how long a session drives at full speed before its delay is first
// measured (a ping's round trip takes a moment); after it an unmeasured delay holds the robot.
const UnknownGrace = time.Second

// StaleAfter is how old the last measurement of a delay may be: an older one counts as a
// delay beyond the stop, so the robot never drives on an unknown, old picture.
const StaleAfter = 2 * time.Second

// DelayPolicy maps a controller's delay to the share of the stream's speed limits it may use:
// all of them up to Full, linearly down to a quarter at Quarter, a quarter up to Stop, none
// beyond.
type DelayPolicy struct {
	Full, Quarter, Stop time.Duration
}

// OrDefault fills the zero fields with the defaults.
func (p DelayPolicy) OrDefault() DelayPolicy {
	if p.Full <= 0 {
		p.Full = DefaultDelayFull
	}
	if p.Quarter <= 0 {
		p.Quarter = DefaultDelayQuarter
	}
	if p.Stop <= 0 {
		p.Stop = DefaultDelayStop
	}
	return p
}

// Check reports a policy whose breakpoints are out of order.
func (p DelayPolicy) Check() error {
	p = p.OrDefault()
	if p.Full >= p.Quarter || p.Quarter > p.Stop {
		return fmt.Errorf("teleop delays must grow: full %v < quarter %v <= stop %v", p.Full, p.Quarter, p.Stop)
	}
	return nil
}

// Scale is the share of the speed limits a controller with delay d may use, 0 to 1.
func (p DelayPolicy) Scale(d time.Duration) float64 {
	p = p.OrDefault()
	switch {
	case d <= p.Full:
		return 1
	case d <= p.Quarter:
		return 1 - 0.75*float64(d-p.Full)/float64(p.Quarter-p.Full)
	case d <= p.Stop:
		return 0.25
	}
	return 0
}

// SpeedLimit is what the governor allows now, and why in words for the operator.
type SpeedLimit struct {
	Scale float64       // share of the stream's limits, 0 to 1
	Delay time.Duration // the delay it follows (0 when unknown)
	Why   string
}

// Governor follows one controller's delay. Safe for concurrent use.
type Governor struct {
	clock  clock.Clock
	policy DelayPolicy
	start  time.Time

	mu       sync.Mutex
	measured bool
	delay    time.Duration
	at       time.Time
}

// NewGovernor starts governing a session that begins now.
func NewGovernor(clk clock.Clock, policy DelayPolicy) *Governor {
	if clk == nil {
		clk = clock.Real()
	}
	return &Governor{clock: clk, policy: policy.OrDefault(), start: clk.Now()}
}

// Policy is the policy the governor follows (fixed when it began).
func (g *Governor) Policy() DelayPolicy { return g.policy }

// Observe takes a fresh measurement of the controller's delay.
func (g *Governor) Observe(d time.Duration) {
	g.mu.Lock()
	g.measured, g.delay, g.at = true, max(d, 0), g.clock.Now()
	g.mu.Unlock()
}

// Limit is the share of the limits allowed now.
func (g *Governor) Limit() SpeedLimit {
	now := g.clock.Now()
	g.mu.Lock()
	measured, d, at := g.measured, g.delay, g.at
	g.mu.Unlock()
	switch {
	case !measured && now.Sub(g.start) < UnknownGrace:
		return SpeedLimit{Scale: 1, Why: "delay not measured yet: full speed"}
	case !measured:
		return SpeedLimit{Why: "delay not measured: stopped"}
	case now.Sub(at) > StaleAfter:
		return SpeedLimit{Delay: d, Why: fmt.Sprintf("no delay measured for %s: stopped", seconds(now.Sub(at)))}
	}
	scale := g.policy.Scale(d)
	l := SpeedLimit{Scale: scale, Delay: d}
	switch {
	case scale == 0:
		l.Why = fmt.Sprintf("picture %s late: stopped", seconds(d))
	case scale == 1:
		l.Why = fmt.Sprintf("picture %s late: full speed", seconds(d))
	default:
		l.Why = fmt.Sprintf("picture %s late: %d%% speed", seconds(d), int(math.Round(scale*100)))
	}
	return l
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// GovernCommand holds a command, already within limits (LimitCommand), to scale times them:
// speeds beyond are clamped, and at scale 0 every number becomes zero (the robot is held).
// Steering angles are not speeds and keep their value while the robot may move.
func GovernCommand(m proto.Message, limits fleetgate.SpeedLimits, scale float64) {
	if scale >= 1 {
		return
	}
	l := limits.OrDefault()
	lin, ang := l.Linear*max(scale, 0), l.Angular*max(scale, 0)
	switch c := m.(type) {
	case *catalogpb.Twist:
		for _, v := range []*catalogpb.Vector3{c.Linear, c.Angular} {
			if v == nil {
				continue
			}
			limit := lin
			if v == c.Angular {
				limit = ang
			}
			v.X, v.Y, v.Z = clampAbs(v.X, limit), clampAbs(v.Y, limit), clampAbs(v.Z, limit)
		}
	case *catalogpb.AckermannDriveStamped:
		d := c.GetDrive()
		if d == nil {
			return
		}
		d.Speed = float32(clampAbs(float64(d.Speed), lin))
		if scale <= 0 {
			d.SteeringAngle, d.SteeringAngleVelocity, d.Acceleration, d.Jerk = 0, 0, 0, 0
		}
	}
}

func clampAbs(v, limit float64) float64 {
	return math.Max(-limit, math.Min(limit, v))
}
