package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/record"
)

// The gateway's journal: every change of a stream's control and every refusal the door logs
// become teleop entries of the event log, a recording's start and end a recording entry, on the gateway that hosts the robot (and, through a
// linked agent's outbox, on the cloud). The door must never wait for the store: changes queue
// here and one goroutine writes them; when the queue is full they are counted, not kept.

const journalQueue = 256

type journal struct {
	log    *slog.Logger
	queue  chan fleetgate.Event
	record func(context.Context, fleetgate.Event) error // set before the door is used

	mu      sync.Mutex
	dropped int
	stopped bool // run has returned
	done    chan struct{}
}

func newJournal(log *slog.Logger) *journal {
	return &journal{log: log, queue: make(chan fleetgate.Event, journalQueue), done: make(chan struct{})}
}

// add is door.Config.Journal.
func (j *journal) add(c door.Change) {
	e := fleetgate.Event{RobotID: c.RobotID, AuthorEmail: c.Who.User, Message: c.What, CreatedAt: c.At.UTC(),
		Type: fleetgate.EventTeleop, Severity: fleetgate.SeverityInfo}
	if c.Refusal {
		e.Severity = fleetgate.SeverityWarning
	}
	j.queueEvent(e)
}

const systemAuthor = gateway.SystemAuthor

// addRecording is record.Config.Journal: a recording's start and end.
func (j *journal) addRecording(m record.Milestone) {
	e := fleetgate.Event{RobotID: m.RobotID, AuthorEmail: systemAuthor, Message: m.What, CreatedAt: m.At.UTC(),
		Type: fleetgate.EventRecording, Severity: fleetgate.SeverityInfo, RecordingID: m.Recording}
	if m.Failed {
		e.Severity = fleetgate.SeverityError
	}
	j.queueEvent(e)
}

// queueEvent queues e for the writer; once the writer has stopped (the recordings that the
// shutdown completes end after it), e is written here, within a second.
func (j *journal) queueEvent(e fleetgate.Event) {
	j.mu.Lock()
	stopped := j.stopped
	j.mu.Unlock()
	if stopped {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := j.record(ctx, e); err != nil {
			j.log.Warn("an entry of the event log was not stored", "robot_id", e.RobotID, "err", err)
		}
		return
	}
	select {
	case j.queue <- e:
	default:
		j.mu.Lock()
		j.dropped++
		j.mu.Unlock()
	}
}

// run writes the queued entries until ctx ends, then what is left within a second.
func (j *journal) run(ctx context.Context) {
	defer close(j.done)
	write := func(ctx context.Context, e fleetgate.Event) {
		if err := j.record(ctx, e); err != nil {
			j.log.Warn("a teleop entry of the event log was not stored", "robot_id", e.RobotID, "err", err)
		}
		j.mu.Lock()
		dropped := j.dropped
		j.dropped = 0
		j.mu.Unlock()
		if dropped > 0 {
			j.log.Warn("teleop entries of the event log left out: the store fell behind", "count", dropped)
		}
	}
	for {
		select {
		case e := <-j.queue:
			write(ctx, e)
		case <-ctx.Done():
			flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			for {
				select {
				case e := <-j.queue:
					write(flush, e)
				default:
					j.mu.Lock()
					j.stopped = true
					j.mu.Unlock()
					// What was queued before the flag was seen goes out too.
					for {
						select {
						case e := <-j.queue:
							write(flush, e)
						default:
							return
						}
					}
				}
			}
		}
	}
}
