package record

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/mcap"
)

const typeTwist = "Platform.Messages.geometry_msgs.Twist"

// flightRecorder is a recorder on a fake clock with a flight buffer, and a robot it buffers,
// subscribed.
func flightRecorder(t *testing.T, fc FlightConfig) (*Recorder, *clocktest.Fake, testRobot, *Robot, *flight) {
	t.Helper()
	clk := clocktest.NewAt(time.Date(2026, 11, 28, 2, 10, 0, 0, time.UTC))
	cfg := testConfig(t)
	cfg.Clock, cfg.Flight = clk, fc
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	waitFor(t, "the buffer to subscribe", func() bool { return raw.Subscribers(poseKey) == 1 && raw.Subscribers(imageKey) == 1 })
	return rec, clk, raw, robot, rec.flightOf(raw.ID)
}

// emitBuffered emits a sample and waits until the buffer holds it.
func emitBuffered(t *testing.T, f *flight, raw testRobot, key fleetgate.StreamKey, typ string, payload []byte) fleetgate.Sample {
	t.Helper()
	f.mu.Lock()
	before := f.pushed
	f.mu.Unlock()
	s := raw.Emit(key, typ, payload)
	waitFor(t, "the sample to be buffered", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.pushed > before
	})
	return s
}

// messagesOf reads a complete file's messages by topic, with their log times.
func messagesOf(t *testing.T, path string) (map[string][]mcap.Message, map[string]mcap.Channel) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]mcap.Message{}
	channels := map[string]mcap.Channel{}
	err = mcap.ReadMessages(bytes.NewReader(b), int64(len(b)), func(c mcap.Channel, m mcap.Message) error {
		out[c.Topic] = append(out[c.Topic], m)
		channels[c.Topic] = c
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, channels
}

// TestFlightSpan: the buffer keeps the chosen streams (and no other) over its last seconds; a
// trigger makes a recording of them and of what follows for After, with the door's commands,
// named after the trigger, linked to its entry, a resource of the robot once written.
func TestFlightSpan(t *testing.T) {
	rec, clk, raw, robot, f := flightRecorder(t, FlightConfig{Buffer: 3 * time.Second, After: time.Second})
	if n := raw.Subscribers(beaconKey); n != 0 {
		t.Fatalf("the buffer subscribed to a stream it does not keep (%d subscribers)", n)
	}
	const step = 100 * time.Millisecond
	emit := func(n int) {
		for range n {
			clk.Advance(step)
			emitBuffered(t, f, raw, poseKey, typePose, posePayload(1))
			emitBuffered(t, f, raw, imageKey, typeImage, imagePayload(1, 1000))
		}
	}
	emit(50) // 5 s: the buffer holds the last 3
	rec.Command(raw.ID, cmdKey, typeTwist, fleettest.TwistPayload(0.5, 0), clk.Now())
	f.mu.Lock()
	held, oldest := len(f.items), f.items[0].at
	f.mu.Unlock()
	// 3 s of samples every 100 ms, both ends included, and the command.
	if cut := clk.Now().Add(-3 * time.Second); !oldest.Equal(cut) || held != 2*31+1 {
		t.Fatalf("the buffer holds %d samples from %v; want 63 from %v on", held, oldest, cut)
	}

	trigger := clk.Now()
	r, err := robot.TriggerRecording(bg, "pallet\ndropped", "42")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != fleetgate.RecordingActive || r.Trigger != "pallet dropped" || r.EventID != "42" {
		t.Fatalf("triggered %+v", r)
	}
	emit(15) // 1.5 s: the recording ends 1 s after its trigger
	done := waitFinished(t, robot, r.ID)
	if done.State != fleetgate.RecordingStopped || done.ErrorType != "" || done.Trigger != "pallet dropped" {
		t.Fatalf("finished %+v", done)
	}
	res, ok := rec.resource(raw.ID, r.ID)
	if want := "robot1 2026-11-28 02-10-05 pallet dropped.mcap"; !ok || res.Name != want {
		t.Fatalf("resource %+v (%v), want it named %q", res, ok, want)
	}
	got, channels := messagesOf(t, rec.path(r.ID))
	for _, topic := range []string{"/base/pose", "/camera/image"} {
		m := got[topic]
		// 31 before the trigger (3 s of them, both ends included), 9 after it (the one at
		// 1 s comes once the clock reached it: the recording ended then)
		if len(m) != 40 {
			t.Errorf("%s: %d messages, want 40", topic, len(m))
			continue
		}
		first, last := mcap.FromTime(m[0].LogTime), mcap.FromTime(m[len(m)-1].LogTime)
		if !first.Equal(trigger.Add(-3*time.Second)) ||
			last.After(trigger.Add(time.Second)) || last.Before(trigger.Add(time.Second-step)) {
			t.Errorf("%s: from %v to %v; the trigger was at %v", topic, first, last, trigger)
		}
	}
	if cmds := got["/base/cmd_vel"]; len(cmds) != 1 || channels["/base/cmd_vel"].Metadata["direction"] != "input" {
		t.Errorf("commands %d, channel %+v", len(cmds), channels["/base/cmd_vel"])
	}
	if _, ok := got["/beacon"]; ok {
		t.Error("a stream the buffer does not keep is in the recording")
	}
	b, _ := os.ReadFile(rec.path(r.ID))
	md, err := mcap.ReadMetadata(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(md) != 1 || md[0].Metadata["trigger"] != "pallet dropped" || md[0].Metadata["eventId"] != "42" {
		t.Fatalf("metadata %+v, %v", md, err)
	}
}

// TestFlightCapDecimatesCamerasFirst: over its byte cap the buffer lets every other camera
// frame of its older half go, keeping every pose and the newest frames whole; when the
// frames are too many even so, the newest are decimated too, and still no pose goes.
func TestFlightCapDecimatesCamerasFirst(t *testing.T) {
	const frame = 10_000
	t.Run("older half", func(t *testing.T) { decimation(t, 40*(frame+200), true) })
	t.Run("whole buffer", func(t *testing.T) { decimation(t, 10*(frame+200), false) })
}

func decimation(t *testing.T, limit int64, newestWhole bool) {
	const frame = 10_000
	_, clk, raw, _, f := flightRecorder(t, FlightConfig{Buffer: time.Minute, MaxBytes: limit})
	const rounds = 60
	for i := range rounds {
		clk.Advance(100 * time.Millisecond)
		emitBuffered(t, f, raw, poseKey, typePose, posePayload(i))
		emitBuffered(t, f, raw, imageKey, typeImage, imagePayload(i, frame))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bytes > limit || f.decimated == 0 {
		t.Fatalf("the buffer holds %d bytes (cap %d), %d frames decimated", f.bytes, limit, f.decimated)
	}
	var poses, frames []uint64
	for _, it := range f.items {
		if it.sample.Type == typePose {
			poses = append(poses, it.sample.Seq)
		} else {
			frames = append(frames, it.sample.Seq)
		}
	}
	if len(poses) != rounds {
		t.Fatalf("%d poses kept of %d: a pose went while camera frames could", len(poses), rounds)
	}
	if newestWhole {
		if newest := frames[max(len(frames)-rounds/2, 0):]; len(newest) != rounds/2 || newest[0] != rounds/2+1 || newest[len(newest)-1] != rounds {
			t.Fatalf("the newest frames were decimated: %v", frames)
		}
	}
	if frames[1]-frames[0] < 2 {
		t.Fatalf("the oldest frames were not decimated: %v", frames)
	}
}

// TestFlightOffCostsNothing: with no buffer, wrapping a robot subscribes to nothing, a
// trigger says the flight recorder is off, and the door's commands are let through untouched.
func TestFlightOffCostsNothing(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	rec.Command(raw.ID, cmdKey, typeTwist, fleettest.TwistPayload(1, 0), time.Now())
	if _, err := robot.TriggerRecording(bg, "snapshot", ""); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "--flight-buffer 0") {
		t.Fatalf("a trigger with the flight recorder off: %v", err)
	}
	for _, k := range []fleetgate.StreamKey{poseKey, imageKey, beaconKey} {
		if n := raw.Subscribers(k); n != 0 {
			t.Fatalf("%d subscribers of %s with the flight recorder off", n, k.Name)
		}
	}
	if rec.flightOf(raw.ID) != nil {
		t.Fatal("a buffer exists with the flight recorder off")
	}
	if list, _ := robot.Recordings(bg); len(list) != 0 {
		t.Fatalf("recordings %+v", list)
	}
}

// TestFlightTriggerExtends: a trigger while a flight recording is being made extends it (the
// same recording), up to Buffer past its first trigger; the next one after it makes another.
func TestFlightTriggerExtends(t *testing.T) {
	rec, clk, raw, robot, f := flightRecorder(t, FlightConfig{Buffer: 2 * time.Second, After: time.Second})
	emitBuffered(t, f, raw, poseKey, typePose, posePayload(0))
	first := clk.Now()
	a, err := robot.TriggerRecording(bg, "first", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 { // triggers every 100 ms for 6 s: the end moves to 3 s after the first
		clk.Advance(100 * time.Millisecond)
		emitBuffered(t, f, raw, poseKey, typePose, posePayload(i))
		if i < 40 {
			b, err := robot.TriggerRecording(bg, "again", "")
			if err != nil {
				t.Fatal(err)
			}
			if b.ID != a.ID && clk.Now().Before(first.Add(3*time.Second)) {
				t.Fatalf("a trigger at %v made another recording", clk.Now().Sub(first))
			}
		}
	}
	done := waitFinished(t, robot, a.ID)
	got, _ := messagesOf(t, rec.path(a.ID))
	last := mcap.FromTime(got["/base/pose"][len(got["/base/pose"])-1].LogTime)
	if end := first.Add(3 * time.Second); last.After(end) || last.Before(end.Add(-100*time.Millisecond)) || done.Trigger != "first" {
		t.Fatalf("the extended recording ends at %v (trigger %q); want at %v", last.Sub(first), done.Trigger, end.Sub(first))
	}
	list, _ := robot.Recordings(bg)
	if len(list) != 2 || !slices.ContainsFunc(list, func(r fleetgate.Recording) bool { return r.Trigger == "again" }) {
		t.Fatalf("recordings %+v: want the extended one and one of a trigger after it", list)
	}
}

// TestFlightCloseWritesTheRecordingBeingMade: a recorder closing writes what a flight
// recording holds so far, complete.
func TestFlightCloseWritesTheRecordingBeingMade(t *testing.T) {
	rec, _, raw, robot, f := flightRecorder(t, FlightConfig{Buffer: 2 * time.Second, After: time.Hour})
	emitBuffered(t, f, raw, poseKey, typePose, posePayload(0))
	r, err := robot.TriggerRecording(bg, "snapshot", "")
	if err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if got, _ := messagesOf(t, rec.path(r.ID)); len(got["/base/pose"]) != 1 {
		t.Fatalf("the closed recorder's flight recording holds %v", got)
	}
	if n := raw.Subscribers(poseKey); n != 0 {
		t.Fatalf("%d subscribers after close", n)
	}
}

// TestFlightFollowsTheRobotBack: a robot that goes offline and comes back (as a new
// connection of the same id) is buffered again, the buffer keeping what came before.
func TestFlightFollowsTheRobotBack(t *testing.T) {
	rec, clk, raw, robot, f := flightRecorder(t, FlightConfig{Buffer: time.Minute, After: time.Second})
	emitBuffered(t, f, raw, poseKey, typePose, posePayload(1))
	raw.Disconnect()
	waitFor(t, "the buffer to wait for the robot", func() bool { return clk.Pending() == 1 })
	back := newTestRobot("robot1")
	if rec.Wrap(back) == robot {
		t.Fatal("a new connection got the old wrapper")
	}
	clk.Advance(flightRetry)
	waitFor(t, "the buffer to subscribe again", func() bool { return back.Subscribers(poseKey) == 1 })
	emitBuffered(t, f, back, poseKey, typePose, posePayload(2))
	r, err := robot.TriggerRecording(bg, "back", "")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	waitFinished(t, robot, r.ID)
	if got, _ := messagesOf(t, rec.path(r.ID)); len(got["/base/pose"]) != 2 {
		t.Fatalf("the recording holds %d poses, want the one before and the one after the robot came back", len(got["/base/pose"]))
	}
}

// TestFlightQuota: a flight recording that does not fit the robot's quota fails, says why,
// and leaves no file; a trigger with no room at all is refused.
func TestFlightQuota(t *testing.T) {
	clk := clocktest.New()
	cfg := testConfig(t)
	var mu sync.Mutex
	var told []Milestone
	cfg.Clock, cfg.Quota, cfg.RobotQuota = clk, 3<<20/2, 3<<20/2
	cfg.Flight = FlightConfig{Buffer: time.Minute, After: time.Second}
	cfg.Journal = func(m Milestone) { mu.Lock(); told = append(told, m); mu.Unlock() }
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	f := rec.flightOf(raw.ID)
	waitFor(t, "the buffer to subscribe", func() bool { return raw.Subscribers(imageKey) == 1 })
	for i := range 20 { // 2 MB of frames
		emitBuffered(t, f, raw, imageKey, typeImage, imagePayload(i, 100_000))
	}
	r, err := robot.TriggerRecording(bg, "too much", "")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if list, _ := robot.Recordings(bg); len(list) != 0 {
		t.Fatalf("recordings %+v after a flight recording beyond the quota", list)
	}
	if _, err := os.Stat(rec.path(r.ID)); !os.IsNotExist(err) {
		t.Fatalf("its file: %v", err)
	}
	mu.Lock()
	last := told[len(told)-1]
	mu.Unlock()
	if !last.Failed || !strings.Contains(last.What, fleetgate.RecordingQuotaExceeded) {
		t.Fatalf("the journal was told %+v", last)
	}

	small := cfg
	small.Dir, small.Quota, small.RobotQuota = t.TempDir(), 1<<19, 1<<19
	tiny := openRecorder(t, small)
	if _, err := tiny.Wrap(newTestRobot("robot2")).TriggerRecording(bg, "no room", ""); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("a trigger without room: %v", err)
	}
}

func TestFlightNamesAndCommands(t *testing.T) {
	at := time.Date(2026, 11, 28, 2, 10, 3, 0, time.UTC)
	for _, tc := range []struct{ robot, trigger, want string }{
		{"sim-1", "pallet dropped", "sim-1 2026-11-28 02-10-03 pallet dropped.mcap"},
		{"dock/7", "../../etc: \"x\"", "dock_7 2026-11-28 02-10-03 _.._etc_ _x_.mcap"},
		{"sim-1", cleanTrigger(" \n\t "), "sim-1 2026-11-28 02-10-03 trigger.mcap"},
		{"sim-1", cleanTrigger("Palette\nrenversée  ici"), "sim-1 2026-11-28 02-10-03 Palette renversée ici.mcap"},
	} {
		if got := flightFileName(tc.robot, at, tc.trigger); got != tc.want {
			t.Errorf("flightFileName(%q, %q) = %q, want %q", tc.robot, tc.trigger, got, tc.want)
		}
	}
	if got := cleanTrigger(strings.Repeat("é", 300)); len(got) > maxTrigger || !utf8.ValidString(got) {
		t.Errorf("a long trigger is cut to %d bytes (valid UTF-8: %v)", len(got), utf8.ValidString(got))
	}

	// Commands of every kind of input get a channel without asking the robot.
	rec, clk, raw, robot, f := flightRecorder(t, FlightConfig{Buffer: time.Minute, After: time.Second})
	ros1 := fleetgate.StreamKey{Name: "/cmd", Source: fleetgate.SourceROS1}
	ros2 := fleetgate.StreamKey{Name: "/cmd2", Source: fleetgate.SourceROS2}
	rec.Command(raw.ID, cmdKey, typeTwist, fleettest.TwistPayload(1, 0), clk.Now())
	rec.Command(raw.ID, ros1, "my_msgs/Go", []byte{1}, clk.Now())
	rec.Command(raw.ID, ros2, "my_msgs/msg/Go", []byte{0, 1, 0, 0, 2}, clk.Now())
	rec.Command("another robot", cmdKey, typeTwist, fleettest.TwistPayload(1, 0), clk.Now())
	f.mu.Lock()
	held := len(f.items)
	f.mu.Unlock()
	if held != 3 {
		t.Fatalf("the buffer holds %d commands, want 3", held)
	}
	r, err := robot.TriggerRecording(bg, "commands", "")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	waitFinished(t, robot, r.ID)
	_, channels := messagesOf(t, rec.path(r.ID))
	for topic, enc := range map[string]string{"/base/cmd_vel": mcap.EncodingProtobuf, "/cmd": mcap.MessageROS1, "/cmd2": mcap.MessageCDR} {
		if c, ok := channels[topic]; !ok || c.MessageEncoding != enc || c.Metadata["direction"] != "input" {
			t.Errorf("channel %s: %+v, want %s, an input", topic, c, enc)
		}
	}
}

// TestFlightTailCap: a recording being made takes at most the buffer's cap of what follows
// its trigger; the rest is counted as dropped, and the buffer itself stays within its cap.
func TestFlightTailCap(t *testing.T) {
	const frame = 10_000
	limit := int64(5 * (frame + 200))
	rec, clk, raw, robot, f := flightRecorder(t, FlightConfig{Buffer: time.Minute, After: time.Second, MaxBytes: limit})
	r, err := robot.TriggerRecording(bg, "burst", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		emitBuffered(t, f, raw, imageKey, typeImage, imagePayload(i, frame))
	}
	f.mu.Lock()
	bytes := f.bytes
	f.mu.Unlock()
	if bytes > limit {
		t.Fatalf("the buffer holds %d bytes past its cap of %d while a recording is made", bytes, limit)
	}
	clk.Advance(time.Second)
	done := waitFinished(t, robot, r.ID)
	got, _ := messagesOf(t, rec.path(r.ID))
	if n := len(got["/camera/image"]); n+int(done.Dropped) != 12 || n > 5 || done.Dropped == 0 {
		t.Fatalf("%d frames written, %d dropped, of 12 after the trigger with room for 5", n, done.Dropped)
	}
}

// TestFlightCrashLeavesNothingBehind: a flight recording whose file was never written (the
// agent died before the time after its trigger) is gone at the next start, with no trace.
func TestFlightCrashLeavesNothingBehind(t *testing.T) {
	cfg := testConfig(t)
	cfg.Flight = FlightConfig{Buffer: time.Minute, After: time.Hour}
	rec, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	robot := rec.Wrap(newTestRobot("robot1"))
	r, err := robot.TriggerRecording(bg, "crash", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rec.metaPath(r.ID)); err != nil {
		t.Fatalf("the recording's description is not on disk before its file: %v", err)
	}
	// A crash: the process ends without Close. The next start finds the description alone.
	again := openRecorder(t, cfg)
	if list := again.list(robot.Info().ID); len(list) != 0 || len(again.entries) != 0 {
		t.Fatalf("after a crash: %d recordings known", len(again.entries))
	}
	if _, err := os.Stat(rec.metaPath(r.ID)); !os.IsNotExist(err) {
		t.Fatalf("the description is still there: %v", err)
	}
	rec.Close() // the first recorder's goroutines, for the test's sake
}
