package gateway

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"google.golang.org/protobuf/proto"
)

// What an operator sees of a robot at a glance, and the alerts the gateway derives from it.
// The facts come from the robot's custom KPIs (pose, battery, activity: what the simulator
// and the ROS 1 source report, and any robot may), read at most once a second per robot
// whatever the number of pages and kiosks asking.

// AlertRules are the thresholds of the derived alerts.
type AlertRules struct {
	// BatteryBelow warns under this charge, in percent (default 20).
	BatteryBelow float64
	// StaleAfter marks a robot whose newest KPI is older than this (default 5 s).
	StaleAfter time.Duration
}

// DefaultAlertRules are the thresholds without --alert-battery.
var DefaultAlertRules = AlertRules{BatteryBelow: 20, StaleAfter: 5 * time.Second}

// blockedActivities are the activities a robot reports when it cannot go on by itself.
var blockedActivities = map[string]bool{"blocked": true, "stuck": true, "error": true, "fault": true}

// estopActivities are the activities of a robot whose emergency stop is pressed: no source
// reads an e-stop input of its own, so the robot's activity KPI is where one is said.
var estopActivities = map[string]bool{"emergency_stop": true, "estop": true, "e-stop": true, "e_stop": true, "emergency stop": true}

// DeriveAlerts lists what is wrong with s at now under rules, the most urgent first.
func DeriveAlerts(s fleetgate.RobotStatus, rules AlertRules, now time.Time) []fleetgate.Alert {
	if !s.Online {
		return []fleetgate.Alert{{Kind: fleetgate.AlertOffline, Critical: true, Words: "offline"}}
	}
	if !s.State().Confirmed() {
		// Nothing else is known now either. Whole seconds, as the state says it (views).
		return []fleetgate.Alert{{Kind: fleetgate.AlertUnconfirmed, Critical: true, Words: "not confirmed for " + ageWords(s.Silent.Truncate(time.Second)) + ": its gateway does not answer"}}
	}
	var out []fleetgate.Alert
	switch act := strings.ToLower(strings.TrimSpace(s.Activity)); {
	case estopActivities[act]:
		out = append(out, fleetgate.Alert{Kind: fleetgate.AlertEStop, Critical: true, Words: "emergency stop pressed"})
	case blockedActivities[act]:
		out = append(out, fleetgate.Alert{Kind: fleetgate.AlertBlocked, Critical: true, Words: act})
	}
	if s.HasBattery && s.Battery < rules.BatteryBelow {
		out = append(out, fleetgate.Alert{Kind: fleetgate.AlertBattery, Critical: s.Battery < rules.BatteryBelow/2,
			Words: fmt.Sprintf("battery low (%.0f %%)", s.Battery)})
	}
	if s.Stale || (!s.Updated.IsZero() && now.Sub(s.Updated) > rules.StaleAfter) {
		out = append(out, fleetgate.Alert{Kind: fleetgate.AlertStale, Words: "no fresh data for " + ageWords(now.Sub(s.Updated))})
	}
	return out
}

// ageWords is a duration as a person reads it: "12 s", "3 min", "2 h".
func ageWords(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", math.Max(0, d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%.0f min", d.Minutes())
	default:
		return fmt.Sprintf("%.0f h", d.Hours())
	}
}

// statusCacheFor is how long a robot's KPI read serves every page and kiosk asking.
const statusCacheFor = time.Second

// maxSpeedGap is the longest gap between two poses a speed is computed over: past it, the
// robot may have stopped and started again in between.
const maxSpeedGap = 10 * time.Second

type cachedStatus struct {
	at     time.Time
	status fleetgate.RobotStatus
}

type statusCache struct {
	mu   sync.Mutex
	byID map[string]cachedStatus
}

