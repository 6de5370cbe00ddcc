package record

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
)

var bg = context.Background()

func start(t *testing.T, robot *Robot, req fleetgate.RecordingRequest) fleetgate.Recording {
	t.Helper()
	rec, err := robot.StartRecording(bg, req)
	if err != nil {
		t.Fatalf("StartRecording: %v", err)
	}
	if rec.State != fleetgate.RecordingActive || rec.ID == "" {
		t.Fatalf("a new recording is %+v", rec)
	}
	return rec
}

// TestRecordingReadByMcapCore records three streams (two catalog types, one opaque ROS 1
// type) and has @mcap/core read the file: schemas, channels, counts, first and last times,
// payloads decoded, a seek to the middle through the chunk index.
func TestRecordingReadByMcapCore(t *testing.T) {
	cfg := testConfig(t)
	cfg.Fleet, cfg.Agent, cfg.Version = "local-fleet", "dock-7", "v9.9.9"
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey, imageKey, beaconKey}})

	const rounds = 40
	sent := map[fleetgate.StreamKey][]fleetgate.Sample{}
	for i := range rounds {
		sent[poseKey] = append(sent[poseKey], emitWritten(t, robot, raw, r.ID, poseKey, typePose, posePayload(i)))
		sent[imageKey] = append(sent[imageKey], emitWritten(t, robot, raw, r.ID, imageKey, typeImage, imagePayload(i, 4000)))
		if i%4 == 0 {
			sent[beaconKey] = append(sent[beaconKey], emitWritten(t, robot, raw, r.ID, beaconKey, typeBeacon, beaconPayload(i)))
		}
	}
	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != fleetgate.RecordingStopped || done.Reason != "stop requested" || done.ErrorType != "" || done.Dropped != 0 {
		t.Fatalf("stopped recording: %+v", done)
	}
	total := len(sent[poseKey]) + len(sent[imageKey]) + len(sent[beaconKey])
	if done.Messages != int64(total) {
		t.Fatalf("%d messages written, %d sent", done.Messages, total)
	}

	report := mcaptest.Indexed(t, rec.path(r.ID))
	if int(report.Statistics.MessageCount) != total || report.Header.Library != "fleetgate-test" {
		t.Fatalf("@mcap/core counts %d messages (library %q), want %d", report.Statistics.MessageCount, report.Header.Library, total)
	}
	wantSchemas := map[string]string{typePose: mcap.EncodingProtobuf, typeImage: mcap.EncodingProtobuf, typeBeacon: mcap.SchemaROS1}
	for _, s := range report.Schemas {
		if wantSchemas[s.Name] != s.Encoding {
			t.Errorf("schema %s %s was not expected", s.Name, s.Encoding)
		}
		delete(wantSchemas, s.Name)
	}
	if len(wantSchemas) != 0 {
		t.Errorf("missing schemas %v", wantSchemas)
	}
	for key, topic := range map[fleetgate.StreamKey]string{poseKey: "/base/pose", imageKey: "/camera/image", beaconKey: "/beacon"} {
		ch := report.Topic(topic)
		if ch == nil {
			t.Fatalf("no channel %s", topic)
		}
		want := sent[key]
		if ch.Count != len(want) {
			t.Fatalf("%s: %d messages, sent %d", topic, ch.Count, len(want))
		}
		if first, last := ch.PublishTimes[0].Time(), ch.PublishTimes[len(want)-1].Time(); !first.Equal(want[0].Time) || !last.Equal(want[len(want)-1].Time) {
			t.Errorf("%s: published from %v to %v, sent from %v to %v", topic, first, last, want[0].Time, want[len(want)-1].Time)
		}
		for i, s := range want {
			if ch.Sequences[i] != uint32(s.Seq) || ch.LogTimes[i].Time().Before(s.Time) {
				t.Fatalf("%s message %d: seq %d logged at %v; sent seq %d at %v", topic, i, ch.Sequences[i], ch.LogTimes[i].Time(), s.Seq, s.Time)
			}
		}
		if ch.Metadata["component"] != key.Component || ch.Metadata["stream"] != key.Name {
			t.Errorf("%s: metadata %v", topic, ch.Metadata)
		}
	}
	pose := report.Topic("/base/pose").Last
	if x := pose["pose"].(map[string]any)["position"].(map[string]any)["x"]; x != float64(rounds-1) {
		t.Errorf("the last pose decodes with x = %v, want %d", x, rounds-1)
	}
	img, _ := base64.StdEncoding.DecodeString(fmt.Sprint(report.Topic("/camera/image").Last["data"]))
	if len(img) != 4000 || img[0] != byte(rounds-1) {
		t.Errorf("the last image decodes to %d bytes starting %x", len(img), img[:min(1, len(img))])
	}
	beacon, _ := base64.StdEncoding.DecodeString(fmt.Sprint(report.Topic("/beacon").Last["rawBase64"]))
	if !bytes.Equal(beacon, sent[beaconKey][len(sent[beaconKey])-1].Payload) {
		t.Errorf("the last opaque message reads %x", beacon)
	}
	if report.Chunks < 3 || report.Seek.FromMiddle == 0 || report.Seek.ChunksRead >= report.Chunks {
		t.Errorf("seek to the middle: %d messages from %d of %d chunks", report.Seek.FromMiddle, report.Seek.ChunksRead, report.Chunks)
	}
	// The file says what it is without its name.
	if len(report.Metadata) != 1 || report.Metadata[0].Name != MetadataName {
		t.Fatalf("@mcap/core reads metadata %+v, want one %q record", report.Metadata, MetadataName)
	}
	want := map[string]string{"recordingId": r.ID, "robotId": raw.ID, "robotName": "robot1", "fleet": "local-fleet", "agent": "dock-7",
		"trigger": fleetgate.TriggerManual, "eventId": "", "gatewayVersion": "v9.9.9"}
	if got := report.Metadata[0].Metadata; !maps.Equal(got, want) {
		t.Errorf("metadata %v, want %v", got, want)
	}
}

