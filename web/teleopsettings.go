package web

import (
	"context"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// TeleopSettings are the robots' thresholds of the speed governor (gateway.TeleopSettingsService).
type TeleopSettings interface {
	TeleopSettings(ctx context.Context, c *gateway.Caller, robotID string) (gateway.TeleopSettings, error)
	SetTeleopSettings(ctx context.Context, c *gateway.Caller, robotID string, p gateway.DelayPolicy) (gateway.TeleopSettings, error)
	ResetTeleopSettings(ctx context.Context, c *gateway.Caller, robotID string) (gateway.TeleopSettings, error)
}

// teleopForm is what the admin page's form of a robot's thresholds shows; nil without the
// service (the handler tests' fakes).
func (p *Panel) teleopForm(ctx context.Context, caller *gateway.Caller, robotID string) (*views.TeleopDelays, error) {
	if p.teleop == nil {
		return nil, nil
	}
	s, err := p.teleop.TeleopSettings(ctx, caller, robotID)
	switch code := fleetgate.ErrorCode(err); {
	case code == fleetgate.EConflict || code == fleetgate.EOffline || code == fleetgate.EUnavailable:
		// A robot behind an agent whose settings cannot be reached now: the page says why,
		// and the rest of it still shows.
		return &views.TeleopDelays{Unreachable: fleetgate.ErrorMessage(err)}, nil
	case err != nil:
		return nil, err
	}
	return &views.TeleopDelays{FullMs: s.Delays.Full.Milliseconds(), QuarterMs: s.Delays.Quarter.Milliseconds(),
		StopMs: s.Delays.Stop.Milliseconds(), Custom: s.Custom, UpdatedBy: s.UpdatedBy}, nil
}

// setTeleop is the form's post: the three thresholds in milliseconds, or reset to the gateway's.
func (p *Panel) setTeleop(c echo.Context, robotID string) error {
	ctx, caller := c.Request().Context(), Caller(c)
	if p.teleop == nil {
		return echo.ErrNotFound
	}
	if c.FormValue("reset") != "" {
		_, err := p.teleop.ResetTeleopSettings(ctx, caller, robotID)
		return p.adminResult(c, "robots", nil, err)
	}
	var ms [3]time.Duration
	for i, name := range []string{"fullMs", "quarterMs", "stopMs"} {
		v, err := strconv.ParseInt(c.FormValue(name), 10, 32)
		if err != nil {
			return p.adminResult(c, "robots", nil, fleetgate.Errorf(fleetgate.EInvalid, "the teleop delays are whole milliseconds"))
		}
		ms[i] = time.Duration(v) * time.Millisecond
	}
	_, err := p.teleop.SetTeleopSettings(ctx, caller, robotID, gateway.DelayPolicy{Full: ms[0], Quarter: ms[1], Stop: ms[2]})
	return p.adminResult(c, "robots", nil, err)
}
