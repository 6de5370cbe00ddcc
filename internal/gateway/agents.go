package gateway

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/limit"
	"github.com/google/uuid"
)

// AgentService is the core's agents and the resource archive: the agents' keys, and the
// resource files of robots, listed, linked for download and kept by the cloud.
type AgentService struct {
	store      AgentStore
	robots     *RobotService
	presence   Presence
	now        func() time.Time
	log        *slog.Logger
	keyLimit   *limit.Window // failed agent keys per client address
	archive    ResourceArchive
	signer     URLSigner
	agentLinks func(agentID string) (time.Time, bool)
	downloads  downloads // recordings being downloaded, which retention keeps
}

// AgentStore is what the agents and the resource archive need from durable storage.
type AgentStore interface {
	CreateAgent(ctx context.Context, a fleetgate.Agent) error
	// AgentByKeyHash finds an agent by the hash of its key, revoked or not.
	AgentByKeyHash(ctx context.Context, hash string) (fleetgate.Agent, error)
	Agent(ctx context.Context, id string) (fleetgate.Agent, error)
	// Agents lists the agents of an organization, revoked ones included, by name.
	Agents(ctx context.Context, orgID string) ([]fleetgate.Agent, error)
	// ActiveAgents returns those of ids that name an agent whose key is not revoked.
	ActiveAgents(ctx context.Context, ids []string) ([]string, error)
	// RevokeAgent marks an agent's key revoked; EConflict when it already is.
	RevokeAgent(ctx context.Context, id string, at time.Time) error
	// TouchAgent sets an agent's last-seen time; ENotFound for an unknown agent.
	TouchAgent(ctx context.Context, id string, at time.Time) error

	// Robot finds the robot that holds a resource.
	Robot(ctx context.Context, id string) (fleetgate.Robot, error)
	// SaveResource records what a download link of a resource points at.
	SaveResource(ctx context.Context, r fleetgate.ResourceRecord) error
	Resource(ctx context.Context, id string) (fleetgate.ResourceRecord, error)
	// SyncedResources lists the resources of a robot that this gateway holds a verified
	// copy of (Path set), newest first.
	SyncedResources(ctx context.Context, robotID string) ([]fleetgate.ResourceRecord, error)
	// ArchivedRecordings lists the archived copies of recordings (MCAP files) of every
	// organization, oldest first.
	ArchivedRecordings(ctx context.Context) ([]ArchivedRecording, error)
	// MarkResourceDeleted sets the path of resource id from ArchivedPath to DeletedPath and
	// reports whether it did: of several replicas' retention rounds, one deletes each copy.
	MarkResourceDeleted(ctx context.Context, id string) (bool, error)
}

var agentKeyPattern = regexp.MustCompile(`^fga_[0-9A-Za-z]{40}$`)

// ValidAgentKeyFormat reports whether s is shaped like an agent key: fga_ + 40 base62 chars.
func ValidAgentKeyFormat(s string) bool { return agentKeyPattern.MatchString(s) }

// AuthenticateAgent resolves the key an agent presents on the agent link to its agent and
// records that the agent was seen. A malformed, unknown or revoked key is one and the same
// EUnauthorized, so a guesser learns nothing. A valid key is never refused; wrong ones count
// against clientAddr, and after 10 in a minute from one address they are answered
// ERateLimited until the oldest failure ages out (loginLimits).
func (ag *AgentService) AuthenticateAgent(ctx context.Context, key, clientAddr string) (fleetgate.Agent, error) {
	a, err := ag.validAgentKey(ctx, key)
	if err != nil {
		return fleetgate.Agent{}, failed(ag.keyLimit, clientAddr, "agent logins", err)
	}
	now := ag.now().UTC()
	if err := ag.store.TouchAgent(ctx, a.ID, now); err != nil {
		// The agent is who it says; a missed last-seen time must not keep it out.
		ag.log.Warn("recording agent contact failed", "agent_id", a.ID, "err", err)
	} else {
		a.LastSeen = now
	}
	return a, nil
}

func (ag *AgentService) validAgentKey(ctx context.Context, key string) (fleetgate.Agent, error) {
	invalid := fleetgate.Errorf(fleetgate.EUnauthorized, "invalid agent key")
	if !ValidAgentKeyFormat(key) {
		return fleetgate.Agent{}, invalid
	}
	a, err := ag.store.AgentByKeyHash(ctx, HashSecret(key))
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return fleetgate.Agent{}, invalid
	} else if err != nil {
		return fleetgate.Agent{}, err
	}
	if !a.RevokedAt.IsZero() {
		return fleetgate.Agent{}, invalid
	}
	return a, nil
}

// AgentSeen records when a linked agent was last heard from, as its link ends.
func (ag *AgentService) AgentSeen(ctx context.Context, agentID string, at time.Time) error {
	return ag.store.TouchAgent(ctx, agentID, at.UTC())
}

