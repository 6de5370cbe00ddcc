package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/google/uuid"
)

// RobotService is the core's robots and their members: the organization's fleets, who may
// do what on which robot (every other service asks it), and the records of robots as they
// connect.
type RobotService struct {
	store    RobotStore
	presence Presence
	now      func() time.Time
	log      *slog.Logger
	latest   string // LatestAgentVersion
	// agentMaxRobots is how many robot records one agent may hold (Config.AgentMaxRobots).
	agentMaxRobots int
}

// RobotStore is what the robots and members need from durable storage.
type RobotStore interface {
	Organization(ctx context.Context, id string) (fleetgate.Organization, error)
	// DefaultOrganization is the organization created by bootstrap; ENotFound on an empty store.
	DefaultOrganization(ctx context.Context) (fleetgate.Organization, error)
	OrgAdmins(ctx context.Context, orgID string) ([]fleetgate.User, error)
	UserByEmail(ctx context.Context, email string) (fleetgate.User, error)

	Fleet(ctx context.Context, id string) (fleetgate.Fleet, error)
	FleetByName(ctx context.Context, orgID, name string) (fleetgate.Fleet, error)
	Fleets(ctx context.Context, orgID string) ([]fleetgate.Fleet, error)
	CreateFleet(ctx context.Context, f fleetgate.Fleet) error

	Robot(ctx context.Context, id string) (fleetgate.Robot, error)
	Robots(ctx context.Context, orgID string) ([]fleetgate.Robot, error)
	CreateRobot(ctx context.Context, r fleetgate.Robot) error
	RenameRobot(ctx context.Context, id, name string) error
	DeleteRobot(ctx context.Context, id string) error
	// SaveLiveRobot creates or refreshes the record of a robot that connected.
	SaveLiveRobot(ctx context.Context, r fleetgate.Robot) error
	// TouchRobot sets a robot's last-seen time; ENotFound for an unknown robot.
	TouchRobot(ctx context.Context, id string, at time.Time) error
	// CountAgentRobots counts the robot records an agent holds, online or not.
	CountAgentRobots(ctx context.Context, agentID string) (int, error)
	// DeleteRobotIfUnseenSince removes a robot last seen (never seen: created) before
	// cutoff, checking that in the same write; false when it was not removed.
	DeleteRobotIfUnseenSince(ctx context.Context, id string, cutoff time.Time) (bool, error)

	RobotMembers(ctx context.Context, robotID string) ([]fleetgate.Membership, error)
	UserRoles(ctx context.Context, userID string) (map[string]fleetgate.Role, error)
	SetMembership(ctx context.Context, m fleetgate.Membership) error

	// Fleet supervisors (supervisors.go): GrantSupervisor keeps an existing grant as it was;
	// RevokeSupervisor is ENotFound for no grant.
	GrantSupervisor(ctx context.Context, s fleetgate.Supervisor) error
	RevokeSupervisor(ctx context.Context, fleetID, userID string) error
	Supervisors(ctx context.Context, fleetID string) ([]fleetgate.Supervisor, error)
	Supervises(ctx context.Context, userID, fleetID string) (bool, error)

	// Agent and Agents name the agents that announced robots.
	Agent(ctx context.Context, id string) (fleetgate.Agent, error)
	Agents(ctx context.Context, orgID string) ([]fleetgate.Agent, error)
}

var (
	actView      = action{minRole: fleetgate.RoleOperator, what: "view this robot"}
	actPostEvent = action{minRole: fleetgate.RoleOperator, acts: true, what: "post events"}
)

// action is what an operation asks of the caller on a robot.
type action struct {
	minRole fleetgate.Role
	// acts is true for operations a read-scoped (kiosk) token may not perform.
	acts bool
	what string // for the 403 message: "post events", "upload to streams", ...
}

// RobotSummary is a robot as lists show it.
type RobotSummary struct {
	ID     string
	Name   string
	Online bool
}

var actSettings = action{minRole: fleetgate.RoleAdmin, acts: true, what: "change robot settings"}

// RobotListing is a robot with its fleet's name, for operator listings.
type RobotListing struct {
	Robot     fleetgate.Robot
	FleetName string
	Online    bool
}

// RenameRobot sets the display name of a robot the caller administers.
func (rs *RobotService) RenameRobot(ctx context.Context, c *Caller, robotID, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return fleetgate.Errorf(fleetgate.EInvalid, "a robot name has 1 to 200 characters")
	}
	r, _, err := rs.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return err
	}
	return rs.store.RenameRobot(ctx, r.ID, name)
}

// RemoveRobot deletes the record of an offline robot (org admins only). An online robot is
// refused: its source would announce it again at once.
func (rs *RobotService) RemoveRobot(ctx context.Context, c *Caller, robotID string) error {
	if err := requireOrgAdmin(c); err != nil {
		return err
	}
	r, _, err := rs.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return err
	}
	if rs.presence.Online(r.ID) {
		return fleetgate.Errorf(fleetgate.EConflict, "robot %s is online; stop it (or revoke its agent) before removing it", r.Name)
	}
	if err := rs.store.DeleteRobot(ctx, r.ID); err != nil {
		return err
	}
	rs.logRemoved(r, c.User.Email, "removed by an admin")
	return nil
}

