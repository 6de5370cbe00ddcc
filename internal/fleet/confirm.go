package fleet

import (
	"context"
	"time"
)

// Confirmer is implemented by a robot another process hosts (a robot behind the agent link):
// what the gateway says of it is only as fresh as that process's last answer. A robot of this
// process has nothing to confirm and does not implement it (find it with As).
type Confirmer interface {
	// Confirm returns when the hosting process last answered (a frame or a pong). Asking keeps
	// that process being asked (pinged) for a while, so that a page showing the robot's state
	// gets fresh answers; when the last answer is older than one round of asking, Confirm asks
	// now and waits for the answer until ctx ends.
	Confirm(ctx context.Context) time.Time
}
