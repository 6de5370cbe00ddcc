package record

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/mcap"
)

// The flight recorder: per robot, a rolling buffer in memory of chosen output streams (every
// camera, pose, odometry and scan) and of the commands the door sent to its input streams,
// over the last FlightConfig.Buffer. A trigger (Trigger) turns the buffer into a recording
// that covers it and FlightConfig.After more, written to a file when that time has passed: a
// recording like the others, a resource of its robot, named after its trigger. Robots and
// streams the buffer does not keep cost nothing: it subscribes only to what it keeps, and
// with a Buffer of 0 to nothing at all.

// Defaults of the flight recorder (the flags --flight-buffer, --flight-buffer-max and
// --flight-after).
const (
	DefaultFlightBuffer   = 60 * time.Second
	DefaultFlightMaxBytes = 256 << 20
	DefaultFlightAfter    = 10 * time.Second
)

const (
	// flightRetry is the wait before listing a robot's streams again when it was offline
	// or its subscriptions ended; flightIdle when it had no stream to keep.
	flightRetry = 2 * time.Second
	flightIdle  = 30 * time.Second
	// itemOverhead is what a buffered sample costs besides its payload, for the byte cap.
	itemOverhead = 96
	// maxTrigger bounds a trigger's words in the file's name and metadata.
	maxTrigger = 200
)

// FlightConfig configures the flight recorder.
type FlightConfig struct {
	// Buffer is how far back the buffer reaches; 0: no flight recorder.
	Buffer time.Duration
	// MaxBytes caps one robot's buffer (DefaultFlightMaxBytes when 0): past it, every other
	// camera frame of the older half goes first, then the oldest samples. A recording being
	// made holds at most as much again of what follows its trigger.
	MaxBytes int64
	// After is how long a recording goes on after its trigger (DefaultFlightAfter when 0).
	After time.Duration
	// Keep chooses the output streams buffered (KeepInFlight when nil).
	Keep func(fleetgate.Stream) bool
}

func (c FlightConfig) withDefaults() FlightConfig {
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultFlightMaxBytes
	}
	if c.After <= 0 {
		c.After = DefaultFlightAfter
	}
	if c.Keep == nil {
		c.Keep = KeepInFlight
	}
	return c
}

// flightTypes are the types the flight recorder keeps by default (their last name, of the
// catalog or of ROS): cameras, poses, odometry and laser scans.
var flightTypes = map[string]bool{
	"CompressedImage": true, "Image": true,
	"PoseStamped": true, "Pose": true, "PoseWithCovarianceStamped": true,
	"Odometry": true, "LaserScan": true,
}

// typeBase is the last name of a message type: Platform.Messages.nav_msgs.Odometry and
// nav_msgs/Odometry are both Odometry.
func typeBase(typ string) string { return typ[strings.LastIndexAny(typ, "./")+1:] }

// KeepInFlight is the default choice of the streams buffered: every output stream of a
// camera, pose, odometry or laser scan type.
func KeepInFlight(s fleetgate.Stream) bool {
	return s.Direction == fleetgate.Output && flightTypes[typeBase(s.Type)]
}

func isCamera(typ string) bool {
	b := typeBase(typ)
	return b == "CompressedImage" || b == "Image"
}

// flight is one robot's buffer, and the recording it is making, if any.
type flight struct {
	r      *Recorder
	robot  *Robot
	id     string
	ctx    context.Context // ends at close: the pullers stop
	cancel context.CancelFunc
	done   chan struct{} // run has returned

	mu sync.Mutex
	// plans are the buffer's streams (item.channel indexes them), found by key; they are
	// never removed, so that an index keeps its meaning.
	plans     []plan
	byKey     map[fleetgate.StreamKey]int
	items     []item // oldest first
	bytes     int64
	decimated int64 // camera frames let go for the cap
	pushed    int64 // samples buffered since the start
	capture   *capture
}

// capture is a flight recording being made: the buffer at its trigger, then what follows.
type capture struct {
	meta    meta
	items   []item
	tail    int64     // bytes taken after the trigger
	end     time.Time // when it stops taking samples (a later trigger moves it)
	limit   time.Time // how far later triggers may move end
	dropped int64     // samples after the trigger left out for the cap
}

func itemSize(it item) int64 { return int64(len(it.sample.Payload)) + itemOverhead }