// RobotStatuses reads the status of each row's robot side by side, within RobotReadTimeout;
// a robot that does not answer in time is shown stale, not waited for. Rows come from
// RobotTable, so the caller may see them.
func (ss *StreamService) RobotStatuses(ctx context.Context, rows []fleetgate.RobotRow) []fleetgate.RobotStatus {
	out := make([]fleetgate.RobotStatus, len(rows))
	var wg sync.WaitGroup
	for i, r := range rows {
		wg.Go(func() { out[i] = ss.robotStatus(ctx, r.Robot, fleetgate.RobotState{Online: r.Online}) })
	}
	wg.Wait()
	return out
}

// RobotStatus is the status of one robot the caller may see, as its operate screen shows it:
// confirmed with the robot's agent (fleetgate.RobotState). The lists of robots (RobotStatuses) are not:
// they show presence as the link's heartbeats keep it.
func (ss *StreamService) RobotStatus(ctx context.Context, c *Caller, robotID string) (fleetgate.RobotStatus, error) {
	r, _, err := ss.robots.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return fleetgate.RobotStatus{}, err
	}
	st := ss.robotState(ctx, r.ID)
	if !st.Confirmed() {
		// Asking the robot would wait out the deadline for nothing: what was read last,
		// marked stale.
		now := ss.now()
		ss.statuses.mu.Lock()
		s := ss.statuses.byID[r.ID].status
		ss.statuses.mu.Unlock()
		s.Online, s.Stale, s.Silent, s.HasSpeed = true, true, st.Silent, false
		s.Alerts = DeriveAlerts(s, ss.alertRules, now)
		return s, nil
	}
	return ss.robotStatus(ctx, r, st), nil
}

// RobotState is whether a robot the caller may see is online, and how long its agent has not
// answered: the panel's header and status card refresh it every second.
func (ss *StreamService) RobotState(ctx context.Context, c *Caller, robotID string) (fleetgate.RobotState, error) {
	r, _, err := ss.robots.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return fleetgate.RobotState{}, err
	}
	return ss.robotState(ctx, r.ID), nil
}

// robotState confirms robot id with its agent (fleet.Confirmer), waiting up to
// RobotReadTimeout for an answer when the last one is old. A robot of this process is
// confirmed by being here.
func (ss *StreamService) robotState(ctx context.Context, id string) fleetgate.RobotState {
	robot, ok := ss.presence.Robot(id)
	if !ok {
		return fleetgate.RobotState{}
	}
	st := fleetgate.RobotState{Online: true}
	if c, ok := fleet.As[fleet.Confirmer](robot); ok {
		ctx, cancel := context.WithTimeout(ctx, RobotReadTimeout)
		defer cancel()
		st.Silent = max(0, ss.now().Sub(c.Confirm(ctx)))
	}
	return st
}

func (ss *StreamService) robotStatus(ctx context.Context, r fleetgate.Robot, st fleetgate.RobotState) fleetgate.RobotStatus {
	now := ss.now()
	s := fleetgate.RobotStatus{Online: st.Online}
	if st.Online {
		s = ss.readStatus(ctx, r, now)
		s.Silent = st.Silent
	}
	s.Alerts = DeriveAlerts(s, ss.alertRules, now)
	return s
}