// TestRecordingIsAResource: a finished recording is one of its robot's resources, opened as
// its file; a running one is not. The Recordings metric reports both.
func TestRecordingIsAResource(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	other := rec.Wrap(newTestRobot("robot2"))
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
	emitWritten(t, robot, raw, r.ID, poseKey, typePose, posePayload(1))

	list, err := robot.Resources(bg)
	if err != nil || len(list) != 1 {
		t.Fatalf("while recording, resources %v (%v): only the robot's own", list, err)
	}
	types, _ := robot.Metrics(bg)
	if !slices.Contains(types, fleetgate.MetricRecordings) || !slices.Contains(types, fleetgate.MetricBattery) {
		t.Fatalf("metric types %v", types)
	}
	m, err := robot.Metric(bg, fleetgate.MetricRecordings, "")
	if err != nil {
		t.Fatal(err)
	}
	recorders := m.Value.([]fleetgate.Recorder)
	if len(recorders) != 1 || recorders[0].ID != r.ID || recorders[0].State != fleetgate.RecordingActive || recorders[0].Type != "mcap" ||
		recorders[0].EndTime.Before(recorders[0].StartTime) {
		t.Fatalf("Recordings metric while recording: %+v", recorders)
	}

	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, _ = robot.Resources(bg)
	i := slices.IndexFunc(list, func(res fleetgate.Resource) bool { return res.ID == r.ID })
	if i < 0 {
		t.Fatalf("the finished recording is not a resource: %v", list)
	}
	res := list[i]
	st, _ := os.Stat(rec.path(r.ID))
	if res.MIMEType != "application/mcap" || res.FileType != "mcap" || res.Size != st.Size() || res.Size != done.Size ||
		!res.CreatedAt.Equal(done.StartTime) || res.Name != fileName("robot1", done.StartTime) {
		t.Fatalf("resource %+v; file of %d bytes, recording %+v", res, st.Size(), done)
	}
	f, got, err := robot.OpenResource(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	if int64(len(data)) != got.Size || !bytes.HasPrefix(data, mcap.Magic) {
		t.Fatalf("opened %d bytes, resource says %d", len(data), got.Size)
	}
	if _, _, err := other.OpenResource(bg, r.ID); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Fatalf("another robot opens the recording: %v", err)
	}
	if _, err := other.StopRecording(bg, r.ID); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Fatalf("another robot stops the recording: %v", err)
	}
	if f, _, err := robot.OpenResource(bg, "0b7c6f7e-1111-4111-8111-111111111111"); err != nil {
		t.Fatalf("the robot's own resource: %v", err)
	} else {
		f.Close()
	}
	m, _ = robot.Metric(bg, fleetgate.MetricRecordings, "")
	if recorders := m.Value.([]fleetgate.Recorder); len(recorders) != 1 || recorders[0].State != fleetgate.RecordingStopped ||
		!recorders[0].EndTime.Equal(done.EndTime) {
		t.Fatalf("Recordings metric after the stop: %+v", recorders)
	}

	// A restart keeps the finished recordings.
	rec.Close()
	again := openRecorder(t, Config{Dir: rec.cfg.Dir, Logger: rec.cfg.Logger})
	list, _ = again.Wrap(raw).Resources(bg)
	if !slices.ContainsFunc(list, func(res fleetgate.Resource) bool { return res == got }) {
		t.Fatalf("after a restart, resources %v lack %v", list, got)
	}
}

