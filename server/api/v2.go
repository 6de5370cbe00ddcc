// Package api serves the gateway API over HTTP: the v2 REST endpoints, the second convention
// and the WebSocket upgrade routes, bearer authentication and problem+json errors. It reaches
// data only through the core's services, each as the small interface its route group
// declares (Services); the gateway as a whole is the composition root's.
package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/internal/live"
)

// V2Prefix is where the v2 convention lives, on the cloud and the local gateway alike.
const V2Prefix = "/apigateway/v2"

// Options are the settings of the API routes.
type Options struct {
	// PublicURL prefixes absolute URLs (download links); empty: the request's scheme and host.
	PublicURL string
	// LiveStreams serves the live stream WebSocket (W3): the local gateway does, the cloud
	// answers 404 there.
	LiveStreams bool
	// Sessions runs the W3 sessions and ends them at shutdown; nil: a private tracker.
	Sessions *live.Sessions
	// KPIs is the custom KPI hub behind W1/W2, run by its owner; nil: the route answers 503.
	KPIs *kpi.Hub
	// LocalFleetOnly is the local gateway's rule: W2 and the fleet list know local-fleet only.
	LocalFleetOnly bool
}

// Services are the core's services the API serves, each as the small interface its handlers
// declare beside them: the gateway's services satisfy them, and a handler test gives a fake of
// the one its route group uses. The composition root (package server) fills them.
type Services struct {
	Accounts   Accounts   // bearer and socket tokens, login
	Robots     Robots     // endpoints 2 and 3
	Fleets     Fleets     // the fleet list and the KPI sockets' views
	Resources  Resources  // endpoints 4 and 5
	Streams    Streams    // endpoints 6 to 9
	Metrics    Metrics    // endpoints 10 and 11
	Events     Events     // endpoint 12
	Recordings Recordings // the recordings extension
	Alerts     Alerts     // open alerts and their acknowledgement (an extension)
	// TeleopSettings are a robot's own thresholds of the speed governor (an extension).
	TeleopSettings TeleopSettings
	// Supervisors are the fleets' supervisors, who take control from anyone (an extension).
	Supervisors Supervisors
	Live        Live       // W3 and the list of who drives what
	Foxglove    Foxglove   // the Foxglove WebSocket route (an extension)
	ToolTokens  ToolTokens // the tokens in a desktop tool's URL (the Foxglove route)
	// SecondStreams are the second convention's stream reads and uploads, under its limit of
	// one operation a second (gateway.LimitedStreams): one per server, since it holds the limit.
	SecondStreams StreamOps
	// Downloads are the recordings' downloads, whole or cut (an extension).
	Downloads RecordingFiles
}

// Register mounts the API routes on e.
func Register(e *echo.Echo, svc Services, opt Options) {
	registerSecond(e, svc, opt)
	g := e.Group(V2Prefix)
	g.POST("/auth/login", accountRoutes{svc.Accounts}.login)

	// Authentication is per route: an echo group with middleware also catches every
	// unmatched path and method below its prefix, so a wrong method would answer 401 or 404
	// (GET /auth/login asked for a bearer token) instead of 405.
	mountREST(g, svc, opt, requireBearer(svc.Accounts))

	ws := &streamSocket{accounts: svc.Accounts, live: svc.Live, sessions: opt.Sessions}
	if ws.sessions == nil {
		ws.sessions = live.NewSessions(nil)
	}
	if opt.LiveStreams {
		// Its token may come in the query (browsers): the handler authenticates itself.
		g.GET("/robots/:robotId/streams/connect", ws.connect)
		if svc.Foxglove != nil && svc.ToolTokens != nil {
			fox := &foxgloveSocket{tokens: svc.ToolTokens, robots: svc.Foxglove, sessions: ws.sessions}
			g.GET("/robots/:robotId/foxglove", fox.connect) // authenticates itself, as W3 does
		}
	}
	kpis := &kpiSocket{accounts: svc.Accounts, fleets: svc.Fleets, hub: opt.KPIs, localOnly: opt.LocalFleetOnly}
	// Its token may come in the query (browsers): the handler authenticates itself.
	g.GET("/fleets/:fleetId/custom-kpis", kpis.connect)
}

// mountREST mounts the v2 REST routes that the API and the panel's mirror both serve, each
// behind auth.
func mountREST(g *echo.Group, svc Services, opt Options, auth ...echo.MiddlewareFunc) {
	robotRoutes{svc.Robots}.mount(g, auth...)
	resourceRoutes{svc.Resources, opt.PublicURL}.mount(g, auth...)
	streamRoutes{svc.Streams}.mount(g, auth...)
	metricRoutes{svc.Metrics}.mount(g, auth...)
	eventRoutes{svc.Events}.mount(g, auth...)
	recordingRoutes{svc.Recordings, svc.Downloads}.mount(g, auth...)
	alertRoutes{svc.Alerts}.mount(g, auth...)
	teleopSettingsRoutes{svc.TeleopSettings}.mount(g, auth...)
	supervisorRoutes{svc.Supervisors}.mount(g, auth...)
	g.GET("/robots/:robotId/controls", controlsList(svc.Live), auth...)
	g.GET("/fleets", fleetList(svc.Fleets, opt.LocalFleetOnly), auth...)
}

