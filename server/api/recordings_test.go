package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/record"
	"github.com/fleetgate/fleetgate/server/api"
)

// TestRecordingsAPI: the recordings extension end to end over HTTP: who may start, list and
// stop; refusals as problems; the finished file among the robot's resources in both
// conventions; the Recordings metric.
func TestRecordingsAPI(t *testing.T) {
	w := newWorld(t)
	rec, err := record.Open(record.Config{Dir: t.TempDir(), FlushEvery: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	poseKey := fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}
	bot := &fleettest.Robot{ID: w.robot.ID, Name: w.robot.Name, StreamList: []fleetgate.Stream{
		{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
	}}
	if err := w.Registry().Add(context.Background(), rec.Wrap(bot), w.fleet.ID); err != nil {
		t.Fatal(err)
	}
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
