package gateway

import (
	"context"
	"strings"

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
		return "", false, Errorf(EInvalid, "admin token must be fgt_ followed by 32 letters or digits")
	}
	org, err := g.store.DefaultOrganization(ctx)
	if err == nil {
		if opt.AdminToken != "" {
			return "", false, g.ensureAdminToken(ctx, org, opt.AdminToken)
		}
		return "", false, nil
	} else if ErrorCode(err) != ENotFound {
		return "", false, err
	}

	now := g.now().UTC()
	org = Organization{ID: uuid.NewString(), Name: "default"}
	fleet := Fleet{ID: opt.FleetID, OrgID: org.ID, Name: opt.FleetName}
	if fleet.ID == "" {
		fleet.ID = uuid.NewString()
	}
	admin := User{ID: uuid.NewString(), OrgID: org.ID, Email: BootstrapAdminEmail, Name: "Administrator", OrgAdmin: true}
	secret := opt.AdminToken
	if secret == "" {
		secret = NewAPIToken()
		generated = secret
	}
	tok := APIToken{ID: uuid.NewString(), UserID: admin.ID, Name: "bootstrap", Scope: ScopeFull, Hash: HashSecret(secret), CreatedAt: now}
	if err := g.store.Bootstrap(ctx, org, fleet, admin, tok); err != nil {
		return "", false, err
	}
	return generated, true, nil
}

func (g *Gateway) ensureAdminToken(ctx context.Context, org Organization, secret string) error {
	_, err := g.store.APITokenByHash(ctx, HashSecret(secret))
	if err == nil {
		return nil
	} else if ErrorCode(err) != ENotFound {
		return err
	}
	admins, err := g.store.OrgAdmins(ctx, org.ID)
	if err != nil {
		return err
	}
	if len(admins) == 0 {
		return Errorf(ENotFound, "organization %q has no admin to give the token to", org.Name)
	}
	return g.store.CreateAPIToken(ctx, APIToken{
		ID: uuid.NewString(), UserID: admins[0].ID, Name: "admin-token", Scope: ScopeFull,
		Hash: HashSecret(secret), CreatedAt: g.now().UTC(),
	})
}

// CreateAPITokenInput describes a token to mint for a user of the default organization.
type CreateAPITokenInput struct {
	UserEmail string
	Name      string
	Scope     string // ScopeFull when empty
	Fleet     string // fleet id or name; empty: no restriction
}

// CreateAPIToken mints an API token and returns its secret, which is never stored.
func (g *Gateway) CreateAPIToken(ctx context.Context, in CreateAPITokenInput) (string, APIToken, error) {
	if in.Scope == "" {
		in.Scope = ScopeFull
	}
	if in.Scope != ScopeFull && in.Scope != ScopeRead {
		return "", APIToken{}, Errorf(EInvalid, "scope must be %q or %q", ScopeFull, ScopeRead)
	}
	u, err := g.store.UserByEmail(ctx, strings.TrimSpace(in.UserEmail))
	if ErrorCode(err) == ENotFound {
		return "", APIToken{}, Errorf(ENotFound, "no user with email %q", in.UserEmail)
	} else if err != nil {
		return "", APIToken{}, err
	}
	tok := APIToken{ID: uuid.NewString(), UserID: u.ID, Name: in.Name, Scope: in.Scope, CreatedAt: g.now().UTC()}
	if in.Fleet != "" {
		f, err := g.findFleet(ctx, u.OrgID, in.Fleet)
		if err != nil {
			return "", APIToken{}, err
		}
		tok.FleetID = f.ID
	}
	secret := NewAPIToken()
	tok.Hash = HashSecret(secret)
	if err := g.store.CreateAPIToken(ctx, tok); err != nil {
		return "", APIToken{}, err
	}
	return secret, tok, nil
}

// AddAgent provisions an agent in a fleet of the default organization and returns its key,
// which is shown once and stored only as a hash.
func (g *Gateway) AddAgent(ctx context.Context, name, fleet string) (Agent, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Agent{}, "", Errorf(EInvalid, "agent name is required")
	}
	org, f, err := g.defaultOrgFleet(ctx, fleet)
	if err != nil {
		return Agent{}, "", err
	}
	key := NewSecret(AgentKeyPrefix, 40)
	a := Agent{ID: uuid.NewString(), OrgID: org.ID, Name: name, FleetID: f.ID, KeyHash: HashSecret(key), CreatedAt: g.now().UTC()}
	if err := g.store.CreateAgent(ctx, a); err != nil {
		return Agent{}, "", err
	}
	return a, key, nil
}

