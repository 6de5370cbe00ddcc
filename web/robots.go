package web

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/views"
)

// robotReadTimeout bounds what a page waits for robots: a slow robot shows "–", it does not
// hold the page.
const robotReadTimeout = 1500 * time.Millisecond

func (p *Panel) robotsPage(c echo.Context) error {
	v, err := p.robotsView(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.Robots(v))
}

func (p *Panel) robotsFragment(c echo.Context) error {
	v, err := p.robotsView(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.RobotTable(v.Rows, v.Refresh))
}

func (p *Panel) robotsView(c echo.Context) (views.RobotsView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	v := views.RobotsView{Nav: p.nav(c, "Robots", "robots"), Fleet: c.QueryParam("fleet"), Online: c.QueryParam("online")}
	q := url.Values{}
	if v.Fleet != "" {
		q.Set("fleet", v.Fleet)
	}
	if v.Online != "" {
		q.Set("online", v.Online)
	}
	v.Refresh = "/fragments/robots?" + q.Encode()
	all, err := p.robots.RobotTable(ctx, caller)
	if err != nil {
		return v, err
	}
	if v.Fleets, err = p.robots.OrgFleets(ctx, caller); err != nil {
		return v, err
	}
	var rows []fleetgate.RobotRow
	for _, r := range all {
		if v.Fleet != "" && r.Robot.FleetID != v.Fleet {
			continue
		}
		if (v.Online == "online" && !r.Online) || (v.Online == "offline" && r.Online) {
			continue
		}
		rows = append(rows, r)
	}
	v.Rows = p.withStatus(ctx, rows)
	return v, nil
}

// withStatus reads the status of the rows' robots (battery, activity, alerts), side by side,
// within robotReadTimeout.
func (p *Panel) withStatus(ctx context.Context, rows []fleetgate.RobotRow) []views.RobotRow {
	ctx, cancel := context.WithTimeout(ctx, robotReadTimeout)
	defer cancel()
	statuses := p.streams.RobotStatuses(ctx, rows)
	out := make([]views.RobotRow, len(rows))
	for i, r := range rows {
		out[i] = views.RobotRow{RobotRow: r, Status: statuses[i]}
	}
	return out
}