func TestStartRefusesBadRequests(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	robot := rec.Wrap(newTestRobot("robot1"))
	for _, tc := range []struct {
		name string
		req  fleetgate.RecordingRequest
	}{
		{"no stream", fleetgate.RecordingRequest{}},
		{"unknown stream", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{{Component: "x", Name: "y", Source: 1}}}},
		{"input stream", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{cmdKey}}},
		{"twice the same", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey, poseKey}}},
		{"negative duration", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, Duration: -time.Second}},
		{"endless duration", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, Duration: MaxDuration + 1}},
		{"tiny size limit", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, MaxBytes: 1000}},
		{"negative rate", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, MaxRate: -1}},
		{"NaN rate", fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, MaxRate: math.NaN()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := robot.StartRecording(bg, tc.req); !fleetgate.Is(err, fleetgate.EInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
	if list, _ := robot.Recordings(bg); len(list) != 0 {
		t.Fatalf("refused requests left recordings: %v", list)
	}
	if entries, _ := os.ReadDir(rec.cfg.Dir); len(entries) != 0 {
		t.Fatalf("refused requests left files: %v", entries)
	}
}

// TestDurationLimit on an injected clock: the recording runs exactly its duration.
func TestDurationLimit(t *testing.T) {
	clock := clocktest.NewAt(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	cfg := testConfig(t)
	cfg.Clock = clock
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, Duration: 10 * time.Second})
	emitWritten(t, robot, raw, r.ID, poseKey, typePose, posePayload(1))

	clock.Advance(10*time.Second - time.Millisecond)
	if stopping(rec, r.ID) {
		t.Fatal("1 ms before its duration the recording is stopping")
	}
	clock.Advance(time.Millisecond)
	if !stopping(rec, r.ID) {
		t.Fatal("at its duration the recording is not stopping")
	}
	done := waitFinished(t, robot, r.ID)
	if done.State != fleetgate.RecordingStopped || done.Reason != "duration limit" {
		t.Fatalf("the recording ended %s (%s)", done.State, done.Reason)
	}
	if d := done.Duration(clock.Now()); d != 10*time.Second {
		t.Fatalf("the recording lasted %v on the clock, want 10s", d)
	}
	if s := summaryOf(t, rec.path(r.ID)); s.Statistics.MessageCount != 1 {
		t.Fatalf("%d messages in the file, want 1", s.Statistics.MessageCount)
	}
}

// TestDurationLimitRealTime: the same rule on the wall clock, end to end.
func TestDurationLimitRealTime(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	began := time.Now()
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, Duration: 300 * time.Millisecond})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a 50 Hz pose stream
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				raw.Emit(poseKey, typePose, posePayload(i))
			}
		}
	}()
	done := waitFinished(t, robot, r.ID)
	close(stop)
	wg.Wait()
	if done.Reason != "duration limit" || done.State != fleetgate.RecordingStopped || time.Since(began) < 300*time.Millisecond {
		t.Fatalf("recording %+v ended after %v", done, time.Since(began))
	}
	if d := done.EndTime.Sub(done.StartTime); d < 300*time.Millisecond-time.Millisecond {
		t.Fatalf("recorded for %v, the limit is 300ms", d)
	}
	s := summaryOf(t, rec.path(r.ID))
	if s.Statistics.MessageCount == 0 || s.End().Sub(s.Start()) > 400*time.Millisecond {
		t.Fatalf("%d messages from %v to %v", s.Statistics.MessageCount, s.Start(), s.End())
	}
}

