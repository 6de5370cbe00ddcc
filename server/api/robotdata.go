// The REST endpoints 4 to 12 of v2: a robot's resources, streams, templates, uploads and
// metrics, and the event log.

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Resources is what endpoints 4 and 5 (S3 and S4) ask of the core (gateway.AgentService).
type Resources interface {
	Resources(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Resource, error)
	// ResourceLink is a pre-signed path to the file, which Files serves.
	ResourceLink(ctx context.Context, c *gateway.Caller, robotID, resourceID string) (string, error)
}

// resourceRoutes are endpoints 4 and 5.
type resourceRoutes struct {
	resources Resources
	publicURL string // prefixes download links; empty: the request's scheme and host
}

func (h resourceRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots/:robotId/resources", h.list, auth...)
	g.GET("/robots/:robotId/resource/:resourceId/download", h.download, auth...)
}

type resourceItem struct {
	ResourceID string    `json:"resourceId"`
	Name       string    `json:"name"`
	Type       string    `json:"type"`
	Size       int64     `json:"size"`
	CreatedAt  time.Time `json:"createdAt"`
}

type resourcesResponse struct {
	Resources []resourceItem `json:"resources"`
}

// list is endpoint 4.
func (h resourceRoutes) list(c echo.Context) error {
	list, err := h.resources.Resources(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, resourcesResponse{Resources: resourceItems(list, func(r fleetgate.Resource) string { return r.MIMEType })})
}

// resourceItems are resources as both conventions list them; typ says what "type" is (v2:
// the MIME type; the second convention: a file type word).
func resourceItems(list []fleetgate.Resource, typ func(fleetgate.Resource) string) []resourceItem {
	out := make([]resourceItem, len(list))
	for i, r := range list {
		out[i] = resourceItem{ResourceID: r.ID, Name: r.Name, Type: typ(r), Size: r.Size, CreatedAt: r.CreatedAt.UTC()}
	}
	return out
}

type downloadResponse struct {
	URL string `json:"url"`
}

