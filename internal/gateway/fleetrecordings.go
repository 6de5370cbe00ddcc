package gateway

import (
	"context"
	"slices"

	"github.com/fleetgate/fleetgate"
)

// FleetRecordings lists the finished recordings of every robot the caller may see, with
// their streams and span, newest first (the panel's recordings view). On the cloud they are
// the archive's copies, also of offline robots; on a local gateway, the connected robots'
// files. The names of the robots whose recordings could not be listed (offline on a local
// gateway) come apart.
func (ag *AgentService) FleetRecordings(ctx context.Context, c *Caller) (rows []fleetgate.RecordingRow, unreachable []string, err error) {
	robots, err := ag.robots.visibleRobots(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range robots {
		details, err := ag.ResourceDetails(ctx, c, r.ID)
		switch {
		case fleetgate.Is(err, fleetgate.EUnavailable):
			unreachable = append(unreachable, r.Name)
			continue
		case fleetgate.Is(err, fleetgate.ENotFound), fleetgate.Is(err, fleetgate.EForbidden):
			continue // removed meanwhile, or a role that may not list files
		case err != nil:
			return nil, nil, err
		}
		for _, d := range details {
			if d.MIMEType == mcapMIME {
				rows = append(rows, fleetgate.RecordingRow{ResourceDetail: d, RobotID: r.ID, RobotName: r.Name})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b fleetgate.RecordingRow) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return rows, unreachable, nil
}
