package api

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
)

const callerKey = "fleetgate.caller"

// Accounts is what the API asks of the accounts (gateway.AccountService): who a token is, a
// bearer token for an API token, and the tokens of the panel's and everyone's sockets.
type Accounts interface {
	Authenticate(ctx context.Context, bearer string) (*gateway.Caller, error)
	Login(ctx context.Context, apiToken, clientAddr string) (bearer string, expires time.Time, err error)
	// UseSocketToken spends a panel socket token on the one upgrade it opens.
	UseSocketToken(ctx context.Context, token string) error
	// SocketRecheck re-authenticates a live session's token for as long as its socket lasts.
	SocketRecheck(bearer string) live.Recheck
}

// requireBearer authenticates the "authorization: bearer <token>" header. Query tokens are
// not read here: they are accepted on the WebSocket upgrade routes only.
func requireBearer(accounts Accounts) echo.MiddlewareFunc {
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
			caller, err := accounts.Authenticate(c.Request().Context(), token)
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
