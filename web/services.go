package web

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// What the panel asks of the core, one interface per service of it (the gateway's
// AccountService, RobotService, AgentService, EventService and StreamService satisfy them),
// each with the methods the pages use and no more. The composition root hands them over; a
// page's test gives fakes of the few it calls.

// Accounts are the people: password and token logins, the sessions' callers, passwords, API
// and kiosk tokens, the organization's users, and the sockets' short-lived tokens.
type Accounts interface {
	PasswordLogin(ctx context.Context, email, password, clientAddr string) (*gateway.Caller, error)
	TokenLogin(ctx context.Context, apiToken, clientAddr string) (*gateway.Caller, error)
	// SessionCaller is the caller a session stands for, checked again on every request
	// (stamp: the password stamp the session was made with; "" for a kiosk).
	SessionCaller(ctx context.Context, userID, tokenID, stamp string) (*gateway.Caller, error)
	PasswordStamp(ctx context.Context, userID string) (string, error)
	SetPassword(ctx context.Context, c *gateway.Caller, current, next string) error
	MintSocketToken(ctx context.Context, c *gateway.Caller, sessionHash string) (string, time.Time, error)

	MyAPITokens(ctx context.Context, c *gateway.Caller) ([]fleetgate.APIToken, error)
	CreateMyAPIToken(ctx context.Context, c *gateway.Caller, in gateway.NewAPITokenInput) (string, fleetgate.APIToken, error)
	RevokeMyAPIToken(ctx context.Context, c *gateway.Caller, tokenID string) error
	KioskTokens(ctx context.Context, c *gateway.Caller) ([]fleetgate.APIToken, error)

	Users(ctx context.Context, c *gateway.Caller) ([]fleetgate.User, error)
	CreateUser(ctx context.Context, c *gateway.Caller, in gateway.NewUserInput) (fleetgate.User, string, error)
	SetUserDisabled(ctx context.Context, c *gateway.Caller, userID string, disabled bool) error
	ResetPassword(ctx context.Context, c *gateway.Caller, userID string) (string, error)
}

// Robots are the robot records and fleets, and what the caller may do on each robot.
type Robots interface {
	Robot(ctx context.Context, c *gateway.Caller, robotID string) (fleetgate.RobotDetails, error)
	RobotRole(ctx context.Context, c *gateway.Caller, robotID string) (fleetgate.Role, error)
	RobotTable(ctx context.Context, c *gateway.Caller) ([]fleetgate.RobotRow, error)
	OrgFleets(ctx context.Context, c *gateway.Caller) ([]fleetgate.Fleet, error)
	FleetForKiosk(ctx context.Context, c *gateway.Caller, fleetID string) (fleetgate.Fleet, error)

	RenameRobot(ctx context.Context, c *gateway.Caller, robotID, name string) error
	RemoveRobot(ctx context.Context, c *gateway.Caller, robotID string) error
	RemoveStaleRobots(ctx context.Context, c *gateway.Caller, age time.Duration) ([]fleetgate.Robot, error)
	SetMemberRole(ctx context.Context, c *gateway.Caller, robotID, email string, role fleetgate.Role) error
}

// Agents are the agents of the organization and the robots' resources (the archive their
// links fill).
type Agents interface {
	OrgAgents(ctx context.Context, c *gateway.Caller) ([]fleetgate.AgentRow, error)
	ProvisionAgent(ctx context.Context, c *gateway.Caller, name, fleetID string) (fleetgate.Agent, string, error)
	RevokeOrgAgent(ctx context.Context, c *gateway.Caller, agentID string) error

	ResourceDetails(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.ResourceDetail, error)
	ResourceLink(ctx context.Context, c *gateway.Caller, robotID, resourceID string) (string, error)
	// FleetRecordings are the recordings view's rows and the robots it could not list.
	FleetRecordings(ctx context.Context, c *gateway.Caller) ([]fleetgate.RecordingRow, []string, error)
	OpenRecording(ctx context.Context, c *gateway.Caller, robotID, recordingID string, cut gateway.RecordingCut) (*gateway.RecordingFile, error)
}

// Events are the event log: its history, the agents to filter it by, and new entries.
type Events interface {
	QueryEvents(ctx context.Context, c *gateway.Caller, f fleetgate.EventFilter) ([]fleetgate.EventRow, *fleetgate.EventCursor, error)
	AgentChoices(ctx context.Context, c *gateway.Caller) ([]fleetgate.AgentChoice, error)
	PostEvent(ctx context.Context, c *gateway.Caller, in gateway.PostEventInput) (fleetgate.Event, error)
}

// Streams are what a robot offers now: its state and status, streams, metrics, recordings,
// who drives it, and whether this gateway opens cameras by address.
type Streams interface {
	RobotState(ctx context.Context, c *gateway.Caller, robotID string) (fleetgate.RobotState, error)
	RobotStatus(ctx context.Context, c *gateway.Caller, robotID string) (fleetgate.RobotStatus, error)
	// RobotStatuses are the statuses of rows the caller already may see (from RobotTable).
	RobotStatuses(ctx context.Context, rows []fleetgate.RobotRow) []fleetgate.RobotStatus
	Controls(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Held, error)
	OpensCameras() bool

	Streams(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Stream, error)
	ReadStream(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector) ([]byte, error)
	Template(ctx context.Context, c *gateway.Caller, messageType string) ([]byte, error)
	UploadStream(ctx context.Context, c *gateway.Caller, robotID string, in gateway.UploadInput) error
	MetricTypes(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.MetricType, error)
	Metric(ctx context.Context, c *gateway.Caller, robotID string, typ fleetgate.MetricType, name string) (fleetgate.Robot, fleetgate.Metric, error)

	MayRecord(ctx context.Context, c *gateway.Caller, robotID string) bool
	Recordings(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Recording, error)
	StartRecording(ctx context.Context, c *gateway.Caller, robotID string, in gateway.RecordingInput) (fleetgate.Recording, error)
	StopRecording(ctx context.Context, c *gateway.Caller, robotID, recordingID string) (fleetgate.Recording, error)
}
