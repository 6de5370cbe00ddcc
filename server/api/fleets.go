package api

import (
	"net/http"

	"github.com/fleetgate/fleetgate"
	"github.com/labstack/echo/v4"
)

type fleetItem struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	RobotCount int    `json:"robotCount"`
}

type fleetsResponse struct {
	Fleets []fleetItem `json:"fleets"`
}

// fleets is GET /fleets (an extension): the caller's fleets, so that a KPI socket client can
// find the fleet id the contract's W1 route needs. The local gateway lists local-fleet only,
// the one fleet its W2 route serves.
func (h *kpiSocket) fleets(c echo.Context) error {
	fleets, err := h.gw.VisibleFleets(c.Request().Context(), callerOf(c))
	if err != nil {
		return err
	}
	resp := fleetsResponse{Fleets: make([]fleetItem, 0, len(fleets))}
	for _, f := range fleets {
		if h.localOnly && f.ID != fleetgate.LocalFleetID {
			continue
		}
		resp.Fleets = append(resp.Fleets, fleetItem{ID: f.ID, Name: f.Name, RobotCount: f.Robots})
	}
	return c.JSON(http.StatusOK, resp)
}
