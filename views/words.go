package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
)

// Values in words and units, as an operator reads them.

// PoseWords is a position as "x 22.7 m, y 0.5 m, 70°" (heading from the map's x axis,
// counter-clockwise, 0 to 359°); "–" when the robot reports none.
func PoseWords(s fleetgate.RobotStatus) string {
	if !s.HasPose {
		return "–"
	}
	deg := math.Mod(s.Pose.Yaw*180/math.Pi, 360)
	if deg < 0 {
		deg += 360
	}
	if math.Round(deg) == 360 {
		deg = 0
	}
	return fmt.Sprintf("x %.1f m, y %.1f m, %.0f°", s.Pose.X, s.Pose.Y, deg)
}

// BatteryWords is the charge in percent, "–" when unknown.
func BatteryWords(s fleetgate.RobotStatus) string {
	if !s.HasBattery {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", s.Battery)
}

// SpeedWords is the speed in m/s, "–" until two poses were read.
func SpeedWords(s fleetgate.RobotStatus) string {
	if !s.HasSpeed {
		return "–"
	}
	if s.Speed < 0.005 {
		return "standing still"
	}
	return fmt.Sprintf("%.2f m/s", s.Speed)
}

// AgeWords is how long ago t was, "no data" for the zero time.
func AgeWords(t, now time.Time) string {
	if t.IsZero() {
		return "no data"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now" // the robot's clock is ahead of ours
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s ago", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%.0f s ago", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.0f min ago", d.Minutes())
	default:
		return When(t)
	}
}

// TimeOfDay is a time of day in the site's zone, with the date when it is not today's.
func TimeOfDay(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	if inZone(t).Format(time.DateOnly) == inZone(time.Now()).Format(time.DateOnly) {
		return inZone(t).Format("15:04:05 MST")
	}
	return When(t)
}

// AlertClass styles an alert: critical ones red, warnings amber.
func AlertClass(a fleetgate.Alert) string {
	if a.Critical {
		return "alert critical"
	}
	return "alert warning"
}

// alertPrefix says the severity in words, for screen readers and colour-blind operators.
func alertPrefix(a fleetgate.Alert) string {
	if a.Critical {
		return "Alert: "
	}
	return "Warning: "
}

// AlertSummary is a robot's alerts in one line, "no alerts" when there are none.
func AlertSummary(alerts []fleetgate.Alert) string {
	if len(alerts) == 0 {
		return "no alerts"
	}
	out := ""
	for i, a := range alerts {
		if i > 0 {
			out += ", "
		}
		out += a.Words
	}
	return out
}

func offlineWords(online bool) string {
	if online {
		return ""
	}
	return " while it is offline"
}

// viewLabel names a view in the switch: the camera's name or the stream, and what it is.
func viewLabel(s fleetgate.Stream) string {
	kind := map[string]string{"camera": "camera", "pointcloud": "point cloud", "laserscan": "laser scan"}[WidgetFor(s)]
	return cameraTitle(s) + " (" + kind + ")"
}

func isGrid(s fleetgate.Stream) bool { return strings.HasSuffix(s.Type, "OccupancyGrid") }

// RobotStateName names a robot's state for data-robot-state: online, unconfirmed or offline.
func RobotStateName(s fleetgate.RobotState) string {
	switch {
	case !s.Online:
		return "offline"
	case !s.Confirmed():
		return "unconfirmed"
	}
	return "online"
}

// NotConfirmedWords is the state of an online robot whose agent has not answered for silent,
// in whole seconds (the browser's ageing in behaviours.ts says it the same way).
func NotConfirmedWords(silent time.Duration) string {
	return fmt.Sprintf("not confirmed for %d s", int(silent/time.Second))
}

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
