package api

// The second convention (contract, "Second convention (PascalCase)"): the v2 operations under
// /apigateway with /robot/... paths and PascalCase fields. Both gateways serve it, the cloud
// (fleetgate serve) and the local gateway on :19992 (fleetgate agent), beside v2; the
// contract leaves the deployment open and DESIGN.md section 1 gives it to both.
//
// One core, two faces: every handler here makes the same gateway call as its v2 twin and
// shares v2's request parsing (streamQuery, sourceField, streamJSONField) and metricBody; only
// the wire shapes differ. What the second convention adds, the stream operation limit and the
// upload timeout, is in the core (gateway.LimitedStreams), not here.
//
// Decisions where the contract is silent:
//   - Login is POST /apigateway/login {"usertoken": ...} and answers the JSON string
//     "bearer <token>" as the whole body (DESIGN.md section 4).
//   - S2 answers the whole v2 object in PascalCase, ConfigurationInformation, AgentVersion and
//     LatestAgentVersion included, although the contract's example shows only RobotData,
//     FleetName, OrganizationName, LastTimeSeen and Members.
//   - S6 answers {"RobotStream": "<json>"} as v2's endpoint 7 does. It reads output streams
//     only (400 for an input stream); like endpoint 7 it also takes an optional streamType
//     filter, which the contract's S6 does not name.
//   - S8 answers 200 with an empty body, as v2's endpoint 9. "The stream must be active":
//     the stream exists on the robot and the robot is online (404 and 503 otherwise). Its
//     body keys are lower case (componentname, streamname, source, streamjson, datatype);
//     source is a string or a number, streamjson an object or a JSON document as a string.
//   - S9 has no robot id: it lists the union of the metric types of the caller's visible
//     robots that are online now, by type.
//   - S10 and S11 put PascalCase keys inside the metric too: Value's objects (Used, Limit,
//     ...) and the named payloads of classes 10 to 12 (AgentRecordings{AgentRecorders[...]},
//     ComponentInfosDto{ComponentsInfoDto[...]}, ConfigInfoDto{...}).
//   - Errors are v2's problem+json, whatever the convention.
//   - The limit of one stream operation a second per caller, robot and stream (429 with
//     Retry-After) applies to S6 and S8, the operations that read or write a stream; a
//     request refused as a mistake (400, 403, 404) does not use up its second.

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// SecondPrefix is the API root of the second convention.
const SecondPrefix = "/apigateway"

// registerSecond mounts the second convention's routes, authenticated per route as v2's are
// so that a wrong method answers 405.
func registerSecond(e *echo.Echo, gw *gateway.Gateway, opt Options) {
	h := &second{gw: gw, streams: gw.NewLimitedStreams(), v2: &v2{gw: gw, publicURL: opt.PublicURL}}
	g := e.Group(SecondPrefix)
	g.POST("/login", h.login)

	authed := requireBearer(gw)
	g.GET("/robots", h.robots, authed)
	g.GET("/robot/:robotId", h.robot, authed)
	g.GET("/robot/:robotId/resources", h.resources, authed)
	g.GET("/robot/:robotId/resource/:resourceId/download", h.download, authed)
	g.GET("/robot/:robotId/streams", h.streamList, authed)
	g.GET("/robot/:robotId/stream", h.readStream, authed)
	g.GET("/streams/:streamType/stream", h.template, authed)
	g.POST("/robot/:robotId/streams/upload-stream", h.upload, authed)
	g.GET("/robots/metrics", h.metrics, authed)
	g.GET("/robot/:robotId/metric/:metricType", h.metric, authed)
}

type second struct {
	gw      *gateway.Gateway
	streams *gateway.LimitedStreams
	v2      *v2 // its absolute(): download links are made alike
}

type secondLoginRequest struct {
	UserToken string `json:"usertoken"`
}

// login exchanges an API token for a bearer token; the answer is a bare JSON string.
func (h *second) login(c echo.Context) error {
	var req secondLoginRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	bearer, _, err := h.gw.Login(c.Request().Context(), req.UserToken, c.RealIP())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, "bearer "+bearer)
}

type secondBasicData struct {
	ID   string `json:"Id"`
	Name string `json:"Name"`
}

type secondRobotListItem struct {
	BasicData secondBasicData `json:"BasicData"`
	IsOnline  bool            `json:"IsOnline"`
}