// Robots is what endpoints 2 and 3 (S1 and S2) ask of the core (gateway.RobotService).
type Robots interface {
	Robots(ctx context.Context, c *gateway.Caller) ([]gateway.RobotSummary, error)
	Robot(ctx context.Context, c *gateway.Caller, robotID string) (fleetgate.RobotDetails, error)
}

// robotRoutes are endpoints 2 and 3.
type robotRoutes struct{ robots Robots }

func (h robotRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots", h.list, auth...)
	g.GET("/robots/:robotId", h.details, auth...)
}

// accountRoutes is endpoint 1.
type accountRoutes struct{ accounts Accounts }

type loginRequest struct {
	UserToken string `json:"userToken"`
}

type loginResponse struct {
	Token string `json:"token"`
}

// login is endpoint 1: an API token for a bearer token.
func (h accountRoutes) login(c echo.Context) error {
	var req loginRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	bearer, _, err := h.accounts.Login(c.Request().Context(), req.UserToken, c.RealIP())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, loginResponse{Token: "bearer " + bearer})
}

type basicData struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type robotListItem struct {
	BasicData basicData `json:"basicData"`
	IsOnline  bool      `json:"isOnline"`
}

type robotsResponse struct {
	RobotDataList []robotListItem `json:"robotDataList"`
}

// list is endpoint 2.
func (h robotRoutes) list(c echo.Context) error {
	robots, err := h.robots.Robots(c.Request().Context(), callerOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, robotsBody(robots))
}

// robotsBody is endpoint 1's answer (S1's, respelled).
func robotsBody(robots []gateway.RobotSummary) robotsResponse {
	resp := robotsResponse{RobotDataList: make([]robotListItem, len(robots))}
	for i, r := range robots {
		resp.RobotDataList[i] = robotListItem{BasicData: basicData{ID: r.ID, Name: r.Name}, IsOnline: r.Online}
	}
	return resp
}

type robotDetailsResponse struct {
	RobotData                robotListItem `json:"robotData"`
	FleetName                string        `json:"fleetName"`
	OrganizationName         string        `json:"organizationName"`
	LastTimeSeen             time.Time     `json:"lastTimeSeen"`
	Members                  robotMembers  `json:"members"`
	ConfigurationInformation configuration `json:"configurationInformation"`
	AgentVersion             string        `json:"agentVersion"`
	LatestAgentVersion       string        `json:"latestAgentVersion"`
}

type robotMembers struct {
	OrgAdmins   orgAdmins   `json:"orgAdmins"`
	SharedUsers sharedUsers `json:"sharedUsers"`
}

type orgAdmins struct {
	OrgAdmins []string `json:"orgAdmins"`
}

type sharedUsers struct {
	UserPermissions []userPermission `json:"userPermissions"`
}

type userPermission struct {
	UserID         string `json:"userId"`
	PermissionType int    `json:"permissionType"`
}

type configuration struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// details is endpoint 3.
func (h robotRoutes) details(c echo.Context) error {
	d, err := h.robots.Robot(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, robotDetailsBody(d))
}

// robotDetailsBody is endpoint 3's answer (S2's, respelled).
func robotDetailsBody(d fleetgate.RobotDetails) robotDetailsResponse {
	resp := robotDetailsResponse{
		RobotData:        robotListItem{BasicData: basicData{ID: d.Robot.ID, Name: d.Robot.Name}, IsOnline: d.Online},
		FleetName:        d.FleetName,
		OrganizationName: d.OrganizationName,
		// The zero time marshals as the contract's "never connected": 0001-01-01T00:00:00Z.
		LastTimeSeen: d.Robot.LastSeen.UTC(),
		Members: robotMembers{
			OrgAdmins:   orgAdmins{OrgAdmins: d.OrgAdmins},
			SharedUsers: sharedUsers{UserPermissions: make([]userPermission, len(d.SharedUsers))},
		},
		ConfigurationInformation: configuration{Name: d.Robot.ConfigName, Version: d.Robot.ConfigVersion},
		AgentVersion:             d.Robot.AgentVersion,
		LatestAgentVersion:       d.LatestAgentVersion,
	}
	for i, m := range d.SharedUsers {
		resp.Members.SharedUsers.UserPermissions[i] = userPermission{UserID: m.UserEmail, PermissionType: int(m.Role)}
	}
	return resp
}