// startFlight starts the buffer of robot w. r.mu is held.
func (r *Recorder) startFlight(w *Robot) {
	f := &flight{r: r, robot: w, id: w.Info().ID, byKey: map[fleetgate.StreamKey]int{}, done: make(chan struct{})}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	r.flightsMu.Lock()
	if old := r.flights[f.id]; old != nil {
		r.flightsMu.Unlock()
		// A new connection of the same robot (a source that adds it again when it comes
		// back): the buffer goes on, following it from the next subscription.
		old.mu.Lock()
		old.robot = w
		old.mu.Unlock()
		return
	}
	r.flights[f.id] = f
	r.flightsMu.Unlock()
	go f.run()
}

func (r *Recorder) flightOf(robotID string) *flight {
	r.flightsMu.Lock()
	defer r.flightsMu.Unlock()
	return r.flights[robotID]
}

// run subscribes to the robot's chosen streams and buffers them until close, subscribing
// again when the robot comes back.
func (f *flight) run() {
	defer close(f.done)
	for {
		wait := flightRetry
		if n := f.follow(); n == 0 {
			wait = flightIdle
		}
		if !sleep(f.ctx, f.r.clock, wait) {
			return
		}
	}
}

// follow subscribes to the chosen output streams and buffers their samples until every
// subscription ended; it returns how many it followed.
func (f *flight) follow() int {
	f.mu.Lock()
	robot := f.robot
	f.mu.Unlock()
	streams, err := robot.Robot.Streams(f.ctx)
	if err != nil {
		return -1 // offline: try again soon
	}
	var wg sync.WaitGroup
	n := 0
	for _, s := range streams {
		if !f.r.cfg.Flight.Keep(s) {
			continue
		}
		ch, ok := f.planFor(robot, s)
		if !ok {
			continue
		}
		sub, err := robot.Robot.Subscribe(f.ctx, s.Key(), fleetgate.SubscribeOptions{})
		if err != nil {
			continue
		}
		// A few samples wait for the puller, as for a recording: the camera keeps its rate.
		sub.Buffer(subscriptionDepth)
		n++
		wg.Go(func() {
			defer sub.Close()
			for {
				sample, err := sub.Next(f.ctx)
				if err != nil {
					return
				}
				f.push(item{channel: ch, sample: sample, at: f.r.clock.Now()})
			}
		})
	}
	wg.Wait()
	return n
}

// planFor is the buffer's channel of stream s, made on first sight.
func (f *flight) planFor(robot *Robot, s fleetgate.Stream) (uint16, bool) {
	f.mu.Lock()
	i, ok := f.byKey[s.Key()]
	f.mu.Unlock()
	if ok {
		return uint16(i), true
	}
	p, err := schemaOf(f.ctx, robot.Robot, s)
	if err != nil {
		return 0, false
	}
	return f.addPlan(p)
}

func (f *flight) addPlan(p plan) (uint16, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i, ok := f.byKey[p.stream.Key()]; ok {
		return uint16(i), true
	}
	if len(f.plans) >= MaxStreams {
		return 0, false
	}
	topics := map[string]bool{}
	for _, q := range f.plans {
		topics[q.topic] = true
	}
	for topics[p.topic] {
		p.topic += "_"
	}
	f.byKey[p.stream.Key()] = len(f.plans)
	f.plans = append(f.plans, p)
	return uint16(len(f.plans) - 1), true
}

// push buffers it, and gives it to the recording being made.
func (f *flight) push(it item) {
	n := itemSize(it)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = append(f.items, it)
	f.bytes += n
	f.pushed++
	if c := f.capture; c != nil {
		if c.tail+n <= f.r.cfg.Flight.MaxBytes {
			c.items = append(c.items, it)
			c.tail += n
		} else {
			c.dropped++
		}
	}
	f.trimLocked(it.at)
}

// trimLocked lets go of what is older than the buffer, then brings it under the cap.
func (f *flight) trimLocked(now time.Time) {
	cut := now.Add(-f.r.cfg.Flight.Buffer)
	k := 0
	for k < len(f.items) && f.items[k].at.Before(cut) {
		f.bytes -= itemSize(f.items[k])
		k++
	}
	f.dropOldestLocked(k)
	f.decimateLocked()
}

// dropOldestLocked lets go of the k oldest samples; their slots are cleared so that the
// payloads are freed before the slice is next reallocated.
func (f *flight) dropOldestLocked(k int) {
	if k == 0 {
		return
	}
	clear(f.items[:k])
	f.items = f.items[k:]
}

