package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// TeleopSettings is what the teleop-settings routes (an extension) ask of the core
// (gateway.TeleopSettingsService).
type TeleopSettings interface {
	TeleopSettings(ctx context.Context, c *gateway.Caller, robotID string) (gateway.TeleopSettings, error)
	SetTeleopSettings(ctx context.Context, c *gateway.Caller, robotID string, p teleop.DelayPolicy) (gateway.TeleopSettings, error)
	ResetTeleopSettings(ctx context.Context, c *gateway.Caller, robotID string) (gateway.TeleopSettings, error)
}

// teleopSettingsRoutes read and set a robot's thresholds of the speed governor.
type teleopSettingsRoutes struct{ settings TeleopSettings }

func (h teleopSettingsRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots/:robotId/teleop-settings", h.get, auth...)
	g.PUT("/robots/:robotId/teleop-settings", h.put, auth...)
	g.DELETE("/robots/:robotId/teleop-settings", h.reset, auth...)
}

// teleopSettingsJSON is a robot's thresholds in milliseconds; custom is false while the robot
// follows the gateway's (--teleop-delay-*).
type teleopSettingsJSON struct {
	DelayFullMs    int64      `json:"delayFullMs"`
	DelayQuarterMs int64      `json:"delayQuarterMs"`
	DelayStopMs    int64      `json:"delayStopMs"`
	Custom         bool       `json:"custom"`
	UpdatedBy      string     `json:"updatedBy,omitempty"`
	UpdatedAt      *time.Time `json:"updatedAt,omitempty"`
}

func teleopSettingsOf(s gateway.TeleopSettings) teleopSettingsJSON {
	out := teleopSettingsJSON{DelayFullMs: s.Delays.Full.Milliseconds(), DelayQuarterMs: s.Delays.Quarter.Milliseconds(),
		DelayStopMs: s.Delays.Stop.Milliseconds(), Custom: s.Custom, UpdatedBy: s.UpdatedBy}
	if !s.UpdatedAt.IsZero() {
		at := s.UpdatedAt.UTC()
		out.UpdatedAt = &at
	}
	return out
}

func (h teleopSettingsRoutes) get(c echo.Context) error {
	s, err := h.settings.TeleopSettings(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, teleopSettingsOf(s))
}

type teleopSettingsRequest struct {
	DelayFullMs    *int64 `json:"delayFullMs"`
	DelayQuarterMs *int64 `json:"delayQuarterMs"`
	DelayStopMs    *int64 `json:"delayStopMs"`
}

func (h teleopSettingsRoutes) put(c echo.Context) error {
	var req teleopSettingsRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.DelayFullMs == nil || req.DelayQuarterMs == nil || req.DelayStopMs == nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "delayFullMs, delayQuarterMs and delayStopMs are all required (DELETE returns the robot to the gateway's)")
	}
	ms := func(v int64) time.Duration {
		// Beyond a day is out of bounds anyway; capped so the multiplication cannot overflow.
		return time.Duration(min(max(v, -1), int64(24*time.Hour/time.Millisecond))) * time.Millisecond
	}
	s, err := h.settings.SetTeleopSettings(c.Request().Context(), callerOf(c), c.Param("robotId"),
		teleop.DelayPolicy{Full: ms(*req.DelayFullMs), Quarter: ms(*req.DelayQuarterMs), Stop: ms(*req.DelayStopMs)})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, teleopSettingsOf(s))
}

func (h teleopSettingsRoutes) reset(c echo.Context) error {
	if err := refuseBody(c); err != nil {
		return err
	}
	s, err := h.settings.ResetTeleopSettings(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, teleopSettingsOf(s))
}
