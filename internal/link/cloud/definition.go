package cloud

import (
	"context"
	"sync"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// definitions are the type definitions the agent gave for the robot, by type, for the link's
// session: a type's definition does not change while its publisher runs, and each Foxglove
// session asks again for every stream outside the catalog. At most maxCachedDefinitions
// types are kept (each at most link.MaxDefinitionBytes), so a robot listing many types
// costs round trips, not memory.
type definitions struct {
	mu     sync.Mutex
	byType map[string]definition
	// refused is the agent's ENotImplemented (older than the request), given again unasked.
	refused error
}

const maxCachedDefinitions = 64

type definition struct{ encoding, text string }

var _ fleet.MessageDefinitions = (*RemoteRobot)(nil)

// MessageDefinition asks the agent for the definition of the type of output stream key, once
// per type and link session; a stream the robot does not list as an output is not asked for.
// An agent older than the request refuses it (ENotImplemented), and is not asked again.
func (r *RemoteRobot) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return "", "", err
	}
	typ := ""
	for _, s := range streams {
		if s.Key() == key && s.Direction == fleetgate.Output {
			typ = s.Type
		}
	}
	if typ == "" {
		return "", "", fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no output stream %s", r.info.Name, key.Name)
	}
	r.defs.mu.Lock()
	d, ok := r.defs.byType[typ]
	refused := r.defs.refused
	r.defs.mu.Unlock()
	if ok {
		return d.encoding, d.text, nil
	}
	if refused != nil {
		return "", "", refused
	}
	enc, text, err := r.client().MessageDefinition(ctx, key)
	if fleetgate.Is(err, fleetgate.ENotImplemented) {
		r.defs.mu.Lock()
		r.defs.refused = err
		r.defs.mu.Unlock()
	}
	if err != nil {
		return "", "", err
	}
	r.defs.mu.Lock()
	if r.defs.byType == nil {
		r.defs.byType = map[string]definition{}
	}
	if len(r.defs.byType) < maxCachedDefinitions {
		r.defs.byType[typ] = definition{enc, text}
	}
	r.defs.mu.Unlock()
	return enc, text, nil
}
