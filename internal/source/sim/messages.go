package sim

import (
	"math"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// typeName is the catalog's full name of m's type.
func typeName(m proto.Message) string { return string(m.ProtoReflect().Descriptor().FullName()) }

var (
	typePoseStamped = typeName(&catalogpb.PoseStamped{})
	typeOdometry    = typeName(&catalogpb.Odometry{})
	typeLaserScan   = typeName(&catalogpb.LaserScan{})
	typeCompressed  = typeName(&catalogpb.CompressedImage{})
	typePointCloud  = typeName(&catalogpb.PointCloud2{})
	typeBattery     = typeName(&catalogpb.BatteryState{})
	typeGrid        = typeName(&catalogpb.OccupancyGrid{})
	typeTwist       = typeName(&catalogpb.Twist{})
	typeAckermann   = typeName(&catalogpb.AckermannDriveStamped{})
	typePose        = typeName(&catalogpb.Pose{})
	typeFloat64     = typeName(&catalogpb.Float64{})
	typeString      = typeName(&catalogpb.String{})
)

// Frames of the published messages. Odometry is perfect here, so odom and map coincide.
const (
	frameMap    = "map"
	frameOdom   = "odom"
	frameBase   = "base_link"
	frameLaser  = "laser"
	frameCamera = "camera"
)

func stamp(t time.Time) *catalogpb.Time {
	return &catalogpb.Time{Sec: int32(t.Unix()), Nanosec: uint32(t.Nanosecond())}
}

func header(t time.Time, frame string) *catalogpb.Header {
	return &catalogpb.Header{Stamp: stamp(t), FrameId: frame}
}

func yaw(theta float64) *catalogpb.Quaternion {
	return &catalogpb.Quaternion{Z: math.Sin(theta / 2), W: math.Cos(theta / 2)}
}

func poseMsg(b *body) *catalogpb.Pose {
	return &catalogpb.Pose{Position: &catalogpb.Point{X: b.x, Y: b.y}, Orientation: yaw(b.theta)}
}

// marshal serializes a message built here; it cannot fail for the catalog's types.
func marshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic("sim: marshal " + typeName(m) + ": " + err.Error())
	}
	return b
}

// covariance is a diagonal 6x6 covariance with v on the diagonal.
func covariance(v float64) []float64 {
	c := make([]float64, 36)
	for i := range 6 {
		c[i*7] = v
	}
	return c
}

// Shared, never modified: a marshalled message only reads them.
var (
	poseCovariance  = covariance(1e-4)
	twistCovariance = covariance(1e-3)
)

func posePayload(b *body, at time.Time) []byte {
	return marshal(&catalogpb.PoseStamped{Header: header(at, frameMap), Pose: poseMsg(b)})
}

func odomPayload(b *body, at time.Time) []byte {
	return marshal(&catalogpb.Odometry{
		Header:       header(at, frameOdom),
		ChildFrameId: frameBase,
		Pose:         &catalogpb.PoseWithCovariance{Pose: poseMsg(b), Covariance: poseCovariance},
		Twist: &catalogpb.TwistWithCovariance{
			Twist: &catalogpb.Twist{
				Linear:  &catalogpb.Vector3{X: b.v},
				Angular: &catalogpb.Vector3{Z: b.w},
			},
			Covariance: twistCovariance,
		},
	})
}

// ROS BatteryState constants.
const (
	powerCharging    = 1
	powerDischarging = 2
	powerFull        = 4
	healthGood       = 1
	technologyLiIon  = 2
)

// The battery is a 24 V lithium-ion pack.
const (
	batteryCapacityAh = 40.0
	batteryCells      = 7
)

func batteryPayload(b *body, serial string, at time.Time) []byte {
	frac := b.battery / 100
	status := uint32(powerDischarging)
	current := -(1.5 + 8*math.Abs(b.v)/maxSpeed) // amperes, negative while discharging
	switch {
	case b.charging:
		status, current = powerCharging, 20 // the charger's constant current
	case b.battery >= 100 && b.v == 0 && b.w == 0:
		status, current = powerFull, 0
	}
	cell := 3.3 + 0.85*frac // volts, a crude discharge curve
	cells := make([]float32, batteryCells)
	for i := range cells {
		cells[i] = float32(cell)
	}
	return marshal(&catalogpb.BatteryState{
		Header:                header(at, frameBase),
		Voltage:               float32(cell * batteryCells),
		Temperature:           float32(28 + 6*math.Abs(b.v)),
		Current:               float32(current),
		Charge:                float32(frac * batteryCapacityAh),
		Capacity:              batteryCapacityAh,
		DesignCapacity:        batteryCapacityAh,
		Percentage:            float32(frac),
		PowerSupplyStatus:     status,
		PowerSupplyHealth:     healthGood,
		PowerSupplyTechnology: technologyLiIon,
		Present:               true,
		CellVoltage:           cells,
		Location:              "base",
		SerialNumber:          serial,
	})
}
