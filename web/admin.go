package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// The organization admin's page. Every action goes through a core call that checks the
// caller is an org admin (or Admin of the robot), so a member posting here gets 403.

func (p *Panel) adminView(c echo.Context) (views.AdminView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	v := views.AdminView{Nav: p.nav(c, "Administration", "admin"), Local: p.local}
	if p.tlsFingerprint != nil {
		v.TLSFingerprint = p.tlsFingerprint()
	}
	var err error
	if v.Users, err = p.accounts.Users(ctx, caller); err != nil {
		return v, err
	}
	if v.Agents, err = p.agents.OrgAgents(ctx, caller); err != nil {
		return v, err
	}
	if v.Fleets, err = p.robots.OrgFleets(ctx, caller); err != nil {
		return v, err
	}
	if v.Supervisors, err = p.fleetSupervisors(ctx, caller, v.Fleets); err != nil {
		return v, err
	}
	if v.KioskTokens, err = p.accounts.KioskTokens(ctx, caller); err != nil {
		return v, err
	}
	if v.Alerts, err = p.alertSettings(c, v.Fleets); err != nil {
		return v, err
	}
	rows, err := p.robots.RobotTable(ctx, caller)
	if err != nil {
		return v, err
	}
	for _, r := range rows {
		d, err := p.robots.Robot(ctx, caller, r.Robot.ID)
		if err != nil {
			return v, err
		}
		teleop, err := p.teleopForm(ctx, caller, r.Robot.ID)
		if err != nil {
			return v, err
		}
		v.Robots = append(v.Robots, views.AdminRobot{Row: r, Members: d.SharedUsers, Teleop: teleop})
	}
	return v, nil
}

func (p *Panel) adminPage(c echo.Context) error {
	v, err := p.adminView(c)
	if err != nil {
		return err
	}
	fl := p.takeFlash(c)
	v.Secret, v.Error = fl.Secret, fl.Error
	return p.render(c, http.StatusOK, views.Admin(v))
}

// adminResult answers an admin action with the admin page (303): a secret or a mistake is
// shown there once; a refusal is an error page.
func (p *Panel) adminResult(c echo.Context, anchor string, secret *views.Secret, err error) error {
	if err != nil {
		if s := statusOf(err); s >= 500 || s == http.StatusForbidden || s == http.StatusUnauthorized {
			return err
		}
		return p.redirectFlash(c, "/admin#"+anchor, flash{Error: fleetgate.ErrorMessage(err)})
	}
	if secret != nil {
		return p.redirectFlash(c, "/admin#"+anchor, flash{Secret: secret})
	}
	return c.Redirect(http.StatusSeeOther, "/admin#"+anchor)
}

func (p *Panel) createUser(c echo.Context) error {
	u, password, err := p.accounts.CreateUser(c.Request().Context(), Caller(c), gateway.NewUserInput{
		Email: c.FormValue("email"), Name: c.FormValue("name"), OrgAdmin: c.FormValue("orgAdmin") == "1",
	})
	var s *views.Secret
	if err == nil {
		s = &views.Secret{What: "first password of " + u.Email, Value: password}
	}
	return p.adminResult(c, "users", s, err)
}

func (p *Panel) userAction(c echo.Context) error {
	ctx, caller, id := c.Request().Context(), Caller(c), c.Param("userId")
	switch c.Param("action") {
	case "disable", "enable":
		return p.adminResult(c, "users", nil, p.accounts.SetUserDisabled(ctx, caller, id, c.Param("action") == "disable"))
	case "reset-password":
		password, err := p.accounts.ResetPassword(ctx, caller, id)
		var s *views.Secret
		if err == nil {
			s = &views.Secret{What: "new password", Value: password}
		}
		return p.adminResult(c, "users", s, err)
	}
	return echo.ErrNotFound
}

func (p *Panel) robotAction(c echo.Context) error {
	ctx, caller, id := c.Request().Context(), Caller(c), c.Param("robotId")
	switch c.Param("action") {
	case "rename":
		return p.adminResult(c, "robots", nil, p.robots.RenameRobot(ctx, caller, id, c.FormValue("name")))
	case "remove":
		return p.adminResult(c, "robots", nil, p.robots.RemoveRobot(ctx, caller, id))
	case "teleop":
		return p.setTeleop(c, id)
	case "members":
		role, err := strconv.Atoi(c.FormValue("role"))
		if err != nil {
			return p.adminResult(c, "robots", nil, fleetgate.Errorf(fleetgate.EInvalid, "role must be a number from 0 to 3"))
		}
		return p.adminResult(c, "robots", nil, p.robots.SetMemberRole(ctx, caller, id, c.FormValue("email"), fleetgate.Role(role)))
	}
	return echo.ErrNotFound
}

// removeStaleRobots removes the records of the robots not online for gateway.StaleRobotAge
// (organization admins only: the core refuses anyone else, 403).
func (p *Panel) removeStaleRobots(c echo.Context) error {
	_, err := p.robots.RemoveStaleRobots(c.Request().Context(), Caller(c), gateway.StaleRobotAge)
	return p.adminResult(c, "robots", nil, err)
}

func (p *Panel) provisionAgent(c echo.Context) error {
	if p.local {
		return p.adminResult(c, "users", nil, fleetgate.Errorf(fleetgate.EInvalid, "a local gateway provisions no agents: provision them on the cloud (fleetgate serve)"))
	}
	a, key, err := p.agents.ProvisionAgent(c.Request().Context(), Caller(c), c.FormValue("name"), c.FormValue("fleet"))
	var s *views.Secret
	if err == nil {
		s = &views.Secret{What: "agent key of " + a.Name, Value: key}
	}
	return p.adminResult(c, "agents", s, err)
}

func (p *Panel) revokeAgent(c echo.Context) error {
	return p.adminResult(c, "agents", nil, p.agents.RevokeOrgAgent(c.Request().Context(), Caller(c), c.Param("agentId")))
}

func (p *Panel) createKioskToken(c echo.Context) error {
	caller := Caller(c)
	if !caller.User.OrgAdmin {
		return fleetgate.Errorf(fleetgate.EForbidden, "only organization admins make kiosk tokens")
	}
	fleet := c.FormValue("fleet")
	if fleet == "" {
		return p.adminResult(c, "kiosks", nil, fleetgate.Errorf(fleetgate.EInvalid, "a kiosk token shows one fleet: choose it"))
	}
	secret, tok, err := p.accounts.CreateMyAPIToken(c.Request().Context(), caller, gateway.NewAPITokenInput{
		Name: c.FormValue("name"), Scope: fleetgate.ScopeRead, Fleet: fleet,
	})
	var s *views.Secret
	if err == nil {
		s = &views.Secret{What: "kiosk token " + tok.Name + " (open /kiosk/" + tok.FleetID + " on the display and log in with it)", Value: secret}
	}
	return p.adminResult(c, "kiosks", s, err)
}

func (p *Panel) revokeKioskToken(c echo.Context) error {
	caller := Caller(c)
	if !caller.User.OrgAdmin {
		return fleetgate.Errorf(fleetgate.EForbidden, "only organization admins manage kiosk tokens")
	}
	return p.adminResult(c, "kiosks", nil, p.accounts.RevokeMyAPIToken(c.Request().Context(), caller, c.Param("tokenId")))
}
