package gateway

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/google/uuid"
)

// The operations in this file are for the operator of the data directory (the CLI and the
// server's start-up), who is trusted: they take no Caller.

// BootstrapAdminEmail is the organization admin created on an empty data directory.
const BootstrapAdminEmail = "admin@localhost"

// BootstrapOptions describes the first organization of an empty store.
type BootstrapOptions struct {
	FleetID   string // empty: a fresh UUID
	FleetName string
	// AdminToken, when set, becomes the admin's first API token instead of a fresh one.
	AdminToken string
}

// Bootstrap creates organization "default", its fleet and the org admin on an empty store.
// It returns the admin's API token when it generated one (the caller prints it once) and
// whether the store was empty. On a store already bootstrapped, an AdminToken never seen
// before is added to the admin (so a fixed token works on every start); a known one,
// revoked or not, is left as it is.
func (g *Gateway) Bootstrap(ctx context.Context, opt BootstrapOptions) (generated string, created bool, err error) {
	if opt.AdminToken != "" && !ValidAPITokenFormat(opt.AdminToken) {
		return "", false, fleetgate.Errorf(fleetgate.EInvalid, "admin token must be fgt_ followed by 32 letters or digits")
	}
	org, err := g.store.DefaultOrganization(ctx)
	if err == nil {
		if opt.AdminToken != "" {
			return "", false, g.ensureAdminToken(ctx, org, opt.AdminToken)
		}
		return "", false, nil
	} else if fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		return "", false, err
	}

	now := g.now().UTC()
	org = fleetgate.Organization{ID: uuid.NewString(), Name: "default"}
	fleet := fleetgate.Fleet{ID: opt.FleetID, OrgID: org.ID, Name: opt.FleetName}
	if fleet.ID == "" {
		fleet.ID = uuid.NewString()
	}
	admin := fleetgate.User{ID: uuid.NewString(), OrgID: org.ID, Email: BootstrapAdminEmail, Name: "Administrator", OrgAdmin: true}
	secret := opt.AdminToken
	if secret == "" {
		secret = NewAPIToken()
		generated = secret
	}
	tok := fleetgate.APIToken{ID: uuid.NewString(), UserID: admin.ID, Name: "bootstrap", Scope: fleetgate.ScopeFull, Hash: HashSecret(secret), CreatedAt: now}
	if err := g.store.Bootstrap(ctx, org, fleet, admin, tok); err != nil {
		return "", false, err
	}
	return generated, true, nil
}
