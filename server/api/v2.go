// Package api serves the gateway API over HTTP: the v2 REST endpoints (and, as they land,
// the second convention and the WebSocket upgrade routes), bearer authentication and
// problem+json errors. It reaches data only through internal/gateway.
package api

import (
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

// Register mounts the API routes on e.
func Register(e *echo.Echo, gw *gateway.Gateway, opt Options) {
	h := &v2{gw: gw, publicURL: opt.PublicURL}
	registerSecond(e, gw, opt)
	g := e.Group(V2Prefix)
	g.POST("/auth/login", h.login)

	// Authentication is per route: an echo group with middleware also catches every
	// unmatched path and method below its prefix, so a wrong method would answer 401 or 404
	// (GET /auth/login asked for a bearer token) instead of 405.
	authed := requireBearer(gw)
	g.GET("/robots", h.robots, authed)
	g.GET("/robots/:robotId", h.robot, authed)
	g.GET("/robots/:robotId/resources", h.resources, authed)
	g.GET("/robots/:robotId/resource/:resourceId/download", h.download, authed)
	g.GET("/robots/:robotId/streams", h.streams, authed)
	g.GET("/robots/:robotId/stream", h.readStream, authed)
	g.GET("/streams/:messageType/stream", h.template, authed)
	g.POST("/robots/:robotId/upload-stream", h.upload, authed)
	g.GET("/robots/metrics", h.metrics, authed)
	g.GET("/robots/:robotId/metric/:metricId", h.metric, authed)

	ws := &streamSocket{gw: gw, sessions: opt.Sessions}
	if ws.sessions == nil {
		ws.sessions = live.NewSessions(nil)
	}
	g.GET("/robots/:robotId/controls", controlsList(gw), authed)
	if opt.LiveStreams {
		// Its token may come in the query (browsers): the handler authenticates itself.
		g.GET("/robots/:robotId/streams/connect", ws.connect)
	}
	g.POST("/events/log", h.postEvent, authed)
	registerRecordings(g, h, authed)

	kpis := &kpiSocket{gw: gw, hub: opt.KPIs, localOnly: opt.LocalFleetOnly}
	g.GET("/fleets", kpis.fleets, authed)
	// Its token may come in the query (browsers): the handler authenticates itself.
	g.GET("/fleets/:fleetId/custom-kpis", kpis.connect)
}

type v2 struct {
	gw        *gateway.Gateway
	publicURL string
}

type loginRequest struct {
	UserToken string `json:"userToken"`
}

type loginResponse struct {
	Token string `json:"token"`
}

// login is endpoint 1: an API token for a bearer token.
func (h *v2) login(c echo.Context) error {
	var req loginRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	bearer, _, err := h.gw.Login(c.Request().Context(), req.UserToken, c.RealIP())
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

// robots is endpoint 2.
func (h *v2) robots(c echo.Context) error {
	robots, err := h.gw.Robots(c.Request().Context(), callerOf(c))
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

// robot is endpoint 3.
func (h *v2) robot(c echo.Context) error {
	d, err := h.gw.Robot(c.Request().Context(), callerOf(c), c.Param("robotId"))
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

// postEvent is endpoint 12: its fields are query parameters and it takes no body.
func (h *v2) postEvent(c echo.Context) error {
	var in gateway.PostEventInput
	var err error
	if in.RobotID, err = requireQuery(c, "robotId"); err != nil {
		return err
	}
	if in.FleetID, err = queryParam(c, "fleetId"); err != nil {
		return err
	}
	if in.Message, err = requireQuery(c, "message"); err != nil {
		return err
	}
	if err := refuseBody(c); err != nil {
		return err
	}
	if _, err := h.gw.PostEvent(c.Request().Context(), callerOf(c), in); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}
