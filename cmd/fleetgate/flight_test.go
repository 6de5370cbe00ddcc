package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
)

// TestFlightRecordingFromTheCloud is the flight recorder's "done when", shortened (a buffer of
// 6 s and 2 s after, where the defaults are 60 and 10): an entry posted on the cloud with
// record=true yields, on the cloud, a downloadable MCAP file whose messages span from the
// buffer before the post to the time after it, the camera at its full rate, which says what
// it is (its "fleetgate" metadata record, read by @mcap/core) and which the entry links to.
// Then fleetgate record snapshot on the agent makes another.
func TestFlightRecordingFromTheCloud(t *testing.T) {
	const buffer, after = 6 * time.Second, 2 * time.Second
	cloud, agent, bearer, robotID := cloudAndAgent(t, "--flight-buffer", buffer.String(), "--flight-after", after.String())
	// The buffer fills as the simulator runs: what the test is about takes this long (it
	// waits for time to pass, not for another party).
	time.Sleep(buffer + time.Second)

	posted := time.Now()
	q := url.Values{"robotId": {robotID}, "message": {"pallet dropped"}, "record": {"true"}}
	if code := api(t, "POST", cloud.URL+"/apigateway/v2/events/log?"+q.Encode(), bearer, nil); code != http.StatusOK {
		t.Fatalf("posting with record=true on the cloud: %d", code)
	}

	type recording struct {
		ID, RecorderState, Trigger, EventID string
		Messages, Size                      int64
	}
	var done recording
	recordings := cloud.URL + "/apigateway/v2/robots/" + robotID + "/recordings"
	for deadline := time.Now().Add(30 * time.Second); done.RecorderState != "Stopped"; time.Sleep(100 * time.Millisecond) {
		var recs struct{ Recordings []recording }
		api(t, "GET", recordings, bearer, &recs)
		for _, r := range recs.Recordings {
			if r.Trigger == "pallet dropped" {
				done = r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished flight recording: %+v", recs)
		}
	}
	var events struct {
		Events []struct {
			ID          int64
			Message     string
			RecordingID string
		}
	}
	api(t, "GET", cloud.URL+"/apigateway/v2/events?robotId="+robotID+"&type=note", bearer, &events)
	if len(events.Events) != 1 || events.Events[0].RecordingID != done.ID || fmt.Sprint(events.Events[0].ID) != done.EventID {
		t.Fatalf("the cloud's entries %+v; the recording %+v: they do not link each other", events.Events, done)
	}

	// The file reaches the cloud and downloads from there.
	var link struct{ URL string }
	for deadline := time.Now().Add(30 * time.Second); link.URL == ""; time.Sleep(100 * time.Millisecond) {
		api(t, "GET", cloud.URL+"/apigateway/v2/robots/"+robotID+"/resource/"+done.ID+"/download", bearer, &link)
		if time.Now().After(deadline) {
			t.Fatal("the flight recording never became a resource of the robot on the cloud")
		}
	}
	resp, err := http.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || int64(len(data)) != done.Size {
		t.Fatalf("download from the cloud: %d, %d bytes; recorded %d", resp.StatusCode, len(data), done.Size)
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, "pallet dropped.mcap") {
		t.Errorf("the download is offered as %q, not named after its trigger", cd)
	}
	path := filepath.Join(t.TempDir(), "flight.mcap")
	os.WriteFile(path, data, 0o600)
	report := mcaptest.Indexed(t, path)
	if int64(report.Statistics.MessageCount) != done.Messages {
		t.Fatalf("@mcap/core reads %d messages, the recording wrote %d", report.Statistics.MessageCount, done.Messages)
	}
	first, last := report.Statistics.MessageStartTime.Time(), report.Statistics.MessageEndTime.Time()
	if posted.Sub(first) < buffer-time.Second || last.Sub(posted) < after-time.Second {
		t.Fatalf("the messages span %v before the post to %v after it; want at least %v and %v", posted.Sub(first), last.Sub(posted), buffer-time.Second, after-time.Second)
	}
	camera := report.Topic("/camera/image")
	if camera == nil {
		t.Fatal("no camera in the flight recording")
	}
	// Full rate: every frame the camera published is there (no gap in its sequence). The
	// simulator renders 15 a second, fewer when the machine is too busy for it (it skips
	// then): the bound only tells a decimated camera (7.5 a second) from a whole one.
	span := camera.LogTimes[camera.Count-1].Time().Sub(camera.LogTimes[0].Time())
	if rate := float64(camera.Count-1) / span.Seconds(); rate < 10 {
		t.Errorf("the camera is recorded at %.1f frames a second over %v", rate, span)
	}
	for i := 1; i < camera.Count; i++ {
		if camera.Sequences[i] != camera.Sequences[i-1]+1 {
			t.Fatalf("camera frame %d follows %d: a frame is missing", camera.Sequences[i], camera.Sequences[i-1])
		}
	}
	for _, topic := range []string{"/base/pose", "/base/odom", "/lidar/scan"} {
		if ch := report.Topic(topic); ch == nil || ch.Count == 0 {
			t.Errorf("no messages on %s", topic)
		}
	}
	if len(report.Metadata) != 1 {
		t.Fatalf("metadata records %+v", report.Metadata)
	}
	md := report.Metadata[0]
	if md.Name != "fleetgate" || md.Metadata["robotId"] != robotID || md.Metadata["robotName"] != "sim-1" || md.Metadata["trigger"] != "pallet dropped" ||
		md.Metadata["eventId"] != done.EventID || md.Metadata["fleet"] != "local-fleet" || md.Metadata["gatewayVersion"] == "" {
		t.Errorf("the file's metadata %+v", md)
	}

	// From the agent's command line.
	env := []string{"FLEETGATE_URL=" + agent.URL, "FLEETGATE_TOKEN=" + testToken}
	out, stderr, code := runCLI(t, env, "record", "snapshot", "--robot", "sim-1")
	if code != 0 || !strings.Contains(out, "flight recording") || !strings.Contains(out, "(snapshot)") {
		t.Fatalf("record snapshot: exit %d, %q %s", code, out, stderr)
	}
	if out, _, _ := runCLI(t, env, "record", "list", "--robot", "sim-1"); !strings.Contains(out, "snapshot") || !strings.Contains(out, "pallet dropped") {
		t.Fatalf("record list:\n%s", out)
	}
}

// The flight recorder's flags are checked before anything starts.
func TestFlightFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--flight-buffer", "-1s"}, "--flight-buffer must be between 0 (off) and 1h0m0s"},
		{[]string{"--flight-buffer", "2h"}, "--flight-buffer must be between 0 (off) and 1h0m0s"},
		{[]string{"--flight-after", "0s"}, "--flight-after must be between 1ms and 1h0m0s"},
		{[]string{"--flight-buffer-max", "100KiB"}, "--flight-buffer-max must be at least 1MiB"},
	} {
		for _, command := range []string{"agent", "demo"} {
			args := append([]string{command, "--data", t.TempDir()}, tc.args...)
			if _, stderr, code := runCLI(t, nil, args...); code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("fleetgate %v: exit %d, %q; want 2 and %q", args, code, stderr, tc.want)
			}
		}
	}
}
