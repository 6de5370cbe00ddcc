package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Supervisors is what the fleet-supervisor routes (an extension) ask of the core
// (gateway.SupervisorService).
type Supervisors interface {
	Supervisors(ctx context.Context, c *gateway.Caller, fleetID string) ([]fleetgate.Supervisor, error)
	GrantSupervisor(ctx context.Context, c *gateway.Caller, fleetID, email string) (fleetgate.Supervisor, error)
	RevokeSupervisor(ctx context.Context, c *gateway.Caller, fleetID, email string) error
}

// supervisorRoutes list, grant and revoke the supervisor role of a fleet, whose holders take
// control of its robots from anyone (the handover extension's override).
type supervisorRoutes struct{ supervisors Supervisors }

func (h supervisorRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/fleets/:fleetId/supervisors", h.list, auth...)
	g.PUT("/fleets/:fleetId/supervisors/:email", h.grant, auth...)
	g.DELETE("/fleets/:fleetId/supervisors/:email", h.revoke, auth...)
}

type supervisorJSON struct {
	Email     string    `json:"email"`
	GrantedBy string    `json:"grantedBy"`
	GrantedAt time.Time `json:"grantedAt"`
}

func supervisorOf(s fleetgate.Supervisor) supervisorJSON {
	return supervisorJSON{Email: s.UserEmail, GrantedBy: s.GrantedBy, GrantedAt: s.GrantedAt.UTC()}
}

func (h supervisorRoutes) list(c echo.Context) error {
	list, err := h.supervisors.Supervisors(c.Request().Context(), callerOf(c), c.Param("fleetId"))
	if err != nil {
		return err
	}
	out := make([]supervisorJSON, len(list))
	for i, s := range list {
		out[i] = supervisorOf(s)
	}
	return c.JSON(http.StatusOK, map[string]any{"supervisors": out})
}

func (h supervisorRoutes) grant(c echo.Context) error {
	if err := refuseBody(c); err != nil {
		return err
	}
	s, err := h.supervisors.GrantSupervisor(c.Request().Context(), callerOf(c), c.Param("fleetId"), c.Param("email"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, supervisorOf(s))
}

func (h supervisorRoutes) revoke(c echo.Context) error {
	if err := refuseBody(c); err != nil {
		return err
	}
	if err := h.supervisors.RevokeSupervisor(c.Request().Context(), callerOf(c), c.Param("fleetId"), c.Param("email")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
