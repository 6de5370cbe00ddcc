// Package gateway is the core of fleetgate: one method per API operation, with the
// permission checks and the domain errors. It knows no HTTP and no SQL; it states the
// interfaces it needs (Store, Presence) and the adapters implement them.
package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// Config wires a Gateway. Store is required; the rest have defaults.
type Config struct {
	Store Store
	// Accounts is what the panel's operations need beyond Store (passwords, users, socket
	// tokens); nil: a gateway without the panel's accounts (ENotImplemented there).
	Accounts AccountStore
	Presence Presence
	// Now is the clock; injectable for tests.
	Now func() time.Time
	// BearerTTL is the lifetime of a bearer token minted by login (default 1h).
	BearerTTL time.Duration
	// LatestAgentVersion is what robot details report as the newest agent available.
	LatestAgentVersion string
	Logger             *slog.Logger
	// Signer makes and checks download links; without one, endpoint 5 answers 404.
	Signer URLSigner
	// AgentID is this gateway's own agent id when it is an agent linked to a cloud; robots
	// of its fleet announced by other agents are not served by its live sockets.
	AgentID string
	// Archive holds verified copies of robots' resource files (the cloud's, uploaded over the
	// agent link). With one, resources are listed and served from it, also while a robot is
	// offline; without one, from the connected robot.
	Archive ResourceArchive
	// Cameras opens the ad-hoc cameras of W3 queries (an agent's); nil: none (501).
	Cameras Cameras
	// Controls are the control leases of input streams, one controller per target (nil: a
	// set of this gateway's own).
	Controls *teleop.Controls
	// AlertRules are the thresholds of the alerts derived from robots' KPIs (zero fields:
	// DefaultAlertRules').
	AlertRules AlertRules
	// AgentLinks tells whether an agent is linked to this gateway now and when its link last
	// carried a frame (the cloud's agent link); nil: no agent is ever linked here.
	AgentLinks func(agentID string) (lastHeard time.Time, linked bool)
	// EventPosted is called after an event-log entry is posted here (a linked agent's link
	// forwards it to the cloud); nil: nothing to do.
	EventPosted func()
}

// Gateway is the core service. It is safe for concurrent use.
type Gateway struct {
	store        Store
	accountStore AccountStore
	presence     Presence
	now          func() time.Time
	bearerTTL    time.Duration
	latest       string
	log          *slog.Logger
	signer       URLSigner
	agentID      string
	archive      ResourceArchive
	cameras      Cameras
	controls     *teleop.Controls

	limits      loginLimits
	rechecks    rechecks
	alertRules  AlertRules
	agentLinks  func(agentID string) (time.Time, bool)
	eventPosted func()
	statuses    statusCache
}