type secondRobotsResponse struct {
	RobotDataList []secondRobotListItem `json:"RobotDataList"`
}

// robots is S1.
func (h *second) robots(c echo.Context) error {
	robots, err := h.gw.Robots(c.Request().Context(), callerOf(c))
	if err != nil {
		return err
	}
	resp := secondRobotsResponse{RobotDataList: make([]secondRobotListItem, len(robots))}
	for i, r := range robots {
		resp.RobotDataList[i] = secondRobotListItem{BasicData: secondBasicData{ID: r.ID, Name: r.Name}, IsOnline: r.Online}
	}
	return c.JSON(http.StatusOK, resp)
}

type secondRobotDetails struct {
	RobotData                secondRobotListItem `json:"RobotData"`
	FleetName                string              `json:"FleetName"`
	OrganizationName         string              `json:"OrganizationName"`
	LastTimeSeen             time.Time           `json:"LastTimeSeen"`
	Members                  secondMembers       `json:"Members"`
	ConfigurationInformation secondConfiguration `json:"ConfigurationInformation"`
	AgentVersion             string              `json:"AgentVersion"`
	LatestAgentVersion       string              `json:"LatestAgentVersion"`
}

type secondMembers struct {
	OrgAdmins   secondOrgAdmins   `json:"OrgAdmins"`
	SharedUsers secondSharedUsers `json:"SharedUsers"`
}

type secondOrgAdmins struct {
	OrgAdmins []string `json:"OrgAdmins"`
}

type secondSharedUsers struct {
	UserPermissions []secondUserPermission `json:"UserPermissions"`
}

type secondUserPermission struct {
	UserID         string `json:"UserId"`
	PermissionType int    `json:"PermissionType"`
}

type secondConfiguration struct {
	Name    string `json:"Name"`
	Version string `json:"Version"`
}

