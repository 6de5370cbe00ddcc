package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/mcap"
)

// subscriptionDepth is how many samples of a stream wait for the recorder's puller (a
// live viewer's subscription holds one): enough for the puller to miss no sample when it
// gets no CPU for a moment, or when a source publishes in bursts.
const subscriptionDepth = 64

// session is one running recording: a puller per stream takes samples from its
// subscription (buffered a little, else as any viewer's) into a queue bounded in bytes, and one
// writer moves them from the queue to the file. A slow disk fills the queue and the pullers
// drop samples; nothing upstream ever waits for the disk.
type session struct {
	r     *Recorder
	robot *Robot
	path  string
	f     file
	w     *mcap.Writer // owned by the writer goroutine once running
	subs  []*fleet.Subscription
	chans []uint16 // the MCAP channel of each subscription
	video []bool   // whether each subscription carries H.264 frames
	q     *queue

	ctx    context.Context // ends at stop: the pullers stop taking samples
	cancel context.CancelFunc
	done   chan struct{} // closed when the file is complete and the entry updated

	mu      sync.Mutex
	meta    meta // State, ErrorType and Reason are set by stop, once
	stopped bool
	// full: a limit was reached; nothing more is written.
	full bool

	size     atomic.Int64 // the file's estimated size, for the quota
	messages atomic.Int64
	dropped  atomic.Int64
	// received counts the samples the pullers learnt of: taken, or replaced before they
	// were (a sequence gap). Each is written, dropped or still on its way.
	received atomic.Int64
	timer    clock.Timer // the duration limit
}

// open creates the file of entry e, subscribes to the streams and starts the session.
func (r *Recorder) open(ctx context.Context, robot *Robot, e *entry, plans []plan) (*session, error) {
	s := &session{r: r, robot: robot, path: r.path(e.meta.ID), meta: e.meta, done: make(chan struct{}),
		q: newQueue(r.cfg.QueueBytes)}
	f, err := r.cfg.create(s.path)
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "creating the recording's file: %v", err)
	}
	s.f = f
	fail := func(err error) (*session, error) {
		for _, sub := range s.subs {
			sub.Close()
		}
		f.Close()
		return nil, err
	}
	w, err := mcap.NewWriter(f, mcap.Options{ChunkSize: r.cfg.ChunkSize, Library: r.cfg.Library})
	if err != nil {
		return fail(fleetgate.Errorf(fleetgate.EUnavailable, "writing the recording's file: %v", err))
	}
	s.w = w
	if err := w.WriteMetadata(r.fileMetadata(e.meta)); err != nil {
		return fail(fleetgate.Errorf(fleetgate.EUnavailable, "writing the recording's file: %v", err))
	}
	// Subscribing first lets a source learn an opaque type's definition from the stream
	// itself (a ROS publisher's connection header) before its channel is written.
	for _, p := range plans {
		var sub *fleet.Subscription
		if p.codec != "" {
			// As a viewer asks: the camera's encoder is shared with its H.264 viewers.
			sub, err = r.cfg.Video.Subscribe(ctx, robot.Info().ID, robot.Robot, p.stream.Key(), fleetgate.SubscribeOptions{Codec: p.codec})
		} else {
			sub, err = robot.Robot.Subscribe(ctx, p.stream.Key(), fleetgate.SubscribeOptions{MaxRate: e.meta.MaxRate})
		}
		if err != nil {
			return fail(err)
		}
		sub.Buffer(subscriptionDepth)
		s.subs = append(s.subs, sub)
		s.video = append(s.video, p.video())
	}
	for i, p := range plans {
		if p.messageEnc == mcap.MessageROS1 && p.schemaEncoding == "" {
			plans[i] = awaitDefinition(ctx, robot.Robot, p)
		}
	}
	if s.chans, err = addChannels(w, plans); err != nil {
		return fail(fleetgate.Errorf(fleetgate.EUnavailable, "writing the recording's file: %v", err))
	}
	s.size.Store(w.Estimate())
	s.ctx, s.cancel = context.WithCancel(context.Background())

	r.mu.Lock()
	e.s = s
	r.wg.Add(1)
	r.mu.Unlock()
	var pullers sync.WaitGroup
	for i := range s.subs {
		pullers.Add(1)
		go func() {
			defer pullers.Done()
			s.pull(i)
		}()
	}
	go s.write(&pullers)
	if d := e.meta.Duration; d > 0 {
		s.timer = r.clock.AfterFunc(d, func() { s.stop("duration limit", "", fleetgate.RecordingStopped) })
	}
	return s, nil
}

