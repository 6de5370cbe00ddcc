package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// maxRateLimit is the highest maxRate accepted, in frames per second.
const maxRateLimit = 1000

// streamSocket is the W3 route: /apigateway/v2/robots/{robotId}/streams/connect. It checks
// and upgrades; the session itself is internal/live's.
type streamSocket struct {
	accounts Accounts
	live     Live
	sessions *live.Sessions
}

// Live is what W3 and the control list ask of the core (gateway.StreamService): authorised
// live inputs and outputs, which internal/live runs, and who holds which input.
type Live interface {
	// CheckCameraTarget refuses a camera named by address before the caller is known (501
	// where this gateway opens none).
	CheckCameraTarget(t *gateway.CameraTarget) error
	OpenLiveInput(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector) (live.Input, error)
	// The handover extension (?handover=): a holder that answers requests, or an
	// organization admin's override; and a request for a held stream.
	OpenHandoverInput(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector, override bool) (live.Input, error)
	AskLiveInput(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector) (live.Ask, error)
	OpenLiveOutput(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector) (live.Output, error)
	OpenCameraStream(ctx context.Context, c *gateway.Caller, robotID string, sel gateway.StreamSelector, t gateway.CameraTarget) (live.Output, error)
	Controls(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Held, error)
}

// liveQuery is W3's query string.
type liveQuery struct {
	input      bool
	json       bool
	sel        gateway.StreamSelector
	maxRate    float64
	downsample bool
	camera     *gateway.CameraTarget // a camera named by address (camera_ws.go)
	maxWidth   int                   // camera images scaled down to this width (camera_ws.go)
	codec      string                // a camera stream as H.264 (codec=h264, camera_ws.go); "": as it comes
	handover   string                // the handover extension: "", handoverAnswer, handoverRequest or handoverOverride
}

// The handover query parameter's values (docs/api.md, "Handing control over").
const (
	handoverAnswer   = "answer"
	handoverRequest  = "request"
	handoverOverride = "override"
)

func parseLiveQuery(c echo.Context) (liveQuery, error) {
	q := liveQuery{downsample: true}
	var err error
	if q.sel, err = streamQuery(c); err != nil {
		return q, err
	}
	direction, err := queryParam(c, "direction")
	if err != nil {
		return q, err
	}
	switch strings.ToLower(direction) {
	case "", fleetgate.Output:
	case fleetgate.Input:
		q.input = true
	default:
		return q, fleetgate.Errorf(fleetgate.EInvalid, "direction must be output or input")
	}
	format, err := queryParam(c, "format")
	if err != nil {
		return q, err
	}
	switch strings.ToLower(format) {
	case "", "protobuf":
	case "json":
		q.json = true
	default:
		return q, fleetgate.Errorf(fleetgate.EInvalid, "format must be protobuf or json")
	}
	if rate, err := queryParam(c, "maxRate"); err != nil {
		return q, err
	} else if rate != "" {
		q.maxRate, err = strconv.ParseFloat(rate, 64)
		if err != nil || q.maxRate < 0 || q.maxRate > maxRateLimit || q.maxRate != q.maxRate {
			return q, fleetgate.Errorf(fleetgate.EInvalid, "maxRate must be a number of frames per second from 0 to %d", maxRateLimit)
		}
	}
	if whole, err := queryParam(c, "withoutDownSampling"); err != nil {
		return q, err
	} else if whole != "" {
		b, err := strconv.ParseBool(whole)
		if err != nil {
			return q, fleetgate.Errorf(fleetgate.EInvalid, "withoutDownSampling must be true or false")
		}
		q.downsample = !b
	}
	if q.camera, err = cameraQuery(c, q.sel, q.input); err != nil {
		return q, err
	}
	if q.maxWidth, err = maxWidthQuery(c, q.input); err != nil {
		return q, err
	}
	if q.codec, err = codecQuery(c, q.input); err != nil {
		return q, err
	}
	if q.handover, err = queryParam(c, "handover"); err != nil {
		return q, err
	}
	switch q.handover {
	case "", handoverAnswer, handoverRequest, handoverOverride:
	default:
		return q, fleetgate.Errorf(fleetgate.EInvalid, "handover must be answer, request or override")
	}
	if q.handover != "" && !q.input {
		return q, fleetgate.Errorf(fleetgate.EInvalid, "handover applies to input only")
	}
	if q.input && (q.maxRate != 0 || c.QueryParams().Has("withoutDownSampling")) {
		return q, fleetgate.Errorf(fleetgate.EInvalid, "maxRate and withoutDownSampling apply to output only")
	}
	return q, nil
}

// socketToken is the bearer token of an upgrade request: the authorization header, else the
// panel's token subprotocol (protocolToken), else the access_token query parameter (with or
// without a "bearer " prefix, any case), which browsers must use since they cannot set
// headers on a WebSocket.
func socketToken(req *http.Request) (string, error) {
	if h := req.Header.Get(echo.HeaderAuthorization); h != "" {
		token, ok := gateway.ParseAuthorization(h)
		if !ok {
			return "", fleetgate.Errorf(fleetgate.EUnauthorized, "malformed authorization header; send authorization: bearer <token>")
		}
		return token, nil
	}
	if token := protocolToken(req); token != "" {
		return token, nil
	}
	values := req.URL.Query()["access_token"]
	if len(values) != 1 || values[0] == "" {
		return "", fleetgate.Errorf(fleetgate.EUnauthorized, "missing token: send authorization: bearer <token> or access_token=<token>")
	}
	token := values[0]
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = token[7:]
	}
	return token, nil
}