// robot is S2.
func (h *second) robot(c echo.Context) error {
	d, err := h.gw.Robot(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	resp := secondRobotDetails{
		RobotData:        secondRobotListItem{BasicData: secondBasicData{ID: d.Robot.ID, Name: d.Robot.Name}, IsOnline: d.Online},
		FleetName:        d.FleetName,
		OrganizationName: d.OrganizationName,
		LastTimeSeen:     d.Robot.LastSeen.UTC(),
		Members: secondMembers{
			OrgAdmins:   secondOrgAdmins{OrgAdmins: d.OrgAdmins},
			SharedUsers: secondSharedUsers{UserPermissions: make([]secondUserPermission, len(d.SharedUsers))},
		},
		ConfigurationInformation: secondConfiguration{Name: d.Robot.ConfigName, Version: d.Robot.ConfigVersion},
		AgentVersion:             d.Robot.AgentVersion,
		LatestAgentVersion:       d.LatestAgentVersion,
	}
	for i, m := range d.SharedUsers {
		resp.Members.SharedUsers.UserPermissions[i] = secondUserPermission{UserID: m.UserEmail, PermissionType: int(m.Role)}
	}
	return c.JSON(http.StatusOK, resp)
}

type secondResource struct {
	ResourceID string    `json:"ResourceId"`
	Name       string    `json:"Name"`
	Type       string    `json:"Type"` // a file type word (rosbag, log, image), not v2's MIME type
	Size       int64     `json:"Size"`
	CreatedAt  time.Time `json:"CreatedAt"`
}

// resources is S3: a bare JSON array.
func (h *second) resources(c echo.Context) error {
	list, err := h.gw.Resources(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	resp := make([]secondResource, len(list))
	for i, r := range list {
		resp[i] = secondResource{ResourceID: r.ID, Name: r.Name, Type: r.FileType, Size: r.Size, CreatedAt: r.CreatedAt.UTC()}
	}
	return c.JSON(http.StatusOK, resp)
}

type secondDownload struct {
	URL string `json:"Url"`
}

// download is S4.
func (h *second) download(c echo.Context) error {
	link, err := h.gw.ResourceLink(c.Request().Context(), callerOf(c), c.Param("robotId"), c.Param("resourceId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, secondDownload{URL: h.v2.absolute(c, link)})
}

type secondStream struct {
	ComponentName    string `json:"ComponentName"`
	StreamName       string `json:"StreamName"`
	StreamType       string `json:"StreamType"`
	Direction        string `json:"Direction"`
	StreamSourceType int    `json:"StreamSourceType"`
}

type secondStreamsResponse struct {
	RobotStreams []secondStream `json:"RobotStreams"`
}

// streamList is S5.
func (h *second) streamList(c echo.Context) error {
	list, err := h.gw.Streams(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	resp := secondStreamsResponse{RobotStreams: make([]secondStream, len(list))}
	for i, s := range list {
		resp.RobotStreams[i] = secondStream{
			ComponentName: s.Component, StreamName: s.Name, StreamType: s.Type, Direction: s.Direction,
			StreamSourceType: int(s.Source),
		}
	}
	return c.JSON(http.StatusOK, resp)
}

type secondStreamRead struct {
	RobotStream string `json:"RobotStream"`
}

// readStream is S6, under the stream operation limit.
func (h *second) readStream(c echo.Context) error {
	sel, err := streamQuery(c)
	if err != nil {
		return err
	}
	data, err := h.streams.ReadStream(c.Request().Context(), callerOf(c), c.Param("robotId"), sel)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, secondStreamRead{RobotStream: string(data)})
}

type secondTemplate struct {
	EmptyMessage json.RawMessage `json:"EmptyMessage"`
}

// template is S7: the empty message as an object, not as text.
func (h *second) template(c echo.Context) error {
	name, err := messageTypeParam(c, "streamType")
	if err != nil {
		return err
	}
	t, err := h.gw.Template(c.Request().Context(), callerOf(c), name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, secondTemplate{EmptyMessage: t})
}

// upload is S8, under the stream operation limit and the upload timeout. Its body is v2's
// with lower-case keys, which readUpload matches.
func (h *second) upload(c echo.Context) error {
	in, err := readUpload(c)
	if err != nil {
		return err
	}
	if err := h.streams.UploadStream(c.Request().Context(), callerOf(c), c.Param("robotId"), in); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

type secondMetricListItem struct {
	MetricType int    `json:"MetricType"`
	MetricName string `json:"MetricName"`
}

type secondMetricsResponse struct {
	Metrics []secondMetricListItem `json:"Metrics"`
}

// metrics is S9: no robot id, the union over the caller's online robots.
func (h *second) metrics(c echo.Context) error {
	types, err := h.gw.VisibleMetricTypes(c.Request().Context(), callerOf(c))
	if err != nil {
		return err
	}
	resp := secondMetricsResponse{Metrics: make([]secondMetricListItem, len(types))}
	for i, t := range types {
		resp.Metrics[i] = secondMetricListItem{MetricType: int(t), MetricName: t.Name()}
	}
	return c.JSON(http.StatusOK, resp)
}

type secondMetricResponse struct {
	BasicData secondBasicData `json:"BasicData"`
	Metric    map[string]any  `json:"Metric"`
}

// metric is S10, and S11 with metricName for the custom type.
func (h *second) metric(c echo.Context) error {
	typ, err := strconv.Atoi(c.Param("metricType"))
	if err != nil {
		return gateway.Errorf(gateway.EInvalid, "metricType %q is not a metric type number", c.Param("metricType"))
	}
	name, err := queryParam(c, "metricName")
	if err != nil {
		return err
	}
	r, m, err := h.gw.Metric(c.Request().Context(), callerOf(c), c.Param("robotId"), fleet.MetricType(typ), name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, secondMetricResponse{BasicData: secondBasicData{ID: r.ID, Name: r.Name}, Metric: metricBody(m, pascalCase)})
}

// keyCasing is how a convention spells the keys of the JSON objects built as maps (metrics).
type keyCasing int

const (
	camelCase  keyCasing = iota // v2: the keys as the code writes them
	pascalCase                  // the second convention: the first letter upper-cased
)

// respell returns v with its keys, and those of the objects inside it, in casing k.
func (k keyCasing) respell(v map[string]any) map[string]any {
	if k == camelCase {
		return v
	}
	out := make(map[string]any, len(v))
	for key, value := range v {
		out[k.key(key)] = k.value(value)
	}
	return out
}

func (k keyCasing) value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return k.respell(v)
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, m := range v {
			out[i] = k.respell(m)
		}
		return out
	default:
		return v
	}
}

// key upper-cases the first letter of a key; "$type" has none and stays.
func (k keyCasing) key(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
