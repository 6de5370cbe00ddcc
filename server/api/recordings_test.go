package api_test

import (
	"bytes"
	"context"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/record"
	"github.com/fleetgate/fleetgate/server/api"
)

// recordingWorld is a world whose first robot records on a real recorder: a pose, a scan
// and an input stream.
func recordingWorld(t *testing.T) (*world, *fleettest.Robot) {
	w := newWorld(t)
	rec, err := record.Open(record.Config{Dir: t.TempDir(), FlushEvery: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	bot := &fleettest.Robot{ID: w.robot.ID, Name: w.robot.Name, StreamList: []fleetgate.Stream{
		{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "lidar", Name: "scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
	}}
	if err := w.Registry().Add(context.Background(), rec.Wrap(bot), w.fleet.ID); err != nil {
		t.Fatal(err)
	}
	return w, bot
}

// TestRecordingsAPI: the recordings extension end to end over HTTP: who may start, list and
// stop; refusals as problems; the finished file among the robot's resources in both
// conventions; the Recordings metric.
func TestRecordingsAPI(t *testing.T) {
	w, bot := recordingWorld(t)
	base := "/robots/" + w.robot.ID + "/recordings"
	start := `{"streams":["base/pose"],"durationSeconds":600,"maxRate":50}`
	for _, c := range []apiCase{
		{name: "no token", method: "POST", target: base, header: jsonBody(""), body: start, wantStatus: http.StatusUnauthorized},
		{name: "operator", method: "POST", target: base, header: jsonBody(w.operator), body: start, wantStatus: http.StatusForbidden},
		{name: "read-only token", method: "POST", target: base, header: jsonBody(w.kiosk), body: start, wantStatus: http.StatusForbidden},
		{name: "another organization", method: "POST", target: base, header: jsonBody(w.otherAdmin), body: start, wantStatus: http.StatusNotFound},
		{name: "offline robot", method: "POST", target: "/robots/" + w.secondRobot.ID + "/recordings", header: jsonBody(w.admin), body: start, wantStatus: http.StatusServiceUnavailable},
		{name: "not JSON", method: "POST", target: base, header: bearer(w.admin), body: start, wantStatus: http.StatusUnsupportedMediaType},
		{name: "malformed", method: "POST", target: base, header: jsonBody(w.admin), body: `{"streams":`, wantStatus: http.StatusBadRequest},
		{name: "streams not a list", method: "POST", target: base, header: jsonBody(w.admin), body: `{"streams":"base/pose"}`, wantStatus: http.StatusBadRequest},
		{name: "negative duration", method: "POST", target: base, header: jsonBody(w.admin), body: `{"streams":["base/pose"],"durationSeconds":-1}`, wantStatus: http.StatusBadRequest},
		{name: "input stream", method: "POST", target: base, header: jsonBody(w.admin), body: `{"streams":["base/cmd_vel"]}`, wantStatus: http.StatusBadRequest},
		{name: "unknown stream", method: "POST", target: base, header: jsonBody(w.admin), body: `{"streams":["nothing"]}`, wantStatus: http.StatusBadRequest},
		{name: "list, other organization", method: "GET", target: base, header: bearer(w.otherAdmin), wantStatus: http.StatusNotFound},
		{name: "stop, unknown recording", method: "POST", target: base + "/" + unknownID() + "/stop", header: bearer(w.admin), wantStatus: http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) { send(t, w.Server, c) })
	}

	type recording struct {
		ID             string
		RecorderState  string
		ErrorType      string
		Reason         string
		StartTime      time.Time
		EndTime        *time.Time
		Duration       string
		Streams        []struct{ ComponentName, StreamName, StreamType, Topic string }
		Limits         struct{ DurationSeconds, MaxRate float64 }
		Size           int64
		Messages       int64
		DroppedSamples int64
		ResourceID     string
	}
	var started recording
	send(t, w.Server, apiCase{method: "POST", target: base, header: jsonBody(w.admin), body: start, wantStatus: http.StatusCreated}).JSON(t, &started)
	if started.RecorderState != "Recording" || started.EndTime != nil || started.ResourceID != "" || started.Limits.DurationSeconds != 600 ||
		started.Limits.MaxRate != 50 || len(started.Streams) != 1 || started.Streams[0].Topic != "/base/pose" || started.Duration != "00:00:00" {
		t.Fatalf("started: %+v", started)
	}
	bot.Emit(poseKey, "Platform.Messages.geometry_msgs.PoseStamped", []byte{0x0a, 0x00})
	var list struct{ Recordings []recording }
	deadline := time.Now().Add(10 * time.Second)
	for list.Recordings == nil || list.Recordings[0].Messages == 0 {
		send(t, w.Server, apiCase{method: "GET", target: base, header: bearer(w.operator), wantStatus: http.StatusOK}).JSON(t, &list)
		if time.Now().After(deadline) {
			t.Fatalf("the sample was never recorded: %+v", list)
		}
	}
	if len(list.Recordings) != 1 || list.Recordings[0].ID != started.ID {
		t.Fatalf("listed %+v", list)
	}
	send(t, w.Server, apiCase{method: "POST", target: base + "/" + started.ID + "/stop", header: bearer(w.operator), wantStatus: http.StatusForbidden})
	var stopped recording
	send(t, w.Server, apiCase{method: "POST", target: base + "/" + started.ID + "/stop", header: bearer(w.admin), wantStatus: http.StatusOK}).JSON(t, &stopped)
	if stopped.RecorderState != "Stopped" || stopped.EndTime == nil || stopped.ResourceID != started.ID || stopped.Messages != 1 || stopped.Reason != "stop requested" {
		t.Fatalf("stopped: %+v", stopped)
	}

	var resources struct {
		Resources []struct {
			ResourceID, Name, Type string
			Size                   int64
		}
	}
	send(t, w.Server, apiCase{method: "GET", target: "/robots/" + w.robot.ID + "/resources", header: bearer(w.operator), wantStatus: http.StatusOK}).JSON(t, &resources)
	if len(resources.Resources) != 1 || resources.Resources[0].ResourceID != started.ID || resources.Resources[0].Type != "application/mcap" ||
		resources.Resources[0].Size != stopped.Size {
		t.Fatalf("v2 resources %+v; recording of %d bytes", resources, stopped.Size)
	}
	second := w.Do("GET", "/apigateway/robot/"+w.robot.ID+"/resources", w.operator, "")
	var secondList []struct{ ResourceId, Type string }
	second.JSON(t, &secondList)
	if len(secondList) != 1 || secondList[0].Type != "mcap" || secondList[0].ResourceId != started.ID {
		t.Fatalf("second convention resources: %s", second.Body)
	}
	var metric struct {
		Metric struct {
			AgentRecordings struct {
				AgentRecorders []map[string]any
			}
		}
	}
	w.Do("GET", api.V2Prefix+"/robots/"+w.robot.ID+"/metric/15", w.operator, "").JSON(t, &metric)
	rs := metric.Metric.AgentRecordings.AgentRecorders
	if len(rs) != 1 || rs[0]["id"] != started.ID || rs[0]["recorderState"] != "Stopped" || rs[0]["droppedSamples"] != 0.0 || rs[0]["recorderType"] != "mcap" {
		t.Fatalf("Recordings metric: %+v", rs)
	}
}

// TestRecordingDownload: a recording's file whole (ranges too) or cut to a time range and
// streams, read back by the MCAP reader; while it is written 409; bad cuts 400 in words.
func TestRecordingDownload(t *testing.T) {
	w, bot := recordingWorld(t)
	base := "/robots/" + w.robot.ID + "/recordings"
	var started struct{ ID string }
	send(t, w.Server, apiCase{method: "POST", target: base, header: jsonBody(w.admin), body: `{"streams":["base/pose","lidar/scan"]}`, wantStatus: http.StatusCreated}).JSON(t, &started)
	download := base + "/" + started.ID + "/download"
	running := send(t, w.Server, apiCase{method: "GET", target: download, header: bearer(w.operator), wantStatus: http.StatusConflict})
	if !strings.Contains(string(running.Body), "still being written") {
		t.Fatalf("a running recording's download: %s", running.Body)
	}
	// Six samples of each stream, one after the other as the recorder logs them.
	for i := range 6 {
		bot.Emit(poseKey, "Platform.Messages.geometry_msgs.PoseStamped", []byte{0x0a, 0x00, byte(i)})
		bot.Emit(scanKey, "Platform.Messages.sensor_msgs.LaserScan", []byte{0x0a, 0x00, byte(i)})
		var list struct{ Recordings []struct{ Messages int } }
		for deadline := time.Now().Add(10 * time.Second); list.Recordings == nil || list.Recordings[0].Messages < 2*(i+1); {
			send(t, w.Server, apiCase{method: "GET", target: base, header: bearer(w.operator), wantStatus: http.StatusOK}).JSON(t, &list)
			if time.Now().After(deadline) {
				t.Fatalf("sample %d was never recorded: %+v", i, list)
			}
		}
	}
	send(t, w.Server, apiCase{method: "POST", target: base + "/" + started.ID + "/stop", header: bearer(w.admin), wantStatus: http.StatusOK})

	whole := send(t, w.Server, apiCase{method: "GET", target: download, header: bearer(w.operator), wantStatus: http.StatusOK})
	all := mcapMessages(t, whole.Body)
	if len(all) != 12 || whole.Header.Get("Content-Type") != "application/mcap" || !strings.Contains(whole.Header.Get("Content-Disposition"), ".mcap") {
		t.Fatalf("the whole file: %d messages, %v", len(all), whole.Header)
	}
	part := w.DoRaw("GET", api.V2Prefix+download, http.Header{"Authorization": {"Bearer " + w.operator}, "Range": {"bytes=0-7"}}, nil)
	if part.Status != http.StatusPartialContent || !bytes.Equal(part.Body, mcap.Magic) {
		t.Fatalf("a range of the whole file: %d %q", part.Status, part.Body)
	}

	// The third to the fifth pose, by their log times.
	var poses []uint64
	for _, m := range all {
		if m.topic == "/base/pose" {
			poses = append(poses, m.logTime)
		}
	}
	from, to := mcap.FromTime(poses[2]).UTC().Format(time.RFC3339Nano), mcap.FromTime(poses[4]).UTC().Format(time.RFC3339Nano)
	cut := send(t, w.Server, apiCase{method: "GET", target: download + "?from=" + from + "&to=" + to + "&streams=base/pose", header: bearer(w.operator), wantStatus: http.StatusOK})
	got := mcapMessages(t, cut.Body)
	if len(got) != 3 || got[0].logTime != poses[2] || got[2].logTime != poses[4] || got[1].topic != "/base/pose" {
		t.Fatalf("cut %s to %s of base/pose: %+v", from, to, got)
	}
	if !strings.Contains(cut.Header.Get("Content-Disposition"), "_cut.mcap") {
		t.Errorf("a cut is offered as %q", cut.Header.Get("Content-Disposition"))
	}
	// By topic, from a time alone: the scans logged from the third pose's time on (a scan and
	// its pose are logged by their own streams: which of the two comes first is the
	// recorder's, so the count is read from the whole file, not assumed).
	var scansFrom int
	for _, m := range all {
		if m.topic == "/lidar/scan" && m.logTime >= poses[2] {
			scansFrom++
		}
	}
	byTopic := mcapMessages(t, send(t, w.Server, apiCase{method: "GET", target: download + "?from=" + from + "&streams=/lidar/scan", header: bearer(w.admin), wantStatus: http.StatusOK}).Body)
	if scansFrom < 3 || len(byTopic) != scansFrom || byTopic[0].topic != "/lidar/scan" {
		t.Fatalf("scans from %s: %+v, want the %d the whole file has from then", from, byTopic, scansFrom)
	}

	for _, c := range []struct {
		name, query string
		status      int
		says        string
	}{
		{"from after to", "?from=" + to + "&to=" + from, http.StatusBadRequest, "is after to"},
		{"unknown stream", "?streams=camera/image", http.StatusBadRequest, "camera/image\\\" (it has base/pose, lidar/scan)"},
		{"bad time", "?from=yesterday", http.StatusBadRequest, "RFC 3339"},
	} {
		resp := send(t, w.Server, apiCase{method: "GET", target: download + c.query, header: bearer(w.operator), wantStatus: c.status})
		if !strings.Contains(string(resp.Body), c.says) {
			t.Errorf("%s: %s", c.name, resp.Body)
		}
	}
	send(t, w.Server, apiCase{method: "GET", target: base + "/" + unknownID() + "/download", header: bearer(w.operator), wantStatus: http.StatusNotFound})
	send(t, w.Server, apiCase{method: "GET", target: download, header: bearer(w.otherAdmin), wantStatus: http.StatusNotFound})
	send(t, w.Server, apiCase{method: "GET", target: download, header: bearer(""), wantStatus: http.StatusUnauthorized})
}

type mcapMessage struct {
	topic   string
	logTime uint64
}

// mcapMessages reads a complete MCAP file's messages, checking its summary.
func mcapMessages(t *testing.T, file []byte) []mcapMessage {
	t.Helper()
	if _, err := mcap.ReadSummary(bytes.NewReader(file), int64(len(file))); err != nil {
		t.Fatalf("not a complete MCAP file: %v", err)
	}
	var out []mcapMessage
	err := mcap.ReadMessages(bytes.NewReader(file), int64(len(file)), func(c mcap.Channel, m mcap.Message) error {
		out = append(out, mcapMessage{c.Topic, m.LogTime})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
