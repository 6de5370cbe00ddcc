package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// TeleopDelayStore keeps the robots' own thresholds of the speed governor.
type TeleopDelayStore interface {
	// TeleopDelays is a robot's own thresholds; ENotFound when it follows the gateway's.
	TeleopDelays(ctx context.Context, robotID string) (fleetgate.TeleopDelays, error)
	SetTeleopDelays(ctx context.Context, d fleetgate.TeleopDelays) error
	ClearTeleopDelays(ctx context.Context, robotID string) error
}

// The bounds of a robot's thresholds: below MinTeleopDelay no operator's picture arrives, and
// beyond MaxTeleopDelay nobody steers by it.
const (
	MinTeleopDelay = 10 * time.Millisecond
	MaxTeleopDelay = 30 * time.Second
)

// DelayPolicy is the governor's policy, named here for the adapters that set it (the panel
// knows the core, not the live engines).
type DelayPolicy = teleop.DelayPolicy

// TeleopSettings are the thresholds a robot's live sessions are governed by, and whether they
// are its own (Custom) or the gateway's (the --teleop-delay-* flags).
type TeleopSettings struct {
	Delays teleop.DelayPolicy
	Custom bool
	// UpdatedBy and UpdatedAt say who set the robot's own, and when.
	UpdatedBy string
	UpdatedAt time.Time
}

// TeleopSettingsService is the robots' speed-governor settings: an admin sets a robot's own
// thresholds, and the door of the gateway that hosts the robot governs its sessions by them.
type TeleopSettingsService struct {
	robots   *RobotService
	store    TeleopDelayStore
	events   *EventService
	defaults teleop.DelayPolicy
	now      func() time.Time
	log      *slog.Logger
}

var actViewSettings = action{minRole: fleetgate.RoleOperator, what: "view this robot's settings"}

// TeleopSettings are robot's thresholds as its sessions are governed: here, or at the agent
// that hosts it (asked over the link).
func (ts *TeleopSettingsService) TeleopSettings(ctx context.Context, c *Caller, robotID string) (TeleopSettings, error) {
	r, role, err := ts.robots.authorizeRobot(ctx, c, robotID, actViewSettings)
	if err != nil {
		return TeleopSettings{}, err
	}
	if r.AgentID != "" {
		return ts.atAgent(ctx, r, fleet.TeleopSettingsRequest{User: c.User.Email, Role: role})
	}
	return ts.settings(ctx, r.ID)
}

// SetTeleopSettings gives a robot the caller administers thresholds of its own, checked: each
// within MinTeleopDelay and MaxTeleopDelay, full below quarter, quarter not above stop. A
// robot behind an agent gets them at the agent, which checks them again.
func (ts *TeleopSettingsService) SetTeleopSettings(ctx context.Context, c *Caller, robotID string, p teleop.DelayPolicy) (TeleopSettings, error) {
	if err := checkDelays(p); err != nil {
		return TeleopSettings{}, err
	}
	r, role, err := ts.robots.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return TeleopSettings{}, err
	}
	if r.AgentID != "" {
		return ts.atAgent(ctx, r, fleet.TeleopSettingsRequest{User: c.User.Email, Role: role,
			Set: &fleetgate.TeleopDelays{Full: p.Full, Quarter: p.Quarter, Stop: p.Stop}})
	}
	return ts.set(ctx, r, c.User.Email, p)
}

// ResetTeleopSettings returns a robot the caller administers to the thresholds of the gateway
// that hosts it.
func (ts *TeleopSettingsService) ResetTeleopSettings(ctx context.Context, c *Caller, robotID string) (TeleopSettings, error) {
	r, role, err := ts.robots.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return TeleopSettings{}, err
	}
	if r.AgentID != "" {
		return ts.atAgent(ctx, r, fleet.TeleopSettingsRequest{User: c.User.Email, Role: role, Reset: true})
	}
	return ts.reset(ctx, r, c.User.Email)
}

// TeleopSettingsForCloud is the agent's side of a cloud user's request (fleet.TeleopSettingsRequest)
// for robot robotID, hosted here. The cloud checked the user's token and role; the agent
// checks the role again as its own routes do (an operator reads, an admin changes) and names
// the user apart from a local account of the same email, as the door does: "EMAIL via the
// cloud" in the event log and in updatedBy.
func (ts *TeleopSettingsService) TeleopSettingsForCloud(ctx context.Context, robotID string, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	r, err := ts.robots.store.Robot(ctx, robotID)
	if err != nil {
		return fleet.TeleopSettings{}, err
	}
	if r.AgentID != "" {
		return fleet.TeleopSettings{}, fleetgate.Errorf(fleetgate.EConflict, "robot %s is not hosted here", r.Name)
	}
	act := actViewSettings
	if req.Set != nil || req.Reset {
		act = actSettings
	}
	if req.User == "" || req.Role < act.minRole {
		return fleet.TeleopSettings{}, fleetgate.Errorf(fleetgate.EForbidden, "role %s may not %s (needs %s)", req.Role, act.what, act.minRole)
	}
	by := req.User + " via the cloud"
	var s TeleopSettings
	switch {
	case req.Set != nil:
		p := teleop.DelayPolicy{Full: req.Set.Full, Quarter: req.Set.Quarter, Stop: req.Set.Stop}
		if err = checkDelays(p); err == nil {
			s, err = ts.set(ctx, r, by, p)
		}
	case req.Reset:
		s, err = ts.reset(ctx, r, by)
	default:
		s, err = ts.settings(ctx, r.ID)
	}
	if err != nil {
		return fleet.TeleopSettings{}, err
	}
	return fleet.TeleopSettings{Custom: s.Custom, Delays: fleetgate.TeleopDelays{RobotID: r.ID, Full: s.Delays.Full,
		Quarter: s.Delays.Quarter, Stop: s.Delays.Stop, UpdatedBy: s.UpdatedBy, UpdatedAt: s.UpdatedAt}}, nil
}

