package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// robotReadTimeout bounds what a page waits for robots: a slow robot shows "–", it does not
// hold the page.
const robotReadTimeout = 1500 * time.Millisecond

const metricBattery = fleet.MetricType(4)

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
	all, err := p.gw.RobotTable(ctx, caller)
	if err != nil {
		return v, err
	}
	if v.Fleets, err = p.gw.OrgFleets(ctx, caller); err != nil {
		return v, err
	}
	var rows []gateway.RobotRow
	for _, r := range all {
		if v.Fleet != "" && r.Robot.FleetID != v.Fleet {
			continue
		}
		if (v.Online == "online" && !r.Online) || (v.Online == "offline" && r.Online) {
			continue
		}
		rows = append(rows, r)
	}
	v.Rows = p.withBattery(ctx, caller, rows)
	return v, nil
}

// withBattery reads the battery of the online robots, side by side, within robotReadTimeout.
func (p *Panel) withBattery(ctx context.Context, caller *gateway.Caller, rows []gateway.RobotRow) []views.RobotRow {
	ctx, cancel := context.WithTimeout(ctx, robotReadTimeout)
	defer cancel()
	out := make([]views.RobotRow, len(rows))
	var wg sync.WaitGroup
	for i, r := range rows {
		out[i].RobotRow = r
		if !r.Online {
			continue
		}
		wg.Go(func() {
			_, m, err := p.gw.Metric(ctx, caller, r.Robot.ID, metricBattery, "")
			if f, ok := m.Value.(float64); err == nil && ok {
				out[i].Battery = fmt.Sprintf("%.0f %%", f)
			}
		})
	}
	wg.Wait()
	return out
}
