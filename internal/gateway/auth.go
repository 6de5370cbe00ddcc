package gateway

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
)

// bearerPrefix marks bearer tokens, so a leaked one is recognisable.
const bearerPrefix = "fgb_"

// Login exchanges an API token for a bearer token. A valid token always logs in; a wrong
// one counts against clientAddr, and after 10 failures in a minute from one address wrong
// tokens are answered ERateLimited until the oldest failure ages out (loginLimits).
func (ac *AccountService) Login(ctx context.Context, apiToken, clientAddr string) (bearer string, expires time.Time, err error) {
	if apiToken == "" {
		return "", time.Time{}, fleetgate.Errorf(fleetgate.EInvalid, "userToken is required")
	}
	tok, err := ac.validAPIToken(ctx, apiToken)
	if err != nil {
		return "", time.Time{}, failed(ac.limits.address, clientAddr, "logins", err)
	}
	now := ac.now()
	bearer = NewSecret(bearerPrefix, 40)
	expires = now.Add(ac.bearerTTL)
	if err := ac.store.CreateBearerToken(ctx, fleetgate.BearerToken{
		Hash: HashSecret(bearer), APITokenID: tok.ID, ExpiresAt: expires, CreatedAt: now,
	}); err != nil {
		return "", time.Time{}, err
	}
	if err := ac.store.TouchAPIToken(ctx, tok.ID, now); err != nil {
		ac.log.Warn("recording token use failed", "token_id", tok.ID, "err", err)
	}
	return bearer, expires, nil
}

// validAPIToken finds a usable API token; any failure is the same EUnauthorized so that a
// guesser learns nothing from the answer.
func (ac *AccountService) validAPIToken(ctx context.Context, apiToken string) (fleetgate.APIToken, error) {
	invalid := fleetgate.Errorf(fleetgate.EUnauthorized, "invalid API token")
	if !ValidAPITokenFormat(apiToken) {
		return fleetgate.APIToken{}, invalid
	}
	tok, err := ac.store.APITokenByHash(ctx, HashSecret(apiToken))
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.APIToken{}, invalid
	} else if err != nil {
		return fleetgate.APIToken{}, err
	}
	if !tok.RevokedAt.IsZero() {
		return fleetgate.APIToken{}, invalid
	}
	return tok, nil
}

// Authenticate resolves a bearer token (without its "bearer " scheme) to its caller.
// Unknown, expired and revoked tokens are all EUnauthorized.
func (ac *AccountService) Authenticate(ctx context.Context, bearer string) (*Caller, error) {
	if bearer == "" {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "missing bearer token")
	}
	if IsSocketToken(bearer) {
		return ac.authenticateSocketToken(ctx, bearer)
	}
	bt, tok, err := ac.store.BearerToken(ctx, HashSecret(bearer))
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "invalid bearer token; log in again")
	} else if err != nil {
		return nil, err
	}
	if !ac.now().Before(bt.ExpiresAt) {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "bearer token expired; log in again")
	}
	if !tok.RevokedAt.IsZero() {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the API token behind this bearer token was revoked")
	}
	u, err := ac.store.User(ctx, tok.UserID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the user of this token no longer exists")
	} else if err != nil {
		return nil, err
	}
	if !u.DisabledAt.IsZero() {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the user of this token is disabled")
	}
	return &Caller{User: u, Token: tok}, nil
}

// PurgeExpiredBearerTokens deletes bearer tokens past their expiry; run it now and then.
func (ac *AccountService) PurgeExpiredBearerTokens(ctx context.Context) (int64, error) {
	return ac.store.DeleteExpiredBearerTokens(ctx, ac.now())
}
