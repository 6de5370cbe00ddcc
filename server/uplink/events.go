package uplink

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// eventRetry is how long the agent waits for the cloud's confirmation of a batch, and
// between tries after a failure.
const eventRetry = 10 * time.Second

// pushEvents forwards the local event log: every unconfirmed entry at the start of a session
// (so nothing posted while the link was down is lost), then each new one as it is posted.
// One batch is in flight at a time; an entry is forgotten only once the cloud says it is on
// its disk, and sent again otherwise (the cloud keeps one copy per entry).
func (s *session) pushEvents() {
	ev := s.a.cfg.Core
	for {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		batch, err := ev.Unforwarded(ctx, link.MaxEventBatch)
		cancel()
		if err != nil && !s.over() {
			s.a.log.Warn("reading the event log to forward failed", "err", err)
		}
		if len(batch) > 0 && err == nil {
			if s.sendEvents(batch) && len(batch) == link.MaxEventBatch {
				continue // more waiting
			}
		}
		select {
		case <-s.done:
			return
		case <-ev.Posted():
		case <-time.After(eventRetry):
		}
	}
}

// sendEvents sends one batch and waits for the cloud's confirmation; true when it came.
func (s *session) sendEvents(batch []fleetgate.Event) bool {
	select {
	case <-s.eventsStored: // a confirmation that came after its batch timed out
	default:
	}
	f := &linkpb.Frame{Body: &linkpb.Frame_Events{Events: &linkpb.EventBatch{Events: link.EventsToWire(batch)}}}
	if s.write(f, 10*time.Second) != nil {
		return false
	}
	select {
	case <-s.done:
		return false
	case ids := <-s.eventsStored:
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		if err := s.a.cfg.Core.Forwarded(ctx, ids); err != nil {
			// Sent again next time: the cloud keeps one copy.
			s.a.log.Warn("recording forwarded events failed", "err", err)
			return false
		}
		return true
	case <-time.After(eventRetry):
		s.a.log.Warn("the cloud did not confirm event-log entries in time; sending them again", "entries", len(batch))
		return false
	}
}

// eventsDone hands the cloud's confirmation to pushEvents, in the reader goroutine (one
// waits at most: a batch is in flight at a time; a late one is drained before the next
// batch, whose entries the cloud keeps once).
func (s *session) eventsDone(ids []int64) {
	select {
	case s.eventsStored <- ids:
	default:
	}
}
