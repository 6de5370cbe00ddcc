package sim

import (
	"math"
	"time"
)

// driveKind is how a robot steers.
type driveKind int

const (
	// diffDrive takes Twist: linear.x and angular.z; it can turn in place.
	diffDrive driveKind = iota
	// carLike takes AckermannDriveStamped: speed and steering angle; it turns only while moving.
	carLike
)

// Limits of the drive controllers. Braking from top speed takes maxSpeed/brake = 0.4 s.
const (
	maxSpeed   = 1.0 // m/s
	accel      = 1.0 // m/s²
	brake      = 2.5 // m/s², also used when reversing through zero
	maxAngular = 1.5 // rad/s
	angAccel   = 3.0 // rad/s²
	angBrake   = 5.0 // rad/s²
	maxSteer   = 0.5 // rad
	steerRate  = 1.5 // rad/s, how fast the steering servo turns
	wheelbase  = 0.5 // m

	// Below lowBattery percent the drive limits speed to crawlSpeed, enough to reach the dock.
	lowBattery = 5.0
	crawlSpeed = 0.2
)

// Battery model, in percent per second.
const (
	drainIdle   = 0.002 // electronics
	drainMotion = 0.05  // at top speed, on top of idle
	drainTurn   = 0.01  // per rad/s of turning in place
	chargeRate  = 0.5   // at the dock
)

// body is the physical state of a robot. The Sim's mutex guards it.
type body struct {
	kind        driveKind
	x, y, theta float64
	v, w        float64 // linear m/s and angular rad/s, now
	steer       float64 // steering angle now (car-like)

	// The last valid command, clamped to the limits.
	cmdV, cmdW, cmdSteer float64
	lastCmd              time.Time
	hasCmd               bool

	travelled float64 // metres, for the odometry metric
	battery   float64 // percent
	blocked   bool    // the last step ended at contact
	charging  bool
}

// activity is what the robot is doing, as the custom KPI reports it.
func (b body) activity() string {
	switch {
	case b.blocked:
		return "blocked"
	case math.Abs(b.v) > 0.01 || math.Abs(b.w) > 0.01:
		return "moving"
	case b.charging:
		return "charging"
	}
	return "idle"
}

// command sets a new target, clamped to the limits. Non-finite values must not reach here.
func (b *body) command(v, w, steer float64, now time.Time) {
	b.cmdV = clamp(v, -maxSpeed, maxSpeed)
	b.cmdW = clamp(w, -maxAngular, maxAngular)
	b.cmdSteer = clamp(steer, -maxSteer, maxSteer)
	b.lastCmd, b.hasCmd = now, true
}

// targets are the speeds the controller heads for now: the last command, or standstill when
// none arrived for timeout (a lost operator must not leave the robot driving).
func (b *body) targets(now time.Time, timeout time.Duration) (v, w float64) {
	if !b.hasCmd || now.Sub(b.lastCmd) >= timeout {
		return 0, 0
	}
	v, w = b.cmdV, b.cmdW
	if b.battery < lowBattery {
		v = clamp(v, -crawlSpeed, crawlSpeed)
	}
	return v, w
}

// ramp moves x towards target at rate up per second when speeding up and down per second when
// slowing down or reversing (through zero, at the braking rate).
func ramp(x, target, up, down, dt float64) float64 {
	if x != 0 && (x*target < 0 || math.Abs(target) < math.Abs(x)) {
		goal := target
		if x*target < 0 {
			goal = 0
		}
		return moveToward(x, goal, down*dt)
	}
	return moveToward(x, target, up*dt)
}

func moveToward(x, goal, step float64) float64 {
	// The tolerance keeps float error from adding a step: 1.0 at 0.025 per step stops in 40.
	if math.Abs(goal-x) <= step+1e-9 {
		return goal
	}
	if goal > x {
		return x + step
	}
	return x - step
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// normAngle wraps a to (-π, π].
func normAngle(a float64) float64 {
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a <= 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}

// updateSpeeds runs the drive controller for dt seconds.
func (b *body) updateSpeeds(now time.Time, timeout time.Duration, dt float64) {
	tv, tw := b.targets(now, timeout)
	b.v = ramp(b.v, tv, accel, brake, dt)
	switch b.kind {
	case diffDrive:
		b.w = ramp(b.w, tw, angAccel, angBrake, dt)
	case carLike:
		b.steer = moveToward(b.steer, b.cmdSteer, steerRate*dt)
		b.w = b.v * math.Tan(b.steer) / wheelbase
	}
}

// motion is the displacement the body would make in dt seconds at its current speeds,
// integrated along the arc's midpoint heading.
func (b *body) motion(dt float64) (dx, dy, dth float64) {
	dth = b.w * dt
	mid := b.theta + dth/2
	ds := b.v * dt
	return ds * math.Cos(mid), ds * math.Sin(mid), dth
}

// drainBattery updates the charge for dt seconds at the current speeds.
func (b *body) drainBattery(dt float64, atDock bool) {
	b.charging = atDock && math.Abs(b.v) < 0.01 && b.battery < 100
	if atDock && math.Abs(b.v) < 0.01 {
		b.battery = math.Min(100, b.battery+chargeRate*dt)
		return
	}
	rate := drainIdle + drainMotion*math.Abs(b.v)/maxSpeed + drainTurn*math.Abs(b.w)
	b.battery = math.Max(0, b.battery-rate*dt)
}
