package api

import (
	"context"
	"errors"
	"io"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/kpi"
)

const (
	// kpiReadLimit bounds one client message: the contract says clients send none, and what
	// they send anyway is read and dropped, but a client cannot make us read forever.
	kpiReadLimit = 64 << 10
	// kpiNotSentLowat keeps a slow client's unsent backlog to a few frames, so newest-wins
	// happens in the hub's slot rather than behind minutes of frames queued in the kernel.
	kpiNotSentLowat = 16 << 10
)

// kpiSocket is the fleet custom KPI route, /apigateway/v2/fleets/{fleetId}/custom-kpis: W1 on
// the cloud, W2 on the local gateway (where the only fleet is local-fleet).
type kpiSocket struct {
	gw        *gateway.Gateway
	hub       *kpi.Hub
	localOnly bool
}

// connect checks a KPI socket request in the contract's order (400 not an upgrade, 401, 404
// unknown fleet), then upgrades, subscribes and hands the socket to serveKPIs.
func (h *kpiSocket) connect(c echo.Context) error {
	req := c.Request()
	if !isUpgrade(req) {
		return gateway.Errorf(gateway.EInvalid, "this route is a WebSocket: send an upgrade request")
	}
	caller, bearer, err := socketCaller(c, h.gw)
	if err != nil {
		return err
	}
	ctx := req.Context()
	fleetID := c.Param("fleetId")
	if h.localOnly && fleetID != gateway.LocalFleetID {
		return gateway.Errorf(gateway.ENotFound, "fleet %q not found: the local gateway serves %s only", fleetID, gateway.LocalFleetID)
	}
	view, err := h.gw.OpenKPIView(ctx, caller, fleetID)
	if err != nil {
		return err
	}
	if h.hub == nil {
		return gateway.Errorf(gateway.EUnavailable, "custom KPI frames are not served by this gateway")
	}
	conn, err := websocket.Accept(c.Response(), req, acceptOptions())
	if err != nil {
		return nil // Accept answered the client (a cross-origin request gets 403)
	}
	setNotSentLowatTo(ctx, kpiNotSentLowat)
	conn.SetReadLimit(kpiReadLimit)

	// Cancelling readCtx makes the library close the connection under a blocked writer: it
	// is how the hub cuts off a stalled client.
	readCtx, abort := context.WithCancel(context.Background())
	sub, err := h.hub.Subscribe(kpi.Request{FleetID: view.FleetID, Token: bearer, View: kpiView(view), Abort: abort})
	if err != nil {
		abort()
		conn.Close(websocket.StatusGoingAway, "server shutting down")
		return nil
	}
	// The socket gets goroutines of its own and the handler returns: the request's goroutine
	// has grown a deep stack through the middleware, and it holds the request, which an idle
	// socket must not keep (the budget is 32 KiB a subscriber). net/http leaves a
	// hijacked connection alone; the hub's shutdown waits for the socket instead.
	go serveKPIs(conn, sub, readCtx, abort)
	return nil
}

// serveKPIs runs an upgraded KPI socket until it ends: this goroutine writes, another reads.
func serveKPIs(conn *websocket.Conn, sub *kpi.Subscriber, readCtx context.Context, abort context.CancelFunc) {
	defer sub.Close()
	readDone := make(chan struct{})
	go discardMessages(readCtx, conn, readDone)
	code, reason := streamKPIs(conn, sub, readDone)
	if code != 0 {
		// The reader answers the client's half of the close handshake meanwhile.
		conn.Close(code, reason)
	}
	abort()
	<-readDone
}

// streamKPIs writes the hub's frames until the subscription or the connection ends. It is
// the socket's only writer; it returns the close code to send, 0 for none (the connection is
// gone or was cut).
func streamKPIs(conn *websocket.Conn, sub *kpi.Subscriber, readDone <-chan struct{}) (websocket.StatusCode, string) {
	for {
		select {
		case <-sub.Ready():
			f := sub.Next()
			if f == nil || sub.Err() != nil {
				continue // ended (revoked, say): the Done case says how
			}
			sub.BeginWrite()
			// context.Background: a deadline would cost a timer per frame; stalls are the hub's.
			err := conn.Write(context.Background(), websocket.MessageText, f.Data)
			sub.EndWrite()
			if err != nil {
				return 0, ""
			}
		case <-sub.Done():
			switch err := sub.Err(); {
			case errors.Is(err, kpi.ErrRevoked):
				return websocket.StatusPolicyViolation, "token revoked or expired"
			case errors.Is(err, kpi.ErrClosed):
				return websocket.StatusGoingAway, "server shutting down"
			default:
				return 0, "" // stalled: the hub has cut the connection
			}
		case <-readDone:
			return 0, "" // the client closed, or the connection broke
		}
	}
}

// discardMessages reads a KPI socket for its control frames (pings, the close handshake) and
// drops the data frames the contract says clients do not send. The library's CloseRead would
// close 1008 on a data frame instead, and its Close in there waits for itself (see
// streamSocket.discardReads).
func discardMessages(ctx context.Context, conn *websocket.Conn, done chan<- struct{}) {
	defer close(done)
	for {
		_, r, err := conn.Reader(ctx)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return
		}
	}
}

func kpiView(v gateway.KPIView) kpi.View { return kpi.View{All: v.All, Robots: v.RobotIDs} }

// KPISource is the gateway core as the KPI hub needs it.
func KPISource(gw *gateway.Gateway) kpi.Source { return kpiSource{gw} }

type kpiSource struct{ gw *gateway.Gateway }

func (s kpiSource) OnlineRobots(ctx context.Context, fleetID string) ([]kpi.Robot, error) {
	robots, err := s.gw.OnlineFleetRobots(ctx, fleetID)
	if err != nil {
		return nil, err
	}
	out := make([]kpi.Robot, len(robots))
	for i, r := range robots {
		out[i] = kpi.Robot{ID: r.ID, Name: r.Name, Live: r.Live}
	}
	return out, nil
}

func (s kpiSource) Recheck(ctx context.Context, token, fleetID string) (kpi.View, error) {
	v, err := s.gw.RefreshKPIView(ctx, token, fleetID)
	if gateway.ErrorCode(err) == gateway.EUnauthorized {
		return kpi.View{}, errors.Join(kpi.ErrRevoked, err)
	} else if err != nil {
		return kpi.View{}, err
	}
	return kpiView(v), nil
}
