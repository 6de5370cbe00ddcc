package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/fleetgate/fleetgate"
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

// TeleopSettings are robot's thresholds as its sessions here are governed.
func (ts *TeleopSettingsService) TeleopSettings(ctx context.Context, c *Caller, robotID string) (TeleopSettings, error) {
	r, _, err := ts.robots.authorizeRobot(ctx, c, robotID, actViewSettings)
	if err != nil {
		return TeleopSettings{}, err
	}
	if err := hostedHere(r); err != nil {
		return TeleopSettings{}, err
	}
	return ts.settings(ctx, r.ID)
}

// SetTeleopSettings gives a robot the caller administers thresholds of its own, checked: each
// within MinTeleopDelay and MaxTeleopDelay, full below quarter, quarter not above stop.
func (ts *TeleopSettingsService) SetTeleopSettings(ctx context.Context, c *Caller, robotID string, p teleop.DelayPolicy) (TeleopSettings, error) {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"full", p.Full}, {"quarter", p.Quarter}, {"stop", p.Stop}} {
		if d.v < MinTeleopDelay || d.v > MaxTeleopDelay {
			return TeleopSettings{}, fleetgate.Errorf(fleetgate.EInvalid, "the %s-speed delay must be from %v to %v, not %v", d.name, MinTeleopDelay, MaxTeleopDelay, d.v)
		}
	}
	if p.Full >= p.Quarter || p.Quarter > p.Stop {
		return TeleopSettings{}, fleetgate.Errorf(fleetgate.EInvalid, "the delays must grow: full speed (%v) below the quarter (%v), the quarter not above the stop (%v)", p.Full, p.Quarter, p.Stop)
	}
	r, _, err := ts.robots.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return TeleopSettings{}, err
	}
	if err := hostedHere(r); err != nil {
		return TeleopSettings{}, err
	}
	at := ts.now().UTC()
	if err := ts.store.SetTeleopDelays(ctx, fleetgate.TeleopDelays{RobotID: r.ID, Full: p.Full, Quarter: p.Quarter, Stop: p.Stop,
		UpdatedBy: c.User.Email, UpdatedAt: at}); err != nil {
		return TeleopSettings{}, err
	}
	ts.journal(ctx, r, c.User.Email, at, fmt.Sprintf("teleop delays set by %s: full speed up to %v, a quarter at %v, stopped beyond %v (from the next session)",
		c.User.Email, p.Full, p.Quarter, p.Stop))
	return ts.settings(ctx, r.ID)
}

// ResetTeleopSettings returns a robot the caller administers to the gateway's thresholds.
func (ts *TeleopSettingsService) ResetTeleopSettings(ctx context.Context, c *Caller, robotID string) (TeleopSettings, error) {
	r, _, err := ts.robots.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return TeleopSettings{}, err
	}
	if err := hostedHere(r); err != nil {
		return TeleopSettings{}, err
	}
	if err := ts.store.ClearTeleopDelays(ctx, r.ID); err != nil {
		return TeleopSettings{}, err
	}
	d := ts.defaults
	ts.journal(ctx, r, c.User.Email, ts.now().UTC(), fmt.Sprintf("teleop delays reset by %s to the gateway's: full speed up to %v, a quarter at %v, stopped beyond %v (from the next session)",
		c.User.Email, d.Full, d.Quarter, d.Stop))
	return ts.settings(ctx, r.ID)
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

// hostedHere refuses a robot behind an agent: its sessions are governed by the agent's door,
// which reads the agent's own settings, so they are set on the agent's admin page.
func hostedHere(r fleetgate.Robot) error {
	if r.AgentID == "" {
		return nil
	}
	return fleetgate.Errorf(fleetgate.EConflict, "robot %s is hosted by an agent, whose door governs its speed: set its teleop delays on the agent's own admin page", r.Name)
}