// AddRobot records a robot in a fleet of the default organization.
func (g *Gateway) AddRobot(ctx context.Context, name, fleet string) (Robot, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Robot{}, Errorf(EInvalid, "robot name is required")
	}
	org, f, err := g.defaultOrgFleet(ctx, fleet)
	if err != nil {
		return Robot{}, err
	}
	r := Robot{ID: uuid.NewString(), OrgID: org.ID, FleetID: f.ID, Name: name, CreatedAt: g.now().UTC()}
	if err := g.store.CreateRobot(ctx, r); err != nil {
		return Robot{}, err
	}
	return r, nil
}

// RobotListing is a robot with its fleet's name, for operator listings.
type RobotListing struct {
	Robot     Robot
	FleetName string
	Online    bool
}

// AllRobots lists every robot of the default organization.
func (g *Gateway) AllRobots(ctx context.Context) ([]RobotListing, error) {
	org, err := g.store.DefaultOrganization(ctx)
	if err != nil {
		return nil, err
	}
	robots, err := g.store.Robots(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	fleets, err := g.store.Fleets(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(fleets))
	for _, f := range fleets {
		names[f.ID] = f.Name
	}
	out := make([]RobotListing, len(robots))
	for i, r := range robots {
		out[i] = RobotListing{Robot: r, FleetName: names[r.FleetID], Online: g.presence.Online(r.ID)}
	}
	return out, nil
}

// EventLog returns the newest event-log entries matching f (a limit of 0: 1000).
func (g *Gateway) EventLog(ctx context.Context, f EventFilter) ([]Event, error) {
	if f.Limit <= 0 {
		f.Limit = 1000
	}
	return g.store.Events(ctx, f)
}

// defaultOrgFleet resolves a fleet of the default organization by id or name; empty means
// the organization's first fleet.
func (g *Gateway) defaultOrgFleet(ctx context.Context, fleet string) (Organization, Fleet, error) {
	org, err := g.defaultOrg(ctx)
	if err != nil {
		return Organization{}, Fleet{}, err
	}
	if fleet == "" {
		fleets, err := g.store.Fleets(ctx, org.ID)
		if err != nil {
			return Organization{}, Fleet{}, err
		}
		if len(fleets) == 0 {
			return Organization{}, Fleet{}, Errorf(ENotFound, "organization %q has no fleet", org.Name)
		}
		return org, fleets[0], nil
	}
	f, err := g.findFleet(ctx, org.ID, fleet)
	return org, f, err
}

// defaultOrg is the default organization, with a hint for the operator of an empty store.
func (g *Gateway) defaultOrg(ctx context.Context) (Organization, error) {
	org, err := g.store.DefaultOrganization(ctx)
	if ErrorCode(err) == ENotFound {
		return Organization{}, Errorf(ENotFound, "the data directory has no organization yet; start the server once to bootstrap it")
	}
	return org, err
}

// Fleets lists the fleets of the default organization; the first is its default fleet.
func (g *Gateway) Fleets(ctx context.Context) ([]Fleet, error) {
	org, err := g.defaultOrg(ctx)
	if err != nil {
		return nil, err
	}
	return g.store.Fleets(ctx, org.ID)
}

// EnsureFleet returns the fleet of the default organization with this id or name, creating
// a fleet of that name when there is none; created says which.
func (g *Gateway) EnsureFleet(ctx context.Context, fleet string) (f Fleet, created bool, err error) {
	fleet = strings.TrimSpace(fleet)
	if fleet == "" {
		return Fleet{}, false, Errorf(EInvalid, "fleet name is required")
	}
	org, f, err := g.defaultOrgFleet(ctx, fleet)
	if ErrorCode(err) != ENotFound || org.ID == "" {
		return f, false, err
	}
	f = Fleet{ID: uuid.NewString(), OrgID: org.ID, Name: fleet}
	if err := g.store.CreateFleet(ctx, f); err != nil {
		return Fleet{}, false, err
	}
	return f, true, nil
}

// findFleet resolves a fleet of orgID by id, then by name.
func (g *Gateway) findFleet(ctx context.Context, orgID, fleet string) (Fleet, error) {
	f, err := g.store.Fleet(ctx, fleet)
	if err == nil && f.OrgID == orgID {
		return f, nil
	} else if err != nil && ErrorCode(err) != ENotFound {
		return Fleet{}, err
	}
	f, err = g.store.FleetByName(ctx, orgID, fleet)
	if ErrorCode(err) == ENotFound {
		return Fleet{}, Errorf(ENotFound, "no fleet %q", fleet)
	}
	return f, err
}
