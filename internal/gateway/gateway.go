// Package gateway is the core of fleetgate: one method per API operation, with the
// permission checks and the domain errors. It knows no HTTP and no SQL; it states the
// interfaces it needs and the adapters implement them.
//
// The core is a few services, one per aggregate, each declaring the store it uses:
// AccountService (accounts and tokens), RobotService (robots, fleets and members, which
// every other service asks who may do what), AgentService (agents and the resource
// archive), EventService (the event log) and StreamService (streams, metrics and live
// sockets, nothing durable). Gateway puts them together for the composition root, which
// serves every operation; a part of the server that needs one aggregate can take its
// service alone.
package gateway

import (
	"context"
	"log/slog"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/video"
)

// Config wires a Gateway. Store is required; the rest have defaults.
type Config struct {
	Store    Store
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
	// Video serves camera streams as H.264 (W3's codec=h264); nil: encoders of this gateway's
	// own. The agent link's end shares them, so local and cloud viewers share one encoder.
	Video *video.Encoders
	// Door is the one way to the input streams of the robots hosted here: speed limits, rate
	// cap, leases and deadman (nil: a door of this gateway's own). The agent link's end
	// shares it, so local and cloud operators meet at the same leases.
	Door *door.Door
	// AlertRules are the thresholds of the alerts derived from robots' KPIs (zero fields:
	// DefaultAlertRules').
	AlertRules AlertRules
	// AgentLinks tells whether an agent is linked to this gateway now and when its link last
	// carried a frame (the cloud's agent link); nil: no agent is ever linked here.
	AgentLinks func(agentID string) (lastHeard time.Time, linked bool)
	// EventPosted is called after an event-log entry is posted here (a linked agent's link
	// forwards it to the cloud); nil: nothing to do.
	EventPosted func()
	// AgentMaxRobots is how many robot records one agent may hold: a robot it announces
	// beyond that is refused (default DefaultAgentMaxRobots).
	AgentMaxRobots int
	// AlertJournal writes an alert's raising, acknowledgement and clearing to the event log
	// (nil: nowhere); Escalator posts the alerts nobody acknowledged in time (nil: none).
	AlertJournal func(alert.Change)
	Escalator    Escalator
	// TeleopDelay is the gateway's governor thresholds (the --teleop-delay-* flags): the
	// robots without their own follow them.
	TeleopDelay teleop.DelayPolicy
}

// Gateway is the core: its services together. It is safe for concurrent use.
type Gateway struct {
	*AccountService
	*RobotService
	*AgentService
	*EventService
	*StreamService
	*AlertService
	*TeleopSettingsService
	*SupervisorService

	store Store // Bootstrap writes across the aggregates
	now   func() time.Time
}

// New returns a Gateway over cfg.
func New(cfg Config) *Gateway {
	if cfg.AlertRules.BatteryBelow <= 0 {
		cfg.AlertRules.BatteryBelow = DefaultAlertRules.BatteryBelow
	}
	if cfg.AlertRules.StaleAfter <= 0 {
		cfg.AlertRules.StaleAfter = DefaultAlertRules.StaleAfter
	}
	if cfg.Door == nil {
		cfg.Door = door.New(door.Config{Log: cfg.Logger})
	}
	if cfg.Presence == nil {
		cfg.Presence = NobodyOnline{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BearerTTL <= 0 {
		cfg.BearerTTL = time.Hour
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.AgentMaxRobots <= 0 {
		cfg.AgentMaxRobots = DefaultAgentMaxRobots
	}
	robots := &RobotService{store: cfg.Store, presence: cfg.Presence, now: cfg.Now, log: cfg.Logger, latest: cfg.LatestAgentVersion,
		agentMaxRobots: cfg.AgentMaxRobots}
	accounts := &AccountService{store: cfg.Store, robots: robots, now: cfg.Now, log: cfg.Logger,
		bearerTTL: cfg.BearerTTL, limits: newLoginLimits(cfg.Now)}
	if cfg.Escalator == nil {
		cfg.Escalator = NoEscalation{}
	}
	if cfg.Video == nil {
		cfg.Video = video.New()
	}
	streams := &StreamService{video: cfg.Video, robots: robots, presence: cfg.Presence, now: cfg.Now, log: cfg.Logger,
		agentID: cfg.AgentID, cameras: cfg.Cameras, door: cfg.Door, alertRules: cfg.AlertRules}
	alerts := &AlertService{robots: robots, streams: streams, store: cfg.Store, escalator: cfg.Escalator, log: cfg.Logger,
		journal: cfg.AlertJournal}
	alerts.tracker = alert.New(cfg.Now, alerts.journalChange)
	events := &EventService{store: cfg.Store, robots: robots, now: cfg.Now, posted: cfg.EventPosted}
	return &Gateway{
		AccountService: accounts,
		RobotService:   robots,
		AgentService: &AgentService{store: cfg.Store, robots: robots, presence: cfg.Presence, now: cfg.Now, log: cfg.Logger,
			keyLimit: accounts.limits.agent, archive: cfg.Archive, signer: cfg.Signer, agentLinks: cfg.AgentLinks},
		EventService:  events,
		StreamService: streams,
		AlertService:  alerts,
		TeleopSettingsService: &TeleopSettingsService{robots: robots, store: cfg.Store, events: events,
			defaults: cfg.TeleopDelay.OrDefault(), now: cfg.Now, log: cfg.Logger},
		SupervisorService: &SupervisorService{robots: robots, events: events, now: cfg.Now, log: cfg.Logger},
		store:             cfg.Store,
		now:               cfg.Now,
	}
}

// Caller is an authenticated principal: the user and the API token behind the request.
type Caller struct {
	User  fleetgate.User
	Token fleetgate.APIToken
}

// CanAct reports whether the caller's token may change anything (kiosk tokens may not).
func (c *Caller) CanAct() bool { return c.Token.Scope != fleetgate.ScopeRead }

// RefreshKPIView re-authenticates a KPI socket's bearer token and resolves its view again:
// sockets outlive requests, so a revoked or expired token (EUnauthorized) must end them, and
// a membership added or removed must change what they see.
func (g *Gateway) RefreshKPIView(ctx context.Context, bearer, fleetID string) (KPIView, error) {
	c, err := g.Authenticate(ctx, bearer)
	if err != nil {
		return KPIView{}, err
	}
	// The fleet's organization and the token's fleet restriction cannot change; the
	// socket passed OpenKPIView once.
	return g.kpiView(ctx, c, fleetID)
}
