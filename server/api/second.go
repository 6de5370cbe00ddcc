package api

// The second convention (contract, "Second convention (PascalCase)"): the v2 operations under
// /apigateway with /robot/... paths and PascalCase fields. Both gateways serve it, the cloud
// (fleetgate serve) and the local gateway on :19992 (fleetgate agent), beside v2; the
// contract leaves the deployment open and DESIGN.md section 1 gives it to both.
//
// One core, two faces: every handler here makes the same gateway call as its v2 twin, shares
// v2's request parsing (streamQuery, sourceField, streamJSONField) and writes v2's answer types
// through writeAs (casing.go), which respells their keys in PascalCase; only S3's bare array,
// S5's descriptors without v2's camera extensions and S7's object differ in shape. What the second convention adds, the stream operation limit and the
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
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
)

// SecondPrefix is the API root of the second convention.
const SecondPrefix = "/apigateway"

// registerSecond mounts the second convention's routes, authenticated per route as v2's are
// so that a wrong method answers 405.
func registerSecond(e *echo.Echo, svc Services, opt Options) {
	h := &second{accounts: svc.Accounts, robots: svc.Robots, resources: svc.Resources, streams: svc.Streams,
		limited: svc.SecondStreams, metrics: svc.Metrics, publicURL: opt.PublicURL}
	g := e.Group(SecondPrefix)
	g.POST("/login", h.login)

	authed := requireBearer(svc.Accounts)
	g.GET("/robots", h.robotList, authed)
	g.GET("/robot/:robotId", h.robotDetails, authed)
	g.GET("/robot/:robotId/resources", h.resourceList, authed)
	g.GET("/robot/:robotId/resource/:resourceId/download", h.download, authed)
	g.GET("/robot/:robotId/streams", h.streamList, authed)
	g.GET("/robot/:robotId/stream", h.readStream, authed)
	g.GET("/streams/:streamType/stream", h.template, authed)
	g.POST("/robot/:robotId/streams/upload-stream", h.upload, authed)
	g.GET("/robots/metrics", h.metricTypes, authed)
	g.GET("/robot/:robotId/metric/:metricType", h.metric, authed)
}

// second serves the second convention over the interfaces of v2's route groups.
type second struct {
	accounts  Accounts
	robots    Robots
	resources Resources
	streams   Streams   // the stream list and templates
	limited   StreamOps // reads and uploads, under the stream operation limit
	metrics   Metrics
	publicURL string // download links are made as v2's (absolute)
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
	bearer, _, err := h.accounts.Login(c.Request().Context(), req.UserToken, c.RealIP())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, "bearer "+bearer)
}

// robotList is S1.
func (h *second) robotList(c echo.Context) error {
	robots, err := h.robots.Robots(c.Request().Context(), callerOf(c))
	if err != nil {
		return err
	}
	return writeAs(c, http.StatusOK, robotsBody(robots), pascalCase)
}

// robotDetails is S2.
func (h *second) robotDetails(c echo.Context) error {
	d, err := h.robots.Robot(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	return writeAs(c, http.StatusOK, robotDetailsBody(d), pascalCase)
}

// resourceList is S3: a bare JSON array.
func (h *second) resourceList(c echo.Context) error {
	list, err := h.resources.Resources(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	// Its Type is a file type word (rosbag, log, image), not v2's MIME type.
	return writeAs(c, http.StatusOK, resourceItems(list, func(r fleetgate.Resource) string { return r.FileType }), pascalCase)
}

// download is S4.
func (h *second) download(c echo.Context) error {
	link, err := h.resources.ResourceLink(c.Request().Context(), callerOf(c), c.Param("robotId"), c.Param("resourceId"))
	if err != nil {
		return err
	}
	return writeAs(c, http.StatusOK, downloadResponse{URL: absolute(c, h.publicURL, link)}, pascalCase)
}

// streamList is S5.
func (h *second) streamList(c echo.Context) error {
	list, err := h.streams.Streams(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	// The descriptors without v2's camera extensions.
	streams := make([]streamDescriptor, len(list))
	for i, s := range list {
		streams[i] = describeStream(s)
	}
	return writeAs(c, http.StatusOK, struct {
		RobotStreams []streamDescriptor `json:"robotStreams"`
	}{streams}, pascalCase)
}

// readStream is S6, under the stream operation limit.
func (h *second) readStream(c echo.Context) error {
	sel, err := streamQuery(c)
	if err != nil {
		return err
	}
	data, err := h.limited.ReadStream(c.Request().Context(), callerOf(c), c.Param("robotId"), sel)
	if err != nil {
		return err
	}
	return writeAs(c, http.StatusOK, streamReadResponse{RobotStream: string(data)}, pascalCase)
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
	t, err := h.streams.Template(c.Request().Context(), callerOf(c), name)
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
	if err := h.limited.UploadStream(c.Request().Context(), callerOf(c), c.Param("robotId"), in); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// metricTypes is S9: no robot id, the union over the caller's online robots.
func (h *second) metricTypes(c echo.Context) error {
	types, err := h.metrics.VisibleMetricTypes(c.Request().Context(), callerOf(c))
	if err != nil {
		return err
	}
	return writeAs(c, http.StatusOK, metricsBody(types), pascalCase)
}

// metric is S10, and S11 with metricName for the custom type.
func (h *second) metric(c echo.Context) error {
	typ, err := strconv.Atoi(c.Param("metricType"))
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "metricType %q is not a metric type number", c.Param("metricType"))
	}
	name, err := queryParam(c, "metricName")
	if err != nil {
		return err
	}
	r, m, err := h.metrics.Metric(c.Request().Context(), callerOf(c), c.Param("robotId"), fleetgate.MetricType(typ), name)
	if err != nil {
		return err
	}
	return writeAs(c, http.StatusOK, metricResponse{BasicData: basicData{ID: r.ID, Name: r.Name}, Metric: metricBody(m)}, pascalCase)
}

// keyCasing is how a convention spells the keys of the JSON objects built as maps (metrics).
type keyCasing int

const (
	camelCase  keyCasing = iota // v2: the keys as the code writes them
	pascalCase                  // the second convention: the first letter upper-cased
)

// key upper-cases the first letter of a key; "$type" has none and stays.
func (k keyCasing) key(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
