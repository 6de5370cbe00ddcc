package gateway

import (
	"context"
	"slices"

	"github.com/fleetgate/fleetgate"
)

// MetricTypes is endpoint 10: the metric types a connected robot reports, by number.
func (ss *StreamService) MetricTypes(ctx context.Context, c *Caller, robotID string) ([]fleetgate.MetricType, error) {
	if robotID == "" {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "robotId is required")
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
func (ss *StreamService) Metric(ctx context.Context, c *Caller, robotID string, typ fleetgate.MetricType, name string) (fleetgate.Robot, fleetgate.Metric, error) {
	if typ == fleetgate.MetricCustom && name == "" {
		return fleetgate.Robot{}, fleetgate.Metric{}, fleetgate.Errorf(fleetgate.EInvalid, "metricName is required for the custom metric (100)")
	}
	if typ != fleetgate.MetricCustom {
		name = ""
	}
	r, live, err := ss.robots.liveRobot(ctx, c, robotID, actView)
	if err != nil {
		return fleetgate.Robot{}, fleetgate.Metric{}, err
	}
	if !typ.Known() {
		return fleetgate.Robot{}, fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "metric type %d does not exist", typ)
	}
	types, err := robotCall(ctx, r, live.Metrics)
	if err != nil {
		return fleetgate.Robot{}, fleetgate.Metric{}, err
	}
	if !slices.Contains(types, typ) {
		return fleetgate.Robot{}, fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q does not report metric %s (%d)", r.Name, typ.Name(), typ)
	}
	m, err := robotCall(ctx, r, func(ctx context.Context) (fleetgate.Metric, error) { return live.Metric(ctx, typ, name) })
	if err != nil {
		return fleetgate.Robot{}, fleetgate.Metric{}, err
	}
	return r, m, nil
}
