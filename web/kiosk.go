package web

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/views"
)

// kioskRows is the fleet's robots as the wall shows them.
func (p *Panel) kioskRows(c echo.Context) (fleetgate.Fleet, []views.RobotRow, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	f, err := p.robots.FleetForKiosk(ctx, caller, c.Param("fleetId"))
	if err != nil {
		return f, nil, err
	}
	all, err := p.robots.RobotTable(ctx, caller)
	if err != nil {
		return f, nil, err
	}
	var rows []fleetgate.RobotRow
	for _, r := range all {
		if r.Robot.FleetID == f.ID {
			rows = append(rows, r)
		}
	}
	out := p.withStatus(ctx, rows)
	sortByAlerts(out)
	return f, out, nil
}

func (p *Panel) kioskPage(c echo.Context) error {
	f, rows, err := p.kioskRows(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.Kiosk(views.KioskView{Fleet: f, Tiles: p.kioskTiles(c, f, rows)}))
}

func (p *Panel) kioskFragment(c echo.Context) error {
	f, rows, err := p.kioskRows(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.KioskTiles(p.kioskTiles(c, f, rows)))
}

// kioskTiles are the wall's tiles with the fleet's open alerts: a signed-in operator may
// acknowledge them there (the core checks each robot's role), a kiosk token only sees them.
func (p *Panel) kioskTiles(c echo.Context, f fleetgate.Fleet, rows []views.RobotRow) views.KioskTilesView {
	var open []fleetgate.OpenAlert
	if p.alerts != nil {
		open, _ = p.alerts.FleetOpenAlerts(c.Request().Context(), Caller(c), f.ID)
	}
	return views.KioskTilesView{Rows: rows, Now: p.now(), Open: open, CanAck: Caller(c).CanAct()}
}

// sortByAlerts puts the robots that need someone first, then keeps RobotTable's order (by
// name).
func sortByAlerts(rows []views.RobotRow) {
	slices.SortStableFunc(rows, func(a, b views.RobotRow) int {
		return cmp.Compare(alertRank(b.Status), alertRank(a.Status))
	})
}

// alertRank orders robots on the wall: critical alerts, then warnings, then the rest.
func alertRank(s fleetgate.RobotStatus) int {
	switch {
	case s.Critical():
		return 2
	case len(s.Alerts) > 0:
		return 1
	}
	return 0
}
