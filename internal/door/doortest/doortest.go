// Package doortest sends commands to robot sources in their own tests the way every path
// does: through a door. Its door holds commands to the streams' limits but lets them through
// at any rate and sends no deadman zero, so a source's test sees the source's own behaviour.
package doortest

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

var relaxed = door.New(door.Config{Deadman: 24 * time.Hour, MinInterval: time.Nanosecond, PublishTimeout: 10 * time.Second})

// Send publishes one message to robot's input stream key through the relaxed door.
func Send(ctx context.Context, robot fleet.Robot, key fleetgate.StreamKey, typ string, payload []byte) error {
	return relaxed.Send(ctx, robot, key, typ, payload, door.Who{User: "a test", Path: "test"})
}
