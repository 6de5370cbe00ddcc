package gateway

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Robot settings, API tokens and agents as the panel manages them, with the same permission
// checks as the API: robot settings need Admin on the robot, the rest an org admin.

var actSettings = action{minRole: RoleAdmin, acts: true, what: "change robot settings"}

// RenameRobot sets the display name of a robot the caller administers.
func (g *Gateway) RenameRobot(ctx context.Context, c *Caller, robotID, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return Errorf(EInvalid, "a robot name has 1 to 200 characters")
	}
	r, _, err := g.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return err
	}
	acc, err := g.accounts()
	if err != nil {
		return err
	}
	return acc.RenameRobot(ctx, r.ID, name)
}

// RemoveRobot deletes the record of an offline robot (org admins only). An online robot is
// refused: its source would announce it again at once.
func (g *Gateway) RemoveRobot(ctx context.Context, c *Caller, robotID string) error {
	if err := requireOrgAdmin(c); err != nil {
		return err
	}
	r, _, err := g.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return err
	}
	if g.presence.Online(r.ID) {
		return Errorf(EConflict, "robot %s is online; stop it (or revoke its agent) before removing it", r.Name)
	}
	acc, err := g.accounts()
	if err != nil {
		return err
	}
	return acc.DeleteRobot(ctx, r.ID)
}

// SetMemberRole gives a user of the organization a role on a robot the caller administers;
// RoleNone removes the membership.
func (g *Gateway) SetMemberRole(ctx context.Context, c *Caller, robotID, email string, role Role) error {
	if role < RoleNone || role > RoleAdmin {
		return Errorf(EInvalid, "role must be 0 to 3")
	}
	r, _, err := g.authorizeRobot(ctx, c, robotID, actSettings)
	if err != nil {
		return err
	}
	u, err := g.store.UserByEmail(ctx, strings.TrimSpace(email))
	if ErrorCode(err) == ENotFound || (err == nil && u.OrgID != r.OrgID) {
		return Errorf(ENotFound, "no user with email %q in this organization", email)
	} else if err != nil {
		return err
	}
	return g.store.SetMembership(ctx, Membership{RobotID: r.ID, UserID: u.ID, Role: role})
}

// MyAPITokens lists the caller's API tokens, revoked ones included, newest first.
func (g *Gateway) MyAPITokens(ctx context.Context, c *Caller) ([]APIToken, error) {
	toks, err := g.store.APITokens(ctx, c.User.ID)
	if err != nil {
		return nil, err
	}
	slices.Reverse(toks)
	return toks, nil
}

// NewAPITokenInput describes a token a user makes for themselves.
type NewAPITokenInput struct {
	Name  string
	Scope string // ScopeFull when empty
	Fleet string // fleet id; empty: every fleet the caller's own token reaches
}

// CreateMyAPIToken mints an API token for the caller and returns its secret, shown once.
// Read-scoped (kiosk) tokens restricted to a fleet are for org admins: a kiosk shows the
// whole fleet.
func (g *Gateway) CreateMyAPIToken(ctx context.Context, c *Caller, in NewAPITokenInput) (string, APIToken, error) {
	if !c.CanAct() {
		return "", APIToken{}, Errorf(EForbidden, "a read-only session may not make tokens")
	}
	if in.Scope == "" {
		in.Scope = ScopeFull
	}
	if in.Scope != ScopeFull && in.Scope != ScopeRead {
		return "", APIToken{}, Errorf(EInvalid, "scope must be %q or %q", ScopeFull, ScopeRead)
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || len(name) > 100 {
		return "", APIToken{}, Errorf(EInvalid, "a token name has 1 to 100 characters")
	}
	tok := APIToken{ID: uuid.NewString(), UserID: c.User.ID, Name: name, Scope: in.Scope, CreatedAt: g.now().UTC()}
	if in.Fleet == "" {
		// A session restricted to one fleet makes tokens restricted to it: never more than
		// it holds.
		in.Fleet = c.Token.FleetID
	}
	if in.Fleet != "" {
		f, err := g.store.Fleet(ctx, in.Fleet)
		if ErrorCode(err) == ENotFound || (err == nil && f.OrgID != c.User.OrgID) {
			return "", APIToken{}, Errorf(ENotFound, "no fleet %q", in.Fleet)
		} else if err != nil {
			return "", APIToken{}, err
		}
		if c.Token.FleetID != "" && c.Token.FleetID != f.ID {
			return "", APIToken{}, Errorf(ENotFound, "no fleet %q", in.Fleet)
		}
		tok.FleetID = f.ID
	}
	if tok.Scope == ScopeRead && tok.FleetID != "" && !c.User.OrgAdmin {
		return "", APIToken{}, Errorf(EForbidden, "only organization admins make kiosk tokens")
	}
	secret := NewAPIToken()
	tok.Hash = HashSecret(secret)
	if err := g.store.CreateAPIToken(ctx, tok); err != nil {
		return "", APIToken{}, err
	}
	return secret, tok, nil
}

// RevokeMyAPIToken revokes one of the caller's tokens; its bearer tokens die with it.
// Another user's token is not found.
func (g *Gateway) RevokeMyAPIToken(ctx context.Context, c *Caller, tokenID string) error {
	if !c.CanAct() {
		return Errorf(EForbidden, "a read-only session may not revoke tokens")
	}
	acc, err := g.accounts()
	if err != nil {
		return err
	}
	tok, err := acc.APIToken(ctx, tokenID)
	if ErrorCode(err) == ENotFound || (err == nil && tok.UserID != c.User.ID) {
		return Errorf(ENotFound, "token %q not found", tokenID)
	} else if err != nil {
		return err
	}
	return g.store.RevokeAPIToken(ctx, tok.ID, g.now().UTC())
}

// OrgFleets lists the fleets of the caller's organization (those its token may see).
func (g *Gateway) OrgFleets(ctx context.Context, c *Caller) ([]Fleet, error) {
	fleets, err := g.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	if c.Token.FleetID != "" {
		fleets = slices.DeleteFunc(fleets, func(f Fleet) bool { return f.ID != c.Token.FleetID })
	}
	return fleets, nil
}

// ProvisionAgent adds an agent (org admins only) and returns its key, shown once.
func (g *Gateway) ProvisionAgent(ctx context.Context, c *Caller, name, fleetID string) (Agent, string, error) {
	if err := requireOrgAdmin(c); err != nil {
		return Agent{}, "", err
	}
	return g.AddAgent(ctx, name, fleetID)
}

// OrgAgents lists the agents (org admins only).
func (g *Gateway) OrgAgents(ctx context.Context, c *Caller) ([]AgentRow, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	agents, err := g.Agents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]AgentRow, len(agents))
	for i, a := range agents {
		out[i] = g.agentRow(a)
	}
	return out, nil
}

// AgentRow is an agent as the panel shows it: linked now or not, and when last heard from
// (the newest heartbeat while linked; when its link ended otherwise).
type AgentRow struct {
	Agent
	Connected bool
	LastHeard time.Time
}

func (g *Gateway) agentRow(a Agent) AgentRow {
	row := AgentRow{Agent: a, LastHeard: a.LastSeen}
	if g.agentLinks != nil {
		if at, ok := g.agentLinks(a.ID); ok {
			row.Connected, row.LastHeard = true, at
		}
	}
	return row
}

// RevokeOrgAgent revokes an agent's key (org admins only).
func (g *Gateway) RevokeOrgAgent(ctx context.Context, c *Caller, agentID string) error {
	if err := requireOrgAdmin(c); err != nil {
		return err
	}
	_, err := g.RevokeAgent(ctx, agentID)
	return err
}