// decimateLocked brings the buffer under its cap: every other camera frame of its older half
// (in time) goes, each pass halving the frame rate of the oldest part; when the older half
// has no frame left, those of the whole buffer; and only when no camera frame is left, the
// oldest samples.
func (f *flight) decimateLocked() {
	limit := f.r.cfg.Flight.MaxBytes
	for f.bytes > limit && len(f.items) > 0 {
		oldest, newest := f.items[0].at, f.items[len(f.items)-1].at
		if f.decimateBefore(oldest.Add(newest.Sub(oldest)/2)) || f.decimateBefore(newest.Add(time.Nanosecond)) {
			continue
		}
		k := 0
		for k < len(f.items) && f.bytes > limit {
			f.bytes -= itemSize(f.items[k])
			k++
		}
		f.dropOldestLocked(k)
	}
}

// decimateBefore lets every other camera frame logged before until go, per camera; it
// reports whether any went.
func (f *flight) decimateBefore(until time.Time) bool {
	drop := map[uint16]bool{}
	out := 0
	for _, it := range f.items {
		if it.at.Before(until) && f.plans[it.channel].camera() {
			drop[it.channel] = !drop[it.channel]
			if drop[it.channel] {
				f.bytes -= itemSize(it)
				f.decimated++
				continue
			}
		}
		f.items[out] = it
		out++
	}
	if out == len(f.items) {
		return false
	}
	clear(f.items[out:])
	f.items = f.items[:out]
	return true
}

func (p plan) camera() bool { return p.stream.Direction == fleetgate.Output && isCamera(p.stream.Type) }

// Command buffers a command the door sent to input stream key of robot robotID (the door's
// Published hook): a flight recording shows what the robot was told. It never waits for
// anything but the robot's buffer.
func (r *Recorder) Command(robotID string, key fleetgate.StreamKey, typ string, payload []byte, at time.Time) {
	f := r.flightOf(robotID)
	if f == nil {
		return
	}
	ch, ok := f.inputChannel(key, typ)
	if !ok {
		return
	}
	f.push(item{channel: ch, sample: fleetgate.Sample{Type: typ, Payload: payload, Time: at}, at: at})
}

// inputChannel is the buffer's channel of an input stream, made on its first command. Its
// schema comes from the catalog alone: asking the robot could wait, and the door must not.
func (f *flight) inputChannel(key fleetgate.StreamKey, typ string) (uint16, bool) {
	f.mu.Lock()
	i, ok := f.byKey[key]
	f.mu.Unlock()
	if ok {
		return uint16(i), true
	}
	s := fleetgate.Stream{Component: key.Component, Name: key.Name, Source: key.Source, Type: typ, Direction: fleetgate.Input}
	p := plan{stream: s, topic: topicOf(s), schemaName: typ, messageEnc: mcap.MessageROS1}
	if strings.HasPrefix(typ, catalogPrefix) {
		q, err := schemaOf(context.Background(), nil, s)
		if err != nil {
			return 0, false
		}
		p = q
	} else if key.Source == fleetgate.SourceROS2 {
		p.messageEnc = mcap.MessageCDR
	}
	return f.addPlan(p)
}