// TestSizeLimit: the file stops before the limit, complete, and close to it.
func TestSizeLimit(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	const limit = 1 << 20
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey, poseKey}, MaxBytes: limit})
	var got fleetgate.Recording
	for i := 0; ; i++ {
		before := recording(t, robot, r.ID)
		raw.Emit(imageKey, typeImage, imagePayload(i, 20<<10))
		waitFor(t, "the image to be written or the limit reached", func() bool {
			got = recording(t, robot, r.ID)
			return got.Messages > before.Messages || got.State != fleetgate.RecordingActive
		})
		if got.State != fleetgate.RecordingActive {
			break
		}
		if i > 200 {
			t.Fatal("the size limit never stopped the recording")
		}
	}
	done := waitFinished(t, robot, r.ID)
	st, err := os.Stat(rec.path(r.ID))
	if err != nil {
		t.Fatal(err)
	}
	if done.Reason != "size limit" || done.State != fleetgate.RecordingStopped || st.Size() > limit || st.Size() < limit-3*(20<<10) {
		t.Fatalf("recording %+v; its file has %d bytes, the limit is %d", done, st.Size(), limit)
	}
	if s := summaryOf(t, rec.path(r.ID)); s.Statistics.MessageCount != uint64(done.Messages) {
		t.Fatalf("the file holds %d messages, the recording says %d", s.Statistics.MessageCount, done.Messages)
	}
}

// TestRateCap on an injected clock: one sample per interval, the newest when it ends.
func TestRateCap(t *testing.T) {
	clock := clocktest.NewAt(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	cfg := testConfig(t)
	cfg.Clock = clock
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, MaxRate: 2})
	s1 := emitWritten(t, robot, raw, r.ID, poseKey, typePose, posePayload(1))
	raw.Emit(poseKey, typePose, posePayload(2))
	// The puller took sample 2 and waits out the interval: a timer due 500 ms after the
	// first sample (the flush ticker's are due every 20 ms from the start: not then).
	due := clock.Now().Add(500 * time.Millisecond)
	waitFor(t, "the puller to wait for the rate cap", func() bool { return clock.PendingAt(due) > 0 })
	s3 := raw.Emit(poseKey, typePose, posePayload(3))
	clock.Advance(499 * time.Millisecond)
	if got := recording(t, robot, r.ID).Messages; got != 1 {
		t.Fatalf("%d messages before the interval ended", got)
	}
	clock.Advance(time.Millisecond)
	waitFor(t, "the newest sample after the interval", func() bool { return recording(t, robot, r.ID).Messages == 2 })
	robot.StopRecording(bg, r.ID)
	var seqs []uint32
	f, _ := os.Open(rec.path(r.ID))
	defer f.Close()
	st, _ := f.Stat()
	mcap.ReadMessages(f, st.Size(), func(_ mcap.Channel, m mcap.Message) error {
		seqs = append(seqs, m.Sequence)
		return nil
	})
	if !slices.Equal(seqs, []uint32{uint32(s1.Seq), uint32(s3.Seq)}) {
		t.Fatalf("recorded sequences %v, want %d and %d (2 is skipped by the cap)", seqs, s1.Seq, s3.Seq)
	}
	if got := recording(t, robot, r.ID); got.Dropped != 0 {
		t.Fatalf("samples the cap skipped counted as dropped: %d", got.Dropped)
	}
}

// TestRateCapRealTime: at most rate per second of a faster stream, on the wall clock.
func TestRateCapRealTime(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	began := time.Now()
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, MaxRate: 10})
	for i := range 100 { // 200 Hz for half a second
		raw.Emit(poseKey, typePose, posePayload(i))
		time.Sleep(5 * time.Millisecond)
	}
	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began)
	if max := int64(elapsed/(100*time.Millisecond)) + 1; done.Messages > max || done.Messages < 2 {
		t.Fatalf("%d samples in %v at 10 per second (at most %d)", done.Messages, elapsed, max)
	}
}