// logRemoved is the audit line of a robot record removed: who, which robot, and when it was
// last online (its event-log entries stay, naming its id).
func (rs *RobotService) logRemoved(r fleetgate.Robot, by, why string) {
	rs.log.Info("robot record removed", "robot", r.ID, "name", r.Name, "fleet", r.FleetID, "agent", r.AgentID,
		"last_seen", timeOrNever(r.LastSeen), "created", r.CreatedAt.Format(time.RFC3339), "by", by, "why", why)
}

func timeOrNever(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Format(time.RFC3339)
}

// SetMemberRole gives a user of the organization a role on a robot the caller administers;
// RoleNone removes the membership.
func (rs *RobotService) SetMemberRole(ctx context.Context, c *Caller, robotID, email string, role fleetgate.Role) error {
	if role < fleetgate.RoleNone || role > fleetgate.RoleAdmin {
		return fleetgate.Errorf(fleetgate.EInvalid, "role must be 0 to 3")
	}
	r, _, err := rs.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return err
	}
	u, err := rs.store.UserByEmail(ctx, strings.TrimSpace(email))
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound || (err == nil && u.OrgID != r.OrgID) {
		return fleetgate.Errorf(fleetgate.ENotFound, "no user with email %q in this organization", email)
	} else if err != nil {
		return err
	}
	return rs.store.SetMembership(ctx, fleetgate.Membership{RobotID: r.ID, UserID: u.ID, Role: role})
}

// AddRobot records a robot in a fleet of the default organization.
func (rs *RobotService) AddRobot(ctx context.Context, name, fleet string) (fleetgate.Robot, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return fleetgate.Robot{}, fleetgate.Errorf(fleetgate.EInvalid, "robot name is required")
	}
	org, f, err := rs.defaultOrgFleet(ctx, fleet)
	if err != nil {
		return fleetgate.Robot{}, err
	}
	r := fleetgate.Robot{ID: uuid.NewString(), OrgID: org.ID, FleetID: f.ID, Name: name, CreatedAt: rs.now().UTC()}
	if err := rs.store.CreateRobot(ctx, r); err != nil {
		return fleetgate.Robot{}, err
	}
	return r, nil
}

