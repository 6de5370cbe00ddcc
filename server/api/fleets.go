package api

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

type fleetItem struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	RobotCount int    `json:"robotCount"`
}

type fleetsResponse struct {
	Fleets []fleetItem `json:"fleets"`
}

// Fleets is what the fleet list and the KPI sockets ask of the core (gateway.RobotService).
type Fleets interface {
	VisibleFleets(ctx context.Context, c *gateway.Caller) ([]gateway.FleetSummary, error)
	// OpenKPIView is what a KPI socket's caller may see of a fleet (ENotFound for a fleet it
	// may not use).
	OpenKPIView(ctx context.Context, c *gateway.Caller, fleetID string) (gateway.KPIView, error)
}

// fleetList is GET /fleets (an extension): the caller's fleets, so that a KPI socket client can
// find the fleet id the contract's W1 route needs. The local gateway (localOnly) lists
// local-fleet only, the one fleet its W2 route serves.
func fleetList(fleets Fleets, localOnly bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		list, err := fleets.VisibleFleets(c.Request().Context(), callerOf(c))
		if err != nil {
			return err
		}
		resp := fleetsResponse{Fleets: make([]fleetItem, 0, len(list))}
		for _, f := range list {
			if localOnly && f.ID != fleetgate.LocalFleetID {
				continue
			}
			resp.Fleets = append(resp.Fleets, fleetItem{ID: f.ID, Name: f.Name, RobotCount: f.Robots})
		}
		return c.JSON(http.StatusOK, resp)
	}
}