// Trigger turns robot robotID's flight buffer into a recording: what the buffer holds, and
// what follows for FlightConfig.After. trigger says what made it (an event-log message,
// "speed refusal", "snapshot"): the file is named after it; eventID is the event-log entry it
// is made for ("" if none). One recording is made at a time per robot: a trigger while one
// is being made moves its end to After past this trigger (at most Buffer past its first) and
// returns it. It returns at once, with the recording running; the file is complete After
// later. EUnavailable when the flight recorder is off or the recorder is closing, ENotFound
// when the robot is not recorded here.
func (r *Recorder) Trigger(robotID, trigger, eventID string) (fleetgate.Recording, error) {
	cfg := r.cfg.Flight
	if cfg.Buffer <= 0 {
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "the flight recorder is off on this agent (--flight-buffer 0)")
	}
	f := r.flightOf(robotID)
	if f == nil {
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q is not recorded on this agent", robotID)
	}
	trigger = cleanTrigger(trigger)
	now := r.clock.Now()

	f.mu.Lock()
	info := f.robot.Info()
	if c := f.capture; c != nil {
		if end := now.Add(cfg.After); end.After(c.end) {
			c.end = end
			if c.end.After(c.limit) {
				c.end = c.limit
			}
		}
		m := c.meta
		f.mu.Unlock()
		return m.recording(), nil
	}
	f.trimLocked(now)
	start := now
	if len(f.items) > 0 {
		start = f.items[0].at
	}
	m := meta{
		ID: uuid.NewString(), RobotID: info.ID, RobotName: info.Name, State: fleetgate.RecordingActive,
		Start: start.UTC().Truncate(time.Millisecond), Trigger: trigger, EventID: eventID,
	}
	c := &capture{meta: m, items: slices.Clone(f.items), end: now.Add(cfg.After), limit: now.Add(cfg.After + cfg.Buffer)}
	f.capture = c // later triggers extend it from here on
	f.mu.Unlock()

	abandon := func(err error) (fleetgate.Recording, error) {
		f.mu.Lock()
		if f.capture == c {
			f.capture = nil
		}
		f.mu.Unlock()
		return fleetgate.Recording{}, err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return abandon(fleetgate.Errorf(fleetgate.EUnavailable, "the recorder is shutting down"))
	}
	if !r.makeRoomLocked(info.ID, minRoom) {
		r.mu.Unlock()
		return abandon(fleetgate.Errorf(fleetgate.EUnavailable, "%s", r.noRoomLocked(info.ID, info.Name, minRoom)))
	}
	m.Name = r.uniqueNameLocked(flightFileName(info.Name, now, trigger))
	if err := r.saveMeta(m); err != nil {
		r.mu.Unlock()
		return abandon(fleetgate.Errorf(fleetgate.EUnavailable, "recording: %v", err))
	}
	r.entries[m.ID] = &entry{meta: m}
	r.wg.Add(1)
	// Named before r.mu is let go: a Close from then on finishes c, and must write it under
	// its name (r.mu, then f.mu: nothing takes r.mu while holding an f.mu).
	f.mu.Lock()
	c.meta.Name = m.Name
	f.mu.Unlock()
	r.mu.Unlock()
	r.clock.AfterFunc(cfg.After, func() { f.finish(c, false) })
	r.log.Info("flight recording started", "robot", info.Name, "recording", m.ID, "trigger", trigger, "event", eventID,
		"buffered_from", start, "after", cfg.After)
	r.tell(Milestone{At: now, RobotID: m.RobotID, Recording: m.ID,
		What: fmt.Sprintf("flight recording %s started by %q: the last %s and %s to come", m.Name, trigger, now.Sub(start).Round(time.Second), cfg.After)})
	return m.recording(), nil
}

// finish writes recording c once its end has come (at once when now is set: the recorder is
// closing). A trigger that moved its end has the wait go on.
func (f *flight) finish(c *capture, now bool) {
	f.mu.Lock()
	if f.capture != c {
		f.mu.Unlock()
		return
	}
	if left := c.end.Sub(f.r.clock.Now()); left > 0 && !now {
		f.mu.Unlock()
		f.r.clock.AfterFunc(left, func() { f.finish(c, false) })
		return
	}
	f.capture = nil
	plans := slices.Clone(f.plans)
	done := *c // what a trigger wrote into c (its name), read under f.mu
	f.mu.Unlock()
	f.r.writeFlight(&done, plans)
}

// close stops the buffer and writes the recording being made with what it has.
func (f *flight) close() {
	f.cancel()
	<-f.done
	f.mu.Lock()
	c := f.capture
	f.mu.Unlock()
	if c != nil {
		f.finish(c, true)
	}
}