// New returns a Gateway over cfg.
func New(cfg Config) *Gateway {
	g := &Gateway{
		store:        cfg.Store,
		accountStore: cfg.Accounts,
		presence:     cfg.Presence,
		now:          cfg.Now,
		bearerTTL:    cfg.BearerTTL,
		latest:       cfg.LatestAgentVersion,
		log:          cfg.Logger,
		signer:       cfg.Signer,
		agentID:      cfg.AgentID,
		archive:      cfg.Archive,
		cameras:      cfg.Cameras,
		controls:     cfg.Controls,
		alertRules:   cfg.AlertRules,
		agentLinks:   cfg.AgentLinks,
		eventPosted:  cfg.EventPosted,
	}
	if g.alertRules.BatteryBelow <= 0 {
		g.alertRules.BatteryBelow = DefaultAlertRules.BatteryBelow
	}
	if g.alertRules.StaleAfter <= 0 {
		g.alertRules.StaleAfter = DefaultAlertRules.StaleAfter
	}
	if g.controls == nil {
		g.controls = teleop.NewControls(teleop.RealClock())
	}
	if g.presence == nil {
		g.presence = NobodyOnline{}
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.bearerTTL <= 0 {
		g.bearerTTL = time.Hour
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	g.limits = newLoginLimits(g.now)
	return g
}

// Caller is an authenticated principal: the user and the API token behind the request.
type Caller struct {
	User  User
	Token APIToken
}

// CanAct reports whether the caller's token may change anything (kiosk tokens may not).
func (c *Caller) CanAct() bool { return c.Token.Scope != ScopeRead }

// role is the caller's role on robot r, with the token's fleet restriction applied.
func (g *Gateway) role(c *Caller, r Robot, memberships map[string]Role) Role {
	if r.OrgID != c.User.OrgID {
		return RoleNone
	}
	if c.Token.FleetID != "" && c.Token.FleetID != r.FleetID {
		return RoleNone
	}
	if c.User.OrgAdmin {
		return RoleAdmin
	}
	return memberships[r.ID]
}

// action is what an operation asks of the caller on a robot.
type action struct {
	minRole Role
	// acts is true for operations a read-scoped (kiosk) token may not perform.
	acts bool
	what string // for the 403 message: "post events", "upload to streams", ...
}

var (
	actView      = action{minRole: RoleOperator, what: "view this robot"}
	actPostEvent = action{minRole: RoleOperator, acts: true, what: "post events"}
)

// authorizeRobot loads a robot and checks that the caller may perform act on it. An unknown
// robot and a robot the caller may not see are both ENotFound: existence is never revealed.
func (g *Gateway) authorizeRobot(ctx context.Context, c *Caller, robotID string, act action) (Robot, Role, error) {
	notFound := Errorf(ENotFound, "robot %q not found", robotID)
	if robotID == "" {
		return Robot{}, RoleNone, notFound
	}
	r, err := g.store.Robot(ctx, robotID)
	if ErrorCode(err) == ENotFound {
		return Robot{}, RoleNone, notFound
	} else if err != nil {
		return Robot{}, RoleNone, err
	}
	var roles map[string]Role
	if !c.User.OrgAdmin {
		if roles, err = g.store.UserRoles(ctx, c.User.ID); err != nil {
			return Robot{}, RoleNone, err
		}
	}
	role := g.role(c, r, roles)
	switch {
	case role == RoleNone:
		return Robot{}, RoleNone, notFound
	case role < act.minRole:
		return Robot{}, role, Errorf(EForbidden, "role %s may not %s (needs %s)", role, act.what, act.minRole)
	case act.acts && !c.CanAct():
		return Robot{}, role, Errorf(EForbidden, "a read-only token may not %s", act.what)
	}
	return r, role, nil
}

// RobotSummary is a robot as lists show it.
type RobotSummary struct {
	ID     string
	Name   string
	Online bool
}

// visibleRobots is every robot of the caller's organization the caller may see (any role),
// in the store's order: the one place list views apply the role rules.
func (g *Gateway) visibleRobots(ctx context.Context, c *Caller) ([]Robot, error) {
	robots, err := g.store.Robots(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	var roles map[string]Role
	if !c.User.OrgAdmin {
		if roles, err = g.store.UserRoles(ctx, c.User.ID); err != nil {
			return nil, err
		}
	}
	return slices.DeleteFunc(robots, func(r Robot) bool { return g.role(c, r, roles) == RoleNone }), nil
}

// Robots lists the robots the caller may see, by name.
func (g *Gateway) Robots(ctx context.Context, c *Caller) ([]RobotSummary, error) {
	robots, err := g.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]RobotSummary, 0, len(robots))
	for _, r := range robots {
		out = append(out, RobotSummary{ID: r.ID, Name: r.Name, Online: g.presence.Online(r.ID)})
	}
	slices.SortFunc(out, func(a, b RobotSummary) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// RobotDetails is endpoint 3's answer in domain terms.
type RobotDetails struct {
	Robot              Robot
	Online             bool
	FleetName          string
	OrganizationName   string
	OrgAdmins          []string     // emails
	SharedUsers        []Membership // explicit memberships, by email
	LatestAgentVersion string
	// AgentName is the agent that announced the robot over the agent link ("" for the
	// robots this gateway hosts).
	AgentName string
}

// Robot returns the details of one robot the caller may see.
func (g *Gateway) Robot(ctx context.Context, c *Caller, robotID string) (RobotDetails, error) {
	r, _, err := g.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return RobotDetails{}, err
	}
	fleet, err := g.store.Fleet(ctx, r.FleetID)
	if err != nil {
		return RobotDetails{}, err
	}
	org, err := g.store.Organization(ctx, r.OrgID)
	if err != nil {
		return RobotDetails{}, err
	}
	admins, err := g.store.OrgAdmins(ctx, r.OrgID)
	if err != nil {
		return RobotDetails{}, err
	}
	members, err := g.store.RobotMembers(ctx, r.ID)
	if err != nil {
		return RobotDetails{}, err
	}
	online := g.presence.Online(r.ID)
	if online {
		// The stored time lags by up to the registry's keep-seen period; connected is now.
		r.LastSeen = g.now().UTC()
	}
	d := RobotDetails{
		Robot:              r,
		Online:             online,
		FleetName:          fleet.Name,
		OrganizationName:   org.Name,
		OrgAdmins:          make([]string, 0, len(admins)),
		SharedUsers:        members,
		LatestAgentVersion: g.latest,
	}
	for _, a := range admins {
		d.OrgAdmins = append(d.OrgAdmins, a.Email)
	}
	if r.AgentID != "" {
		if a, err := g.store.Agent(ctx, r.AgentID); err == nil {
			d.AgentName = a.Name
		} else if ErrorCode(err) != ENotFound {
			return RobotDetails{}, err
		}
	}
	slices.Sort(d.OrgAdmins)
	slices.SortFunc(d.SharedUsers, func(a, b Membership) int { return cmp.Compare(a.UserEmail, b.UserEmail) })
	return d, nil
}