// addChannels writes the schemas (each once) and the channels of plans, and returns the
// channel of each plan.
func addChannels(w *mcap.Writer, plans []plan) ([]uint16, error) {
	schemas := map[string]uint16{}
	chans := make([]uint16, 0, len(plans))
	for _, p := range plans {
		var schemaID uint16
		if p.schemaEncoding != "" {
			key := p.schemaEncoding + "\x00" + p.schemaName + "\x00" + string(p.schema)
			if id, ok := schemas[key]; ok {
				schemaID = id
			} else {
				id, err := w.AddSchema(p.schemaName, p.schemaEncoding, p.schema)
				if err != nil {
					return nil, err
				}
				schemaID = id
			}
			schemas[key] = schemaID
		}
		md := map[string]string{"component": p.stream.Component, "stream": p.stream.Name,
			"source": fmt.Sprint(int(p.stream.Source)), "type": p.stream.Type}
		if p.stream.Direction == fleetgate.Input {
			md["direction"] = "input" // the commands that went out through the door
		}
		ch, err := w.AddChannel(schemaID, p.topic, p.messageEnc, md)
		if err != nil {
			return nil, err
		}
		chans = append(chans, ch)
	}
	return chans, nil
}

// definitionWait bounds the wait for an opaque stream's definition at the start of a
// recording: a publisher sends it when it connects, which takes a moment after subscribing.
const definitionWait = 2 * time.Second

// awaitDefinition asks the source for the definition of an opaque stream's type until it
// knows it, definitionWait passes or ctx ends; without one the stream is recorded without a
// schema.
func awaitDefinition(ctx context.Context, robot fleet.Robot, p plan) plan {
	if _, ok := fleet.As[fleet.MessageDefinitions](robot); !ok {
		return p
	}
	ctx, cancel := context.WithTimeout(ctx, definitionWait)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if q, err := schemaOf(ctx, robot, p.stream); err == nil && q.schemaEncoding != "" {
			q.topic = p.topic
			return q
		}
		select {
		case <-ctx.Done():
			return p
		case <-tick.C:
		}
	}
}

// stop ends the session once: the first reason wins.
func (s *session) stop(reason, errorType, state string) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	s.meta.Reason, s.meta.ErrorType, s.meta.State = reason, errorType, state
	s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.cancel()
}

// snapshot is the recording as it is now: running until its file is complete, even once
// told to stop (a recording reported stopped has a complete file).
func (s *session) snapshot() fleetgate.Recording {
	s.mu.Lock()
	m := s.meta
	s.mu.Unlock()
	m.State, m.Reason, m.ErrorType = fleetgate.RecordingActive, "", ""
	m.Size, m.Messages, m.Dropped = s.size.Load(), s.messages.Load(), s.dropped.Load()
	return m.recording()
}

// item is a sample on its way to the file.
type item struct {
	channel uint16
	sample  fleetgate.Sample
	at      time.Time // when the recorder received it: the message's log time
}

