package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
)

// The web panel's logins. A panel session holds a user (password login) or a user and the
// API token it was opened with (token login; a kiosk token opens a kiosk session). Each
// request re-resolves its Caller here, so disabling a user or revoking a token ends their
// sessions at once.

// AccountService is the core's accounts and tokens: users and their passwords, API and
// bearer tokens, the panel's sessions and socket tokens, and the limits on failed logins.
type AccountService struct {
	store     AccountStore
	robots    *RobotService // fleets named by tokens
	now       func() time.Time
	log       *slog.Logger
	bearerTTL time.Duration
	limits    loginLimits
	rechecks  rechecks
}

// AccountStore is what the accounts and tokens need from durable storage.
type AccountStore interface {
	User(ctx context.Context, id string) (fleetgate.User, error)
	UserByEmail(ctx context.Context, email string) (fleetgate.User, error)
	OrgAdmins(ctx context.Context, orgID string) ([]fleetgate.User, error)
	CreateUser(ctx context.Context, u fleetgate.User) error
	Users(ctx context.Context, orgID string) ([]fleetgate.User, error)
	// SetUserDisabled disables a user at at; a zero at enables them again.
	SetUserDisabled(ctx context.Context, userID string, at time.Time) error
	// PasswordHash is the user's encoded password hash, "" when the user has none.
	PasswordHash(ctx context.Context, userID string) (string, error)
	// SetPasswordHash replaces a password; mustChange marks one an admin generated.
	SetPasswordHash(ctx context.Context, userID, hash string, mustChange bool) error
	// Fleet finds the fleet a token is restricted to.
	Fleet(ctx context.Context, id string) (fleetgate.Fleet, error)

	CreateAPIToken(ctx context.Context, t fleetgate.APIToken) error
	APIToken(ctx context.Context, id string) (fleetgate.APIToken, error)
	APITokenByHash(ctx context.Context, hash string) (fleetgate.APIToken, error)
	APITokens(ctx context.Context, userID string) ([]fleetgate.APIToken, error)
	RevokeAPIToken(ctx context.Context, id string, at time.Time) error
	TouchAPIToken(ctx context.Context, id string, at time.Time) error

	CreateBearerToken(ctx context.Context, t fleetgate.BearerToken) error
	// BearerToken returns a bearer token with the API token it was minted from.
	BearerToken(ctx context.Context, hash string) (fleetgate.BearerToken, fleetgate.APIToken, error)
	DeleteExpiredBearerTokens(ctx context.Context, now time.Time) (int64, error)

	CreateSocketToken(ctx context.Context, t fleetgate.SocketToken) error
	SocketToken(ctx context.Context, hash string) (fleetgate.SocketToken, error)
	// UseSocketToken atomically marks an unused, unexpired token used; ENotFound otherwise.
	UseSocketToken(ctx context.Context, hash string, at time.Time) (fleetgate.SocketToken, error)
	// SessionExpiry is when the panel session with this token hash expires; ENotFound
	// when it is gone.
	SessionExpiry(ctx context.Context, hash string) (time.Time, error)
}

// Kiosk reports whether the caller holds a kiosk token: read-scoped and restricted to a
// fleet. A kiosk session has no idle timeout and lives as long as its token.
func (c *Caller) Kiosk() bool { return c.Token.Scope == fleetgate.ScopeRead && c.Token.FleetID != "" }

// maxEmailBytes is the longest email address (RFC 5321's path limit).
const maxEmailBytes = 254

// passwordSession is the token of a password login: full scope, every fleet.
var passwordSession = fleetgate.APIToken{Name: "panel session", Scope: fleetgate.ScopeFull}

// PasswordLogin checks an email and password. Failures are limited per client address (10 a
// minute, shared with token logins) and per account and address (5 in 15 minutes); an
// address that failed on an account waits a delay growing with the account's failures of the
// last hour from anywhere (accountDelay), so a guesser spread over many addresses slows down
// while the owner, at an address with no failures, is never refused. Every failure is the
// same EUnauthorized, and an unknown email costs the same time as a known one.
//
// Each attempt counts as a failure before the password is hashed and is taken back when it
// succeeds, so logins sent in parallel cannot all pass the limit; argon2 runs a few at a time
// (hashing), so they cannot exhaust the memory either.
func (ac *AccountService) PasswordLogin(ctx context.Context, email, password, clientAddr string) (_ *Caller, err error) {
	account := strings.ToLower(strings.TrimSpace(email))
	if account == "" || password == "" {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "email and password are required")
	}
	if len(account) > maxEmailBytes || len(password) > maxPasswordBytes {
		// No account has such an email or password: refused before any work or record.
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "the email is at most %d bytes and the password at most %d", maxEmailBytes, maxPasswordBytes)
	}
	l, key := ac.limits, accountAddressKey(account, clientAddr)
	if last, failedBefore := l.accountAddress.Last(key); failedBefore {
		if wait := last.Add(accountDelay(l.account.Count(account))).Sub(ac.now()); wait > 0 {
			return nil, tooMany("logins for this account from your address", wait)
		}
	}
	if wait, blocked := l.address.Attempt(clientAddr); blocked {
		return nil, tooMany("logins", wait)
	}
	if wait, blocked := l.accountAddress.Attempt(key); blocked {
		l.address.Forgive(clientAddr)
		return nil, tooMany("logins for this account from your address", wait)
	}
	defer func() {
		if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
			l.account.Fail(account)
			return
		}
		// Not a wrong password (a success, a disabled account, a store failure).
		l.address.Forgive(clientAddr)
		l.accountAddress.Forgive(key)
	}()
	fail := func() (*Caller, error) {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "wrong email or password")
	}
	u, err := ac.store.UserByEmail(ctx, account)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		verifyPassword(dummyHash(), password)
		return fail()
	} else if err != nil {
		return nil, err
	}
	hash, err := ac.store.PasswordHash(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	if hash == "" {
		verifyPassword(dummyHash(), password)
		return fail()
	}
	if !verifyPassword(hash, password) {
		return fail()
	}
	if !u.DisabledAt.IsZero() {
		// Told only to someone who knows the password: they learn nothing new.
		return nil, fleetgate.Errorf(fleetgate.EForbidden, "this account is disabled; ask an administrator")
	}
	return &Caller{User: u, Token: passwordSession}, nil
}

