package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/foxglove"
)

// Foxglove is what the Foxglove WebSocket route asks of the core (gateway.StreamService): a
// robot authorised for a session, whose streams, outputs and inputs internal/live runs.
type Foxglove interface {
	OpenFoxglove(ctx context.Context, c *gateway.Caller, robotID string) (live.Foxglove, error)
}

// ToolTokens authenticates the token in the URL of a desktop tool (gateway.AccountService): a
// bearer token, a panel socket token or an API token itself.
type ToolTokens interface {
	AuthenticateToolToken(ctx context.Context, token, clientAddr string) (*gateway.Caller, live.Recheck, error)
}

// foxgloveSocket is the Foxglove WebSocket route (an extension):
// /apigateway/v2/robots/{robotId}/foxglove, speaking foxglove.websocket.v1 so that Foxglove
// and Lichtblick open a robot of the fleet as they open foxglove_bridge. It checks and
// upgrades; the session is internal/live's (Sessions.StartFoxglove).
type foxgloveSocket struct {
	tokens   ToolTokens
	robots   Foxglove
	sessions *live.Sessions
}

// connect checks a request in W3's order (400, 401, 404, 501; a 403 after the 401 for a panel
// socket token from another origin), then upgrades and starts the session.
func (h *foxgloveSocket) connect(c echo.Context) error {
	req := c.Request()
	if !isUpgrade(req) {
		return fleetgate.Errorf(fleetgate.EInvalid, "this route is a WebSocket speaking %s: send an upgrade request", foxglove.Subprotocol)
	}
	if !offersProtocol(req, foxglove.Subprotocol) {
		return fleetgate.Errorf(fleetgate.EInvalid, "offer the WebSocket subprotocol %s (Sec-WebSocket-Protocol)", foxglove.Subprotocol)
	}
	downsample := true
	if whole, err := queryParam(c, "withoutDownSampling"); err != nil {
		return err
	} else if whole != "" {
		b, err := strconv.ParseBool(whole)
		if err != nil {
			return fleetgate.Errorf(fleetgate.EInvalid, "withoutDownSampling must be true or false")
		}
		downsample = !b
	}
	token, err := socketToken(req)
	if err != nil {
		return err
	}
	caller, recheck, err := h.tokens.AuthenticateToolToken(req.Context(), token, c.RealIP())
	if err != nil {
		return err
	}
	if err := checkSocketOrigin(req, token); err != nil {
		return err
	}
	c.Set(callerKey, caller)
	robot, err := h.robots.OpenFoxglove(req.Context(), caller, c.Param("robotId"))
	if err != nil {
		return err
	}
	conn, frames, err := acceptFoxglove(c.Response(), req)
	if err != nil {
		return nil // Accept answered the client
	}
	conn.SetReadLimit(live.MaxFoxgloveMessage)
	frames.keepBacklog(tcpConn(req.Context()), notSentLowat)
	// The session runs on goroutines of its own and the handler returns (StartFoxglove).
	h.sessions.StartFoxglove(newWSConn(conn, frames), robot, live.FoxgloveOptions{Downsample: downsample}, recheck)
	return nil
}

// offersProtocol reports whether the client offers WebSocket subprotocol p.
func offersProtocol(req *http.Request, p string) bool {
	for _, header := range req.Header.Values("Sec-WebSocket-Protocol") {
		for offered := range strings.SplitSeq(header, ",") {
			if strings.TrimSpace(offered) == p {
				return true
			}
		}
	}
	return false
}

// acceptFoxglove upgrades as acceptSocket does (small buffers, data frames written by
// frameWriter), selecting Foxglove's subprotocol: a panel token offered beside it as
// fleetgate.token.<token> is never echoed.
func acceptFoxglove(w http.ResponseWriter, r *http.Request) (*websocket.Conn, *frameWriter, error) {
	h := &smallBuffers{ResponseWriter: w}
	opts := acceptOptions()
	opts.Subprotocols = []string{foxglove.Subprotocol}
	conn, err := websocket.Accept(h, r, opts)
	if err != nil {
		return nil, nil, err
	}
	return conn, h.frames, nil
}
