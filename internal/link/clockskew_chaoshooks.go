//go:build chaoshooks

package link

import (
	"os"
	"time"
)

// The chaos tests' agent with a clock off by FLEETGATE_CHAOS_CLOCK_SKEW (a Go duration): the
// times it stamps on the link are moved by it, as a host whose clock is wrong stamps them
// (cmd/fleetgate/chaos_clock_test.go). Only a binary built with -tags chaoshooks has this.
func init() {
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_CHAOS_CLOCK_SKEW")); err == nil {
		wireClockSkew = d
	}
}