// TokenLogin opens a panel session with an API token (kiosks, scripts, and the bootstrap
// admin before they set a password). A valid token always logs in; wrong ones share Login's
// failure limit per address.
func (ac *AccountService) TokenLogin(ctx context.Context, apiToken, clientAddr string) (*Caller, error) {
	apiToken = strings.TrimSpace(apiToken)
	if apiToken == "" {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "an API token is required")
	}
	tok, err := ac.validAPIToken(ctx, apiToken)
	if err != nil {
		return nil, failed(ac.limits.address, clientAddr, "logins", err)
	}
	c, err := ac.SessionCaller(ctx, tok.UserID, tok.ID, "")
	if err != nil {
		return nil, err
	}
	if err := ac.store.TouchAPIToken(ctx, tok.ID, ac.now().UTC()); err != nil {
		ac.log.Warn("recording token use failed", "token_id", tok.ID, "err", err)
	}
	return c, nil
}

// SessionCaller resolves a session's principal on each request: the user (and the API token
// of a token login, "" for a password login). A user gone or disabled, or a token revoked,
// is EUnauthorized: the session is over. stamp is PasswordStamp as it was at the password
// login that began the session ("" where there is none to check): a password changed or
// reset since then ends the session too.
func (ac *AccountService) SessionCaller(ctx context.Context, userID, tokenID, stamp string) (*Caller, error) {
	u, err := ac.store.User(ctx, userID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the user of this session no longer exists")
	} else if err != nil {
		return nil, err
	}
	if !u.DisabledAt.IsZero() {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "this account is disabled")
	}
	if tokenID == "" {
		if stamp != "" {
			current, err := ac.PasswordStamp(ctx, u.ID)
			if err != nil {
				return nil, err
			}
			if current != stamp {
				return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the password changed since this session began")
			}
		}
		return &Caller{User: u, Token: passwordSession}, nil
	}
	tok, err := ac.store.APIToken(ctx, tokenID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the API token of this session no longer exists")
	} else if err != nil {
		return nil, err
	}
	if !tok.RevokedAt.IsZero() || tok.UserID != u.ID {
		return nil, fleetgate.Errorf(fleetgate.EUnauthorized, "the API token of this session was revoked")
	}
	return &Caller{User: u, Token: tok}, nil
}

// PasswordStamp identifies userID's current password without revealing it (a digest of its
// salted hash; "" when the user has none): a session keeps the stamp of its login.
func (ac *AccountService) PasswordStamp(ctx context.Context, userID string) (string, error) {
	hash, err := ac.store.PasswordHash(ctx, userID)
	if err != nil || hash == "" {
		return "", err
	}
	sum := sha256.Sum256([]byte(hash))
	return hex.EncodeToString(sum[:8]), nil
}

// SetPassword sets the caller's own password. A user who has one must give it (current);
// the bootstrap admin, logged in with their token, sets their first one without.
func (ac *AccountService) SetPassword(ctx context.Context, c *Caller, current, next string) error {
	if c.Kiosk() || !c.CanAct() {
		return fleetgate.Errorf(fleetgate.EForbidden, "a read-only session may not change a password")
	}
	if err := checkPassword(next); err != nil {
		return err
	}
	old, err := ac.store.PasswordHash(ctx, c.User.ID)
	if err != nil {
		return err
	}
	if old != "" && !verifyPassword(old, current) {
		return fleetgate.Errorf(fleetgate.EInvalid, "the current password is wrong")
	}
	if next == current {
		return fleetgate.Errorf(fleetgate.EInvalid, "the new password must differ from the current one")
	}
	return ac.store.SetPasswordHash(ctx, c.User.ID, hashPassword(next), false)
}
