package gateway

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live"
)

// AuthenticateToolToken authenticates the token of a socket that a desktop tool opens with
// nothing but a URL (Foxglove, Lichtblick): a bearer token or a panel socket token, as every
// socket takes, or an API token itself, since such a tool cannot log in and a bearer token
// would end its session within the hour. A wrong API token counts against clientAddr as a
// failed login does (Login's limit). The returned re-check keeps the session's token checked
// for as long as it lasts: the API token's revocation, its user disabled or gone, end it.
func (ac *AccountService) AuthenticateToolToken(ctx context.Context, token, clientAddr string) (*Caller, live.Recheck, error) {
	if !ValidAPITokenFormat(token) {
		c, err := ac.Authenticate(ctx, token)
		if err != nil {
			return nil, nil, err
		}
		return c, ac.SocketRecheck(token), nil
	}
	c, err := ac.apiTokenCaller(ctx, token)
	if err != nil {
		return nil, nil, failed(ac.limits.address, clientAddr, "logins", err)
	}
	if err := ac.store.TouchAPIToken(ctx, c.Token.ID, ac.now().UTC()); err != nil {
		ac.log.Warn("recording token use failed", "token_id", c.Token.ID, "err", err)
	}
	recheck := func(ctx context.Context) error {
		return ac.rechecks.do(ctx, token, func(ctx context.Context) error {
			_, err := ac.apiTokenCaller(ctx, token)
			if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
				return &fleetgate.Error{Code: fleetgate.EUnauthorized, Message: "token revoked or expired", Err: err}
			}
			return err
		})
	}
	return c, recheck, nil
}

// apiTokenCaller is the caller of a valid API token: EUnauthorized when the token is unknown
// or revoked, or its user disabled or gone.
func (ac *AccountService) apiTokenCaller(ctx context.Context, apiToken string) (*Caller, error) {
	tok, err := ac.validAPIToken(ctx, apiToken)
	if err != nil {
		return nil, err
	}
	return ac.SessionCaller(ctx, tok.UserID, tok.ID, "")
}
