package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
	"github.com/fleetgate/fleetgate/internal/video"
)

// TestRecordFromTheCloudPanel is the recordings issue's "done when", shortened: an admin
// records camera, scan and pose of a simulated robot from the cloud panel, the agent stops,
// and the file downloaded from the cloud panel opens in @mcap/core with every message.
func TestRecordFromTheCloudPanel(t *testing.T) {
	cloud, agent, bearer, robotID := cloudAndAgent(t)
	var list struct {
		RobotDataList []struct{ IsOnline bool }
	}

	// The admin's browser on the cloud panel.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(r *http.Request, _ []*http.Request) error {
			if strings.HasPrefix(r.URL.Path, "/files/") {
				return nil // the download's signed link
			}
			return http.ErrUseLastResponse
		}}
	post := func(path string, form url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", cloud.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin") // what a browser sends with a form of the page
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("/login", url.Values{"token": {testToken}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("panel login: %d", resp.StatusCode)
	}
	page := "/robots/" + robotID + "/recordings"
	resp := post(page, url.Values{"streams": {"camera/image", "lidar/scan", "base/pose"}, "duration": {"3s"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("starting from the cloud panel: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	// It stops by itself, and its file reaches the cloud's archive.
	type recording struct {
		ID            string
		RecorderState string
		Messages      int64
		Size          int64
	}
	var done recording
	var recs struct{ Recordings []recording }
	api(t, "GET", cloud.URL+"/apigateway/v2"+page, bearer, &recs)
	if len(recs.Recordings) != 1 {
		t.Fatalf("recordings on the cloud: %+v", recs)
	}
	if code := api(t, "GET", cloud.URL+"/apigateway/v2"+page+"/"+recs.Recordings[0].ID+"/download", bearer, nil); code != http.StatusConflict {
		t.Fatalf("downloading a recording being written: %d, want 409", code)
	}
	for deadline := time.Now().Add(30 * time.Second); done.RecorderState != "Stopped"; time.Sleep(100 * time.Millisecond) {
		var recs struct{ Recordings []recording }
		api(t, "GET", cloud.URL+"/apigateway/v2"+page, bearer, &recs)
		if len(recs.Recordings) == 1 {
			done = recs.Recordings[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recording did not stop: %+v", recs)
		}
	}
	var resources struct {
		Resources []struct {
			ResourceID, Type string
			Size             int64
		}
	}
	for deadline := time.Now().Add(30 * time.Second); len(resources.Resources) == 0; time.Sleep(100 * time.Millisecond) {
		api(t, "GET", cloud.URL+"/apigateway/v2/robots/"+robotID+"/resources", bearer, &resources)
		for i := 0; i < len(resources.Resources); i++ {
			if resources.Resources[i].ResourceID != done.ID {
				resources.Resources = append(resources.Resources[:i], resources.Resources[i+1:]...)
				i--
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording never reached the cloud")
		}
	}

	// The agent stops; the cloud panel still serves the file.
	agent.cmd.Process.Signal(syscall.SIGTERM)
	if code := agent.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("the agent exited %d", code)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		api(t, "GET", cloud.URL+"/apigateway/v2/robots", bearer, &list)
		if !list.RobotDataList[0].IsOnline {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the robot stays online after its agent stopped")
		}
	}
	get, err := browser.Get(cloud.URL + "/robots/" + robotID + "/resources/" + done.ID + "/download")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if get.StatusCode != http.StatusOK || int64(len(data)) != done.Size || get.Request.URL.Path != "/files/"+done.ID {
		t.Fatalf("download from the cloud panel: %d, %d bytes from %s; recorded %d bytes", get.StatusCode, len(data), get.Request.URL, done.Size)
	}
	// The cloud's copy answers range requests, as a player in the page reads it (its footer first).
	req, _ := http.NewRequest("GET", get.Request.URL.String(), nil)
	req.Header.Set("Range", "bytes=-28")
	part, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := io.ReadAll(part.Body)
	part.Body.Close()
	if part.StatusCode != http.StatusPartialContent || part.Header.Get("Accept-Ranges") != "bytes" || string(tail) != string(data[len(data)-28:]) {
		t.Fatalf("a range of the cloud's copy: %d, Accept-Ranges %q, %d bytes", part.StatusCode, part.Header.Get("Accept-Ranges"), len(tail))
	}
	path := filepath.Join(t.TempDir(), "download.mcap")
	os.WriteFile(path, data, 0o600)
	report := mcaptest.Indexed(t, path)
	if int64(report.Statistics.MessageCount) != done.Messages {
		t.Fatalf("@mcap/core reads %d messages, the recording wrote %d", report.Statistics.MessageCount, done.Messages)
	}
	for _, topic := range []string{"/camera/image", "/lidar/scan", "/base/pose"} {
		ch := report.Topic(topic)
		if ch == nil || ch.Count == 0 {
			t.Fatalf("no messages on %s", topic)
		}
		for i := 1; i < ch.Count; i++ {
			if ch.Sequences[i] != ch.Sequences[i-1]+1 {
				t.Fatalf("%s: sequence %d follows %d: a sample is missing", topic, ch.Sequences[i], ch.Sequences[i-1])
			}
		}
	}
	// The agent encodes its cameras for recordings (ffmpeg is installed): H.264 from a keyframe.
	camera := report.Topic("/camera/image")
	first, _ := base64.StdEncoding.DecodeString(fmt.Sprint(camera.First["data"]))
	if camera.First["format"] != "h264" || !video.IsKeyframe(first) {
		t.Fatalf("the first camera frame decodes as %v with NAL units %v, want an H.264 keyframe", camera.First["format"], video.NALTypes(first))
	}

	// A cut of the cloud's copy: the middle third of the pose's time, scan and pose only,
	// holds exactly their messages of that time.
	poses := report.Topic("/base/pose").LogTimes
	from, to := poses[len(poses)/3], poses[2*len(poses)/3]
	cutURL := cloud.URL + "/apigateway/v2" + page + "/" + done.ID + "/download?streams=base/pose,lidar/scan&from=" +
		from.Time().UTC().Format(time.RFC3339Nano) + "&to=" + to.Time().UTC().Format(time.RFC3339Nano)
	req, _ = http.NewRequest("GET", cutURL, nil)
	req.Header.Set("Authorization", "bearer "+bearer)
	cutResp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cutData, _ := io.ReadAll(cutResp.Body)
	cutResp.Body.Close()
	if cutResp.StatusCode != http.StatusOK {
		t.Fatalf("a cut from the cloud: %d %s", cutResp.StatusCode, cutData)
	}
	cutPath := filepath.Join(t.TempDir(), "cut.mcap")
	os.WriteFile(cutPath, cutData, 0o600)
	cut := mcaptest.Indexed(t, cutPath)
	if len(cut.Channels) != 2 || cut.Topic("/camera/image") != nil {
		t.Fatalf("the cut has %d channels, want pose and scan", len(cut.Channels))
	}
	for _, topic := range []string{"/base/pose", "/lidar/scan"} {
		var want []mcaptest.Uint
		for _, lt := range report.Topic(topic).LogTimes {
			if lt >= from && lt <= to {
				want = append(want, lt)
			}
		}
		if got := cut.Topic(topic).LogTimes; len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s in the cut: %d messages at %v, want %d at %v", topic, len(got), got, len(want), want)
		}
	}
}

// cloudAndAgent starts a cloud and an agent of one simulated robot linked to it (agentArgs
// added to the agent's), and returns them, the admin's bearer on the cloud, and the robot's id
// once the robot is online there.
func cloudAndAgent(t *testing.T, agentArgs ...string) (cloud, agent *process, bearer, robotID string) {
	t.Helper()
	cloudDir := t.TempDir()
	cloud = start(t, nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "dock")
	agent = start(t, []string{"FLEETGATE_AGENT_KEY=" + key}, append([]string{"agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "1", "--cloud", cloud.URL}, agentArgs...)...)
	bearer = login(t, cloud.URL, testToken)
	var list struct {
		RobotDataList []struct {
			BasicData struct{ ID string }
			IsOnline  bool
		}
	}
	for deadline := time.Now().Add(20 * time.Second); robotID == ""; time.Sleep(50 * time.Millisecond) {
		api(t, "GET", cloud.URL+"/apigateway/v2/robots", bearer, &list)
		if len(list.RobotDataList) == 1 && list.RobotDataList[0].IsOnline {
			robotID = list.RobotDataList[0].BasicData.ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's robot never came online on the cloud: %+v", list)
		}
	}
	return cloud, agent, bearer, robotID
}