// RevokedAgents returns those of ids whose agent may no longer stay linked (its key revoked,
// or the agent gone), in one store query for many: the cloud re-checks every linked agent
// each second.
func (ag *AgentService) RevokedAgents(ctx context.Context, ids []string) ([]string, error) {
	active, err := ag.store.ActiveAgents(ctx, ids)
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
func (ag *AgentService) RevokeAgent(ctx context.Context, nameOrID string) (fleetgate.Agent, error) {
	nameOrID = strings.TrimSpace(nameOrID)
	if nameOrID == "" {
		return fleetgate.Agent{}, fleetgate.Errorf(fleetgate.EInvalid, "agent name or id is required")
	}
	org, err := ag.robots.defaultOrg(ctx)
	if err != nil {
		return fleetgate.Agent{}, err
	}
	a, err := ag.findAgent(ctx, org.ID, nameOrID)
	if err != nil {
		return fleetgate.Agent{}, err
	}
	now := ag.now().UTC()
	if err := ag.store.RevokeAgent(ctx, a.ID, now); err != nil {
		return fleetgate.Agent{}, err
	}
	a.RevokedAt = now
	return a, nil
}

// Agents lists the agents of the default organization, revoked ones included, by name.
func (ag *AgentService) Agents(ctx context.Context) ([]fleetgate.Agent, error) {
	org, err := ag.robots.defaultOrg(ctx)
	if err != nil {
		return nil, err
	}
	return ag.store.Agents(ctx, org.ID)
}

// findAgent resolves an agent of orgID by id, then by name. An agent of another organization
// is not found, whatever its id.
func (ag *AgentService) findAgent(ctx context.Context, orgID, nameOrID string) (fleetgate.Agent, error) {
	a, err := ag.store.Agent(ctx, nameOrID)
	if err == nil && a.OrgID == orgID {
		return a, nil
	} else if err != nil && fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		return fleetgate.Agent{}, err
	}
	// Operators keep a handful of agents; a list is cheaper than another store method.
	agents, err := ag.store.Agents(ctx, orgID)
	if err != nil {
		return fleetgate.Agent{}, err
	}
	for _, a := range agents {
		if a.Name == nameOrID {
			return a, nil
		}
	}
	return fleetgate.Agent{}, fleetgate.Errorf(fleetgate.ENotFound, "no agent %q", nameOrID)
}

// ProvisionAgent adds an agent (org admins only) and returns its key, shown once.
func (ag *AgentService) ProvisionAgent(ctx context.Context, c *Caller, name, fleetID string) (fleetgate.Agent, string, error) {
	if err := requireOrgAdmin(c); err != nil {
		return fleetgate.Agent{}, "", err
	}
	return ag.AddAgent(ctx, name, fleetID)
}

// OrgAgents lists the agents (org admins only).
func (ag *AgentService) OrgAgents(ctx context.Context, c *Caller) ([]fleetgate.AgentRow, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	agents, err := ag.Agents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.AgentRow, len(agents))
	for i, a := range agents {
		out[i] = ag.agentRow(a)
	}
	return out, nil
}

func (ag *AgentService) agentRow(a fleetgate.Agent) fleetgate.AgentRow {
	row := fleetgate.AgentRow{Agent: a, LastHeard: a.LastSeen}
	if ag.agentLinks != nil {
		if at, ok := ag.agentLinks(a.ID); ok {
			row.Connected, row.LastHeard = true, at
		}
	}
	return row
}

// RevokeOrgAgent revokes an agent's key (org admins only).
func (ag *AgentService) RevokeOrgAgent(ctx context.Context, c *Caller, agentID string) error {
	if err := requireOrgAdmin(c); err != nil {
		return err
	}
	_, err := ag.RevokeAgent(ctx, agentID)
	return err
}

// AddAgent provisions an agent in a fleet of the default organization and returns its key,
// which is shown once and stored only as a hash.
func (ag *AgentService) AddAgent(ctx context.Context, name, fleet string) (fleetgate.Agent, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return fleetgate.Agent{}, "", fleetgate.Errorf(fleetgate.EInvalid, "agent name is required")
	}
	org, f, err := ag.robots.defaultOrgFleet(ctx, fleet)
	if err != nil {
		return fleetgate.Agent{}, "", err
	}
	key := NewSecret(AgentKeyPrefix, 40)
	a := fleetgate.Agent{ID: uuid.NewString(), OrgID: org.ID, Name: name, FleetID: f.ID, KeyHash: HashSecret(key), CreatedAt: ag.now().UTC()}
	if err := ag.store.CreateAgent(ctx, a); err != nil {
		return fleetgate.Agent{}, "", err
	}
	return a, key, nil
}