// TestRobotOffline: a robot that goes away ends its recording with a complete file.
func TestRobotOffline(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey, imageKey}})
	emitWritten(t, robot, raw, r.ID, poseKey, typePose, posePayload(1))
	raw.Disconnect()
	done := waitFinished(t, robot, r.ID)
	if done.State != fleetgate.RecordingStopped || done.ErrorType != fleetgate.RecordingRobotOffline {
		t.Fatalf("recording of a robot gone offline: %+v", done)
	}
	if s := summaryOf(t, rec.path(r.ID)); s.Statistics.MessageCount != 1 {
		t.Fatalf("%d messages in the file", s.Statistics.MessageCount)
	}
}

// recordBytes runs a recording of about n bytes of images on robot and stops it.
func recordBytes(t *testing.T, robot *Robot, raw testRobot, n int) fleetgate.Recording {
	t.Helper()
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}})
	for i := 0; i < n/(50<<10); i++ {
		emitWritten(t, robot, raw, r.ID, imageKey, typeImage, imagePayload(i, 50<<10))
	}
	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	return done
}

// TestQuotaEviction: the oldest finished recordings go first, a running one never.
func TestQuotaEviction(t *testing.T) {
	cfg := testConfig(t)
	cfg.Quota = 3 << 20
	cfg.RobotQuota = cfg.Quota // one robot: the agent's quota is its own
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	a := recordBytes(t, robot, raw, 1200<<10)
	b := recordBytes(t, robot, raw, 1200<<10)
	exists := func(id string) bool { _, err := os.Stat(rec.path(id)); return err == nil }
	if !exists(a.ID) || !exists(b.ID) {
		t.Fatal("recordings within the quota are gone")
	}

	// A third needs room: the oldest goes.
	c := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}})
	if exists(a.ID) || !exists(b.ID) {
		t.Fatalf("starting a third recording: the oldest exists %v, the second %v", exists(a.ID), exists(b.ID))
	}
	list, _ := robot.Resources(bg)
	if slices.ContainsFunc(list, func(res fleetgate.Resource) bool { return res.ID == a.ID }) {
		t.Fatal("an evicted recording is still a resource")
	}
	// As it grows, the second goes too; then, with nothing finished left, it fails itself.
	var got fleetgate.Recording
	for i := 0; got.State != fleetgate.RecordingFailed; i++ {
		before := recording(t, robot, c.ID).Messages
		raw.Emit(imageKey, typeImage, imagePayload(i, 50<<10))
		waitFor(t, "the image written or the quota hit", func() bool {
			got = recording(t, robot, c.ID)
			return got.Messages > before || got.State != fleetgate.RecordingActive
		})
		if i > 200 {
			t.Fatal("the quota never stopped the recording")
		}
	}
	if exists(b.ID) {
		t.Fatal("the older finished recording was kept while the running one filled the quota")
	}
	done := waitFinished(t, robot, c.ID)
	if done.ErrorType != fleetgate.RecordingQuotaExceeded || !exists(c.ID) {
		t.Fatalf("the recording that filled the quota: %+v", done)
	}
	st, _ := os.Stat(rec.path(c.ID))
	if st.Size() > cfg.Quota {
		t.Fatalf("the running recording grew to %d bytes, past the quota of %d", st.Size(), cfg.Quota)
	}
	summaryOf(t, rec.path(c.ID))
	// With the quota full of a finished recording, the next start evicts it.
	start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
	if exists(c.ID) {
		t.Fatal("a new recording did not make room")
	}
}

// growUntilFailed feeds images to running recording id until the quota fails it.
func growUntilFailed(t *testing.T, robot *Robot, raw testRobot, id string) fleetgate.Recording {
	t.Helper()
	var got fleetgate.Recording
	for i := 0; got.State != fleetgate.RecordingFailed; i++ {
		before := recording(t, robot, id).Messages
		raw.Emit(imageKey, typeImage, imagePayload(i, 50<<10))
		waitFor(t, "the image written or the quota hit", func() bool {
			got = recording(t, robot, id)
			return got.Messages > before || got.State != fleetgate.RecordingActive
		})
		if i > 200 {
			t.Fatal("the quota never stopped the recording")
		}
	}
	return waitFinished(t, robot, id)
}

