package gateway

import (
	"context"
	"slices"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// MetricTypes is endpoint 10: the metric types a connected robot reports, by number.
func (ss *StreamService) MetricTypes(ctx context.Context, c *Caller, robotID string) ([]fleet.MetricType, error) {
	if robotID == "" {
		return nil, Errorf(EInvalid, "robotId is required")
	}
	r, live, err := ss.robots.liveRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	types, err := robotCall(ctx, r, live.Metrics)
	if err != nil {
		return nil, err
	}
	types = slices.Clone(types)
	slices.Sort(types)
	return slices.Compact(types), nil
}

// Metric is endpoint 11: one metric of a connected robot. name is required for the custom
// type (100) and ignored otherwise.
func (ss *StreamService) Metric(ctx context.Context, c *Caller, robotID string, typ fleet.MetricType, name string) (Robot, fleet.Metric, error) {
	if typ == fleet.MetricCustom && name == "" {
		return Robot{}, fleet.Metric{}, Errorf(EInvalid, "metricName is required for the custom metric (100)")
	}
	if typ != fleet.MetricCustom {
		name = ""
	}
	r, live, err := ss.robots.liveRobot(ctx, c, robotID, actView)
	if err != nil {
		return Robot{}, fleet.Metric{}, err
	}
	if !typ.Known() {
		return Robot{}, fleet.Metric{}, Errorf(ENotFound, "metric type %d does not exist", typ)
	}
	types, err := robotCall(ctx, r, live.Metrics)
	if err != nil {
		return Robot{}, fleet.Metric{}, err
	}
	if !slices.Contains(types, typ) {
		return Robot{}, fleet.Metric{}, Errorf(ENotFound, "robot %q does not report metric %s (%d)", r.Name, typ.Name(), typ)
	}
	m, err := robotCall(ctx, r, func(ctx context.Context) (fleet.Metric, error) { return live.Metric(ctx, typ, name) })
	if err != nil {
		return Robot{}, fleet.Metric{}, err
	}
	return r, m, nil
}
