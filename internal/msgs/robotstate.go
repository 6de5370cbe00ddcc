package msgs

import (
	"encoding/json"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// What robot sources read from their robots' own messages (ROS 1, ROS 2): the pose of an
// Odometry or PoseStamped, and a BatteryState's charge, for the Position and Battery metrics
// and the pose and battery KPIs.

// PoseOf reads the pose and frame of an Odometry or PoseStamped payload of catalog type typ.
func PoseOf(typ string, payload []byte) (*catalogpb.Pose, string, bool) {
	switch typ {
	case catalogPrefix + "nav_msgs.Odometry":
		var m catalogpb.Odometry
		if proto.Unmarshal(payload, &m) != nil || m.GetPose().GetPose() == nil {
			return nil, "", false
		}
		return m.Pose.Pose, m.GetHeader().GetFrameId(), true
	case catalogPrefix + "geometry_msgs.PoseStamped":
		var m catalogpb.PoseStamped
		if proto.Unmarshal(payload, &m) != nil || m.GetPose() == nil {
			return nil, "", false
		}
		return m.Pose, m.GetHeader().GetFrameId(), true
	}
	return nil, "", false
}

// BatteryPercent reads a BatteryState payload as a percentage: from percentage (0..1), or
// from charge and capacity when the battery does not measure it (NaN).
func BatteryPercent(payload []byte) (float64, bool) {
	var m catalogpb.BatteryState
	if proto.Unmarshal(payload, &m) != nil {
		return 0, false
	}
	p := float64(m.Percentage)
	if math.IsNaN(p) || math.IsInf(p, 0) {
		c, cap := float64(m.Charge), float64(m.Capacity)
		if math.IsNaN(c) || math.IsNaN(cap) || cap <= 0 {
			return 0, false
		}
		p = c / cap
	}
	return math.Max(0, math.Min(100, p*100)), true
}

// position is the Position metric's document, as the simulator writes it.
type position struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Theta float64 `json:"theta"`
	Frame string  `json:"frame"`
}

// PositionJSON is the Position metric's document of a pose: x, y (mm), theta (yaw about z)
// and the frame.
func PositionJSON(p *catalogpb.Pose, frame string) ([]byte, error) {
	return json.Marshal(position{X: round(p.GetPosition().GetX(), 3), Y: round(p.GetPosition().GetY(), 3), Theta: round(Yaw(p.GetOrientation()), 4), Frame: frame})
}

func round(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

// Yaw is the rotation about z of a quaternion.
func Yaw(q *catalogpb.Quaternion) float64 {
	return math.Atan2(2*(q.GetW()*q.GetZ()+q.GetX()*q.GetY()), 1-2*(q.GetY()*q.GetY()+q.GetZ()*q.GetZ()))
}