// AllRobots lists every robot of the default organization.
func (rs *RobotService) AllRobots(ctx context.Context) ([]RobotListing, error) {
	org, err := rs.store.DefaultOrganization(ctx)
	if err != nil {
		return nil, err
	}
	robots, err := rs.store.Robots(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	fleets, err := rs.store.Fleets(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(fleets))
	for _, f := range fleets {
		names[f.ID] = f.Name
	}
	out := make([]RobotListing, len(robots))
	for i, r := range robots {
		out[i] = RobotListing{Robot: r, FleetName: names[r.FleetID], Online: rs.presence.Online(r.ID)}
	}
	return out, nil
}

// role is the caller's role on robot r, with the token's fleet restriction applied.
func (rs *RobotService) role(c *Caller, r fleetgate.Robot, memberships map[string]fleetgate.Role) fleetgate.Role {
	if r.OrgID != c.User.OrgID {
		return fleetgate.RoleNone
	}
	if c.Token.FleetID != "" && c.Token.FleetID != r.FleetID {
		return fleetgate.RoleNone
	}
	if c.User.OrgAdmin {
		return fleetgate.RoleAdmin
	}
	return memberships[r.ID]
}

// authorizeRobot loads a robot and checks that the caller may perform act on it. An unknown
// robot and a robot the caller may not see are both ENotFound: existence is never revealed.
func (rs *RobotService) authorizeRobot(ctx context.Context, c *Caller, robotID string, act action) (fleetgate.Robot, fleetgate.Role, error) {
	notFound := fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", robotID)
	if robotID == "" {
		return fleetgate.Robot{}, fleetgate.RoleNone, notFound
	}
	r, err := rs.store.Robot(ctx, robotID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.Robot{}, fleetgate.RoleNone, notFound
	} else if err != nil {
		return fleetgate.Robot{}, fleetgate.RoleNone, err
	}
	var roles map[string]fleetgate.Role
	if !c.User.OrgAdmin {
		if roles, err = rs.store.UserRoles(ctx, c.User.ID); err != nil {
			return fleetgate.Robot{}, fleetgate.RoleNone, err
		}
	}
	role := rs.role(c, r, roles)
	switch {
	case role == fleetgate.RoleNone:
		return fleetgate.Robot{}, fleetgate.RoleNone, notFound
	case role < act.minRole:
		return fleetgate.Robot{}, role, fleetgate.Errorf(fleetgate.EForbidden, "role %s may not %s (needs %s)", role, act.what, act.minRole)
	case act.acts && !c.CanAct():
		return fleetgate.Robot{}, role, fleetgate.Errorf(fleetgate.EForbidden, "a read-only token may not %s", act.what)
	}
	return r, role, nil
}

// visibleRobots is every robot of the caller's organization the caller may see (any role),
// in the store's order: the one place list views apply the role rules.
func (rs *RobotService) visibleRobots(ctx context.Context, c *Caller) ([]fleetgate.Robot, error) {
	robots, err := rs.store.Robots(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	var roles map[string]fleetgate.Role
	if !c.User.OrgAdmin {
		if roles, err = rs.store.UserRoles(ctx, c.User.ID); err != nil {
			return nil, err
		}
	}
	return slices.DeleteFunc(robots, func(r fleetgate.Robot) bool { return rs.role(c, r, roles) == fleetgate.RoleNone }), nil
}

// Robots lists the robots the caller may see, by name.
func (rs *RobotService) Robots(ctx context.Context, c *Caller) ([]RobotSummary, error) {
	robots, err := rs.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]RobotSummary, 0, len(robots))
	for _, r := range robots {
		out = append(out, RobotSummary{ID: r.ID, Name: r.Name, Online: rs.presence.Online(r.ID)})
	}
	slices.SortFunc(out, func(a, b RobotSummary) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Robot returns the details of one robot the caller may see.
func (rs *RobotService) Robot(ctx context.Context, c *Caller, robotID string) (fleetgate.RobotDetails, error) {
	r, _, err := rs.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return fleetgate.RobotDetails{}, err
	}
	fleet, err := rs.store.Fleet(ctx, r.FleetID)
	if err != nil {
		return fleetgate.RobotDetails{}, err
	}
	org, err := rs.store.Organization(ctx, r.OrgID)
	if err != nil {
		return fleetgate.RobotDetails{}, err
	}
	admins, err := rs.store.OrgAdmins(ctx, r.OrgID)
	if err != nil {
		return fleetgate.RobotDetails{}, err
	}
	members, err := rs.store.RobotMembers(ctx, r.ID)
	if err != nil {
		return fleetgate.RobotDetails{}, err
	}
	online := rs.presence.Online(r.ID)
	if online {
		// The stored time lags by up to the registry's keep-seen period; connected is now.
		r.LastSeen = rs.now().UTC()
	}
	d := fleetgate.RobotDetails{
		Robot:              r,
		Online:             online,
		FleetName:          fleet.Name,
		OrganizationName:   org.Name,
		OrgAdmins:          make([]string, 0, len(admins)),
		SharedUsers:        members,
		LatestAgentVersion: rs.latest,
	}
	for _, a := range admins {
		d.OrgAdmins = append(d.OrgAdmins, a.Email)
	}
	if r.AgentID != "" {
		if a, err := rs.store.Agent(ctx, r.AgentID); err == nil {
			d.AgentName = a.Name
		} else if fleetgate.ErrorCode(err) != fleetgate.ENotFound {
			return fleetgate.RobotDetails{}, err
		}
	}
	slices.Sort(d.OrgAdmins)
	slices.SortFunc(d.SharedUsers, func(a, b fleetgate.Membership) int { return cmp.Compare(a.UserEmail, b.UserEmail) })
	return d, nil
}

// RobotTable lists the robots the caller may see with their fleet, by name.
func (rs *RobotService) RobotTable(ctx context.Context, c *Caller) ([]fleetgate.RobotRow, error) {
	robots, err := rs.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	fleets, err := rs.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(fleets))
	for _, f := range fleets {
		names[f.ID] = f.Name
	}
	agentNames := map[string]string{}
	if slices.ContainsFunc(robots, func(r fleetgate.Robot) bool { return r.AgentID != "" }) {
		agents, err := rs.store.Agents(ctx, c.User.OrgID)
		if err != nil {
			return nil, err
		}
		for _, a := range agents {
			agentNames[a.ID] = a.Name
		}
	}
	out := make([]fleetgate.RobotRow, 0, len(robots))
	staleBefore := rs.now().Add(-StaleRobotAge)
	for _, r := range robots {
		row := fleetgate.RobotRow{Robot: r, FleetName: names[r.FleetID], Online: rs.presence.Online(r.ID), AgentName: agentNames[r.AgentID]}
		row.Stale = !row.Online && staleSince(r, staleBefore)
		if row.Online {
			r.LastSeen = rs.now().UTC()
			row.Robot.LastSeen = r.LastSeen
		}
		row.UpdateAvailable = r.AgentVersion != "" && rs.latest != "" && r.AgentVersion != rs.latest
		out = append(out, row)
	}
	return out, nil
}

// LatestAgentVersion is the newest agent version this gateway knows of.
func (rs *RobotService) LatestAgentVersion() string { return rs.latest }

// RobotRole is the caller's role on a robot it may see (ENotFound otherwise).
func (rs *RobotService) RobotRole(ctx context.Context, c *Caller, robotID string) (fleetgate.Role, error) {
	_, role, err := rs.authorizeRobot(ctx, c, robotID, actView)
	return role, err
}
