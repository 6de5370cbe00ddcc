package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
	"github.com/fleetgate/fleetgate/internal/webhook"
)

// alertSweepEvery is how often the gateway derives every robot's alerts for the tracker: an
// alert is raised, cleared and escalated within it (the pages derive theirs each time they
// ask, and an acknowledgement looks again first).
const alertSweepEvery = 2 * time.Second

// addAlert is the alert tracker's journal: a raising, an acknowledgement or a clearing
// becomes an alert entry of the event log (an error for a critical alert, else a warning).
func (j *journal) addAlert(c alert.Change) {
	e := fleetgate.Event{RobotID: c.Alert.RobotID, AuthorEmail: systemAuthor, CreatedAt: c.At.UTC(),
		Type: fleetgate.EventAlert, Severity: fleetgate.SeverityWarning}
	if c.Alert.Critical {
		e.Severity = fleetgate.SeverityError
	}
	switch c.What {
	case alert.Raised:
		e.Message = fmt.Sprintf("alert raised (%s): %s", c.Alert.Kind, c.Alert.Words)
	case alert.Acknowledged:
		e.AuthorEmail = c.Alert.AckBy
		e.Message = fmt.Sprintf("alert acknowledged by %s after %s (%s): %s", c.Alert.AckBy, roundAge(c.At.Sub(c.Alert.Since)), c.Alert.Kind, c.Alert.Words)
	case alert.Cleared:
		e.Message = fmt.Sprintf("alert cleared after %s (%s): %s", roundAge(c.At.Sub(c.Alert.Since)), c.Alert.Kind, c.Alert.Words)
	}
	j.queueEvent(e)
}

// alertChanged is the alert tracker's journal: the change becomes an entry, and an alert
// raised for a robot recorded here triggers its flight recorder (issue 34: what the robot saw
// before it went blocked, low or quiet is what an admin wants next to the entry). A robot
// whose source is gone (offline) has nothing more to record: its buffer is still written.
func (s *Server) alertChanged(c alert.Change) {
	s.journal.addAlert(c)
	if c.What != alert.Raised || s.recorder == nil {
		return
	}
	trigger := "alert: " + string(c.Alert.Kind)
	go func() {
		if _, err := s.recorder.Trigger(c.Alert.RobotID, trigger, ""); err != nil && !fleetgate.Is(err, fleetgate.EUnavailable) && !fleetgate.Is(err, fleetgate.ENotFound) {
			s.log.Warn("the flight recorder did not record", "robot_id", c.Alert.RobotID, "trigger", trigger, "err", err)
		}
	}()
}

func roundAge(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// escalations posts the core's escalated alerts with the webhook sender.
type escalations struct{ *webhook.Sender }

func (e escalations) Escalate(h fleetgate.Webhook, a fleetgate.OpenAlert, robotName string) {
	severity := "warning"
	if a.Critical {
		severity = "error"
	}
	e.Sender.Escalate(h, webhook.Escalation{RobotID: a.RobotID, RobotName: robotName, FleetID: a.FleetID, Kind: string(a.Kind),
		Severity: severity, Words: a.Words, Since: a.Since.UTC(), UnacknowledgedSeconds: int64(a.Escalated.Sub(a.Since).Seconds())})
}

// cloudAlertGrace is how long a cloud that just started waits before its first sweep: its
// agents' links come back within it, and their robots are not raised offline (and cleared a
// moment later, two entries each) for a restart of the cloud alone.
const cloudAlertGrace = 30 * time.Second

// runAlerts sweeps the robots' alerts until ctx ends; the pending webhook retries end with it.
func (s *Server) runAlerts(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		defer s.webhooks.Close()
		if s.cfg.Mode == ModeCloud {
			select {
			case <-ctx.Done():
				return
			case <-time.After(cloudAlertGrace):
			}
		}
		t := time.NewTicker(alertSweepEvery)
		defer t.Stop()
		for {
			if err := s.gw.SweepAlerts(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("the alerts were not swept", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}
