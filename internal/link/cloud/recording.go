package cloud

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

var _ fleet.RecordingControl = (*RemoteRobot)(nil)

func (r *RemoteRobot) StartRecording(ctx context.Context, req fleetgate.RecordingRequest) (fleetgate.Recording, error) {
	return r.client().StartRecording(ctx, req)
}

func (r *RemoteRobot) StopRecording(ctx context.Context, id string) (fleetgate.Recording, error) {
	return r.client().StopRecording(ctx, id)
}

func (r *RemoteRobot) Recordings(ctx context.Context) ([]fleetgate.Recording, error) {
	return r.client().Recordings(ctx)
}
