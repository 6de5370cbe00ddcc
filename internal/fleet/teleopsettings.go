package fleet

import (
	"context"

	"github.com/fleetgate/fleetgate"
)

// TeleopSettingsRequest is a user's read or change of a robot's thresholds of the speed
// governor, made where the robot is not hosted (the cloud) and carried out where it is (the
// agent, whose door governs the robot's sessions).
type TeleopSettingsRequest struct {
	// User is the user's email, and Role their role on the robot as the asking side found it:
	// the hosting side checks it again and names the user in its event log.
	User string
	Role fleetgate.Role
	// Set, when not nil, gives the robot these thresholds; Reset returns it to the host's
	// defaults; neither: read them.
	Set   *fleetgate.TeleopDelays
	Reset bool
}

// TeleopSettings are a robot's thresholds as its host governs by them: its own (Custom, set
// by Delays.UpdatedBy at Delays.UpdatedAt) or the host's defaults.
type TeleopSettings struct {
	Delays fleetgate.TeleopDelays
	Custom bool
}

// RemoteTeleopSettings is a robot whose thresholds another process keeps: a robot behind the
// agent link (cloud.RemoteRobot), or one whose link another cloud replica holds
// (cluster.Robot).
type RemoteTeleopSettings interface {
	TeleopSettings(ctx context.Context, req TeleopSettingsRequest) (TeleopSettings, error)
}

// GovernedControl is a RemoteControl whose grant said the thresholds the governing process
// holds it to (read once when the control began, as that process's door does): the
// operator's widget shows the limit the robot gets. ok is false when the grant said none
// (an older agent).
type GovernedControl interface {
	Delays() (d fleetgate.TeleopDelays, ok bool)
}

// Governed keeps the thresholds a control's grant said, for its GovernedControl; the zero
// value is a grant that said none.
type Governed struct {
	delays fleetgate.TeleopDelays
	said   bool
}

// GovernedBy is a grant that said d.
func GovernedBy(d fleetgate.TeleopDelays) Governed { return Governed{delays: d, said: true} }

func (g Governed) Delays() (fleetgate.TeleopDelays, bool) { return g.delays, g.said }
