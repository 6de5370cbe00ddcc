package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// Alerts are the robots' open alerts and the admins' rules for them (gateway.AlertService).
type Alerts interface {
	OpenAlerts(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.OpenAlert, error)
	FleetOpenAlerts(ctx context.Context, c *gateway.Caller, fleetID string) ([]fleetgate.OpenAlert, error)
	AcknowledgeAlert(ctx context.Context, c *gateway.Caller, robotID string, kind fleetgate.AlertKind) (fleetgate.OpenAlert, error)
	FleetAlertSettings(ctx context.Context, c *gateway.Caller, fleetID string) (gateway.AlertSettings, error)
	AddAlertRule(ctx context.Context, c *gateway.Caller, r fleetgate.AlertRule) (fleetgate.AlertRule, error)
	RemoveAlertRule(ctx context.Context, c *gateway.Caller, ruleID string) error
	AddWebhook(ctx context.Context, c *gateway.Caller, fleetID, name, rawURL string) (fleetgate.Webhook, error)
	RemoveWebhook(ctx context.Context, c *gateway.Caller, webhookID string) error
}

func (p *Panel) registerAlerts(e *echo.Echo, user ...echo.MiddlewareFunc) {
	e.POST("/robots/:robotId/alerts/:kind/ack", p.handle(p.acknowledgeAlert), user...)
	e.POST("/admin/webhooks", p.handle(p.addWebhook), user...)
	e.POST("/admin/webhooks/:webhookId/remove", p.handle(p.removeWebhook), user...)
	e.POST("/admin/alert-rules", p.handle(p.addAlertRule), user...)
	e.POST("/admin/alert-rules/:ruleId/remove", p.handle(p.removeAlertRule), user...)
}

// openAlerts is a robot's open alerts as its status card shows them. Every role that sees a
// robot may drive it (Operator is the least), so a token that may act may acknowledge.
func (p *Panel) openAlerts(c echo.Context, robotID string) views.OpenAlerts {
	if p.alerts == nil {
		return views.OpenAlerts{}
	}
	open, _ := p.alerts.OpenAlerts(c.Request().Context(), Caller(c), robotID) // the header checked the caller may see it
	return views.OpenAlerts{Alerts: open, Now: p.now(), CanAck: Caller(c).CanAct(), Back: "robot"}
}

// acknowledgeAlert acknowledges an alert from the operate screen or the kiosk, and goes back.
func (p *Panel) acknowledgeAlert(c echo.Context) error {
	robotID := c.Param("robotId")
	a, err := p.alerts.AcknowledgeAlert(c.Request().Context(), Caller(c), robotID, fleetgate.AlertKind(c.Param("kind")))
	if err != nil && fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		return err
	}
	if c.FormValue("back") == "kiosk" && a.FleetID != "" {
		return c.Redirect(http.StatusSeeOther, "/kiosk/"+a.FleetID)
	}
	// An alert that cleared meanwhile needs nobody: the page shows what is open now.
	return c.Redirect(http.StatusSeeOther, "/robots/"+robotID)
}

// alertSettings are the admin page's alert sections, one per fleet.
func (p *Panel) alertSettings(c echo.Context, fleets []fleetgate.Fleet) ([]views.FleetAlerts, error) {
	var out []views.FleetAlerts
	for _, f := range fleets {
		if p.alerts == nil {
			break
		}
		s, err := p.alerts.FleetAlertSettings(c.Request().Context(), Caller(c), f.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, views.FleetAlerts{Fleet: s.Fleet, Rules: s.Rules, Webhooks: s.Webhooks, Deliveries: s.Deliveries})
	}
	return out, nil
}

func (p *Panel) addWebhook(c echo.Context) error {
	h, err := p.alerts.AddWebhook(c.Request().Context(), Caller(c), c.FormValue("fleet"), c.FormValue("name"), c.FormValue("url"))
	var s *views.Secret
	if err == nil {
		s = &views.Secret{What: "signing secret of webhook " + h.Name, Value: h.Secret}
	}
	return p.adminResult(c, "alerts", s, err)
}

func (p *Panel) removeWebhook(c echo.Context) error {
	return p.adminResult(c, "alerts", nil, p.alerts.RemoveWebhook(c.Request().Context(), Caller(c), c.Param("webhookId")))
}

func (p *Panel) addAlertRule(c echo.Context) error {
	r := fleetgate.AlertRule{FleetID: c.FormValue("fleet"), Kind: fleetgate.AlertKind(c.FormValue("kind")), WebhookID: c.FormValue("webhook"),
		Name: c.FormValue("name"), Source: c.FormValue("source"), Key: c.FormValue("key"),
		Above: c.FormValue("above") == "1", Critical: c.FormValue("critical") == "1"}
	minutes, err := strconv.ParseFloat(orZero(c.FormValue("minutes")), 64)
	if err != nil || minutes < 0 || minutes > 7*24*60 {
		return p.adminResult(c, "alerts", nil, fleetgate.Errorf(fleetgate.EInvalid, "escalate after a number of minutes, at most a week"))
	}
	r.EscalateAfter = time.Duration(minutes * float64(time.Minute))
	if r.Kind == fleetgate.AlertThreshold {
		if r.Threshold, err = strconv.ParseFloat(c.FormValue("threshold"), 64); err != nil {
			return p.adminResult(c, "alerts", nil, fleetgate.Errorf(fleetgate.EInvalid, "a threshold is a number"))
		}
	}
	_, err = p.alerts.AddAlertRule(c.Request().Context(), Caller(c), r)
	return p.adminResult(c, "alerts", nil, err)
}

func (p *Panel) removeAlertRule(c echo.Context) error {
	return p.adminResult(c, "alerts", nil, p.alerts.RemoveAlertRule(c.Request().Context(), Caller(c), c.Param("ruleId")))
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}
