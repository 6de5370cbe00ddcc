package fleetgate

import "time"

// Read models: what the core answers for the panel's pages and lists, as views render them.
// They live here, not in the core, so that the templ components (views) depend on the
// vocabulary alone and can be rendered from a fake as from the gateway.

// RobotDetails is a robot with what its details page and endpoint 3 show: its fleet and
// organization, who may use it, and its agent.
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

// StaleRobotDays is how long a robot must have been away before the panel calls its record
// stale and offers to remove it: robot records are permanent (agents announce robots, and
// --agent-max-robots counts them), so the records of robots that are gone for good need a way out.
const StaleRobotDays = 30

// RobotRow is a robot as the panel's fleet table shows it.
type RobotRow struct {
	Robot           Robot
	FleetName       string
	Online          bool
	UpdateAvailable bool // the robot's agent is older than the latest agent version
	// AgentName is the agent that announced the robot over the agent link; empty for the
	// robots this gateway hosts itself.
	AgentName string
	// Stale: not online for StaleRobotDays (an admin may remove the record).
	Stale bool
}

// AgentRow is an agent as the panel shows it: linked now or not, and when last heard from
// (the newest heartbeat while linked; when its link ended otherwise).
type AgentRow struct {
	Agent
	Connected bool
	LastHeard time.Time
}

// ConfirmWithin is how old the last answer of a robot's agent may be for the panel to show
// the robot's state: beyond it, the state is "not confirmed" (the safety rule: the panel never
// tells an operator something about a robot it has not confirmed within 2 s).
const ConfirmWithin = 2 * time.Second

// RobotState is what the gateway can vouch for about a robot's connection now.
type RobotState struct {
	Online bool
	// Silent is how long the robot's agent has not answered (zero for a robot of this
	// process, and for one asked about less than a moment ago).
	Silent time.Duration
}

// Confirmed reports whether the state is known: offline, or online and answering within
// ConfirmWithin.
func (s RobotState) Confirmed() bool { return !s.Online || s.Silent <= ConfirmWithin }

// AlertKind names what is wrong.
type AlertKind string

const (
	AlertOffline AlertKind = "offline" // the robot is not connected
	AlertBattery AlertKind = "battery" // battery under the threshold
	AlertBlocked AlertKind = "blocked" // the robot says it is blocked or stuck
	AlertStale   AlertKind = "stale"   // its newest data is older than the stale bound
	// AlertUnconfirmed: the robot's agent has not answered for over ConfirmWithin, so its
	// state is not known (its link may still be up).
	AlertUnconfirmed AlertKind = "unconfirmed"
	// AlertEStop: the robot reports an emergency stop. No robot source has an e-stop input of
	// its own: the robot's activity KPI says it ("emergency_stop", "estop", "e-stop").
	AlertEStop AlertKind = "estop"
	// AlertRulePrefix starts the kind of an alert raised by an admin's threshold rule:
	// "rule-" and the rule's id.
	AlertRulePrefix = "rule-"
)

// OpenAlert is an alert a gateway has seen raised and not yet cleared: since when, and who
// acknowledged it (empty while nobody has).
type OpenAlert struct {
	RobotID string
	FleetID string
	Alert
	Since time.Time
	// AckBy and AckAt: who acknowledged it and when (AckBy empty: not acknowledged).
	AckBy string
	AckAt time.Time
	// Escalated is when it was posted to a webhook (zero: not yet).
	Escalated time.Time
}

// Acknowledged reports whether someone acknowledged the alert.
func (a OpenAlert) Acknowledged() bool { return a.AckBy != "" }

// WebhookDelivery is one attempt to post an escalation to a webhook, as the admin page lists it.
type WebhookDelivery struct {
	WebhookID string
	RobotID   string
	Kind      AlertKind
	At        time.Time
	Attempt   int
	Status    int    // the receiver's HTTP status; 0 when none answered
	Error     string // in words; empty for a delivery the receiver took (2xx)
	Final     bool   // no attempt follows (delivered, or retries given up)
}

// Alert is one thing wrong with a robot, in words. Critical alerts need someone now
// (offline, blocked, battery under half the threshold); the others are warnings.
type Alert struct {
	Kind     AlertKind
	Critical bool
	Words    string
}

// Pose2D is a position on the map, in metres, and a heading in radians (0: along x).
type Pose2D struct{ X, Y, Yaw float64 }

// RobotStatus is what the panel shows of a robot now: the facts its custom KPIs report and
// the alerts the core derives from them.
type RobotStatus struct {
	Online     bool
	HasBattery bool
	Battery    float64 // percent
	Activity   string  // "" when the robot reports none
	HasPose    bool
	Pose       Pose2D
	// Speed is how fast the pose moved between the robot's last two reads, in m/s (HasSpeed
	// when two reads close enough in time were made).
	HasSpeed bool
	Speed    float64
	Updated  time.Time // the newest KPI's time; zero when none was read
	Stale    bool
	// Numbers are the robot's KPIs whose values are numbers, by name (the admins' threshold
	// rules read them).
	Numbers map[string]float64
	// Silent is how long the robot's agent has not answered (RobotState).
	Silent time.Duration
	Alerts []Alert
}

// State is the robot's connection state within its status.
func (s RobotStatus) State() RobotState { return RobotState{Online: s.Online, Silent: s.Silent} }

// Critical reports whether any alert needs someone now.
func (s RobotStatus) Critical() bool {
	for _, a := range s.Alerts {
		if a.Critical {
			return true
		}
	}
	return false
}

// ResourceDetail is a resource with what its file says of itself: for an MCAP recording,
// its topics and the time its messages span.
type ResourceDetail struct {
	Resource
	Topics   []string
	Messages uint64
	Duration time.Duration
	// Trigger is what made the recording, as its file's "fleetgate" metadata record says
	// ("manual", an event's message, "alert: blocked", ...); empty for a file without one.
	Trigger string
}

// RecordingRow is a finished recording of the fleet's recordings view, with its robot.
type RecordingRow struct {
	ResourceDetail
	RobotID, RobotName string
}

// EventRow is an event-log entry as the panel's history shows it.
type EventRow struct {
	Event
	RobotName string
	FleetName string
	AgentName string // the local gateway it was posted on (the cloud's entries from agents)
	// Author is who wrote it, as it must be shown: never the bare author of an agent's entry.
	Author string
	// RecordingGone says what became of the entry's recording when it no longer exists
	// ("deleted by retention"); empty otherwise.
	RecordingGone string
}

// AgentChoice names an agent in a filter.
type AgentChoice struct{ ID, Name string }
