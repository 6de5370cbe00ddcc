package api

import (
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/internal/live"
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
	accounts  Accounts
	fleets    Fleets
	hub       *kpi.Hub
	localOnly bool
}

// connect checks a KPI socket request in the contract's order (400 not an upgrade, 401, 404
// unknown fleet), then upgrades, subscribes and hands the socket to serveKPIs.
func (h *kpiSocket) connect(c echo.Context) error {
	req := c.Request()
	if !isUpgrade(req) {
		return fleetgate.Errorf(fleetgate.EInvalid, "this route is a WebSocket: send an upgrade request")
	}
	caller, bearer, err := socketCaller(c, h.accounts)
	if err != nil {
		return err
	}
	ctx := req.Context()
	fleetID := c.Param("fleetId")
	if h.localOnly && fleetID != fleetgate.LocalFleetID {
		return fleetgate.Errorf(fleetgate.ENotFound, "fleet %q not found: the local gateway serves %s only", fleetID, fleetgate.LocalFleetID)
	}
	view, err := h.fleets.OpenKPIView(ctx, caller, fleetID)
	if err != nil {
		return err
	}
	if h.hub == nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "custom KPI frames are not served by this gateway")
	}
	conn, frames, err := acceptSocket(c.Response(), req)
	if err != nil {
		return nil // Accept answered the client (a cross-origin request gets 403)
	}
	setNotSentLowatTo(ctx, kpiNotSentLowat)
	conn.SetReadLimit(kpiReadLimit)

	// The hub cuts off a stalled client by closing the connection under its blocked writer, on
	// a goroutine of its own: the hub calls it under its lock, and closing waits for the reader.
	ws := newWSConn(conn, frames)
	cut := func() { go ws.Drop() }
	sub, err := h.hub.Subscribe(kpi.Request{FleetID: view.FleetID, Token: bearer, View: view.HubView(), Abort: cut})
	if err != nil {
		ws.End(fleetgate.Errorf(fleetgate.EGoingAway, "server shutting down")) // the hub stopped: 1001, by the edge table
		return nil
	}
	// The socket gets goroutines of its own and the handler returns (see live.RunKPIs).
	go live.RunKPIs(ws, sub, cut)
	return nil
}
