package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// kioskRows is the fleet's robots as the wall shows them.
func (p *Panel) kioskRows(c echo.Context) (gateway.Fleet, []views.RobotRow, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	f, err := p.gw.FleetForKiosk(ctx, caller, c.Param("fleetId"))
	if err != nil {
		return f, nil, err
	}
	all, err := p.gw.RobotTable(ctx, caller)
	if err != nil {
		return f, nil, err
	}
	var rows []gateway.RobotRow
	for _, r := range all {
		if r.Robot.FleetID == f.ID {
			rows = append(rows, r)
		}
	}
	return f, p.withBattery(ctx, caller, rows), nil
}

func (p *Panel) kioskPage(c echo.Context) error {
	f, rows, err := p.kioskRows(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.Kiosk(views.KioskView{Fleet: f, Rows: rows}))
}

func (p *Panel) kioskFragment(c echo.Context) error {
	_, rows, err := p.kioskRows(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.KioskTable(rows))
}
