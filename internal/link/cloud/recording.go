package cloud

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
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

var _ fleet.FlightRecorder = (*RemoteRobot)(nil)

func (r *RemoteRobot) TriggerRecording(ctx context.Context, trigger, eventID string) (fleetgate.Recording, error) {
	return r.client().TriggerRecording(ctx, trigger, eventID)
}

var _ fleet.MessageTemplates = (*RemoteRobot)(nil)

// MessageTemplate asks the agent for the template of a type outside the catalog, when the
// robot lists it (the list is cached): robots that do not are not asked.
func (r *RemoteRobot) MessageTemplate(ctx context.Context, messageType string) ([]byte, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return nil, err
	}
	if !link.ListsOutputType(streams, messageType) {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no output stream of type %s", r.info.Name, messageType)
	}
	return r.client().MessageTemplate(ctx, messageType)
}

var _ fleet.RemoteTeleopSettings = (*RemoteRobot)(nil)

// TeleopSettings asks the agent, whose door governs the robot, to read or change its
// thresholds.
func (r *RemoteRobot) TeleopSettings(ctx context.Context, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	return r.client().TeleopSettings(ctx, req)
}