// readStatus is the robot's KPIs as a status, from the cache when read within statusCacheFor.
func (ss *StreamService) readStatus(ctx context.Context, r fleetgate.Robot, now time.Time) fleetgate.RobotStatus {
	ss.statuses.mu.Lock()
	prev, cached := ss.statuses.byID[r.ID]
	ss.statuses.mu.Unlock()
	if cached && now.Sub(prev.at) < statusCacheFor && now.Sub(prev.at) >= 0 {
		return prev.status
	}
	s := fleetgate.RobotStatus{Online: true}
	live, ok := ss.presence.Robot(r.ID)
	if !ok {
		return fleetgate.RobotStatus{}
	}
	kpis, err := robotCall(ctx, r, live.KPIs)
	if err != nil {
		s.Stale = true // no answer: what the page shows is not fresh
		return s
	}
	for _, k := range kpis {
		applyKPI(&s, k)
	}
	if !s.HasBattery {
		// A robot may report its charge as the battery metric (4) rather than a KPI.
		if m, err := robotCall(ctx, r, func(ctx context.Context) (fleetgate.Metric, error) {
			return live.Metric(ctx, fleetgate.MetricType(4), "")
		}); err == nil {
			if f, ok := m.Value.(float64); ok && !math.IsNaN(f) {
				s.HasBattery, s.Battery = true, f
			}
		}
	}
	if p := prev.status; cached && p.HasPose && s.HasPose && s.Updated.After(p.Updated) && s.Updated.Sub(p.Updated) <= maxSpeedGap {
		s.HasSpeed = true
		s.Speed = math.Hypot(s.Pose.X-p.Pose.X, s.Pose.Y-p.Pose.Y) / s.Updated.Sub(p.Updated).Seconds()
	} else if cached && p.HasSpeed && s.Updated.Equal(p.Updated) {
		s.HasSpeed, s.Speed = true, p.Speed // the same sample again: the same speed
	}
	ss.statuses.mu.Lock()
	if ss.statuses.byID == nil {
		ss.statuses.byID = map[string]cachedStatus{}
	}
	// Robots that left are dropped as the cache is written, so it never outgrows the fleet.
	for id, c := range ss.statuses.byID {
		if now.Sub(c.at) > time.Minute {
			delete(ss.statuses.byID, id)
		}
	}
	ss.statuses.byID[r.ID] = cachedStatus{at: now, status: s}
	ss.statuses.mu.Unlock()
	return s
}

var (
	kpiPose     = string((&catalogpb.Pose{}).ProtoReflect().Descriptor().FullName())
	kpiPoseStmp = string((&catalogpb.PoseStamped{}).ProtoReflect().Descriptor().FullName())
	kpiBattery  = string((&catalogpb.BatteryState{}).ProtoReflect().Descriptor().FullName())
)

// applyKPI folds one KPI into s: pose (Pose or PoseStamped), battery (a number in percent, or
// a BatteryState) and activity (a string). Values it cannot read are left out.
func applyKPI(s *fleetgate.RobotStatus, k fleetgate.KPI) {
	if k.Time.After(s.Updated) {
		s.Updated = k.Time
	}
	switch k.Name {
	case "pose":
		var p *catalogpb.Pose
		switch k.DataType {
		case kpiPose:
			p = &catalogpb.Pose{}
			if proto.Unmarshal(k.Payload, p) != nil {
				return
			}
		case kpiPoseStmp:
			ps := &catalogpb.PoseStamped{}
			if proto.Unmarshal(k.Payload, ps) != nil {
				return
			}
			p = ps.GetPose()
		default:
			return
		}
		o := p.GetOrientation()
		x, y, z, w := o.GetX(), o.GetY(), o.GetZ(), o.GetW()
		if o == nil {
			w = 1
		}
		s.HasPose = true
		s.Pose = fleetgate.Pose2D{X: p.GetPosition().GetX(), Y: p.GetPosition().GetY(), Yaw: math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z))}
	case "battery":
		if k.DataType == kpiBattery {
			b := &catalogpb.BatteryState{}
			if proto.Unmarshal(k.Payload, b) == nil && b.GetPercentage() >= 0 {
				pct := float64(b.GetPercentage())
				if pct <= 1 {
					pct *= 100 // sensor_msgs/BatteryState says 0..1
				}
				s.HasBattery, s.Battery = true, pct
			}
			return
		}
		if v, err := msgs.KPIValue(k.DataType, k.Payload); err == nil {
			if f, ok := v.(float64); ok {
				s.HasBattery, s.Battery = true, f
			}
		}
	default:
		if v, err := msgs.KPIValue(k.DataType, k.Payload); err == nil {
			if f, ok := v.(float64); ok && !math.IsNaN(f) {
				if s.Numbers == nil {
					s.Numbers = map[string]float64{}
				}
				s.Numbers[k.Name] = f
			}
		}
	case "activity":
		if v, err := msgs.KPIValue(k.DataType, k.Payload); err == nil {
			if a, ok := v.(string); ok {
				s.Activity = a
			}
		}
	}
}
