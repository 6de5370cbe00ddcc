// Package record is the agent's recorder: it records chosen output streams of a robot into
// MCAP files (internal/mcap), subscribing like any viewer so that live viewers never wait for
// it (a disk slower than the streams drops samples, and counts them), within limits per
// recording (duration, size, rate per stream), slots and a storage quota per agent and per
// robot; room is made by deleting the oldest finished recordings of the robot that needs it,
// never another robot's. A finished file is a resource of its robot (Wrap); a file
// a crash left open is finalised at the next start (Open).
package record

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/video"
)

// Limits of what a recording may ask for, and of the recorder.
const (
	DefaultQuota = 2 << 30 // bytes of recordings an agent keeps
	MaxActive    = 16      // recordings written at once, on all robots of an agent
	// MaxActivePerRobot is a robot's share of the slots: the Developers of one robot cannot
	// take them all.
	MaxActivePerRobot = MaxActive / 2
	MaxStreams        = 64
	MaxDuration       = 7 * 24 * time.Hour
	MaxRate           = 1000 // samples per second and stream
	// minRoom is what a new recording needs free in the quota (after evictions) to start.
	minRoom = 1 << 20
)

// Defaults of the tuning fields of Config.
const (
	DefaultFlushEvery = time.Second
	DefaultSyncEvery  = 5 * time.Second
	DefaultQueueBytes = 32 << 20
)

// Config configures a Recorder.
type Config struct {
	// Dir holds the recordings: <id>.mcap and its description <id>.json.
	Dir string
	// Quota bounds the bytes of all recordings (DefaultQuota when 0).
	Quota int64
	// RobotQuota bounds the bytes of one robot's recordings (half of Quota when 0; at most
	// Quota): below the agent's quota, so that one robot's recordings cannot take the room
	// another needs.
	RobotQuota int64
	Clock      clock.Clock // clock.Real when nil
	Logger     *slog.Logger
	// Library is written in the files' headers (the agent's name and version).
	Library string
	// Fleet, Agent and Version are written in each file's "fleetgate" metadata record, with
	// the robot, the trigger and the event-log entry: the fleet of the robots recorded, the
	// agent (its host name) and the gateway's version.
	Fleet, Agent, Version string

	// Flight is the flight recorder's buffer (off when Flight.Buffer is 0).
	Flight FlightConfig

	// ChunkSize is the files' chunk size (mcap.DefaultChunkSize when 0). FlushEvery bounds
	// how long a sample waits in an open chunk (what a crash can lose); SyncEvery how often
	// the file is synced to disk. QueueBytes bounds the samples that wait for the disk, per
	// recording: past it, samples are dropped.
	ChunkSize  int
	FlushEvery time.Duration
	SyncEvery  time.Duration
	QueueBytes int

	// Journal, when set, is told when a recording starts and when its file is complete (the
	// event log's recording entries). It is called with no lock held and must not block.
	Journal func(Milestone)

	// Video, when set, serves camera streams as H.264 (the gateway's encoders,
	// internal/video): a recording without a rate cap asks a JPEG camera stream for h264 as a
	// viewer does and records the access units (foxglove.CompressedVideo), about a fifth of the
	// bytes of its JPEG pictures. Without it, cameras are recorded as their JPEG pictures.
	Video Video

	// create creates a recording's file; tests replace it with slow or size-capped files.
	create func(path string) (file, error)
}

// Video is what the recorder needs of the gateway's H.264 encoders (*video.Encoders): one
// encoder per camera serves its viewers and its recordings.
type Video interface {
	// CanEncode reports whether JPEG camera streams can be had as H.264 here.
	CanEncode() bool
	// Subscribe follows robot's stream key as opts asks: with opts.Codec h264, as H.264.
	Subscribe(ctx context.Context, robotID string, robot fleet.Robot, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error)
}

// Milestone is a recording's start or end, for the event log.
type Milestone struct {
	At        time.Time
	RobotID   string
	Recording string // its id
	// What says it in words: "recording sim-1-20261127-233351.mcap started (4 streams)".
	What   string
	Failed bool // it ended with an error (its file may be incomplete)
}