// TestQuotaPerRobot: a robot's recordings stay within its share of the agent's quota, and
// the room one robot needs is never taken from another robot's recordings.
func TestQuotaPerRobot(t *testing.T) {
	cfg := testConfig(t)
	cfg.Quota = 4 << 20 // each robot's: 2 MiB, by default
	rec := openRecorder(t, cfg)
	rawA, rawB := newTestRobot("robot1"), newTestRobot("robot2")
	a, b := rec.Wrap(rawA), rec.Wrap(rawB)
	exists := func(id string) bool { _, err := os.Stat(rec.path(id)); return err == nil }

	// Robot 1 records more than its share: its own oldest go.
	a1 := recordBytes(t, a, rawA, 900<<10)
	a2 := recordBytes(t, a, rawA, 900<<10)
	a3 := recordBytes(t, a, rawA, 900<<10)
	if exists(a1.ID) || !exists(a2.ID) || !exists(a3.ID) {
		t.Fatalf("robot 1 past its quota: its oldest exists %v, the next two %v %v", exists(a1.ID), exists(a2.ID), exists(a3.ID))
	}
	rec.mu.Lock()
	usedA := rec.usageLocked(a.Info().ID)
	rec.mu.Unlock()
	if usedA > rec.cfg.RobotQuota {
		t.Fatalf("robot 1 keeps %d bytes of recordings; its quota is %d", usedA, rec.cfg.RobotQuota)
	}

	// Robot 2 starts, and grows until its own share is full: it fails itself, and robot 1's
	// recordings are all kept.
	b1 := start(t, b, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}})
	done := growUntilFailed(t, b, rawB, b1.ID)
	if !exists(a2.ID) || !exists(a3.ID) {
		t.Fatalf("robot 2's recording deleted robot 1's: %v %v", exists(a2.ID), exists(a3.ID))
	}
	if done.ErrorType != fleetgate.RecordingQuotaExceeded || !strings.Contains(done.Reason, "robot2") {
		t.Fatalf("robot 2's recording past its quota: %+v", done)
	}
	// Its next recording makes room from its own finished one.
	start(t, b, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
	if exists(b1.ID) || !exists(a2.ID) || !exists(a3.ID) {
		t.Fatalf("robot 2's next recording: its own old one exists %v, robot 1's %v %v", exists(b1.ID), exists(a2.ID), exists(a3.ID))
	}
}

