package gateway

import (
	"context"
	"strings"
	"unicode/utf8"
)

// MaxEventMessage is the largest event-log message, in bytes.
const MaxEventMessage = 4096

// PostEventInput is endpoint 12's query.
type PostEventInput struct {
	RobotID string
	FleetID string // optional
	Message string
}

// PostEvent records a user's event-log message. When it returns nil the entry is on disk.
func (g *Gateway) PostEvent(ctx context.Context, c *Caller, in PostEventInput) (Event, error) {
	switch {
	case in.RobotID == "":
		return Event{}, Errorf(EInvalid, "robotId is required")
	case strings.TrimSpace(in.Message) == "":
		return Event{}, Errorf(EInvalid, "message is required")
	case len(in.Message) > MaxEventMessage:
		return Event{}, Errorf(EInvalid, "message is %d bytes; the limit is %d", len(in.Message), MaxEventMessage)
	case !utf8.ValidString(in.Message):
		return Event{}, Errorf(EInvalid, "message is not valid UTF-8")
	}
	r, _, err := g.authorizeRobot(ctx, c, in.RobotID, actPostEvent)
	if err != nil {
		return Event{}, err
	}
	if in.FleetID != "" {
		if err := g.checkFleetVisible(ctx, c, in.FleetID); err != nil {
			return Event{}, err
		}
	}
	e := Event{
		RobotID:     r.ID,
		FleetID:     in.FleetID,
		UserID:      c.User.ID,
		AuthorEmail: c.User.Email,
		Message:     in.Message,
		CreatedAt:   g.now().UTC(),
	}
	if err := g.store.CreateEvent(ctx, &e); err != nil {
		return Event{}, err
	}
	if g.eventPosted != nil {
		g.eventPosted() // a local gateway's link forwards it to the cloud
	}
	return e, nil
}

// SaveAgentEvents stores entries posted on agent agentID's local gateway into this (the
// cloud's) log, under the agent's fleet; when it returns nil they are on disk. An entry
// already stored (sent again after a lost confirmation) stays as it was. The agent checked
// each entry as PostEvent does; what breaks those rules anyway is cut to them, not refused,
// so that one bad entry cannot hold up the agent's log forever.
func (g *Gateway) SaveAgentEvents(ctx context.Context, agentID string, events []Event) error {
	a, err := g.store.Agent(ctx, agentID)
	if err != nil {
		return err
	}
	for i := range events {
		e := &events[i]
		e.ID, e.UserID, e.AgentID, e.FleetID = 0, "", a.ID, a.FleetID
		if len(e.Message) > MaxEventMessage {
			e.Message = e.Message[:MaxEventMessage]
		}
		e.Message = strings.ToValidUTF8(e.Message, "\uFFFD")
		if e.CreatedAt.IsZero() {
			e.CreatedAt = g.now().UTC()
		}
	}
	return g.store.CreateAgentEvents(ctx, events)
}

// UnforwardedEvents lists up to limit entries posted here the cloud has not confirmed,
// oldest first (a linked agent's outbox).
func (g *Gateway) UnforwardedEvents(ctx context.Context, limit int) ([]Event, error) {
	return g.store.UnforwardedEvents(ctx, limit)
}

// EventsForwarded records that the cloud stored entries ids.
func (g *Gateway) EventsForwarded(ctx context.Context, ids []int64) error {
	return g.store.MarkEventsForwarded(ctx, ids, g.now().UTC())
}

// EventRow is an event-log entry as the panel's history shows it.
type EventRow struct {
	Event
	RobotName string
	FleetName string
	AgentName string // the local gateway it was posted on (the cloud's entries from agents)
}

// EventHistory lists the newest entries of the robots the caller may see, matching f, with
// the names of their robot, fleet and agent.
func (g *Gateway) EventHistory(ctx context.Context, c *Caller, f EventFilter) ([]EventRow, error) {
	robots, err := g.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(robots))
	for _, r := range robots {
		names[r.ID] = r.Name
	}
	if f.RobotID != "" && names[f.RobotID] == "" {
		return nil, Errorf(ENotFound, "robot %q not found", f.RobotID)
	}
	fleets, err := g.store.Fleets(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	fleetNames := map[string]string{}
	for _, fl := range fleets {
		fleetNames[fl.ID] = fl.Name
	}
	agents, err := g.store.Agents(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	agentNames := map[string]string{}
	for _, a := range agents {
		agentNames[a.ID] = a.Name
	}
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 200
	}
	want := f.Limit
	f.Limit = min(1000, want*4) // entries of robots the caller may not see are left out below
	events, err := g.store.Events(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]EventRow, 0, min(len(events), want))
	for _, e := range events {
		name, ok := names[e.RobotID]
		if !ok {
			continue
		}
		out = append(out, EventRow{Event: e, RobotName: name, FleetName: fleetNames[e.FleetID], AgentName: agentNames[e.AgentID]})
		if len(out) == want {
			break
		}
	}
	return out, nil
}

// checkFleetVisible answers ENotFound unless fleetID is a fleet of the caller's organization
// within the token's fleet restriction.
func (g *Gateway) checkFleetVisible(ctx context.Context, c *Caller, fleetID string) error {
	notFound := Errorf(ENotFound, "fleet %q not found", fleetID)
	f, err := g.store.Fleet(ctx, fleetID)
	if ErrorCode(err) == ENotFound {
		return notFound
	} else if err != nil {
		return err
	}
	if f.OrgID != c.User.OrgID || (c.Token.FleetID != "" && c.Token.FleetID != f.ID) {
		return notFound
	}
	return nil
}

// AgentChoice names an agent in a filter.
type AgentChoice struct{ ID, Name string }

// AgentChoices lists the agents of the caller's organization by name, for filters.
func (g *Gateway) AgentChoices(ctx context.Context, c *Caller) ([]AgentChoice, error) {
	agents, err := g.store.Agents(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	out := make([]AgentChoice, len(agents))
	for i, a := range agents {
		out[i] = AgentChoice{ID: a.ID, Name: a.Name}
	}
	return out, nil
}
