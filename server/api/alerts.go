package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Alerts is what the alert routes (an extension) ask of the core (gateway.AlertService).
type Alerts interface {
	OpenAlerts(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.OpenAlert, error)
	AcknowledgeAlert(ctx context.Context, c *gateway.Caller, robotID string, kind fleetgate.AlertKind) (fleetgate.OpenAlert, error)
}

// alertRoutes list a robot's open alerts and acknowledge one.
type alertRoutes struct{ alerts Alerts }

func (h alertRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots/:robotId/alerts", h.list, auth...)
	g.POST("/robots/:robotId/alerts/:kind/ack", h.ack, auth...)
}

// alertJSON is an open alert as the routes give it.
type alertJSON struct {
	RobotID        string     `json:"robotId"`
	FleetID        string     `json:"fleetId"`
	Kind           string     `json:"kind"`
	Critical       bool       `json:"critical"`
	Words          string     `json:"words"`
	Since          time.Time  `json:"since"`
	AcknowledgedBy string     `json:"acknowledgedBy,omitempty"`
	AcknowledgedAt *time.Time `json:"acknowledgedAt,omitempty"`
	EscalatedAt    *time.Time `json:"escalatedAt,omitempty"`
}

func alertOf(a fleetgate.OpenAlert) alertJSON {
	out := alertJSON{RobotID: a.RobotID, FleetID: a.FleetID, Kind: string(a.Kind), Critical: a.Critical, Words: a.Words,
		Since: a.Since.UTC(), AcknowledgedBy: a.AckBy}
	if a.Acknowledged() {
		at := a.AckAt.UTC()
		out.AcknowledgedAt = &at
	}
	if !a.Escalated.IsZero() {
		at := a.Escalated.UTC()
		out.EscalatedAt = &at
	}
	return out
}

func (h alertRoutes) list(c echo.Context) error {
	open, err := h.alerts.OpenAlerts(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	out := struct {
		Alerts []alertJSON `json:"alerts"`
	}{Alerts: make([]alertJSON, len(open))}
	for i, a := range open {
		out.Alerts[i] = alertOf(a)
	}
	return c.JSON(http.StatusOK, out)
}

func (h alertRoutes) ack(c echo.Context) error {
	if err := refuseBody(c); err != nil {
		return err
	}
	a, err := h.alerts.AcknowledgeAlert(c.Request().Context(), callerOf(c), c.Param("robotId"), fleetgate.AlertKind(c.Param("kind")))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, alertOf(a))
}
