package api

import (
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

const callerKey = "fleetgate.caller"

// requireBearer authenticates the "authorization: bearer <token>" header. Query tokens are
// not read here: they are accepted on the WebSocket upgrade routes only.
func requireBearer(gw *gateway.Gateway) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			header := c.Request().Header.Get(echo.HeaderAuthorization)
			if header == "" {
				return fleetgate.Errorf(fleetgate.EUnauthorized, "missing authorization header; send authorization: bearer <token>")
			}
			token, ok := gateway.ParseAuthorization(header)
			if !ok {
				return fleetgate.Errorf(fleetgate.EUnauthorized, "malformed authorization header; send authorization: bearer <token>")
			}
			if gateway.IsSocketToken(token) {
				// A socket token is spent on its upgrade and then stands for a panel session:
				// it must not become a REST bearer that outlives the 60 s it was made for.
				return fleetgate.Errorf(fleetgate.EUnauthorized, "a socket token opens WebSockets only; use a bearer token")
			}
			caller, err := gw.Authenticate(c.Request().Context(), token)
			if err != nil {
				return err
			}
			c.Set(callerKey, caller)
			return next(c)
		}
	}
}

// callerOf returns the caller that requireBearer stored.
func callerOf(c echo.Context) *gateway.Caller {
	caller, _ := c.Get(callerKey).(*gateway.Caller)
	return caller
}

// CallerEmail is the authenticated user's email, for request logs; empty when anonymous.
func CallerEmail(c echo.Context) string {
	if caller := callerOf(c); caller != nil {
		return caller.User.Email
	}
	return ""
}
