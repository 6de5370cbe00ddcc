package fleet

import (
	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/msgs"
)

// CustomMetric is the Custom metric (type 100) named name among a robot's current KPIs: the
// KPI's value as the contract's metric classes carry it. A name the robot has no KPI for now
// is ENotFound; robot names the robot in the error.
func CustomMetric(kpis []fleetgate.KPI, name, robot string) (fleetgate.Metric, error) {
	for _, k := range kpis {
		if k.Name == name && name != "" {
			v, err := msgs.KPIValue(k.DataType, k.Payload)
			if err != nil {
				return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.EUnavailable, "custom KPI %s: %v", name, err)
			}
			return fleetgate.Metric{Type: fleetgate.MetricCustom, Name: name, Value: v}, nil
		}
	}
	return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no custom KPI %q now", robot, name)
}
