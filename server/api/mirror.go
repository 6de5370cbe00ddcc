package api

import (
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// RegisterMirror mounts the v2 REST endpoints again under prefix (the panel's /panel/api),
// with the same handlers and so the same JSON, for callers that another middleware
// authenticates: mw runs first (the panel's session), then caller says who is calling, and
// the handlers find that caller where requireBearer puts it. Login and the WebSocket routes
// are not mirrored: a session needs no bearer token, and sockets take /panel/ws-token's.
func RegisterMirror(e *echo.Echo, svc Services, opt Options, prefix string,
	caller func(echo.Context) *gateway.Caller, mw ...echo.MiddlewareFunc) {
	auth := append(mw[:len(mw):len(mw)], func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			who := caller(c)
			if who == nil {
				return fleetgate.Errorf(fleetgate.EUnauthorized, "not logged in")
			}
			c.Set(callerKey, who)
			return next(c)
		}
	})
	mountREST(e.Group(prefix), svc, opt, auth...)
}

// SpendSocketTokens lets a panel socket token (fgw_..., from /panel/ws-token) open exactly
// one WebSocket upgrade: it is spent here, before the upgrade route authenticates it through
// the gateway like any bearer. A spent, expired or unknown one is 401. Other requests and
// other tokens pass untouched.
func SpendSocketTokens(accounts Accounts) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if !isUpgrade(req) {
				return next(c)
			}
			token, err := socketToken(req)
			if err != nil || !gateway.IsSocketToken(token) {
				return next(c)
			}
			if err := accounts.UseSocketToken(req.Context(), token); err != nil {
				return err
			}
			return next(c)
		}
	}
}
