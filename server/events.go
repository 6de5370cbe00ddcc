package server

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// The event log across the agent link: a linked agent forwards the entries posted on its
// local gateway (eventOutbox), the cloud stores them under the agent (the core's SaveAgentEvents).

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

func (o *eventOutbox) Unforwarded(ctx context.Context, limit int) ([]fleetgate.Event, error) {
	return o.gw.UnforwardedEvents(ctx, limit)
}

func (o *eventOutbox) Forwarded(ctx context.Context, ids []int64) error {
	return o.gw.EventsForwarded(ctx, ids)
}