// file is what a recording writes to: an *os.File, or a test's stand-in for a full or slow
// disk.
type file interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

func createFile(path string) (file, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
}

// Recorder records the streams of the robots it wraps. Safe for concurrent use.
type Recorder struct {
	cfg   Config
	log   *slog.Logger
	clock clock.Clock

	mu      sync.Mutex
	entries map[string]*entry // by recording id
	// wrappers are the robots wrapped (Wrap), by the robot.
	wrappers map[fleet.Robot]*Robot
	// flights are the flight recorder's buffers, by robot id (none when it is off), under
	// their own lock: the door's commands find theirs without waiting for r.mu, which is
	// held over disk writes.
	flightsMu sync.Mutex
	flights   map[string]*flight
	closed    bool
	wg        sync.WaitGroup // running sessions
}

// entry is one recording known to the recorder: running (s != nil) or kept on disk.
type entry struct {
	meta meta
	s    *session // while it runs
	// file: the recording's file is complete and offered as a resource.
	file bool
}

// Open prepares the recordings directory, finalises the recordings that a crash left open,
// and enforces the quota.
func Open(cfg Config) (*Recorder, error) {
	if cfg.Dir == "" {
		return nil, errors.New("record: no recordings directory")
	}
	if cfg.Quota <= 0 {
		cfg.Quota = DefaultQuota
	}
	if cfg.RobotQuota <= 0 {
		cfg.RobotQuota = cfg.Quota / 2
	}
	cfg.RobotQuota = min(cfg.RobotQuota, cfg.Quota)
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = DefaultFlushEvery
	}
	if cfg.SyncEvery <= 0 {
		cfg.SyncEvery = DefaultSyncEvery
	}
	if cfg.QueueBytes <= 0 {
		cfg.QueueBytes = DefaultQueueBytes
	}
	if cfg.create == nil {
		cfg.create = createFile
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	r := &Recorder{cfg: cfg, log: cfg.Logger.With("component", "recorder"), clock: cfg.Clock, entries: map[string]*entry{},
		wrappers: map[fleet.Robot]*Robot{}, flights: map[string]*flight{}}
	r.cfg.Flight = r.cfg.Flight.withDefaults()
	if err := r.load(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.trimLocked()
	r.mu.Unlock()
	return r, nil
}

// Close stops every running recording, completing its file, and waits for them.
func (r *Recorder) Close() {
	r.mu.Lock()
	r.closed = true
	var running []*session
	for _, e := range r.entries {
		if e.s != nil {
			running = append(running, e.s)
		}
	}
	r.mu.Unlock()
	r.flightsMu.Lock()
	flights := slices.Collect(maps.Values(r.flights))
	r.flightsMu.Unlock()
	for _, s := range running {
		s.stop("agent shutdown", "", fleetgate.RecordingStopped)
	}
	for _, f := range flights {
		f.close()
	}
	r.wg.Wait()
}

func (r *Recorder) path(id string) string { return filepath.Join(r.cfg.Dir, id+".mcap") }

// plan is a stream to record: its channel's topic, encoding and schema.
type plan struct {
	stream         fleetgate.Stream
	topic          string
	messageEnc     string
	schemaName     string
	schemaEncoding string
	schema         []byte
	// codec is what the stream is asked for (SubscribeOptions.Codec): h264 for a JPEG camera
	// recorded as video.
	codec string
}

// video reports whether the plan records H.264 frames: a picture refers to those before it.
func (p plan) video() bool { return p.stream.Type == videoType }

// start starts a recording of robot.
func (r *Recorder) start(ctx context.Context, robot *Robot, req fleetgate.RecordingRequest) (fleetgate.Recording, error) {
	if err := checkRequest(req); err != nil {
		return fleetgate.Recording{}, err
	}
	plans, err := r.plan(ctx, robot, req.Streams, req.MaxRate)
	if err != nil {
		return fleetgate.Recording{}, err
	}
	info := robot.Info()
	now := r.clock.Now()
	m := meta{
		ID: uuid.NewString(), RobotID: info.ID, RobotName: info.Name, State: fleetgate.RecordingActive,
		Start: now.UTC().Truncate(time.Millisecond), Duration: req.Duration, MaxBytes: req.MaxBytes, MaxRate: req.MaxRate,
	}
	for _, p := range plans {
		m.Streams = append(m.Streams, streamMeta{Component: p.stream.Component, Name: p.stream.Name,
			Source: int(p.stream.Source), Type: p.stream.Type, Topic: p.topic})
	}

	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "the recorder is shutting down")
	}
	active, ours := 0, 0
	for _, e := range r.entries {
		if e.s != nil {
			active++
			if e.meta.RobotID == info.ID {
				ours++
			}
		}
	}
	if ours >= MaxActivePerRobot {
		r.mu.Unlock()
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "%d recordings are running on robot %s, its most: stop one first", ours, info.Name)
	}
	if active >= MaxActive {
		r.mu.Unlock()
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "%d recordings are running on this agent: stop one first", active)
	}
	if !r.makeRoomLocked(info.ID, minRoom) {
		r.mu.Unlock()
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "%s", r.noRoomLocked(info.ID, info.Name, minRoom))
	}
	m.Name = r.uniqueNameLocked(fileName(info.Name, m.Start))
	// The description goes to disk before the file: a file without one is never left.
	if err := r.saveMeta(m); err != nil {
		r.mu.Unlock()
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "recording: %v", err)
	}
	e := &entry{meta: m}
	r.entries[m.ID] = e
	r.mu.Unlock()

	s, err := r.open(ctx, robot, e, plans)
	if err != nil {
		r.mu.Lock()
		delete(r.entries, m.ID)
		r.mu.Unlock()
		os.Remove(r.path(m.ID))
		os.Remove(r.metaPath(m.ID))
		return fleetgate.Recording{}, err
	}
	r.log.Info("recording started", "robot", info.Name, "recording", m.ID, "streams", len(plans),
		"duration", req.Duration, "max_bytes", req.MaxBytes, "max_rate", req.MaxRate)
	r.tell(Milestone{At: m.Start, RobotID: m.RobotID, Recording: m.ID, What: fmt.Sprintf("recording %s started (%d streams)", m.Name, len(plans))})
	return s.snapshot(), nil
}

