package gateway

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Role is a user's permission on one robot, with the contract's numbering.
type Role int

const (
	RoleNone      Role = 0 // the robot is invisible to the user
	RoleOperator  Role = 1 // view, read streams and metrics, download, teleop, post events
	RoleDeveloper Role = 2 // + upload to streams
	RoleAdmin     Role = 3 // + members and robot settings
)

func (r Role) String() string {
	switch r {
	case RoleOperator:
		return "Operator"
	case RoleDeveloper:
		return "Developer"
	case RoleAdmin:
		return "Admin"
	default:
		return "None"
	}
}

// Token scopes. A read-scoped token (kiosks) may look but never act.
const (
	ScopeFull = "full"
	ScopeRead = "read"
)

// LocalFleetID is the id and name of the one fleet a local gateway serves.
const LocalFleetID = "local-fleet"

type Organization struct {
	ID   string
	Name string
}

type Fleet struct {
	ID    string
	OrgID string
	Name  string
}

type User struct {
	ID       string
	OrgID    string
	Email    string
	Name     string
	OrgAdmin bool
	// HasPassword is false until the user sets one (the bootstrap admin logs in with a token).
	HasPassword bool
	DisabledAt  time.Time // zero while the user may log in
}

// Robot is the stored record of a robot. Whether it is online is not stored: it is
// known to the registry of connected robots (Presence).
type Robot struct {
	ID      string
	OrgID   string
	FleetID string
	// AgentID is the agent that announced the robot over the agent link; empty for robots
	// hosted by this gateway or recorded by hand.
	AgentID       string
	Name          string
	ConfigName    string
	ConfigVersion string
	AgentVersion  string
	LastSeen      time.Time // zero when the robot never connected
	CreatedAt     time.Time
}

// Membership is a user's role on a robot, other than the implicit Admin of org admins.
type Membership struct {
	RobotID   string
	UserID    string
	UserEmail string
	Role      Role
}

// APIToken is a long-lived token a user generates; only its hash is stored.
type APIToken struct {
	ID         string
	UserID     string
	Name       string
	Scope      string
	FleetID    string // empty: every fleet of the organization
	Hash       string
	CreatedAt  time.Time
	LastUsedAt time.Time
	RevokedAt  time.Time // zero while valid
}

// BearerToken is minted by login from an API token and dies with it.
type BearerToken struct {
	Hash       string
	APITokenID string
	ExpiresAt  time.Time
	CreatedAt  time.Time
}

// Agent is a local gateway provisioned on the cloud; the robots it announces join FleetID.
type Agent struct {
	ID        string
	OrgID     string // the fleet's organization
	Name      string
	FleetID   string
	KeyHash   string
	CreatedAt time.Time
	LastSeen  time.Time // zero when the agent never connected
	RevokedAt time.Time // zero while the key is valid
}

// Event is a user-posted event-log message attached to a robot and, optionally, a fleet.
type Event struct {
	ID          int64
	RobotID     string
	FleetID     string
	UserID      string
	AuthorEmail string
	Message     string
	CreatedAt   time.Time
}

// ResourceRecord is what the store keeps of a resource once a download link was made for
// it: which robot holds it (so the link can be served) and, for files kept by this
// gateway, where.
type ResourceRecord struct {
	ID        string
	RobotID   string
	Name      string
	MIMEType  string
	FileType  string
	Size      int64
	SHA256    string
	Path      string // empty: the robot serves the file
	CreatedAt time.Time
	AdminOnly bool // fleet.Resource.AdminOnly
}

// Store is what the core needs from durable storage. Lookups return ENotFound errors for
// missing rows. Implementations: internal/store (SQLite).
type Store interface {
	Organization(ctx context.Context, id string) (Organization, error)
	Fleet(ctx context.Context, id string) (Fleet, error)
	FleetByName(ctx context.Context, orgID, name string) (Fleet, error)
	Fleets(ctx context.Context, orgID string) ([]Fleet, error)
	CreateFleet(ctx context.Context, f Fleet) error
	// DefaultOrganization is the organization created by bootstrap; ENotFound on an empty store.
	DefaultOrganization(ctx context.Context) (Organization, error)

	User(ctx context.Context, id string) (User, error)
	UserByEmail(ctx context.Context, email string) (User, error)
	OrgAdmins(ctx context.Context, orgID string) ([]User, error)

	Robot(ctx context.Context, id string) (Robot, error)
	Robots(ctx context.Context, orgID string) ([]Robot, error)
	CreateRobot(ctx context.Context, r Robot) error
	RobotMembers(ctx context.Context, robotID string) ([]Membership, error)
	UserRoles(ctx context.Context, userID string) (map[string]Role, error)
	SetMembership(ctx context.Context, m Membership) error

	CreateAPIToken(ctx context.Context, t APIToken) error
	APITokenByHash(ctx context.Context, hash string) (APIToken, error)
	APITokens(ctx context.Context, userID string) ([]APIToken, error)
	RevokeAPIToken(ctx context.Context, id string, at time.Time) error
	TouchAPIToken(ctx context.Context, id string, at time.Time) error

	CreateBearerToken(ctx context.Context, t BearerToken) error
	// BearerToken returns a bearer token with the API token it was minted from.
	BearerToken(ctx context.Context, hash string) (BearerToken, APIToken, error)
	DeleteExpiredBearerTokens(ctx context.Context, now time.Time) (int64, error)

	CreateAgent(ctx context.Context, a Agent) error
	// AgentByKeyHash finds an agent by the hash of its key, revoked or not.
	AgentByKeyHash(ctx context.Context, hash string) (Agent, error)
	Agent(ctx context.Context, id string) (Agent, error)
	// Agents lists the agents of an organization, revoked ones included, by name.
	Agents(ctx context.Context, orgID string) ([]Agent, error)
	// RevokeAgent marks an agent's key revoked; EConflict when it already is.
	RevokeAgent(ctx context.Context, id string, at time.Time) error
	// TouchAgent sets an agent's last-seen time; ENotFound for an unknown agent.
	TouchAgent(ctx context.Context, id string, at time.Time) error
	// SyncedResources lists the resources of a robot that this gateway holds a verified
	// copy of (Path set), newest first.
	SyncedResources(ctx context.Context, robotID string) ([]ResourceRecord, error)

	// CreateEvent stores e durably (the transaction is on disk when it returns) and sets its ID.
	CreateEvent(ctx context.Context, e *Event) error
	Events(ctx context.Context, robotID string, limit int) ([]Event, error)

	// SaveLiveRobot creates or refreshes the record of a robot that connected.
	SaveLiveRobot(ctx context.Context, r Robot) error
	// TouchRobot sets a robot's last-seen time; ENotFound for an unknown robot.
	TouchRobot(ctx context.Context, id string, at time.Time) error
	// SaveResource records what a download link of a resource points at.
	SaveResource(ctx context.Context, r ResourceRecord) error
	Resource(ctx context.Context, id string) (ResourceRecord, error)

	// Bootstrap writes the first organization, fleet, admin and API token in one
	// transaction; EConflict when the store is not empty.
	Bootstrap(ctx context.Context, org Organization, fleet Fleet, admin User, token APIToken) error
}

// Presence knows the robots connected now. The registry of live robots (fleet.Registry)
// implements it.
type Presence interface {
	Online(robotID string) bool
	Robot(robotID string) (fleet.Robot, bool)
}

// NobodyOnline is the Presence of a gateway with no robot sources.
type NobodyOnline struct{}

func (NobodyOnline) Online(string) bool               { return false }
func (NobodyOnline) Robot(string) (fleet.Robot, bool) { return nil, false }
