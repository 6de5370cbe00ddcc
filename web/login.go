package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

func (p *Panel) loginPage(c echo.Context) error {
	return p.render(c, http.StatusOK, views.Login(views.LoginView{Next: localPath(c.QueryParam("next"))}))
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
		caller, err = p.gw.TokenLogin(ctx, token, c.RealIP())
	} else {
		caller, err = p.gw.PasswordLogin(ctx, email, password, c.RealIP())
	}
	if err != nil {
		status := statusOf(err)
		if status >= 500 {
			return err
		}
		if wait := gateway.RetryAfter(err); wait > 0 {
			return p.fail(c, err)
		}
		return p.render(c, status, views.Login(views.LoginView{Error: gateway.ErrorMessage(err), Email: email, Next: next}))
	}
	if caller.Kiosk() {
		if err := p.startSession(ctx, p.kiosks, caller); err != nil {
			return err
		}
		if !strings.HasPrefix(next, "/kiosk/") {
			next = "/kiosk/" + caller.Token.FleetID
		}
		return c.Redirect(http.StatusSeeOther, next)
	}
	if err := p.startSession(ctx, p.users, caller); err != nil {
		return err
	}
	if !caller.User.HasPassword && caller.CanAct() {
		next = "/password"
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// logout ends both sessions of this browser; the stored sessions are deleted, so a copied
// cookie opens nothing afterwards.
func (p *Panel) logout(c echo.Context) error {
	ctx := c.Request().Context()
	if err := p.users.Destroy(ctx); err != nil {
		return gateway.Internal(err)
	}
	if err := p.kiosks.Destroy(ctx); err != nil {
		return gateway.Internal(err)
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
	return p.render(c, http.StatusOK, views.Password(views.PasswordView{Nav: p.nav(c, "Password", "password"), First: !caller.User.HasPassword}))
}

func (p *Panel) setPassword(c echo.Context) error {
	caller := Caller(c)
	err := p.gw.SetPassword(c.Request().Context(), caller, c.FormValue("current"), c.FormValue("new"))
	v := views.PasswordView{Nav: p.nav(c, "Password", "password"), First: !caller.User.HasPassword}
	if err != nil {
		if statusOf(err) >= 500 {
			return err
		}
		v.Error = gateway.ErrorMessage(err)
		return p.render(c, statusOf(err), views.Password(v))
	}
	// Other sessions of this person end with the old password; this one carries on, under a
	// new session token.
	if caller.Token.ID == "" {
		ctx := c.Request().Context()
		stamp, err := p.gw.PasswordStamp(ctx, caller.User.ID)
		if err != nil {
			return err
		}
		if err := p.users.RenewToken(ctx); err != nil {
			return gateway.Internal(err)
		}
		p.users.Put(ctx, keyStamp, stamp)
	}
	v.Done, v.First, v.Nav.NeedsPassword = true, false, false
	return p.render(c, http.StatusOK, views.Password(v))
}
