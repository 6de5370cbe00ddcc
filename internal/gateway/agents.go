package gateway

import (
	"context"
	"regexp"
	"strings"
	"time"
)

var agentKeyPattern = regexp.MustCompile(`^fga_[0-9A-Za-z]{40}$`)

// ValidAgentKeyFormat reports whether s is shaped like an agent key: fga_ + 40 base62 chars.
func ValidAgentKeyFormat(s string) bool { return agentKeyPattern.MatchString(s) }

// AuthenticateAgent resolves the key an agent presents on the agent link to its agent and
// records that the agent was seen. A malformed, unknown or revoked key is one and the same
// EUnauthorized, so a guesser learns nothing. A valid key is never refused; wrong ones count
// against clientAddr, and after 10 in a minute from one address they are answered
// ERateLimited until the oldest failure ages out (loginLimits).
func (g *Gateway) AuthenticateAgent(ctx context.Context, key, clientAddr string) (Agent, error) {
	a, err := g.validAgentKey(ctx, key)
	if err != nil {
		return Agent{}, failed(g.limits.agent, clientAddr, "agent logins", err)
	}
	now := g.now().UTC()
	if err := g.store.TouchAgent(ctx, a.ID, now); err != nil {
		// The agent is who it says; a missed last-seen time must not keep it out.
		g.log.Warn("recording agent contact failed", "agent_id", a.ID, "err", err)
	} else {
		a.LastSeen = now
	}
	return a, nil
}

func (g *Gateway) validAgentKey(ctx context.Context, key string) (Agent, error) {
	invalid := Errorf(EUnauthorized, "invalid agent key")
	if !ValidAgentKeyFormat(key) {
		return Agent{}, invalid
	}
	a, err := g.store.AgentByKeyHash(ctx, HashSecret(key))
	if ErrorCode(err) == ENotFound {
		return Agent{}, invalid
	} else if err != nil {
		return Agent{}, err
	}
	if !a.RevokedAt.IsZero() {
		return Agent{}, invalid
	}
	return a, nil
}

// AgentSeen records when a linked agent was last heard from, as its link ends.
func (g *Gateway) AgentSeen(ctx context.Context, agentID string, at time.Time) error {
	return g.store.TouchAgent(ctx, agentID, at.UTC())
}

// RevokedAgents returns those of ids whose agent may no longer stay linked (its key revoked,
// or the agent gone), in one store query for many: the cloud re-checks every linked agent
// each second.
func (g *Gateway) RevokedAgents(ctx context.Context, ids []string) ([]string, error) {
	active, err := g.store.ActiveAgents(ctx, ids)
	if err != nil {
		return nil, err
	}
	ok := make(map[string]bool, len(active))
	for _, id := range active {
		ok[id] = true
	}
	var revoked []string
	for _, id := range ids {
		if !ok[id] {
			revoked = append(revoked, id)
		}
	}
	return revoked, nil
}

// RevokeAgent revokes the key of an agent of the default organization, named by id or by
// name; the agent's record and its robots stay. Revoking it again is EConflict.
func (g *Gateway) RevokeAgent(ctx context.Context, nameOrID string) (Agent, error) {
	nameOrID = strings.TrimSpace(nameOrID)
	if nameOrID == "" {
		return Agent{}, Errorf(EInvalid, "agent name or id is required")
	}
	org, err := g.defaultOrg(ctx)
	if err != nil {
		return Agent{}, err
	}
	a, err := g.findAgent(ctx, org.ID, nameOrID)
	if err != nil {
		return Agent{}, err
	}
	now := g.now().UTC()
	if err := g.store.RevokeAgent(ctx, a.ID, now); err != nil {
		return Agent{}, err
	}
	a.RevokedAt = now
	return a, nil
}

// Agents lists the agents of the default organization, revoked ones included, by name.
func (g *Gateway) Agents(ctx context.Context) ([]Agent, error) {
	org, err := g.defaultOrg(ctx)
	if err != nil {
		return nil, err
	}
	return g.store.Agents(ctx, org.ID)
}

// findAgent resolves an agent of orgID by id, then by name. An agent of another organization
// is not found, whatever its id.
func (g *Gateway) findAgent(ctx context.Context, orgID, nameOrID string) (Agent, error) {
	a, err := g.store.Agent(ctx, nameOrID)
	if err == nil && a.OrgID == orgID {
		return a, nil
	} else if err != nil && ErrorCode(err) != ENotFound {
		return Agent{}, err
	}
	// Operators keep a handful of agents; a list is cheaper than another store method.
	agents, err := g.store.Agents(ctx, orgID)
	if err != nil {
		return Agent{}, err
	}
	for _, a := range agents {
		if a.Name == nameOrID {
			return a, nil
		}
	}
	return Agent{}, Errorf(ENotFound, "no agent %q", nameOrID)
}