// pull moves the samples of subscription i to the queue until the session stops or the
// subscription ends (the robot went away).
func (s *session) pull(i int) {
	sub := s.subs[i]
	defer sub.Close()
	var interval time.Duration
	if rate := s.meta.MaxRate; rate > 0 {
		interval = time.Duration(float64(time.Second) / rate)
	}
	var last uint64
	var next time.Time
	// H.264: a frame lost (a gap, a full queue) takes the frames after it down with it, up to
	// the next keyframe, which the file then starts again from; it also starts at one.
	video := s.video[i]
	awaitKey := video
	if video {
		interval = 0 // a cap would thin pictures that later ones refer to
	}
	for {
		sample, err := sub.Next(s.ctx)
		if err != nil {
			if s.ctx.Err() == nil {
				s.stop("the robot went offline", fleetgate.RecordingRobotOffline, fleetgate.RecordingStopped)
			}
			return
		}
		now := s.r.clock.Now()
		if interval > 0 {
			// The cap: at most one sample per interval, the newest when the wait ends.
			if now.Before(next) {
				if !sleep(s.ctx, s.r.clock, next.Sub(now)) {
					return
				}
				for newer, ok := sub.Take(); ok; newer, ok = sub.Take() {
					sample = newer
				}
				now = s.r.clock.Now()
			}
			next = now.Add(interval)
		} else if last > 0 && sample.Seq > last+1 {
			// Samples the subscription's slot replaced before this puller took them.
			s.dropped.Add(int64(sample.Seq - last - 1))
			s.received.Add(int64(sample.Seq - last - 1))
			awaitKey = video
		}
		last = sample.Seq
		s.received.Add(1)
		if awaitKey && !keyframe(sample) {
			s.dropped.Add(1)
			continue
		}
		awaitKey = false
		if !s.q.push(item{channel: s.chans[i], sample: sample, at: now}) {
			s.dropped.Add(1)
			awaitKey = video
		}
	}
}

