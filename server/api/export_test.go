package api

import (
	"time"

	"github.com/fleetgate/fleetgate/internal/live"
)

// SetControllerPing shortens the controller pings for a test; the returned func restores them.
func SetControllerPing(every, timeout time.Duration) (restore func()) {
	return live.SetControllerPing(every, timeout)
}
