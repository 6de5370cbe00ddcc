package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

func (p *Panel) settingsView(c echo.Context) (views.SettingsView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	v := views.SettingsView{Nav: p.nav(c, "Settings", "settings")}
	var err error
	if v.Tokens, err = p.gw.MyAPITokens(ctx, caller); err != nil {
		return v, err
	}
	v.Fleets, err = p.gw.OrgFleets(ctx, caller)
	return v, err
}

func (p *Panel) settingsPage(c echo.Context) error {
	v, err := p.settingsView(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.Settings(v))
}

// createToken mints an API token and shows it in this response, once: it is never put in a
// URL (no redirect to a page that shows it) nor logged.
func (p *Panel) createToken(c echo.Context) error {
	secret, tok, err := p.gw.CreateMyAPIToken(c.Request().Context(), Caller(c), gateway.NewAPITokenInput{
		Name: c.FormValue("name"), Scope: c.FormValue("scope"), Fleet: c.FormValue("fleet"),
	})
	v, verr := p.settingsView(c)
	if verr != nil {
		return verr
	}
	if err != nil {
		if s := statusOf(err); s >= 500 || s == http.StatusForbidden {
			return err
		}
		v.Error = gateway.ErrorMessage(err)
		return p.render(c, statusOf(err), views.Settings(v))
	}
	v.Secret = &views.Secret{What: "API token " + tok.Name, Value: secret}
	return p.render(c, http.StatusOK, views.Settings(v))
}

func (p *Panel) revokeToken(c echo.Context) error {
	if err := p.gw.RevokeMyAPIToken(c.Request().Context(), Caller(c), c.Param("tokenId")); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/settings")
}
