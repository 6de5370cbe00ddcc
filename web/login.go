package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

func (p *Panel) loginPage(c echo.Context) error {
	fl := p.takeFlash(c)
	return p.render(c, http.StatusOK, views.Login(views.LoginView{Next: localPath(c.QueryParam("next")), Error: fl.Error, Notice: fl.Notice, Email: fl.Form.Get("email")}))
}

// login opens a session with an email and password, or with an API token: a kiosk token
// opens a kiosk session (no idle timeout, as long as the token) and goes to its fleet's wall.
// The form is POSTed: a token never travels in a URL.
func (p *Panel) login(c echo.Context) error {
	ctx := c.Request().Context()
	next := localPath(c.FormValue("next"))
	email, password, token := strings.TrimSpace(c.FormValue("email")), c.FormValue("password"), strings.TrimSpace(c.FormValue("token"))
	var caller *gateway.Caller
	var err error
	if token != "" {
		caller, err = p.accounts.TokenLogin(ctx, token, c.RealIP())
	} else {
		caller, err = p.accounts.PasswordLogin(ctx, email, password, c.RealIP())
	}
	if err != nil {
		status := statusOf(err)
		if status >= 500 {
			return err
		}
		if wait := fleetgate.RetryAfter(err); wait > 0 {
			return p.fail(c, err)
		}
		to := "/login"
		if next != "/" {
			to += "?" + url.Values{"next": {next}}.Encode()
		}
		return p.redirectFlash(c, to, flash{Error: fleetgate.ErrorMessage(err), Form: url.Values{"email": {email}}})
	}
	if caller.Kiosk() {
		if err := p.startSession(ctx, p.kiosks, caller, p.overTLS(c.Request())); err != nil {
			return err
		}
		if !strings.HasPrefix(next, "/kiosk/") {
			next = "/kiosk/" + caller.Token.FleetID
		}
		return c.Redirect(http.StatusSeeOther, next)
	}
	if err := p.startSession(ctx, p.users, caller, p.overTLS(c.Request())); err != nil {
		return err
	}
	if (!caller.User.HasPassword || caller.User.MustChangePassword) && caller.CanAct() {
		next = "/password"
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// logout ends both sessions of this browser; the stored sessions are deleted, so a copied
// cookie opens nothing afterwards.
func (p *Panel) logout(c echo.Context) error {
	ctx := c.Request().Context()
	if err := p.users.Destroy(ctx); err != nil {
		return fleetgate.Internal(err)
	}
	if err := p.kiosks.Destroy(ctx); err != nil {
		return fleetgate.Internal(err)
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}

func (p *Panel) nav(c echo.Context, title, active string) views.Nav {
	caller := Caller(c)
	n := views.Nav{Title: title, Active: active, Email: caller.User.Email, OrgAdmin: caller.User.OrgAdmin && caller.CanAct(),
		NeedsPassword: !caller.User.HasPassword && caller.CanAct(), UserID: caller.User.ID}
	if p.where != nil {
		n.Where = p.where()
	}
	return n
}

func (p *Panel) passwordPage(c echo.Context) error {
	caller := Caller(c)
	fl := p.takeFlash(c)
	v := views.PasswordView{Nav: p.nav(c, "Password", "password"), First: !caller.User.HasPassword, Error: fl.Error, Done: fl.Notice != ""}
	v.MustChange = !v.Done && caller.User.MustChangePassword && caller.CanAct()
	return p.render(c, http.StatusOK, views.Password(v))
}

func (p *Panel) setPassword(c echo.Context) error {
	caller := Caller(c)
	err := p.accounts.SetPassword(c.Request().Context(), caller, c.FormValue("current"), c.FormValue("new"))
	if err != nil {
		if statusOf(err) >= 500 {
			return err
		}
		return p.redirectFlash(c, "/password", flash{Error: fleetgate.ErrorMessage(err)})
	}
	// Other sessions of this person end with the old password; this one carries on, under a
	// new session token.
	if caller.Token.ID == "" {
		ctx := c.Request().Context()
		stamp, err := p.accounts.PasswordStamp(ctx, caller.User.ID)
		if err != nil {
			return err
		}
		if err := p.users.RenewToken(ctx); err != nil {
			return fleetgate.Internal(err)
		}
		p.users.Put(ctx, keyStamp, stamp)
	}
	return p.redirectFlash(c, "/password", flash{Notice: "password changed"})
}