func checkRequest(req fleetgate.RecordingRequest) error {
	switch {
	case len(req.Streams) == 0:
		return fleetgate.Errorf(fleetgate.EInvalid, "name at least one stream to record")
	case len(req.Streams) > MaxStreams:
		return fleetgate.Errorf(fleetgate.EInvalid, "at most %d streams per recording", MaxStreams)
	case req.Duration < 0 || req.Duration > MaxDuration:
		return fleetgate.Errorf(fleetgate.EInvalid, "the duration must be between 0 (until stopped) and %s", MaxDuration)
	case req.MaxBytes < 0 || req.MaxBytes > 0 && req.MaxBytes < minRoom:
		return fleetgate.Errorf(fleetgate.EInvalid, "the size limit must be 0 (none) or at least %s", humanBytes(minRoom))
	case math.IsNaN(req.MaxRate) || req.MaxRate < 0 || req.MaxRate > MaxRate:
		return fleetgate.Errorf(fleetgate.EInvalid, "the rate cap must be between 0 (none) and %d per second", MaxRate)
	}
	seen := map[fleetgate.StreamKey]bool{}
	for _, k := range req.Streams {
		if seen[k] {
			return fleetgate.Errorf(fleetgate.EInvalid, "stream %s is named twice", keyName(k))
		}
		seen[k] = true
	}
	return nil
}