// TestQuotaNeverTakesAnotherRobots: when the agent's quota is full of one robot's finished
// recordings, another robot with none of its own is refused, and nothing is deleted.
func TestQuotaNeverTakesAnotherRobots(t *testing.T) {
	cfg := testConfig(t)
	cfg.Quota = 3 << 20
	cfg.RobotQuota = cfg.Quota
	rec := openRecorder(t, cfg)
	rawA, rawB := newTestRobot("robot1"), newTestRobot("robot2")
	a, b := rec.Wrap(rawA), rec.Wrap(rawB)
	a1 := recordBytes(t, a, rawA, 1200<<10)
	a2 := recordBytes(t, a, rawA, 1200<<10)

	_, err := b.StartRecording(bg, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
	if fleetgate.ErrorCode(err) != fleetgate.EUnavailable || !strings.Contains(err.Error(), "no finished recording") {
		t.Fatalf("robot 2 with the quota full of robot 1's recordings: %v", err)
	}
	for _, id := range []string{a1.ID, a2.ID} {
		if _, err := os.Stat(rec.path(id)); err != nil {
			t.Fatalf("robot 1's recording %s: %v", id, err)
		}
	}
}

// TestSlotsPerRobot: one robot takes at most its share of the agent's recording slots, so
// another robot can still record.
func TestSlotsPerRobot(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	a, b := rec.Wrap(newTestRobot("robot1")), rec.Wrap(newTestRobot("robot2"))
	for range MaxActivePerRobot {
		start(t, a, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
	}
	_, err := a.StartRecording(bg, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
	if fleetgate.ErrorCode(err) != fleetgate.EUnavailable || !strings.Contains(err.Error(), "robot1") {
		t.Fatalf("robot 1's recording past its slots: %v", err)
	}
	start(t, b, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
}

// TestFileNamesUniqueInOneSecond: recordings of a robot started in the same second are
// offered under different file names.
func TestFileNamesUniqueInOneSecond(t *testing.T) {
	clock := clocktest.NewAt(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	cfg := testConfig(t)
	cfg.Clock = clock
	rec := openRecorder(t, cfg)
	robot := rec.Wrap(newTestRobot("robot1"))
	names := map[string]bool{}
	for i := range 3 {
		r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}})
		if _, err := robot.StopRecording(bg, r.ID); err != nil {
			t.Fatal(err)
		}
		res, ok := rec.resource(robot.Info().ID, r.ID)
		if !ok {
			t.Fatalf("recording %d is not a resource", i)
		}
		if names[res.Name] {
			t.Fatalf("two recordings started in one second are both %s", res.Name)
		}
		names[res.Name] = true
		clock.Advance(300 * time.Millisecond)
	}
}

// cappedFile is a file on a disk with room for only so many more bytes.
type cappedFile struct {
	*os.File
	mu   sync.Mutex
	room int
}

func (f *cappedFile) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(b) > f.room {
		n, _ := f.File.Write(b[:f.room])
		f.room = 0
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	f.room -= len(b)
	return f.File.Write(b)
}

// TestDiskFull: a full disk fails the recording, whose file keeps its complete chunks, and
// leaves the finished recordings as they were.
func TestDiskFull(t *testing.T) {
	cfg := testConfig(t)
	var capped bool
	cfg.create = func(path string) (file, error) {
		f, err := createFile(path)
		if err != nil || !capped {
			return f, err
		}
		return &cappedFile{File: f.(*os.File), room: 300 << 10}, nil
	}
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	earlier := recordBytes(t, robot, raw, 300<<10)
	before, err := os.ReadFile(rec.path(earlier.ID))
	if err != nil {
		t.Fatal(err)
	}

	capped = true
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}})
	var got fleetgate.Recording
	for i := 0; got.State != fleetgate.RecordingFailed; i++ {
		b := recording(t, robot, r.ID).Messages
		raw.Emit(imageKey, typeImage, imagePayload(i, 20<<10))
		waitFor(t, "the image written or the disk full", func() bool {
			got = recording(t, robot, r.ID)
			return got.Messages > b || got.State != fleetgate.RecordingActive
		})
		if i > 100 {
			t.Fatal("the full disk never stopped the recording")
		}
	}
	done := waitFinished(t, robot, r.ID)
	if done.ErrorType != fleetgate.RecordingDiskFull || done.State != fleetgate.RecordingFailed {
		t.Fatalf("recording on a full disk: %+v", done)
	}
	s := summaryOf(t, rec.path(r.ID))
	if s.Statistics.MessageCount == 0 || s.Statistics.MessageCount != uint64(done.Messages) {
		t.Fatalf("the failed recording's file holds %d messages, the recording says %d", s.Statistics.MessageCount, done.Messages)
	}
	after, _ := os.ReadFile(rec.path(earlier.ID))
	if !bytes.Equal(before, after) {
		t.Fatal("the finished recording changed")
	}
	if list, _ := robot.Resources(bg); !slices.ContainsFunc(list, func(res fleetgate.Resource) bool { return res.ID == r.ID }) {
		t.Fatal("the recovered file of a failed recording is not offered")
	}
}

// gatedFile blocks its writes while its gate is closed: a disk far slower than the streams.
type gatedFile struct {
	*os.File
	gate *gate
}

type gate struct {
	mu     sync.Mutex
	closed bool
	open   chan struct{}
}

func (f *gatedFile) Write(b []byte) (int, error) {
	f.gate.mu.Lock()
	closed, open := f.gate.closed, f.gate.open
	f.gate.mu.Unlock()
	if closed {
		<-open
	}
	return f.File.Write(b)
}

