//go:build unix

package main

import (
	"encoding/csv"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The event log as data, run as a user would: entries posted on the local gateway with a type
// and a severity are read back through GET /apigateway/v2/events on both gateways (the cloud's
// after the link forwarded them, type and severity kept), filtered, paged, and exported.
func TestEventLogAPIOnBothGateways(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "dock-9")
	agent := startLogged(t, "agent", nil, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", cloud.URL, "--agent-key", key)
	robot := localRobots(t, agent.URL, 1)[0]
	cloudBearer, localBearer := login(t, cloud.URL, testToken), login(t, agent.URL, testToken)
	waitFor(t, 15*time.Second, "the agent's robot online on the cloud", func() bool { return robotsOnline(cloud.URL, cloudBearer, []string{robot}, true) })

	for _, p := range []url.Values{
		{"message": {"shift started"}},
		{"message": {"pallet dropped at aisle 4"}, "type": {"alert"}, "severity": {"error"}},
		{"message": {"=cmd|' /C calc'!A0"}, "severity": {"warning"}},
	} {
		p.Set("robotId", robot)
		if s := api(t, "POST", agent.URL+"/apigateway/v2/events/log?"+p.Encode(), localBearer, nil); s != 200 {
			t.Fatalf("post %v: %d", p, s)
		}
	}
	type page struct {
		Events []struct {
			Message, Type, Severity, Author, RobotID, Agent, AgentName string
		}
		NextCursor string
	}
	list := func(base, bearer string, q url.Values) page {
		t.Helper()
		var p page
		if s := api(t, "GET", base+"/apigateway/v2/events?"+q.Encode(), bearer, &p); s != 200 {
			t.Fatalf("GET %s events?%s: %d", base, q.Encode(), s)
		}
		return p
	}
	waitFor(t, 10*time.Second, "the three entries in the cloud's log", func() bool {
		return len(list(cloud.URL, cloudBearer, url.Values{"robotId": {robot}}).Events) == 3
	})

	for name, gw := range map[string]struct{ base, bearer string }{"local": {agent.URL, localBearer}, "cloud": {cloud.URL, cloudBearer}} {
		alerts := list(gw.base, gw.bearer, url.Values{"type": {"alert"}})
		if len(alerts.Events) != 1 || alerts.Events[0].Message != "pallet dropped at aisle 4" || alerts.Events[0].Severity != "error" || alerts.Events[0].RobotID != robot {
			t.Errorf("%s: alerts %+v", name, alerts)
		}
		if found := list(gw.base, gw.bearer, url.Values{"q": {"PALLET"}}); len(found.Events) != 1 {
			t.Errorf("%s: q=PALLET found %+v", name, found)
		}
		// Pages of two: the newest two and a cursor, then the oldest and none.
		first := list(gw.base, gw.bearer, url.Values{"limit": {"2"}})
		second := list(gw.base, gw.bearer, url.Values{"limit": {"2"}, "cursor": {first.NextCursor}})
		if len(first.Events) != 2 || first.NextCursor == "" || len(second.Events) != 1 || second.NextCursor != "" || second.Events[0].Message != "shift started" {
			t.Errorf("%s: pages %+v then %+v", name, first, second)
		}
		if s := api(t, "GET", gw.base+"/apigateway/v2/events?robotId=no-such-robot", gw.bearer, nil); s != 404 {
			t.Errorf("%s: an unknown robot: %d, want 404", name, s)
		}
		if s := api(t, "GET", gw.base+"/apigateway/v2/events?type=gossip", gw.bearer, nil); s != 400 {
			t.Errorf("%s: an unknown type: %d, want 400", name, s)
		}
	}
	cloudAlert := list(cloud.URL, cloudBearer, url.Values{"type": {"alert"}}).Events[0]
	if cloudAlert.AgentName != "dock-9" || cloudAlert.Author != "admin@localhost via agent dock-9" {
		t.Errorf("the cloud's entry names agent %q, author %q", cloudAlert.AgentName, cloudAlert.Author)
	}

	// The cloud's export as a spreadsheet would read it.
	req, _ := http.NewRequest("GET", cloud.URL+"/apigateway/v2/events?format=csv&robotId="+robot, nil)
	req.Header.Set("Authorization", "bearer "+cloudBearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if resp.StatusCode != 200 || err != nil || len(rows) != 4 {
		t.Fatalf("export: %d, %d rows, %v:\n%s", resp.StatusCode, len(rows), err, body)
	}
	if rows[1][8] != "'=cmd|' /C calc'!A0" || rows[1][10] != "warning" || rows[3][8] != "shift started" {
		t.Errorf("export rows %q", rows[1:])
	}

	// The door journals control: an upload on the local gateway takes the stream and the
	// deadman ends it, two teleop entries on both gateways.
	upload := `{"componentName":"base","streamName":"cmd_vel","source":1,"dataType":"Platform.Messages.geometry_msgs.Twist","streamJson":"{\"linear\":{\"x\":0.2}}"}`
	up, _ := http.NewRequest("POST", agent.URL+"/apigateway/v2/robots/"+robot+"/upload-stream", strings.NewReader(upload))
	up.Header.Set("Authorization", "bearer "+localBearer)
	up.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(up); err != nil || resp.StatusCode != 200 {
		t.Fatalf("upload: %v %v", resp, err)
	}
	// And the edge's refusal of x = 50 (before the door), a warning entry.
	refused, _ := http.NewRequest("POST", agent.URL+"/apigateway/v2/robots/"+robot+"/upload-stream", strings.NewReader(strings.Replace(upload, `0.2`, `50`, 1)))
	refused.Header.Set("Authorization", "bearer "+localBearer)
	refused.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(refused); err != nil || resp.StatusCode != 400 {
		t.Fatalf("upload of x = 50: %v %v", resp, err)
	}
	for name, gw := range map[string]struct{ base, bearer string }{"local": {agent.URL, localBearer}, "cloud": {cloud.URL, cloudBearer}} {
		waitFor(t, 10*time.Second, name+": the upload's two teleop entries and the refusal", func() bool {
			teleop := list(gw.base, gw.bearer, url.Values{"type": {"teleop"}, "severity": {"info"}}).Events
			refusals := list(gw.base, gw.bearer, url.Values{"type": {"teleop"}, "severity": {"warning"}}).Events
			return len(teleop) == 2 && strings.HasPrefix(teleop[1].Message, "took control of base/cmd_vel") &&
				strings.HasPrefix(teleop[0].Message, "the deadman stopped the robot") &&
				len(refusals) == 1 && strings.Contains(refusals[0].Message, "linear.x 50 m/s is beyond 10x")
		})
	}

	// A recording's start and end are entries of their own, linked to the recording.
	if status, body := postJSON(t, agent.URL+"/apigateway/v2/robots/"+robot+"/recordings", localBearer, `{"streams":["base/pose"],"durationSeconds":1}`); status != 200 && status != 201 {
		t.Fatalf("start a recording: %d %s", status, body)
	}
	type recordingEntry struct{ Message, Severity, RecordingID string }
	for name, gw := range map[string]struct{ base, bearer string }{"local": {agent.URL, localBearer}, "cloud": {cloud.URL, cloudBearer}} {
		var entries []recordingEntry
		waitFor(t, 15*time.Second, name+": the recording's start and end", func() bool {
			var p struct{ Events []recordingEntry }
			if s := api(t, "GET", gw.base+"/apigateway/v2/events?type=recording", gw.bearer, &p); s != 200 {
				t.Fatalf("%s: GET events?type=recording: %d", name, s)
			}
			entries = p.Events
			return len(entries) == 2
		})
		if !strings.Contains(entries[1].Message, "started (1 streams)") || !strings.Contains(entries[0].Message, "finished: 1s") ||
			entries[0].RecordingID == "" || entries[0].RecordingID != entries[1].RecordingID || entries[0].Severity != "info" {
			t.Errorf("%s: the recording's entries %+v", name, entries)
		}
	}
}
