package api

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Events is what endpoint 12 asks of the core (gateway.EventService).
type Events interface {
	PostEvent(ctx context.Context, c *gateway.Caller, in gateway.PostEventInput) (fleetgate.Event, error)
}

// eventRoutes are the event log's routes: endpoint 12.
type eventRoutes struct{ events Events }

func (h eventRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.POST("/events/log", h.post, auth...)
}

// post is endpoint 12: its fields are query parameters and it takes no body.
func (h eventRoutes) post(c echo.Context) error {
	var in gateway.PostEventInput
	var err error
	if in.RobotID, err = requireQuery(c, "robotId"); err != nil {
		return err
	}
	if in.FleetID, err = queryParam(c, "fleetId"); err != nil {
		return err
	}
	if in.Message, err = requireQuery(c, "message"); err != nil {
		return err
	}
	if err := refuseBody(c); err != nil {
		return err
	}
	if _, err := h.events.PostEvent(c.Request().Context(), callerOf(c), in); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}