// socketCaller authenticates an upgrade request by its socket token (socketToken), checks
// where it comes from (checkSocketOrigin) and records the caller for the request log line.
func socketCaller(c echo.Context, accounts Accounts) (caller *gateway.Caller, bearer string, err error) {
	bearer, err = socketToken(c.Request())
	if err != nil {
		return nil, "", err
	}
	caller, err = accounts.Authenticate(c.Request().Context(), bearer)
	if err != nil {
		return nil, "", err
	}
	if err := checkSocketOrigin(c.Request(), bearer); err != nil {
		return nil, "", err
	}
	c.Set(callerKey, caller)
	return caller, bearer, nil
}

func isUpgrade(req *http.Request) bool {
	return req.Method == http.MethodGet &&
		headerHasToken(req.Header, "Connection", "upgrade") &&
		headerHasToken(req.Header, "Upgrade", "websocket")
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// connect checks a W3 request in the contract's order (400, 401, 404, 501, 409), then
// upgrades and hands the connection to its live session until it ends.
func (h *streamSocket) connect(c echo.Context) error {
	req := c.Request()
	if !isUpgrade(req) {
		return fleetgate.Errorf(fleetgate.EInvalid, "this route is a WebSocket: send an upgrade request")
	}
	q, err := parseLiveQuery(c)
	if err != nil {
		return err
	}
	if err := h.live.CheckCameraTarget(q.camera); err != nil {
		return err
	}
	caller, bearer, err := socketCaller(c, h.accounts)
	if err != nil {
		return err
	}
	ctx := req.Context()
	recheck := h.accounts.SocketRecheck(bearer)
	if q.input {
		return h.input(c, caller, q, recheck)
	}
	out, err := h.openOutput(ctx, caller, c.Param("robotId"), q)
	if err != nil {
		return err
	}
	conn, frames, err := acceptSocket(c.Response(), req)
	if err != nil {
		return nil // Accept answered the client
	}
	frames.keepBacklog(tcpConn(ctx), notSentLowat)
	opt := live.OutputOptions{Format: output.Protobuf, Downsample: q.downsample, MaxRate: q.maxRate}
	if q.json {
		opt.Format = output.JSON
	}
	// The session runs on a goroutine of its own and the handler returns (StartOutput).
	h.sessions.StartOutput(newWSConn(conn, frames), out, opt, recheck)
	return nil
}

// input opens a W3 input socket: the contract's, or one of the handover extension.
func (h *streamSocket) input(c echo.Context, caller *gateway.Caller, q liveQuery, recheck live.Recheck) error {
	ctx, req, robotID := c.Request().Context(), c.Request(), c.Param("robotId")
	var in live.Input
	var ask live.Ask
	var err error
	switch q.handover {
	case "":
		in, err = h.live.OpenLiveInput(ctx, caller, robotID, q.sel)
	case handoverRequest:
		ask, err = h.live.AskLiveInput(ctx, caller, robotID, q.sel)
	default:
		in, err = h.live.OpenHandoverInput(ctx, caller, robotID, q.sel, q.handover == handoverOverride)
	}
	if err != nil {
		return err
	}
	conn, frames, err := acceptSocket(c.Response(), req)
	if err != nil {
		if in != nil {
			in.Release()
		}
		return nil // Accept answered the client
	}
	conn.SetReadLimit(teleop.MaxInputMessage)
	frames.keepBacklog(tcpConn(ctx), notSentLowat)
	opt := live.InputOptions{Format: teleop.FormatProtobuf, Handover: q.handover != ""}
	if q.json {
		opt.Format = teleop.FormatJSON
	}
	if ask != nil {
		h.sessions.RunAsk(newWSConn(conn, frames), ask, opt, recheck)
		return nil
	}
	h.sessions.RunInput(newWSConn(conn, frames), in, opt, recheck)
	return nil
}

type controlItem struct {
	ComponentName    string    `json:"componentName"`
	StreamName       string    `json:"streamName"`
	StreamSourceType int       `json:"streamSourceType"`
	Owner            string    `json:"owner"`
	Since            time.Time `json:"since"`
}

type controlsResponse struct {
	Controls []controlItem `json:"controls"`
}

// controlsList is GET /robots/{robotId}/controls (an extension): who drives which input
// stream, since browsers see a refused upgrade only as close code 1006.
func controlsList(lv Live) echo.HandlerFunc {
	return func(c echo.Context) error {
		held, err := lv.Controls(c.Request().Context(), callerOf(c), c.Param("robotId"))
		if err != nil {
			return err
		}
		resp := controlsResponse{Controls: make([]controlItem, len(held))}
		for i, hd := range held {
			resp.Controls[i] = controlItem{ComponentName: hd.Key.Component, StreamName: hd.Key.Name,
				StreamSourceType: int(hd.Key.Source), Owner: hd.Owner, Since: hd.Since.UTC()}
		}
		return c.JSON(http.StatusOK, resp)
	}
}