// writeFlight writes recording c to its file, in log time order, and completes its entry.
func (r *Recorder) writeFlight(c *capture, plans []plan) {
	defer r.wg.Done()
	m := c.meta
	items := c.items
	slices.SortStableFunc(items, func(a, b item) int { return a.at.Compare(b.at) })
	var used []int
	var need int64
	for _, it := range items {
		if !slices.Contains(used, int(it.channel)) {
			used = append(used, int(it.channel))
		}
		need += int64(len(it.sample.Payload)) + 64
	}
	slices.Sort(used)
	chosen := make([]plan, len(used))
	for i, ch := range used {
		chosen[i] = plans[ch]
		s := plans[ch].stream
		m.Streams = append(m.Streams, streamMeta{Component: s.Component, Name: s.Name, Source: int(s.Source), Type: s.Type, Topic: plans[ch].topic})
	}
	m.State, m.Dropped = fleetgate.RecordingStopped, c.dropped
	m.Reason = "flight recording: triggered by " + m.Trigger
	fileOK := false
	defer func() {
		m.End = r.clock.Now().UTC().Truncate(time.Millisecond)
		if len(items) > 0 {
			m.End = items[len(items)-1].at.UTC().Truncate(time.Millisecond)
		}
		if fileOK {
			if st, err := os.Stat(r.path(m.ID)); err == nil {
				m.Size = st.Size()
			}
		}
		r.log.Info("flight recording written", "recording", m.ID, "robot", m.RobotName, "state", m.State, "reason", m.Reason,
			"messages", m.Messages, "dropped", m.Dropped, "size", m.Size)
		r.finished(m, fileOK)
	}()
	r.mu.Lock()
	room := r.makeRoomLocked(m.RobotID, need)
	if !room {
		m.State, m.ErrorType, m.Reason = fleetgate.RecordingFailed, fleetgate.RecordingQuotaExceeded, r.noRoomLocked(m.RobotID, m.RobotName, need)
	}
	r.mu.Unlock()
	if !room {
		return
	}
	fail := func(err error) {
		m.State, m.ErrorType, m.Reason = fleetgate.RecordingFailed, fleetgate.RecordingWriteError, "write error: "+err.Error()
		if isDiskFull(err) {
			m.ErrorType, m.Reason = fleetgate.RecordingDiskFull, "the disk is full"
		}
		r.log.Error("flight recording failed", "recording", m.ID, "robot", m.RobotName, "err", err)
	}
	file, err := r.cfg.create(r.path(m.ID))
	if err != nil {
		fail(err)
		return
	}
	err = writeItems(file, mcap.Options{ChunkSize: r.cfg.ChunkSize, Library: r.cfg.Library}, r.fileMetadata(m), chosen, used, items)
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fail(err)
		os.Remove(r.path(m.ID))
		return
	}
	fileOK, m.Messages = true, int64(len(items))
}

// writeItems writes a whole file: metadata, the channels of chosen (the buffer's channels
// used), then items.
func writeItems(file file, opts mcap.Options, md mcap.Metadata, chosen []plan, used []int, items []item) error {
	w, err := mcap.NewWriter(file, opts)
	if err != nil {
		return err
	}
	if err := w.WriteMetadata(md); err != nil {
		return err
	}
	chans, err := addChannels(w, chosen)
	if err != nil {
		return err
	}
	channelOf := make(map[uint16]uint16, len(used))
	for i, ch := range used {
		channelOf[uint16(ch)] = chans[i]
	}
	for _, it := range items {
		err := w.WriteMessage(mcap.Message{ChannelID: channelOf[it.channel], Sequence: uint32(it.sample.Seq), LogTime: mcap.Time(it.at),
			PublishTime: mcap.Time(it.sample.Time), Data: it.sample.Payload})
		if err != nil {
			return err
		}
	}
	return w.Close()
}

// MetadataName names the metadata record every recording's file carries.
const MetadataName = "fleetgate"

// fileMetadata is what a recording's file says of itself, whatever its name becomes.
func (r *Recorder) fileMetadata(m meta) mcap.Metadata {
	return mcap.Metadata{Name: MetadataName, Metadata: map[string]string{
		"recordingId": m.ID, "robotId": m.RobotID, "robotName": m.RobotName, "fleet": r.cfg.Fleet, "agent": r.cfg.Agent,
		"trigger": cmp.Or(m.Trigger, fleetgate.TriggerManual), "eventId": m.EventID, "gatewayVersion": r.cfg.Version,
	}}
}

// cleanTrigger is a trigger's words on one line, at most maxTrigger bytes.
func cleanTrigger(s string) string {
	s = strings.Join(strings.FieldsFunc(strings.ToValidUTF8(s, ""), unicode.IsSpace), " ")
	if len(s) > maxTrigger {
		s = strings.ToValidUTF8(s[:maxTrigger], "")
	}
	return cmp.Or(s, "trigger")
}

// flightFileName is the name a flight recording is offered under: the robot, the time of
// its trigger and the trigger ("sim-1 2026-11-28 02-10-03 pallet dropped.mcap"), in
// characters every file system takes.
func flightFileName(robot string, at time.Time, trigger string) string {
	clean := func(s string, n int) string {
		s = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '-' || r == '_' || r == '.' {
				return r
			}
			return '_'
		}, s)
		if rs := []rune(s); len(rs) > n {
			s = string(rs[:n])
		}
		return strings.Trim(s, " .")
	}
	return fmt.Sprintf("%s %s %s.mcap", clean(robot, 60), at.UTC().Format("2006-01-02 15-04-05"), clean(trigger, 60))
}
