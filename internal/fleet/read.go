package fleet

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
)

// ReadFirst is robot.Read under ctx's deadline less a tenth, kept to answer in: a read that
// waits for a stream's first sample (a camera still starting, a quiet topic) then ends with
// the source's ENoSample soon enough for its answer to reach a caller waiting for that
// deadline on the other side of a link, rather than that caller's own timer, which reads as a
// robot that did not answer. The gateway core reads a robot with it for endpoint 7, and the
// agent (link.Answer) for the cloud's reads, so a quiet stream behind the link is ENoSample too.
func ReadFirst(ctx context.Context, robot Robot, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return robot.Read(ctx, key)
	}
	wait := time.Until(deadline)
	readCtx, cancel := context.WithTimeout(ctx, wait-wait/10)
	defer cancel()
	return robot.Read(readCtx, key)
}

// NoSample is a source's answer to a read of key that waited for a first sample until the
// caller's deadline: the robot answers, its stream is quiet. It wraps no deadline error, which
// whoever answers a request (the agent's end of the link) takes for a robot that did not answer.
func NoSample(key fleetgate.StreamKey) error {
	name := key.Name
	if key.Component != "" {
		name = key.Component + "/" + key.Name
	}
	return fleetgate.Errorf(fleetgate.ENoSample, "no sample yet on %s", name)
}
