package live

import (
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// Forward is the Driver of an input stream another process governs (fleet.RemoteControl: a
// robot behind the agent link, seen from the cloud): each command is serialized and handed on,
// and the agent's door holds it to the robot's speeds, paces it and watches the deadman. The
// session's commands so go from here straight to the link, without passing the core again.
// onFault is called once when the governing process ends the control (the robot went away, a
// publish failed, the agent stopped answering), with its words.
func Forward(ctl fleet.RemoteControl, onFault func(error)) Driver {
	f := &forwarder{ctl: ctl, onFault: onFault, stopped: make(chan struct{}), gov: teleop.NewGovernor(nil, grantedPolicy(ctl))}
	go f.watch()
	return f
}

// grantedPolicy is the policy the governing process holds ctl to, as its grant said (read
// once when the control began there, as here), or the defaults when it said none (an older
// agent): the robot's own thresholds, set on its agent, are the widget's too.
func grantedPolicy(ctl fleet.RemoteControl) teleop.DelayPolicy {
	gc, ok := ctl.(fleet.GovernedControl)
	if !ok {
		return teleop.DelayPolicy{}
	}
	d, said := gc.Delays()
	p := teleop.DelayPolicy{Full: d.Full, Quarter: d.Quarter, Stop: d.Stop}
	if !said || p.Check() != nil {
		return teleop.DelayPolicy{}
	}
	return p
}

type forwarder struct {
	ctl      fleet.RemoteControl
	onFault  func(error)
	stopOnce sync.Once
	stopped  chan struct{}
	// gov is the cloud's view of the governor, for the operator's widget only: the agent
	// decides from its own measure of the link (its door never trusts the cloud to have scaled),
	// by the thresholds its grant said.
	gov *teleop.Governor
}

// Observe hands the operator's delay on to the governing process, with the commands to come.
// The widget's limit follows the delay that process will see: this one plus the way there
// (the agent adds its link's round trip), when the control knows it.
func (f *forwarder) Observe(d time.Duration) {
	shown := d
	if ld, ok := f.ctl.(fleet.LinkDelayer); ok {
		if rtt, known := ld.LinkDelay(); known {
			shown += rtt
		}
	}
	f.gov.Observe(shown)
	if dc, ok := f.ctl.(fleet.DelayCarrier); ok {
		dc.SetOperatorDelay(d)
	}
}

// Limit is the limit as the cloud sees it: the agent's, from the link's round trip the cloud
// measured (the agent measures its own, and decides).
func (f *forwarder) Limit() teleop.SpeedLimit { return f.gov.Limit() }

func (f *forwarder) Command(m proto.Message) error {
	payload, err := proto.Marshal(m)
	if err == nil {
		err = f.ctl.Command(payload)
	}
	if err != nil {
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "publishing to the robot failed", Err: err}
	}
	return nil
}

// Stop lets go: the agent publishes the zero (and so would its deadman, and its end of a lost
// link). The cloud cannot see that zero arrive, so Stop reports no error of its own.
func (f *forwarder) Stop() error {
	f.stopOnce.Do(func() {
		close(f.stopped)
		f.ctl.Release()
	})
	return nil
}

// watch ends the session when the agent ends the control.
func (f *forwarder) watch() {
	select {
	case <-f.stopped:
	case <-f.ctl.Done():
		// The agent's (or the link's) words go with the close: "the robot's gateway stopped
		// answering; it stops the robot by itself" says more than the close code can.
		err := f.ctl.Err()
		if fleetgate.Is(err, fleetgate.EConflict) || fleetgate.Is(err, fleetgate.EInvalid) {
			// Handed over or taken by a supervisor at the robot's door: its words say to whom.
			// A command the agent's door refused (a goal no path reaches, a speed no operator
			// means): the client's mistake, closed as the local gateway closes it (1008).
			f.onFault(err)
			return
		}
		code, words := fleetgate.EUnavailable, "publishing to the robot failed"
		if fleetgate.Is(err, fleetgate.EOffline) {
			code, words = fleetgate.EOffline, "the robot went offline"
		}
		if err != nil {
			words += ": " + fleetgate.ErrorMessage(err)
		}
		f.onFault(&fleetgate.Error{Code: code, Message: words, Err: err})
	}
}