// TestSlowDiskDropsNeverBlocks: while the disk does not move, the stream and a live viewer
// go on; the recorder drops samples and counts them, and every sample is either written or
// counted as dropped.
func TestSlowDiskDropsNeverBlocks(t *testing.T) {
	cfg := testConfig(t)
	cfg.QueueBytes = 64 << 10
	g := &gate{open: make(chan struct{})}
	cfg.create = func(path string) (file, error) {
		f, err := createFile(path)
		if err != nil {
			return nil, err
		}
		return &gatedFile{File: f.(*os.File), gate: g}, nil
	}
	rec := openRecorder(t, cfg)
	opened := false
	t.Cleanup(func() { // before the recorder closes: its writer waits on the gate
		if !opened {
			close(g.open)
		}
	})
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}})
	viewer, err := raw.Subscribe(bg, imageKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer viewer.Close()
	// The first sample is the recorder's baseline: it learns of gaps after it.
	emitWritten(t, robot, raw, r.ID, imageKey, typeImage, imagePayload(0, 10<<10))
	viewer.Next(bg)
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()

	const n = 300
	var last fleetgate.Sample
	for i := 1; i < n; i++ {
		last = raw.Emit(imageKey, typeImage, imagePayload(i, 10<<10))
		got, err := viewer.Next(bg) // the live viewer keeps up, disk or not
		if err != nil || got.Seq != last.Seq {
			t.Fatalf("the viewer got %d (%v), want %d", got.Seq, err, last.Seq)
		}
	}
	waitFor(t, "the recorder to learn of every sample", func() bool {
		return received(rec, r.ID) == n && recording(t, robot, r.ID).Dropped > 0
	})
	close(g.open)
	opened = true
	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Messages+done.Dropped != n || done.Dropped == 0 {
		t.Fatalf("%d written and %d dropped of %d", done.Messages, done.Dropped, n)
	}
	m, _ := robot.Metric(bg, fleetgate.MetricRecordings, "")
	if rs := m.Value.([]fleetgate.Recorder); rs[0].Dropped != done.Dropped {
		t.Fatalf("the metric counts %d dropped, the recording %d", rs[0].Dropped, done.Dropped)
	}
	if s := summaryOf(t, rec.path(r.ID)); s.Statistics.MessageCount != uint64(done.Messages) {
		t.Fatalf("the file holds %d messages, the recording says %d", s.Statistics.MessageCount, done.Messages)
	}
}

// received is the number of samples recording id learnt of.
func received(r *Recorder, id string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.entries[id]; e != nil && e.s != nil {
		return e.s.received.Load()
	}
	return -1
}

// stopping reports whether running recording id has been told to stop.
func stopping(r *Recorder, id string) bool {
	r.mu.Lock()
	e := r.entries[id]
	r.mu.Unlock()
	if e == nil || e.s == nil {
		return true
	}
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	return e.s.stopped
}

// lateDefinitionRobot knows its opaque stream's definition only from its third asking on,
// as a ROS 1 source learns it from the first publisher that connects.
type lateDefinitionRobot struct {
	testRobot
	mu    sync.Mutex
	asked int
}

func (r *lateDefinitionRobot) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked++
	if r.asked < 3 {
		return "", "", fleetgate.Errorf(fleetgate.ENotFound, "no publisher yet")
	}
	return r.testRobot.MessageDefinition(ctx, key)
}

// TestOpaqueDefinitionLearntAfterSubscribing: an opaque stream whose definition the source
// learns once subscribed is recorded with it as a ros1msg schema.
func TestOpaqueDefinitionLearntAfterSubscribing(t *testing.T) {
	rec := openRecorder(t, testConfig(t))
	raw := &lateDefinitionRobot{testRobot: newTestRobot("robot1")}
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{beaconKey}})
	emitWritten(t, robot, raw.testRobot, r.ID, beaconKey, typeBeacon, beaconPayload(1))
	robot.StopRecording(bg, r.ID)
	s := summaryOf(t, rec.path(r.ID))
	if len(s.Schemas) != 1 || s.Schemas[1].Encoding != mcap.SchemaROS1 || string(s.Schemas[1].Data) != beaconDef || s.Schemas[1].Name != typeBeacon {
		t.Fatalf("schemas %+v, want the ros1msg definition learnt after subscribing", s.Schemas)
	}
	if c := s.Channels[0]; c.SchemaID != 1 || c.MessageEncoding != mcap.MessageROS1 || c.Topic != "/beacon" {
		t.Fatalf("channel %+v", c)
	}
}
