package server

import (
	"context"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/link"
)

// The event log across the agent link: a linked agent forwards the entries posted on its
// local gateway (eventOutbox), the cloud stores them under the agent (linkCore).

// SaveAgentEvents is cloud.Core's: the link's entries into the core's log.
func (c linkCore) SaveAgentEvents(ctx context.Context, agentID string, events []link.Event) error {
	out := make([]gateway.Event, len(events))
	for i, e := range events {
		out[i] = gateway.Event{RobotID: e.RobotID, AuthorEmail: e.Author, Message: e.Message, CreatedAt: e.CreatedAt, OriginID: e.LocalID}
	}
	return c.Gateway.SaveAgentEvents(ctx, agentID, out)
}

// eventOutbox is agent.Events over the core: the entries posted here the cloud has not
// confirmed, and a signal when one is posted.
type eventOutbox struct {
	gw     *gateway.Gateway
	posted chan struct{}
}

func newEventOutbox() *eventOutbox { return &eventOutbox{posted: make(chan struct{}, 1)} }

// notify signals a posted entry without blocking (one pending signal is enough).
func (o *eventOutbox) notify() {
	select {
	case o.posted <- struct{}{}:
	default:
	}
}

func (o *eventOutbox) Posted() <-chan struct{} { return o.posted }

func (o *eventOutbox) Unforwarded(ctx context.Context, limit int) ([]link.Event, error) {
	events, err := o.gw.UnforwardedEvents(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]link.Event, len(events))
	for i, e := range events {
		out[i] = link.Event{LocalID: e.ID, RobotID: e.RobotID, Author: e.AuthorEmail, Message: e.Message, CreatedAt: e.CreatedAt}
	}
	return out, nil
}

func (o *eventOutbox) Forwarded(ctx context.Context, ids []int64) error {
	return o.gw.EventsForwarded(ctx, ids)
}
