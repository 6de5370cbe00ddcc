package cloud_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"github.com/fleetgate/fleetgate/internal/record"
)

// TestRecordingOverTheLink: the cloud starts, lists and stops a recording on the agent's
// recorder; the finished file reaches the cloud's archive through the resource upload and
// is served from there while the agent is gone.
func TestRecordingOverTheLink(t *testing.T) {
	w := newWorld(t)
	rec, err := record.Open(record.Config{Dir: t.TempDir(), FlushEvery: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	bot := scriptedRobot(idOne, "one")
	stop := w.startAgent("fga_alpha", rec.Wrap(bot))
	w.waitOnline(idOne, true, 5*time.Second)
	remote, ok := w.remote(idOne).(fleet.RecordingControl)
	if !ok {
		t.Fatal("a robot behind the link offers no recording control")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if _, err := remote.StartRecording(ctx, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{driveKey}}); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("recording an input stream over the link: %v, want ErrInvalid", err)
	}
	started, err := remote.StartRecording(ctx, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey}, Duration: time.Hour, MaxRate: 5})
	if err != nil {
		t.Fatal(err)
	}
	if started.State != fleetgate.RecordingActive || started.Request.Duration != time.Hour || started.Request.MaxRate != 5 ||
		len(started.Streams) != 1 || started.Streams[0].Topic != "/base/pose" {
		t.Fatalf("started over the link: %+v", started)
	}
	for i := range 3 {
		bot.Emit(poseKey, "Platform.Messages.geometry_msgs.PoseStamped", []byte{0x0a, 0x00, byte(i)})
		time.Sleep(250 * time.Millisecond) // the 5 per second cap lets each through
	}
	list, err := remote.Recordings(ctx)
	if err != nil || len(list) != 1 || list[0].ID != started.ID || list[0].State != fleetgate.RecordingActive {
		t.Fatalf("listed over the link: %+v, %v", list, err)
	}
	m, err := w.remote(idOne).Metric(ctx, fleetgate.MetricRecordings, "")
	if rs, ok := m.Value.([]fleetgate.Recorder); err != nil || !ok || len(rs) != 1 || rs[0].ID != started.ID {
		t.Fatalf("Recordings metric over the link: %+v, %v", m, err)
	}
	done, err := remote.StopRecording(ctx, started.ID)
	if err != nil || done.State != fleetgate.RecordingStopped || done.Messages < 2 || done.EndTime.IsZero() {
		t.Fatalf("stopped over the link: %+v, %v", done, err)
	}
	if _, err := remote.StopRecording(ctx, "no-such-recording"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Fatalf("stopping an unknown recording: %v, want ErrNotFound", err)
	}

	// The file is uploaded whole to the archive, and served from it with the agent gone.
	var res fleetgate.Resource
	deadline := time.Now().Add(10 * time.Second)
	for res.ID == "" {
		list, _ := w.remote(idOne).Resources(ctx)
		for _, r := range list {
			if r.ID == started.ID {
				res = r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recording never reached the archive\nlogs:\n%s", w.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if res.MIMEType != "application/mcap" || res.FileType != "mcap" || res.Size != done.Size {
		t.Fatalf("archived recording %+v, recorded %d bytes", res, done.Size)
	}
	stop()
	w.waitOnline(idOne, false, 2*time.Second)
	f, err := w.dir.Open(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	s, err := mcap.ReadSummary(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the archived copy is not a complete MCAP file: %v", err)
	}
	if s.Statistics.MessageCount != uint64(done.Messages) {
		t.Fatalf("the archived copy holds %d messages; recorded %d", s.Statistics.MessageCount, done.Messages)
	}
}

// TestFlightTriggerOverTheLink: the cloud triggers the agent's flight recorder with its
// entry's id; the recording comes back at once with its trigger and entry, is listed so, and
// an agent whose flight recorder is off says so.
func TestFlightTriggerOverTheLink(t *testing.T) {
	w := newWorld(t)
	open := func(buffer time.Duration) *record.Recorder {
		rec, err := record.Open(record.Config{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Flight: record.FlightConfig{Buffer: buffer, After: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rec.Close)
		return rec
	}
	w.startAgent("fga_alpha", open(time.Minute).Wrap(scriptedRobot(idOne, "one")))
	w.waitOnline(idOne, true, 5*time.Second)
	remote, ok := w.remote(idOne).(fleet.FlightRecorder)
	if !ok {
		t.Fatal("a robot behind the link offers no flight recorder")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := remote.TriggerRecording(ctx, "pallet dropped", "42")
	if err != nil || rec.State != fleetgate.RecordingActive || rec.Trigger != "pallet dropped" || rec.EventID != "42" {
		t.Fatalf("triggered over the link: %+v, %v", rec, err)
	}
	list, err := w.remote(idOne).(fleet.RecordingControl).Recordings(ctx)
	if err != nil || len(list) != 1 || list[0].ID != rec.ID || list[0].Trigger != "pallet dropped" || list[0].EventID != "42" {
		t.Fatalf("listed over the link: %+v, %v", list, err)
	}

	w.startAgent("fga_beta", open(0).Wrap(scriptedRobot(idTwo, "two")))
	w.waitOnline(idTwo, true, 5*time.Second)
	if _, err := w.remote(idTwo).(fleet.FlightRecorder).TriggerRecording(ctx, "x", ""); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("a trigger to an agent with its flight recorder off: %v", err)
	}
}