// checkDelays holds thresholds to the bounds and their order.
func checkDelays(p teleop.DelayPolicy) error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"full", p.Full}, {"quarter", p.Quarter}, {"stop", p.Stop}} {
		if d.v < MinTeleopDelay || d.v > MaxTeleopDelay {
			return fleetgate.Errorf(fleetgate.EInvalid, "the %s-speed delay must be from %v to %v, not %v", d.name, MinTeleopDelay, MaxTeleopDelay, d.v)
		}
	}
	if p.Full >= p.Quarter || p.Quarter > p.Stop {
		return fleetgate.Errorf(fleetgate.EInvalid, "the delays must grow: full speed (%v) below the quarter (%v), the quarter not above the stop (%v)", p.Full, p.Quarter, p.Stop)
	}
	return nil
}

// set stores robot r's own thresholds, set by by, and journals the change.
func (ts *TeleopSettingsService) set(ctx context.Context, r fleetgate.Robot, by string, p teleop.DelayPolicy) (TeleopSettings, error) {
	at := ts.now().UTC()
	if err := ts.store.SetTeleopDelays(ctx, fleetgate.TeleopDelays{RobotID: r.ID, Full: p.Full, Quarter: p.Quarter, Stop: p.Stop,
		UpdatedBy: by, UpdatedAt: at}); err != nil {
		return TeleopSettings{}, err
	}
	ts.journal(ctx, r, by, at, fmt.Sprintf("teleop delays set by %s: full speed up to %v, a quarter at %v, stopped beyond %v (from the next session)",
		by, p.Full, p.Quarter, p.Stop))
	return ts.settings(ctx, r.ID)
}

// reset returns robot r to the gateway's thresholds, by by, and journals the change.
func (ts *TeleopSettingsService) reset(ctx context.Context, r fleetgate.Robot, by string) (TeleopSettings, error) {
	if err := ts.store.ClearTeleopDelays(ctx, r.ID); err != nil {
		return TeleopSettings{}, err
	}
	d := ts.defaults
	ts.journal(ctx, r, by, ts.now().UTC(), fmt.Sprintf("teleop delays reset by %s to the gateway's: full speed up to %v, a quarter at %v, stopped beyond %v (from the next session)",
		by, d.Full, d.Quarter, d.Stop))
	return ts.settings(ctx, r.ID)
}

// atAgent carries req out at the agent that hosts robot r, whose door governs it by the
// thresholds it keeps: over the link, or through the replica that holds the link. The agent
// writes the change to its event log, which comes to this one over the link.
func (ts *TeleopSettingsService) atAgent(ctx context.Context, r fleetgate.Robot, req fleet.TeleopSettingsRequest) (TeleopSettings, error) {
	live, ok := ts.robots.presence.Robot(r.ID)
	if !ok {
		return TeleopSettings{}, fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline: its teleop delays are kept by its agent, and read or set while the robot is online there", r.Name)
	}
	remote, ok := fleet.As[fleet.RemoteTeleopSettings](live)
	if !ok {
		return TeleopSettings{}, fleetgate.Errorf(fleetgate.EConflict, "robot %s is hosted by an agent, whose door governs its speed: set its teleop delays on the agent's own admin page", r.Name)
	}
	s, err := remote.TeleopSettings(ctx, req)
	if err != nil {
		return TeleopSettings{}, err
	}
	return TeleopSettings{Delays: teleop.DelayPolicy{Full: s.Delays.Full, Quarter: s.Delays.Quarter, Stop: s.Delays.Stop},
		Custom: s.Custom, UpdatedBy: s.Delays.UpdatedBy, UpdatedAt: s.Delays.UpdatedAt}, nil
}

// TeleopDelayPolicy is the policy the door governs robotID's next live session by (door.Config
// Delays): the robot's own thresholds, or the gateway's when it has none or they cannot be read.
func (ts *TeleopSettingsService) TeleopDelayPolicy(ctx context.Context, robotID string) teleop.DelayPolicy {
	s, err := ts.settings(ctx, robotID)
	if err != nil {
		ts.log.Warn("a robot's teleop delays could not be read: the gateway's apply", "robot_id", robotID, "err", err)
		return ts.defaults
	}
	return s.Delays
}

func (ts *TeleopSettingsService) settings(ctx context.Context, robotID string) (TeleopSettings, error) {
	d, err := ts.store.TeleopDelays(ctx, robotID)
	switch {
	case fleetgate.Is(err, fleetgate.ENotFound):
		return TeleopSettings{Delays: ts.defaults}, nil
	case err != nil:
		return TeleopSettings{}, err
	}
	return TeleopSettings{Delays: teleop.DelayPolicy{Full: d.Full, Quarter: d.Quarter, Stop: d.Stop}, Custom: true,
		UpdatedBy: d.UpdatedBy, UpdatedAt: d.UpdatedAt}, nil
}

// journal writes a change of a robot's settings to its event log and the audit log.
func (ts *TeleopSettingsService) journal(ctx context.Context, r fleetgate.Robot, by string, at time.Time, words string) {
	ts.log.Info("robot teleop delays changed", "robot", r.ID, "name", r.Name, "by", by, "what", words)
	e := fleetgate.Event{RobotID: r.ID, FleetID: r.FleetID, AuthorEmail: by, Message: words, CreatedAt: at,
		Type: fleetgate.EventTeleop, Severity: fleetgate.SeverityInfo}
	if err := ts.events.RecordEvent(ctx, e); err != nil {
		ts.log.Warn("a change of teleop delays was not written to the event log", "robot", r.ID, "err", err)
	}
}
