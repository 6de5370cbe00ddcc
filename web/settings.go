package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

func (p *Panel) settingsView(c echo.Context) (views.SettingsView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	v := views.SettingsView{Nav: p.nav(c, "Settings", "settings")}
	var err error
	if v.Tokens, err = p.accounts.MyAPITokens(ctx, caller); err != nil {
		return v, err
	}
	v.Fleets, err = p.robots.OrgFleets(ctx, caller)
	return v, err
}

func (p *Panel) settingsPage(c echo.Context) error {
	v, err := p.settingsView(c)
	if err != nil {
		return err
	}
	fl := p.takeFlash(c)
	v.Secret, v.Error = fl.Secret, fl.Error
	return p.render(c, http.StatusOK, views.Settings(v))
}

// createToken mints an API token; the settings page shows it once (a flash in memory: never
// in a URL, on disk or in a log).
func (p *Panel) createToken(c echo.Context) error {
	secret, tok, err := p.accounts.CreateMyAPIToken(c.Request().Context(), Caller(c), gateway.NewAPITokenInput{
		Name: c.FormValue("name"), Scope: c.FormValue("scope"), Fleet: c.FormValue("fleet"),
	})
	if err != nil {
		if s := statusOf(err); s >= 500 || s == http.StatusForbidden {
			return err
		}
		return p.redirectFlash(c, "/settings", flash{Error: fleetgate.ErrorMessage(err)})
	}
	return p.redirectFlash(c, "/settings", flash{Secret: &views.Secret{What: "API token " + tok.Name, Value: secret}})
}

func (p *Panel) revokeToken(c echo.Context) error {
	if err := p.accounts.RevokeMyAPIToken(c.Request().Context(), Caller(c), c.Param("tokenId")); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/settings")
}