// plan resolves the streams to record against the robot's list and picks their schemas. A
// JPEG camera stream is recorded as H.264 where the gateway encodes it and no rate cap is set
// (a cap thins pictures, which H.264 frames cannot lose).
func (r *Recorder) plan(ctx context.Context, robot *Robot, keys []fleetgate.StreamKey, maxRate float64) ([]plan, error) {
	streams, err := robot.Robot.Streams(ctx)
	if err != nil {
		return nil, err
	}
	var plans []plan
	topics := map[string]bool{}
	for _, k := range keys {
		i := slices.IndexFunc(streams, func(s fleetgate.Stream) bool { return s.Key() == k })
		if i < 0 {
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "robot %s has no stream %s", robot.Info().Name, keyName(k))
		}
		s := streams[i]
		if s.Direction == fleetgate.Input {
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s is an input stream: only output streams are recorded", keyName(k))
		}
		if s.Type == video.ImageType && maxRate == 0 && r.cfg.Video != nil && r.cfg.Video.CanEncode() {
			s.Type = videoType // the channel says what its messages are
		}
		p, err := schemaOf(ctx, robot.Robot, s)
		if err != nil {
			return nil, err
		}
		if p.video() && streams[i].Type == video.ImageType {
			p.codec = fleetgate.CodecH264
		}
		for topics[p.topic] { // two streams whose names meet on one topic
			p.topic += "_"
		}
		topics[p.topic] = true
		plans = append(plans, p)
	}
	return plans, nil
}

// topicOf is the MCAP topic of a stream: a ROS topic as it is, a component's stream as
// /component/name.
func topicOf(s fleetgate.Stream) string {
	name := s.Name
	if s.Component != "" {
		name = s.Component + "/" + strings.TrimPrefix(name, "/")
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	return name
}

func keyName(k fleetgate.StreamKey) string {
	if k.Component == "" {
		return k.Name
	}
	return k.Component + "/" + k.Name
}

// fileName is the name a recording's file is offered under.
func fileName(robot string, start time.Time) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, robot)
	return fmt.Sprintf("%s_%s.mcap", clean, start.UTC().Format("20060102-150405"))
}

// uniqueNameLocked is name, or, when a recording has it already (two started in the same
// second), name with a number: a file saved from the panel must not overwrite another.
func (r *Recorder) uniqueNameLocked(name string) string {
	taken := map[string]bool{}
	for _, e := range r.entries {
		taken[e.meta.Name] = true
	}
	base := strings.TrimSuffix(name, ".mcap")
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d.mcap", base, i)
	}
	return name
}

// usageLocked is the bytes the recordings take, of robotID ("": of every robot): the files
// kept and those being written.
func (r *Recorder) usageLocked(robotID string) int64 {
	var n int64
	for _, e := range r.entries {
		if robotID != "" && e.meta.RobotID != robotID {
			continue
		}
		switch {
		case e.s != nil:
			n += e.s.size.Load()
		case e.file:
			n += e.meta.Size
		}
	}
	return n
}

// makeRoomLocked deletes robotID's oldest finished recordings until need more bytes of it fit
// in the robot's quota and in the agent's; it never deletes one being written, nor another
// robot's (whose Developers may not be the same). It reports whether they fit.
func (r *Recorder) makeRoomLocked(robotID string, need int64) bool {
	for r.usageLocked(robotID)+need > r.cfg.RobotQuota || r.usageLocked("")+need > r.cfg.Quota {
		oldest := r.oldestFinishedLocked(robotID)
		if oldest == nil {
			return false
		}
		r.evictLocked(oldest)
	}
	return true
}

// noRoomLocked says why robotID's recordings have no room left (makeRoomLocked failed).
func (r *Recorder) noRoomLocked(robotID, robotName string, need int64) string {
	if r.usageLocked(robotID)+need > r.cfg.RobotQuota {
		return fmt.Sprintf("robot %s's recordings quota (%s) is taken by its recordings being written", robotName, humanBytes(r.cfg.RobotQuota))
	}
	return fmt.Sprintf("the agent's recordings quota (%s) is taken by other robots' recordings, and robot %s has no finished recording to delete", humanBytes(r.cfg.Quota), robotName)
}

// trimLocked brings the recordings kept within the quotas, which may have shrunk since they
// were made: each robot's oldest finished first, then the agent's.
func (r *Recorder) trimLocked() {
	robots := map[string]bool{}
	for _, e := range r.entries {
		robots[e.meta.RobotID] = true
	}
	for id := range robots {
		for r.usageLocked(id) > r.cfg.RobotQuota {
			oldest := r.oldestFinishedLocked(id)
			if oldest == nil {
				break
			}
			r.evictLocked(oldest)
		}
	}
	for r.usageLocked("") > r.cfg.Quota {
		oldest := r.oldestFinishedLocked("")
		if oldest == nil {
			break
		}
		r.evictLocked(oldest)
	}
}