// sleep waits d on clock c; false if ctx ended meanwhile.
func sleep(ctx context.Context, c clock.Clock, d time.Duration) bool {
	wake := make(chan struct{})
	t := c.AfterFunc(d, func() { close(wake) })
	defer t.Stop()
	select {
	case <-wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// write moves queued samples to the file until the session stops and its pullers are done,
// then completes the file.
func (s *session) write(pullers *sync.WaitGroup) {
	defer s.r.wg.Done()
	defer close(s.done)
	flush := make(chan struct{}, 1)
	var (
		tickMu    sync.Mutex
		ticker    clock.Timer
		tickerEnd bool
		tick      func()
	)
	tick = func() {
		select {
		case flush <- struct{}{}:
		default:
		}
		tickMu.Lock()
		defer tickMu.Unlock()
		if !tickerEnd {
			ticker = s.r.clock.AfterFunc(s.r.cfg.FlushEvery, tick)
		}
	}
	tickMu.Lock()
	ticker = s.r.clock.AfterFunc(s.r.cfg.FlushEvery, tick)
	tickMu.Unlock()
	defer func() {
		tickMu.Lock()
		tickerEnd = true
		ticker.Stop()
		tickMu.Unlock()
	}()
	pullersDone := make(chan struct{})
	go func() {
		pullers.Wait()
		close(pullersDone)
	}()
	lastSync := s.r.clock.Now()
	var batch []item
	for {
		select {
		case <-s.q.ready:
			batch = s.q.drain(batch[:0])
			s.writeItems(batch)
			clear(batch)
		case <-flush:
			if err := s.w.Flush(); err != nil {
				s.failed(err)
			} else if now := s.r.clock.Now(); now.Sub(lastSync) >= s.r.cfg.SyncEvery {
				lastSync = now
				if err := s.f.Sync(); err != nil {
					s.failed(err)
				}
			}
		case <-pullersDone:
			// What was received before the stop still goes to the file.
			batch = s.q.drain(batch[:0])
			s.writeItems(batch)
			s.complete()
			return
		}
	}
}

// writeItems writes samples to the file within the size limit and the quota.
func (s *session) writeItems(items []item) {
	for _, it := range items {
		if s.w.Err() != nil || s.isFull() {
			return
		}
		m := mcap.Message{ChannelID: it.channel, Sequence: uint32(it.sample.Seq), LogTime: mcap.Time(it.at),
			PublishTime: mcap.Time(it.sample.Time), Data: it.sample.Payload}
		need := int64(len(m.Data)) + 64
		if limit := s.meta.MaxBytes; limit > 0 && s.w.Estimate()+need > limit {
			// Compressing the open chunk may make room; if not, the limit is reached.
			if err := s.w.Flush(); err != nil {
				s.failed(err)
				return
			}
			if s.w.Estimate()+need > limit {
				s.limit("size limit", "", fleetgate.RecordingStopped)
				return
			}
		}
		s.r.mu.Lock()
		room := s.r.makeRoomLocked(s.meta.RobotID, need)
		var why string
		if !room {
			why = s.r.noRoomLocked(s.meta.RobotID, s.meta.RobotName, need)
		}
		s.r.mu.Unlock()
		if !room {
			s.limit(why, fleetgate.RecordingQuotaExceeded, fleetgate.RecordingFailed)
			return
		}
		if err := s.w.WriteMessage(m); err != nil {
			s.failed(err)
			return
		}
		s.messages.Add(1)
		s.size.Store(s.w.Estimate())
	}
}

func (s *session) isFull() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full
}

// limit stops the session at a limit: the samples still queued are not written.
func (s *session) limit(reason, errorType, state string) {
	s.mu.Lock()
	s.full = true
	s.mu.Unlock()
	s.stop(reason, errorType, state)
}

// failed stops the session after a write error: the disk is full or failing.
func (s *session) failed(err error) {
	errorType, reason := fleetgate.RecordingWriteError, "write error: "+err.Error()
	if isDiskFull(err) {
		errorType, reason = fleetgate.RecordingDiskFull, "the disk is full"
	}
	s.r.log.Error("recording failed", "recording", s.meta.ID, "robot", s.meta.RobotName, "err", err)
	s.stop(reason, errorType, fleetgate.RecordingFailed)
}

// complete finishes the file: its summary written and synced, or, after a write error,
// recovered up to its last complete chunk. Then the entry records how it ended.
func (s *session) complete() {
	fileOK := false
	if s.w.Err() == nil {
		err := s.w.Close()
		if err == nil {
			err = s.f.Sync()
		}
		if err != nil {
			s.failed(err)
		} else {
			fileOK = true
		}
	}
	if err := s.f.Close(); err != nil && fileOK {
		s.failed(err)
		fileOK = false
	}
	s.mu.Lock()
	m := s.meta
	s.mu.Unlock()
	m.End = s.r.clock.Now().UTC().Truncate(time.Millisecond)
	m.Messages, m.Dropped = s.messages.Load(), s.dropped.Load()
	if !fileOK {
		// Keep what the disk holds up to the last complete chunk.
		rec, err := mcap.Recover(s.path)
		switch {
		case err == nil:
			fileOK = true
			m.Messages = int64(rec.Messages)
		case errors.Is(err, mcap.ErrMalformed), errors.Is(err, os.ErrNotExist):
			// Not even a header made it to the disk.
		default:
			s.r.log.Warn("a failed recording's file could not be finalised; trying again at the next start", "recording", m.ID, "err", err)
			m.NeedsRecovery = true
		}
	}
	if fileOK {
		if st, err := os.Stat(s.path); err == nil {
			m.Size = st.Size()
		}
	}
	s.r.log.Info("recording ended", "recording", m.ID, "robot", m.RobotName, "state", m.State, "reason", m.Reason,
		"messages", m.Messages, "dropped", m.Dropped, "size", m.Size)
	s.r.finished(m, fileOK)
}

// queue holds the samples between the pullers and the writer, up to a number of bytes.
type queue struct {
	mu       sync.Mutex
	items    []item
	bytes    int
	maxBytes int
	ready    chan struct{}
}

func newQueue(maxBytes int) *queue {
	return &queue{maxBytes: maxBytes, ready: make(chan struct{}, 1)}
}

// push queues it, or refuses it when the queue is full (an empty queue takes any sample).
func (q *queue) push(it item) bool {
	q.mu.Lock()
	if len(q.items) > 0 && q.bytes+len(it.sample.Payload) > q.maxBytes {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, it)
	q.bytes += len(it.sample.Payload)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// drain appends every queued item to into and empties the queue.
func (q *queue) drain(into []item) []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	into = append(into, q.items...)
	clear(q.items)
	q.items, q.bytes = q.items[:0], 0
	return into
}

func isDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }
