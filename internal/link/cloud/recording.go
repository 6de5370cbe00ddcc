package cloud

import (
	"context"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

var _ fleet.RecordingControl = (*RemoteRobot)(nil)

// recording asks the agent's recorder; want is how many recordings the answer must hold
// (-1: any).
func (r *RemoteRobot) recording(ctx context.Context, op *linkpb.RecordingControl, want int) ([]fleet.Recording, error) {
	resp, err := r.call(ctx, &linkpb.Request{Op: &linkpb.Request_Recording{Recording: op}})
	if err != nil {
		return nil, err
	}
	if resp.GetRecordings() == nil || want >= 0 && len(resp.GetRecordings().GetRecordings()) != want {
		return nil, unexpected(resp)
	}
	return link.RecordingsFromWire(resp.GetRecordings()), nil
}

func (r *RemoteRobot) StartRecording(ctx context.Context, req fleet.RecordingRequest) (fleet.Recording, error) {
	list, err := r.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Start{Start: link.RecordingRequestToWire(req)}}, 1)
	if err != nil {
		return fleet.Recording{}, err
	}
	return list[0], nil
}

func (r *RemoteRobot) StopRecording(ctx context.Context, id string) (fleet.Recording, error) {
	list, err := r.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Stop{Stop: id}}, 1)
	if err != nil {
		return fleet.Recording{}, err
	}
	return list[0], nil
}

func (r *RemoteRobot) Recordings(ctx context.Context) ([]fleet.Recording, error) {
	return r.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_List{List: &linkpb.Empty{}}}, -1)
}
