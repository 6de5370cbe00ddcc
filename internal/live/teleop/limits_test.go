package teleop

import (
	"errors"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

func TestLimitCommand(t *testing.T) {
	limits := fleetgate.SpeedLimits{Linear: 1, Angular: 1.5}
	twist := func(lx, ly, az float64) *catalogpb.Twist {
		return &catalogpb.Twist{Linear: &catalogpb.Vector3{X: lx, Y: ly}, Angular: &catalogpb.Vector3{Z: az}}
	}
	car := func(speed, steer float32) *catalogpb.AckermannDriveStamped {
		return &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Speed: speed, SteeringAngle: steer, Acceleration: 3}}
	}
	cases := []struct {
		name   string
		in     proto.Message
		limits fleetgate.SpeedLimits
		want   proto.Message // nil: refused
	}{
		{"within the limits", twist(0.5, 0, -1), limits, twist(0.5, 0, -1)},
		{"at the limits", twist(-1, 1, 1.5), limits, twist(-1, 1, 1.5)},
		{"clamped", twist(5, -3, 14), limits, twist(1, -1, 1.5)},
		{"10x is clamped", twist(10, 0, -15), limits, twist(1, 0, -1.5)},
		{"beyond 10x linear refused", twist(10.01, 0, 0), limits, nil},
		{"beyond 10x angular refused", twist(0, 0, -15.1), limits, nil},
		{"1e300 refused", twist(1e300, 0, 0), limits, nil},
		{"NaN refused", twist(math.NaN(), 0, 0), limits, nil},
		{"absent vectors", &catalogpb.Twist{}, limits, &catalogpb.Twist{}},
		{"undeclared limits take the defaults", twist(3, 0, 3), fleetgate.SpeedLimits{}, twist(1, 0, 1.5)},
		{"undeclared: beyond 10x the default refused", twist(11, 0, 0), fleetgate.SpeedLimits{}, nil},
		{"car clamped, acceleration left to the robot", car(4, -0.9), fleetgate.SpeedLimits{Linear: 1, Angular: 0.5}, car(1, -0.5)},
		{"car beyond 10x refused", car(0, 5.5), fleetgate.SpeedLimits{Linear: 1, Angular: 0.5}, nil},
		{"car without a drive", &catalogpb.AckermannDriveStamped{}, limits, &catalogpb.AckermannDriveStamped{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := LimitCommand(c.in, c.limits)
			if c.want == nil {
				if !fleetgate.Is(err, fleetgate.EInvalid) || !errors.Is(err, ErrBeyondLimits) {
					t.Fatalf("got %v, want a refusal (invalid)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !proto.Equal(c.in, c.want) {
				t.Errorf("got %v, want %v", c.in, c.want)
			}
		})
	}
}
