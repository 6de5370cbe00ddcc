package teleop

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// ErrBeyondLimits is what LimitCommand wraps when a value is beyond fleetgate.RefuseFactor times
// the robot's limit.
var ErrBeyondLimits = fmt.Errorf("command beyond the robot's limits")

// LimitCommand clamps a decoded command in place to the robot's declared limits (zero fields
// take fleetgate.DefaultSpeedLimits), so that no command, however it was produced, asks a robot
// for more than it declared. A value beyond fleetgate.RefuseFactor times its limit is refused
// whole: nobody means 1e300 m/s, and clamping it would drive a buggy client at full speed.
// The error, of code EInvalid (W3 closes 1008, an upload answers 400), names the field, the
// value and the limit.
func LimitCommand(m proto.Message, limits fleetgate.SpeedLimits) error {
	l := limits.OrDefault()
	switch c := m.(type) {
	case *catalogpb.Twist:
		if err := clampVector(c.Linear, l.Linear, "linear", "m/s"); err != nil {
			return err
		}
		return clampVector(c.Angular, l.Angular, "angular", "rad/s")
	case *catalogpb.AckermannDriveStamped:
		d := c.GetDrive()
		if d == nil {
			return nil
		}
		speed, steer := float64(d.Speed), float64(d.SteeringAngle)
		if err := clampTo(&speed, l.Linear, "drive.speed", "m/s"); err != nil {
			return err
		}
		if err := clampTo(&steer, l.Angular, "drive.steering_angle", "rad"); err != nil {
			return err
		}
		d.Speed, d.SteeringAngle = float32(speed), float32(steer)
	}
	return nil
}

func clampTo(v *float64, limit float64, name, unit string) error {
	if math.Abs(*v) > limit*fleetgate.RefuseFactor || math.IsNaN(*v) {
		return refuse(fleetgate.EInvalid,
			fmt.Sprintf("%s %g %s is beyond %dx the robot's limit of %g %s", name, *v, unit, fleetgate.RefuseFactor, limit, unit), ErrBeyondLimits)
	}
	*v = math.Max(-limit, math.Min(limit, *v))
	return nil
}

// clampVector clamps each axis of v (absent is zero).
func clampVector(v *catalogpb.Vector3, limit float64, name, unit string) error {
	if v == nil {
		return nil
	}
	for _, axis := range []struct {
		name string
		v    *float64
	}{{".x", &v.X}, {".y", &v.Y}, {".z", &v.Z}} {
		if err := clampTo(axis.v, limit, name+axis.name, unit); err != nil {
			return err
		}
	}
	return nil
}
