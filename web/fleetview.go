package web

import (
	"context"
	"net/http"
	"slices"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/views"
)

// fleetRows is the chosen fleet (the query's, or the first) and its robots with their status,
// the ones with alerts first.
func (p *Panel) fleetRows(c echo.Context) ([]fleetgate.Fleet, fleetgate.Fleet, []views.RobotRow, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	fleets, err := p.robots.OrgFleets(ctx, caller)
	if err != nil {
		return nil, fleetgate.Fleet{}, nil, err
	}
	if len(fleets) == 0 {
		return nil, fleetgate.Fleet{}, nil, fleetgate.Errorf(fleetgate.ENotFound, "your organization has no fleet yet")
	}
	chosen := fleets[0]
	if id := c.QueryParam("fleet"); id != "" {
		i := slices.IndexFunc(fleets, func(f fleetgate.Fleet) bool { return f.ID == id })
		if i < 0 {
			return nil, fleetgate.Fleet{}, nil, fleetgate.Errorf(fleetgate.ENotFound, "fleet %q not found", id)
		}
		chosen = fleets[i]
	}
	all, err := p.robots.RobotTable(ctx, caller)
	if err != nil {
		return nil, fleetgate.Fleet{}, nil, err
	}
	all = slices.DeleteFunc(all, func(r fleetgate.RobotRow) bool { return r.Robot.FleetID != chosen.ID })
	rows := p.withStatus(ctx, all)
	sortByAlerts(rows)
	return fleets, chosen, rows, nil
}

func (p *Panel) fleetPage(c echo.Context) error {
	fleets, f, rows, err := p.fleetRows(c)
	if err != nil {
		return err
	}
	v := views.FleetView{Nav: p.nav(c, "Fleet view", "fleet"), Fleets: fleets, Fleet: f,
		Tiles: views.KioskTilesView{Rows: rows, Now: p.now()}, LiveHere: p.live, ViaCloud: p.viaCloud}
	v.Cameras, v.MoreCams = p.fleetCameras(c, f, rows)
	return p.render(c, http.StatusOK, views.FleetPage(v))
}

func (p *Panel) fleetFragment(c echo.Context) error {
	_, _, rows, err := p.fleetRows(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.KioskTiles(views.KioskTilesView{Rows: rows, Now: p.now()}))
}

// fleetCameras lists the camera streams of the fleet's online robots, side by side within
// robotReadTimeout, at most MaxFleetCameras of them (and how many were left out).
func (p *Panel) fleetCameras(c echo.Context, f fleetgate.Fleet, rows []views.RobotRow) ([]views.CameraTile, int) {
	ctx, cancel := context.WithTimeout(c.Request().Context(), robotReadTimeout)
	defer cancel()
	per := make([][]views.CameraTile, len(rows))
	var wg sync.WaitGroup
	for i, r := range rows {
		if !r.Online {
			continue
		}
		wg.Go(func() {
			streams, err := p.streams.Streams(ctx, Caller(c), r.Robot.ID)
			if err != nil {
				return
			}
			for _, s := range streams {
				if s.Direction == fleetgate.Input || views.WidgetFor(s) != "camera" {
					continue
				}
				per[i] = append(per[i], views.CameraTile{Robot: r.Robot, Widget: views.WidgetSpec{Widget: "camera", Live: p.live,
					ViaCloud: p.viaCloud, RobotID: r.Robot.ID, FleetID: f.ID, Stream: s, MaxWidth: 480}})
			}
		})
	}
	wg.Wait()
	var out []views.CameraTile
	for _, cams := range per {
		out = append(out, cams...)
	}
	if len(out) > views.MaxFleetCameras {
		return out[:views.MaxFleetCameras], len(out) - views.MaxFleetCameras
	}
	return out, 0
}
