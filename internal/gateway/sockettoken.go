package gateway

import (
	"context"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
)

// Socket tokens let the panel's browser code open a WebSocket (W1, W2, W3), which cannot
// carry the session cookie's caller in a header: the page asks POST /panel/ws-token for one,
// and passes it as access_token. A socket token opens one upgrade within SocketTokenTTL;
// the socket it opened then stays authorised while the session it was minted for lives, so
// that logging out (or the session timing out) ends the socket at its next token check.

// SocketTokenPrefix marks socket tokens: fgw_ + 40 base62 characters.
const SocketTokenPrefix = "fgw_"

// SocketTokenTTL is how long a minted socket token may wait for its upgrade.
const SocketTokenTTL = 60 * time.Second

// IsSocketToken reports whether a bearer value is a socket token (by its prefix).
func IsSocketToken(s string) bool { return strings.HasPrefix(s, SocketTokenPrefix) }

// MintSocketToken makes a socket token for the caller of the panel session whose token hash
// is sessionHash.
func (ac *AccountService) MintSocketToken(ctx context.Context, c *Caller, sessionHash string) (string, time.Time, error) {
	if sessionHash == "" {
		return "", time.Time{}, fleetgate.Errorf(fleetgate.EUnauthorized, "no session")
	}
	now := ac.now().UTC()
	secret := NewSecret(SocketTokenPrefix, 40)
	t := fleetgate.SocketToken{Hash: HashSecret(secret), UserID: c.User.ID, APITokenID: c.Token.ID, SessionHash: sessionHash,
		ExpiresAt: now.Add(SocketTokenTTL), CreatedAt: now}
	if err := ac.store.CreateSocketToken(ctx, t); err != nil {
		return "", time.Time{}, err
	}
	return secret, t.ExpiresAt, nil
}

// UseSocketToken spends a socket token on a WebSocket upgrade: it succeeds once, within
// SocketTokenTTL of minting. Run before the upgrade route authenticates the token.
func (ac *AccountService) UseSocketToken(ctx context.Context, token string) error {
	_, err := ac.store.UseSocketToken(ctx, HashSecret(token), ac.now().UTC())
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.Errorf(fleetgate.EUnauthorized, "socket token unknown, expired or already used; ask /panel/ws-token for another")
	}
	return err
}

// authenticateSocketToken resolves a socket token that opened its upgrade (UseSocketToken)
// and whose session still lives to the session's caller. An unused token authenticates
// nothing: only the upgrade path spends it.
func (ac *AccountService) authenticateSocketToken(ctx context.Context, token string) (*Caller, error) {
	invalid := fleetgate.Errorf(fleetgate.EUnauthorized, "socket token unknown, unused, or its session ended")
	t, err := ac.store.SocketToken(ctx, HashSecret(token))
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil, invalid
	} else if err != nil {
		return nil, err
	}
	if t.UsedAt.IsZero() {
		return nil, invalid
	}
	expiry, err := ac.store.SessionExpiry(ctx, t.SessionHash)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound || (err == nil && !ac.now().Before(expiry)) {
		return nil, invalid
	} else if err != nil {
		return nil, err
	}
	return ac.SessionCaller(ctx, t.UserID, t.APITokenID, "")
}
