package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
)

// SupervisorService is the supervisor role granted per fleet: a supervisor of a fleet takes
// control of its robots from anyone (the handover extension's override, docs/api.md), as an
// organization admin does anywhere. Organization admins grant and revoke it; each grant and
// revoke is an entry in the event log of every robot of the fleet, whose control it changes.
type SupervisorService struct {
	robots *RobotService
	events *EventService
	now    func() time.Time
	log    *slog.Logger
}

// Supervisors lists fleetID's supervisors, for an organization admin.
func (ss *SupervisorService) Supervisors(ctx context.Context, c *Caller, fleetID string) ([]fleetgate.Supervisor, error) {
	f, err := ss.adminFleet(ctx, c, fleetID, false)
	if err != nil {
		return nil, err
	}
	return ss.robots.store.Supervisors(ctx, f.ID)
}

// GrantSupervisor makes the user of email a supervisor of fleetID; granting it again is no
// change and no entry.
func (ss *SupervisorService) GrantSupervisor(ctx context.Context, c *Caller, fleetID, email string) (fleetgate.Supervisor, error) {
	f, u, err := ss.target(ctx, c, fleetID, email)
	if err != nil {
		return fleetgate.Supervisor{}, err
	}
	already, err := ss.robots.store.Supervises(ctx, u.ID, f.ID)
	if err != nil {
		return fleetgate.Supervisor{}, err
	}
	s := fleetgate.Supervisor{FleetID: f.ID, UserID: u.ID, UserEmail: u.Email, GrantedBy: c.User.Email, GrantedAt: ss.now().UTC()}
	if err := ss.robots.store.GrantSupervisor(ctx, s); err != nil {
		return fleetgate.Supervisor{}, err
	}
	if !already {
		ss.journal(ctx, f, c.User.Email, fmt.Sprintf("%s made a supervisor of fleet %s by %s: takes control of its robots from anyone", u.Email, f.Name, c.User.Email))
	}
	return s, nil
}

// RevokeSupervisor ends the user of email's grant for fleetID; ENotFound when there is none.
func (ss *SupervisorService) RevokeSupervisor(ctx context.Context, c *Caller, fleetID, email string) error {
	f, u, err := ss.target(ctx, c, fleetID, email)
	if err != nil {
		return err
	}
	if err := ss.robots.store.RevokeSupervisor(ctx, f.ID, u.ID); err != nil {
		if fleetgate.Is(err, fleetgate.ENotFound) {
			return fleetgate.Errorf(fleetgate.ENotFound, "%s is not a supervisor of fleet %s", u.Email, f.Name)
		}
		return err
	}
	ss.journal(ctx, f, c.User.Email, fmt.Sprintf("%s is no longer a supervisor of fleet %s (revoked by %s)", u.Email, f.Name, c.User.Email))
	return nil
}

// MayOverride reports whether the caller may take control of robotID from anyone (the
// operate page offers it): false for a robot the caller may not drive.
func (ss *SupervisorService) MayOverride(ctx context.Context, c *Caller, robotID string) (bool, error) {
	r, _, err := ss.robots.authorizeRobot(ctx, c, robotID, actDrive)
	if fleetgate.Is(err, fleetgate.EForbidden) || fleetgate.Is(err, fleetgate.ENotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return ss.robots.supervises(ctx, c, r)
}

// supervises reports whether the caller may take control of robot r from anyone: an
// organization admin, or a supervisor of r's fleet, with a token that may act.
func (rs *RobotService) supervises(ctx context.Context, c *Caller, r fleetgate.Robot) (bool, error) {
	if !c.CanAct() {
		return false, nil
	}
	if c.User.OrgAdmin {
		return true, nil
	}
	if r.FleetID == "" {
		return false, nil
	}
	return rs.store.Supervises(ctx, c.User.ID, r.FleetID)
}

// adminFleet is fleetID of the caller's organization, for an organization admin (acting:
// with a token that may act).
func (ss *SupervisorService) adminFleet(ctx context.Context, c *Caller, fleetID string, acting bool) (fleetgate.Fleet, error) {
	if !c.User.OrgAdmin {
		return fleetgate.Fleet{}, fleetgate.Errorf(fleetgate.EForbidden, "only an organization admin manages fleet supervisors")
	}
	if acting && !c.CanAct() {
		return fleetgate.Fleet{}, fleetgate.Errorf(fleetgate.EForbidden, "a read-only token may not manage fleet supervisors")
	}
	f, err := ss.robots.store.Fleet(ctx, fleetID)
	if fleetgate.Is(err, fleetgate.ENotFound) || err == nil && f.OrgID != c.User.OrgID {
		return fleetgate.Fleet{}, fleetgate.Errorf(fleetgate.ENotFound, "fleet %q not found", fleetID)
	}
	return f, err
}

// target is the fleet and the user of email, both of the admin caller's organization.
func (ss *SupervisorService) target(ctx context.Context, c *Caller, fleetID, email string) (fleetgate.Fleet, fleetgate.User, error) {
	f, err := ss.adminFleet(ctx, c, fleetID, true)
	if err != nil {
		return fleetgate.Fleet{}, fleetgate.User{}, err
	}
	u, err := ss.robots.store.UserByEmail(ctx, strings.TrimSpace(email))
	if fleetgate.Is(err, fleetgate.ENotFound) || err == nil && u.OrgID != c.User.OrgID {
		return fleetgate.Fleet{}, fleetgate.User{}, fleetgate.Errorf(fleetgate.ENotFound, "user %q not found", email)
	}
	return f, u, err
}

// journal writes a grant or revoke to the event log of every robot of fleet f.
func (ss *SupervisorService) journal(ctx context.Context, f fleetgate.Fleet, by, words string) {
	ss.log.Info("fleet supervisors changed", "fleet", f.ID, "name", f.Name, "by", by, "what", words)
	robots, err := ss.robots.store.Robots(ctx, f.OrgID)
	if err != nil {
		ss.log.Warn("a change of fleet supervisors was not written to the event log", "fleet", f.ID, "err", err)
		return
	}
	at := ss.now().UTC()
	for _, r := range robots {
		if r.FleetID != f.ID {
			continue
		}
		e := fleetgate.Event{RobotID: r.ID, FleetID: f.ID, AuthorEmail: by, Message: words, CreatedAt: at,
			Type: fleetgate.EventTeleop, Severity: fleetgate.SeverityInfo}
		if err := ss.events.RecordEvent(ctx, e); err != nil {
			ss.log.Warn("a change of fleet supervisors was not written to a robot's event log", "robot", r.ID, "err", err)
		}
	}
}