// download is endpoint 5: a pre-signed absolute URL.
func (h resourceRoutes) download(c echo.Context) error {
	link, err := h.resources.ResourceLink(c.Request().Context(), callerOf(c), c.Param("robotId"), c.Param("resourceId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, downloadResponse{URL: absolute(c, h.publicURL, link)})
}

// absolute turns a gateway path into an absolute URL: the configured public URL, else the
// request's own scheme and host.
func absolute(c echo.Context, publicURL, path string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/") + path
	}
	return c.Scheme() + "://" + c.Request().Host + path
}

// StreamOps read and write one stream: endpoints 7 and 9 (gateway.StreamService), and S6 and
// S8 under the second convention's limit (gateway.LimitedStreams).
type StreamOps interface {
	ReadStream(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector) ([]byte, error)
	UploadStream(ctx context.Context, c *gateway.Caller, robotID string, in gateway.UploadInput) error
}

// Streams is what endpoints 6 to 9 ask of the core (gateway.StreamService).
type Streams interface {
	StreamOps
	Streams(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Stream, error)
	// Codecs lists the codecs W3 offers a stream in (the codec extension): none for a stream
	// that is not a camera's.
	Codecs(s fleetgate.Stream) []string
	// Template is a message type's empty message, as JSON.
	Template(ctx context.Context, c *gateway.Caller, messageType string) ([]byte, error)
}

// streamRoutes are endpoints 6 to 9: a robot's streams, a read of one, a message type's
// template and an upload.
type streamRoutes struct{ streams Streams }

func (h streamRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots/:robotId/streams", h.list, auth...)
	g.GET("/robots/:robotId/stream", h.read, auth...)
	g.GET("/streams/:messageType/stream", h.template, auth...)
	g.POST("/robots/:robotId/upload-stream", h.upload, auth...)
}

// streamDescriptor is a stream as both conventions list it.
type streamDescriptor struct {
	ComponentName    string `json:"componentName"`
	StreamName       string `json:"streamName"`
	StreamType       string `json:"streamType"`
	Direction        string `json:"direction"`
	StreamSourceType int    `json:"streamSourceType"`
}

func describeStream(s fleetgate.Stream) streamDescriptor {
	return streamDescriptor{ComponentName: s.Component, StreamName: s.Name, StreamType: s.Type, Direction: s.Direction, StreamSourceType: int(s.Source)}
}

// streamItem is v2's, with the extension fields of cameras.
type streamItem struct {
	streamDescriptor
	DisplayName    *string `json:"displayName"`
	SourceURL      *string `json:"sourceUrl"`
	SourceEndpoint *string `json:"sourceEndpoint"`
	// Codecs are the W3 codecs of a camera stream ("jpeg", "h264"); left out for the others.
	Codecs []string `json:"codecs,omitempty"`
}

type streamsResponse struct {
	RobotStreams []streamItem `json:"robotStreams"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// list is endpoint 6.
func (h streamRoutes) list(c echo.Context) error {
	list, err := h.streams.Streams(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	resp := streamsResponse{RobotStreams: make([]streamItem, len(list))}
	for i, s := range list {
		resp.RobotStreams[i] = streamItem{streamDescriptor: describeStream(s), DisplayName: nullable(s.DisplayName),
			SourceURL: nullable(s.SourceURL), SourceEndpoint: nullable(s.SourceEndpoint), Codecs: h.streams.Codecs(s)}
	}
	return c.JSON(http.StatusOK, resp)
}

type streamReadResponse struct {
	RobotStream string `json:"robotStream"`
}

// read is endpoint 7.
func (h streamRoutes) read(c echo.Context) error {
	sel, err := streamQuery(c)
	if err != nil {
		return err
	}
	data, err := h.streams.ReadStream(c.Request().Context(), callerOf(c), c.Param("robotId"), sel)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, streamReadResponse{RobotStream: string(data)})
}

// streamQuery reads endpoint 7's query: componentName (may be empty), streamName (required),
// source and streamType (optional filters).
func streamQuery(c echo.Context) (gateway.StreamSelector, error) {
	var sel gateway.StreamSelector
	var err error
	if sel.Component, err = queryParam(c, "componentName"); err != nil {
		return sel, err
	}
	if sel.Name, err = requireQuery(c, "streamName"); err != nil {
		return sel, err
	}
	if sel.Type, err = queryParam(c, "streamType"); err != nil {
		return sel, err
	}
	source, err := queryParam(c, "source")
	if err != nil {
		return sel, err
	}
	if sel.Source, err = parseSource(source); err != nil {
		return sel, err
	}
	return sel, nil
}

// parseSource reads a stream source type given as text; empty means any.
func parseSource(s string) (fleetgate.SourceType, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || !fleetgate.SourceType(n).Valid() {
		return 0, fleetgate.Errorf(fleetgate.EInvalid, "source %q is not a stream source type (1 to 6)", s)
	}
	return fleetgate.SourceType(n), nil
}

// messageTypeParam is the message type of a template route: a catalog name, or a ROS name
// whose slashes come percent-encoded within the one path segment (geometry_msgs%2Fmsg%2FTwist),
// which the router leaves encoded.
func messageTypeParam(c echo.Context, name string) (string, error) {
	v, err := url.PathUnescape(c.Param(name))
	if err != nil {
		return "", fleetgate.Errorf(fleetgate.EInvalid, "%s is not a valid path segment", name)
	}
	return v, nil
}

type templateResponse struct {
	EmptyJSON string `json:"emptyJson"`
}

// template is endpoint 8.
func (h streamRoutes) template(c echo.Context) error {
	name, err := messageTypeParam(c, "messageType")
	if err != nil {
		return err
	}
	t, err := h.streams.Template(c.Request().Context(), callerOf(c), name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, templateResponse{EmptyJSON: string(t)})
}

type uploadRequest struct {
	ComponentName string          `json:"componentName"`
	StreamName    string          `json:"streamName"`
	Source        json.RawMessage `json:"source"`
	StreamJSON    json.RawMessage `json:"streamJson"`
	DataType      string          `json:"dataType"`
}

// readUpload reads the body of an upload (endpoint 9 and S8). source may be a string or a
// number; streamJson is a JSON document serialized as a string, or the object itself. Keys
// match without regard to case (encoding/json), so S8's lower-case keys read the same.
func readUpload(c echo.Context) (gateway.UploadInput, error) {
	var req uploadRequest
	if err := decodeJSON(c, &req); err != nil {
		return gateway.UploadInput{}, err
	}
	source, err := sourceField(req.Source)
	if err != nil {
		return gateway.UploadInput{}, err
	}
	doc, err := streamJSONField(req.StreamJSON)
	if err != nil {
		return gateway.UploadInput{}, err
	}
	return gateway.UploadInput{
		Stream:   gateway.StreamSelector{Component: req.ComponentName, Name: req.StreamName, Source: source},
		DataType: req.DataType,
		JSON:     doc,
	}, nil
}

// upload is endpoint 9.
func (h streamRoutes) upload(c echo.Context) error {
	in, err := readUpload(c)
	if err != nil {
		return err
	}
	if err := h.streams.UploadStream(c.Request().Context(), callerOf(c), c.Param("robotId"), in); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// sourceField reads a source given as a JSON string or number; absent or null means any.
func sourceField(raw json.RawMessage) (fleetgate.SourceType, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var text string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return 0, fleetgate.Errorf(fleetgate.EInvalid, "source must be a stream source type (1 to 6)")
		}
	} else {
		text = string(raw)
	}
	return parseSource(text)
}

// streamJSONField returns the JSON document in streamJson.
func streamJSONField(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "streamJson is required")
	case raw[0] == '"':
		var doc string
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "streamJson must be a JSON document serialized as a string")
		}
		return []byte(doc), nil
	case raw[0] == '{':
		return raw, nil
	default:
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "streamJson must be a JSON document serialized as a string")
	}
}

// Metrics is what endpoints 10 and 11 (S9 to S11) ask of the core (gateway.StreamService).
type Metrics interface {
	MetricTypes(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.MetricType, error)
	// VisibleMetricTypes is S9's list: the union over the caller's online robots.
	VisibleMetricTypes(ctx context.Context, c *gateway.Caller) ([]fleetgate.MetricType, error)
	Metric(ctx context.Context, c *gateway.Caller, robotID string, typ fleetgate.MetricType, name string) (fleetgate.Robot, fleetgate.Metric, error)
}

// metricRoutes are endpoints 10 and 11.
type metricRoutes struct{ metrics Metrics }

func (h metricRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots/metrics", h.list, auth...)
	g.GET("/robots/:robotId/metric/:metricId", h.metric, auth...)
}

type metricListItem struct {
	MetricType int    `json:"metricType"`
	MetricName string `json:"metricName"`
}

type metricsResponse struct {
	Metrics []metricListItem `json:"metrics"`
}

// list is endpoint 10.
func (h metricRoutes) list(c echo.Context) error {
	robotID, err := requireQuery(c, "robotId")
	if err != nil {
		return err
	}
	types, err := h.metrics.MetricTypes(c.Request().Context(), callerOf(c), robotID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, metricsBody(types))
}

// metricsBody is endpoint 10's answer (S9's, respelled).
func metricsBody(types []fleetgate.MetricType) metricsResponse {
	resp := metricsResponse{Metrics: make([]metricListItem, len(types))}
	for i, t := range types {
		resp.Metrics[i] = metricListItem{MetricType: int(t), MetricName: t.Name()}
	}
	return resp
}

type metricResponse struct {
	BasicData basicData      `json:"basicData"`
	Metric    map[string]any `json:"metric"`
}

// metric is endpoint 11.
func (h metricRoutes) metric(c echo.Context) error {
	id, err := strconv.Atoi(c.Param("metricId"))
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "metricId %q is not a metric type number", c.Param("metricId"))
	}
	name, err := queryParam(c, "metricName")
	if err != nil {
		return err
	}
	r, m, err := h.metrics.Metric(c.Request().Context(), callerOf(c), c.Param("robotId"), fleetgate.MetricType(id), name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, metricResponse{BasicData: basicData{ID: r.ID, Name: r.Name}, Metric: metricBody(m)})
}

// metricBody is the contract's polymorphic metric object: "$type" and "name" from the
// metric class, the value in "value", except classes 10 to 12 which carry a named payload.
// Its keys are written here as v2 spells them; writeAs respells them for the second convention.
func metricBody(m fleetgate.Metric) map[string]any {
	class := m.Class()
	out := map[string]any{"$type": int(class), "name": class.Name()}
	switch v := m.Value.(type) {
	case nil:
	case fleetgate.Usage:
		out["value"] = map[string]any{"used": v.Used, "limit": v.Limit}
	case time.Time:
		out["value"] = v.UTC()
	case fleetgate.AgentSw:
		out["value"] = map[string]any{"updateAvailable": v.UpdateAvailable}
	case fleetgate.AgentOperationalState:
		out["value"] = map[string]any{"agentStatus": v.AgentStatus, "version": v.Version}
	case []fleetgate.Recorder:
		recorders := make([]map[string]any, len(v))
		for i, r := range v {
			recorders[i] = map[string]any{
				"recorderType": r.Type, "recorderState": r.State, "startTime": r.StartTime.UTC(),
				"endTime": r.EndTime.UTC(), "id": r.ID, "errorType": r.ErrorType,
				"duration": hms(r.EndTime.Sub(r.StartTime)),
				// An extension: samples the recorder let go, its disk slower than the streams.
				"droppedSamples": r.Dropped,
			}
		}
		out["agentRecordings"] = map[string]any{"agentRecorders": recorders}
	case []fleetgate.ComponentInfo:
		infos := make([]map[string]any, len(v))
		for i, ci := range v {
			infos[i] = map[string]any{
				"componentId": ci.ID, "componentUuid": ci.UUID, "version": ci.Version,
				"componentName": ci.Name, "componentState": ci.State,
			}
		}
		out["componentInfosDto"] = map[string]any{"componentsInfoDto": infos}
	case fleetgate.ConfigInfo:
		out["configInfoDto"] = map[string]any{"configName": v.Name, "version": v.Version, "configState": v.State}
	default:
		out["value"] = v
	}
	return out
}

// hms formats a duration as the contract's hh:mm:ss: two digits of hours at least
// ("00:00:04"; a 7-day recording is "168:00:00").
func hms(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	return two(s/3600) + ":" + two(s/60%60) + ":" + two(s%60)
}

func two(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// ResourceFiles opens the file a signed download link names (gateway.AgentService).
type ResourceFiles interface {
	OpenLink(ctx context.Context, method, path string, query url.Values, resourceID string) (fleet.ResourceFile, fleetgate.Resource, error)
}

// Files serves signed downloads at /files/{resourceId}: no bearer token, the signature is
// the authority. Range requests work (http.ServeContent).
func Files(files ResourceFiles) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		f, res, err := files.OpenLink(req.Context(), req.Method, req.URL.Path, req.URL.Query(), c.Param("resourceId"))
		if err != nil {
			return err
		}
		defer f.Close()
		serveFile(c, f, res)
		return nil
	}
}

// serveFile answers with a resource's file, Range requests included.
func serveFile(c echo.Context, f fleet.ResourceFile, res fleetgate.Resource) {
	var content io.ReadSeeker = f
	if res.Size > 0 {
		// A growing file (a log) is served as it was when listed, so size and body agree.
		content = io.NewSectionReader(readerAt{f}, 0, res.Size)
	}
	attachmentHeaders(c, res)
	req := c.Request()
	w := &problemWriter{ResponseWriter: c.Response(), head: req.Method == http.MethodHead}
	http.ServeContent(w, req, res.Name, res.CreatedAt, content)
	w.finish()
}

// attachmentHeaders say that the answer is the file res, to be saved under its name.
func attachmentHeaders(c echo.Context, res fleetgate.Resource) {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, res.MIMEType)
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+strings.NewReplacer(`"`, "", `\`, "").Replace(res.Name)+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
}

// readerAt adapts a ReadSeeker to io.ReaderAt for SectionReader when the file lacks ReadAt.
type readerAt struct{ f fleet.ResourceFile }

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	if ra, ok := r.f.(io.ReaderAt); ok {
		return ra.ReadAt(p, off)
	}
	if _, err := r.f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(r.f, p)
}
