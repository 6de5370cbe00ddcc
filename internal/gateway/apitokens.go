package gateway

import (
	"context"
	"slices"
	"strings"

	"github.com/fleetgate/fleetgate"
	"github.com/google/uuid"
)

// NewAPITokenInput describes a token a user makes for themselves.
type NewAPITokenInput struct {
	Name  string
	Scope string // ScopeFull when empty
	Fleet string // fleet id; empty: every fleet the caller's own token reaches
}

// CreateAPITokenInput describes a token to mint for a user of the default organization.
type CreateAPITokenInput struct {
	UserEmail string
	Name      string
	Scope     string // ScopeFull when empty
	Fleet     string // fleet id or name; empty: no restriction
}

// MyAPITokens lists the caller's API tokens, revoked ones included, newest first.
func (ac *AccountService) MyAPITokens(ctx context.Context, c *Caller) ([]fleetgate.APIToken, error) {
	toks, err := ac.store.APITokens(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	slices.Reverse(toks)
	return toks, nil
}

// CreateMyAPIToken mints an API token for the caller and returns its secret, shown once.
// Read-scoped (kiosk) tokens restricted to a fleet are for org admins: a kiosk shows the
// whole fleet.
func (ac *AccountService) CreateMyAPIToken(ctx context.Context, c *Caller, in NewAPITokenInput) (string, fleetgate.APIToken, error) {
	if !c.CanAct() {
		return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.EForbidden, "a read-only session may not make tokens")
	}
	if in.Scope == "" {
		in.Scope = fleetgate.ScopeFull
	}
	if in.Scope != fleetgate.ScopeFull && in.Scope != fleetgate.ScopeRead {
		return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.EInvalid, "scope must be %q or %q", fleetgate.ScopeFull, fleetgate.ScopeRead)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || len(name) > 100 {
		return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.EInvalid, "a token name has 1 to 100 characters")
	}
	tok := fleetgate.APIToken{ID: uuid.NewString(), UserID: c.User.ID, Name: name, Scope: in.Scope, CreatedAt: ac.now().UTC()}
	if in.Fleet == "" {
		// A session restricted to one fleet makes tokens restricted to it: never more than
		// it holds.
		in.Fleet = c.Token.FleetID
	}
	if in.Fleet != "" {
		f, err := ac.store.Fleet(ctx, in.Fleet)
		if fleetgate.ErrorCode(err) == fleetgate.ENotFound || (err == nil && f.OrgID != c.User.OrgID) {
			return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.ENotFound, "no fleet %q", in.Fleet)
		} else if err != nil {
			return "", fleetgate.APIToken{}, err
		}
		if c.Token.FleetID != "" && c.Token.FleetID != f.ID {
			return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.ENotFound, "no fleet %q", in.Fleet)
		}
		tok.FleetID = f.ID
	}
	if tok.Scope == fleetgate.ScopeRead && tok.FleetID != "" && !c.User.OrgAdmin {
		return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.EForbidden, "only organization admins make kiosk tokens")
	}
	secret := NewAPIToken()
	tok.Hash = HashSecret(secret)
	if err := ac.store.CreateAPIToken(ctx, tok); err != nil {
		return "", fleetgate.APIToken{}, err
	}
	return secret, tok, nil
}

// RevokeMyAPIToken revokes one of the caller's tokens; its bearer tokens die with it.
// Another user's token is not found.
func (ac *AccountService) RevokeMyAPIToken(ctx context.Context, c *Caller, tokenID string) error {
	if !c.CanAct() {
		return fleetgate.Errorf(fleetgate.EForbidden, "a read-only session may not revoke tokens")
	}
	tok, err := ac.store.APIToken(ctx, tokenID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound || (err == nil && tok.UserID != c.User.ID) {
		return fleetgate.Errorf(fleetgate.ENotFound, "token %q not found", tokenID)
	} else if err != nil {
		return err
	}
	return ac.store.RevokeAPIToken(ctx, tok.ID, ac.now().UTC())
}

func (ac *AccountService) ensureAdminToken(ctx context.Context, org fleetgate.Organization, secret string) error {
	_, err := ac.store.APITokenByHash(ctx, HashSecret(secret))
	if err == nil {
		return nil
	} else if fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		return err
	}
	admins, err := ac.store.OrgAdmins(ctx, org.ID)
	if err != nil {
		return err
	}
	if len(admins) == 0 {
		return fleetgate.Errorf(fleetgate.ENotFound, "organization %q has no admin to give the token to", org.Name)
	}
	return ac.store.CreateAPIToken(ctx, fleetgate.APIToken{
		ID: uuid.NewString(), UserID: admins[0].ID, Name: "admin-token", Scope: fleetgate.ScopeFull,
		Hash: HashSecret(secret), CreatedAt: ac.now().UTC(),
	})
}

// CreateAPIToken mints an API token and returns its secret, which is never stored.
func (ac *AccountService) CreateAPIToken(ctx context.Context, in CreateAPITokenInput) (string, fleetgate.APIToken, error) {
	if in.Scope == "" {
		in.Scope = fleetgate.ScopeFull
	}
	if in.Scope != fleetgate.ScopeFull && in.Scope != fleetgate.ScopeRead {
		return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.EInvalid, "scope must be %q or %q", fleetgate.ScopeFull, fleetgate.ScopeRead)
	}
	u, err := ac.store.UserByEmail(ctx, strings.TrimSpace(in.UserEmail))
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return "", fleetgate.APIToken{}, fleetgate.Errorf(fleetgate.ENotFound, "no user with email %q", in.UserEmail)
	} else if err != nil {
		return "", fleetgate.APIToken{}, err
	}
	tok := fleetgate.APIToken{ID: uuid.NewString(), UserID: u.ID, Name: in.Name, Scope: in.Scope, CreatedAt: ac.now().UTC()}
	if in.Fleet != "" {
		f, err := ac.robots.findFleet(ctx, u.OrgID, in.Fleet)
		if err != nil {
			return "", fleetgate.APIToken{}, err
		}
		tok.FleetID = f.ID
	}
	secret := NewAPIToken()
	tok.Hash = HashSecret(secret)
	if err := ac.store.CreateAPIToken(ctx, tok); err != nil {
		return "", fleetgate.APIToken{}, err
	}
	return secret, tok, nil
}

// KioskTokens lists the read-scoped fleet tokens of the caller (an org admin), valid ones.
func (ac *AccountService) KioskTokens(ctx context.Context, c *Caller) ([]fleetgate.APIToken, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	toks, err := ac.store.APITokens(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(toks, func(t fleetgate.APIToken) bool {
		return t.Scope != fleetgate.ScopeRead || t.FleetID == "" || !t.RevokedAt.IsZero()
	}), nil
}
