// Package fleet states the contract every robot source implements (simulated robots, ROS 1,
// robots behind the agent link) and keeps the registry of the robots connected now. The
// gateway core talks to robots only through this contract, so it never knows whether a
// robot lives in this process or behind a WebSocket.
package fleet

import (
	"context"
	"io"

	"github.com/fleetgate/fleetgate"
)

// ResourceFile is an open resource. The caller closes it.
type ResourceFile interface {
	io.ReadSeekCloser
}

// Robot is the contract of a robot source. Every method takes a context with the caller's
// deadline and returns fleetgate errors (ENotFound, EInvalid, EOffline, EUnavailable) where
// the caller can act on them. Implementations are safe for
// concurrent use.
type Robot interface {
	Info() fleetgate.Info
	Streams(ctx context.Context) ([]fleetgate.Stream, error)
	// Read returns the current value of an output stream, producing one when the stream is
	// computed on demand (a camera renders a frame).
	Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error)
	// Subscribe follows an output stream, latest value wins, until the subscription closes.
	// opts says what the subscriber needs; a source whose samples cross a network (a robot
	// behind the agent link) sends no more than that, others may ignore it.
	Subscribe(ctx context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*Subscription, error)
	// Input streams take messages only through the door of the gateway that hosts the robot
	// (internal/door): a hosted source implements door.Driven, a robot hosted elsewhere
	// RemoteDriven.
	// Metrics lists the metric types this robot reports.
	Metrics(ctx context.Context) ([]fleetgate.MetricType, error)
	// Metric reads one metric; name is the custom KPI name for MetricCustom and empty otherwise.
	Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error)
	// KPIs returns the latest value of every custom KPI.
	KPIs(ctx context.Context) ([]fleetgate.KPI, error)
	Resources(ctx context.Context) ([]fleetgate.Resource, error)
	OpenResource(ctx context.Context, id string) (ResourceFile, fleetgate.Resource, error)
}
