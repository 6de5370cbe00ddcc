// Package fleetgate is the domain's vocabulary, shared by every layer: the records the core
// keeps (organizations, fleets, users, robots, tokens, agents, events, resources), what a
// robot offers (streams, samples, metrics, KPIs, resources, recordings), and the one coded
// Error every layer returns and maps at its edge (an HTTP status, a WebSocket close code, a
// link error kind). It imports nothing of this module; the robot contract (internal/fleet),
// the core (internal/gateway) and the adapters all speak it, so no layer translates another's
// errors or copies another's types.
package fleetgate