// oldestFinishedLocked is the oldest complete recording of robotID ("": of any robot), nil
// if there is none.
func (r *Recorder) oldestFinishedLocked(robotID string) *entry {
	var oldest *entry
	for _, e := range r.entries {
		if robotID != "" && e.meta.RobotID != robotID {
			continue
		}
		if e.s == nil && e.file && (oldest == nil || e.meta.Start.Before(oldest.meta.Start)) {
			oldest = e
		}
	}
	return oldest
}

func (r *Recorder) evictLocked(e *entry) {
	r.removeLocked(e)
	r.log.Info("recording deleted for the quota", "recording", e.meta.ID, "robot", e.meta.RobotName,
		"size", e.meta.Size, "quota", r.cfg.Quota, "robot_quota", r.cfg.RobotQuota)
}

func (r *Recorder) removeLocked(e *entry) {
	delete(r.entries, e.meta.ID)
	if err := os.Remove(r.path(e.meta.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		r.log.Warn("deleting a recording", "recording", e.meta.ID, "err", err)
	}
	os.Remove(r.metaPath(e.meta.ID))
}

// stop stops recording id of robot robotID and waits for its file to be complete.
func (r *Recorder) stop(ctx context.Context, robotID, id string) (fleetgate.Recording, error) {
	r.mu.Lock()
	e, ok := r.entries[id]
	if !ok || e.meta.RobotID != robotID {
		r.mu.Unlock()
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.ENotFound, "no recording %q of this robot", id)
	}
	s := e.s
	if s == nil {
		rec := e.meta.recording()
		r.mu.Unlock()
		return rec, nil
	}
	r.mu.Unlock()
	s.stop("stop requested", "", fleetgate.RecordingStopped)
	select {
	case <-s.done:
	case <-ctx.Done():
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "recording %s is stopping; its file is not complete yet", id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[id]; ok {
		return e.meta.recording(), nil
	}
	return s.snapshot(), nil
}

// list returns robotID's recordings, newest first.
func (r *Recorder) list(robotID string) []fleetgate.Recording {
	r.mu.Lock()
	var out []fleetgate.Recording
	var running []*session
	for _, e := range r.entries {
		if e.meta.RobotID != robotID {
			continue
		}
		if e.s != nil {
			running = append(running, e.s)
			continue
		}
		out = append(out, e.meta.recording())
	}
	r.mu.Unlock()
	for _, s := range running {
		out = append(out, s.snapshot())
	}
	slices.SortFunc(out, func(a, b fleetgate.Recording) int { return b.StartTime.Compare(a.StartTime) })
	return out
}

// finished is called by a session whose file is complete (or could not be made so).
func (r *Recorder) finished(m meta, fileOK bool) {
	what := fmt.Sprintf("recording %s finished: %s, %s, %d messages", m.Name, m.End.Sub(m.Start).Round(time.Second), humanBytes(m.Size), m.Messages)
	if m.ErrorType != "" {
		what = fmt.Sprintf("recording %s ended with %s: %s", m.Name, m.ErrorType, m.Reason)
	}
	defer r.tell(Milestone{At: m.End, RobotID: m.RobotID, Recording: m.ID, What: what, Failed: m.ErrorType != "" || !fileOK})
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[m.ID]
	if !ok {
		return
	}
	e.meta, e.s, e.file = m, nil, fileOK
	if err := r.saveMeta(m); err != nil {
		r.log.Warn("saving a recording's description", "recording", m.ID, "err", err)
	}
	if !fileOK && !m.NeedsRecovery {
		r.removeLocked(e)
	}
}

// tell journals a milestone, when the recorder has a journal.
func (r *Recorder) tell(m Milestone) {
	if r.cfg.Journal != nil {
		r.cfg.Journal(m)
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
