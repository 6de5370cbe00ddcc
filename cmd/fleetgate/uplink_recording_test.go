//go:build linux

package main

// A recording uploading across the shaped uplink (issue 31: the 2 Mbit/s targets hold "also
// with a 2 MB log growing and a recording uploading"). The recording is made as a user at the
// site makes one: started and stopped through the agent's own API (the panel's Recordings tab
// and `fleetgate record` call the same), before the cloud knows of it. Its file is then a
// resource of the robot, which the agent lists to the cloud at its next scan and the cloud
// copies into its archive through the link's bulk lane (internal/link/cloud/sync.go), one
// file at a time, after the log.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// siteRecording is a finished recording on the agent: its id, which is its resource id, and
// the size of its file.
type siteRecording struct {
	id   string
	size int64
}

// recordOnSite records streams of sim-1 for d through the agent's API, at most maxRate samples
// a second and stream (0: no cap), and stops it there.
func (s *shapedSite) recordOnSite(t testing.TB, streams []string, maxRate float64, d time.Duration) siteRecording {
	t.Helper()
	id := s.startRecordingOnSite(t, streams, maxRate, 0)
	<-time.After(d) // what the recording holds: d of the streams
	var stopped struct {
		Size       int64
		ResourceID string
	}
	if status := s.postJSON(s.siteHTTP, s.agentURL+"/apigateway/v2/robots/"+s.robot+"/recordings/"+id+"/stop", s.localBearer, "", &stopped); status != 200 || stopped.ResourceID == "" {
		t.Fatalf("stopping the recording on the agent: %d %+v", status, stopped)
	}
	return siteRecording{id: stopped.ResourceID, size: stopped.Size}
}

// startRecordingOnSite starts a recording of streams of sim-1 through the agent's API, for
// duration (0: until stopped), and returns its id.
func (s *shapedSite) startRecordingOnSite(t testing.TB, streams []string, maxRate float64, duration time.Duration) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"streams": streams, "maxRate": maxRate, "durationSeconds": duration.Seconds()})
	var started struct{ ID string }
	if status := s.postJSON(s.siteHTTP, s.agentURL+"/apigateway/v2/robots/"+s.robot+"/recordings", s.localBearer, string(body), &started); status != 201 || started.ID == "" {
		t.Fatalf("starting a recording of %v on the agent: %d %+v", streams, status, started)
	}
	return started.ID
}

// postJSON posts body (JSON, or nothing) to url with bearer and decodes a 2xx answer into out.
func (s *shapedSite) postJSON(c *http.Client, url, bearer, body string, out any) int {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "bearer "+bearer)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 && json.NewDecoder(resp.Body).Decode(out) != nil {
		return 0
	}
	return resp.StatusCode
}

// archived is how many bytes of resource id the cloud's archive holds: those received so far
// of an upload under way (the partial file, which a growth starts as a copy of the archived
// version), else the archived file's; whole: the file is archived and no upload of it runs.
func (s *shapedSite) archived(id string) (bytes int64, whole bool) {
	dir := filepath.Join(s.cloudDir, "resources")
	if fi, err := os.Stat(filepath.Join(dir, ".partial", strings.ToLower(id))); err == nil {
		return fi.Size(), false
	}
	if fi, err := os.Stat(filepath.Join(dir, strings.ToLower(id))); err == nil {
		return fi.Size(), true
	}
	return 0, false
}

// archivedAll is the bytes the cloud's archive holds of every resource (archived): its
// difference across a window is what the bulk lane carried in it.
func (s *shapedSite) archivedAll() int64 {
	ids := map[string]bool{}
	for _, dir := range []string{"resources", filepath.Join("resources", ".partial")} {
		entries, _ := os.ReadDir(filepath.Join(s.cloudDir, dir))
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".version") {
				ids[e.Name()] = true
			}
		}
	}
	var total int64
	for id := range ids {
		n, _ := s.archived(id)
		total += n
	}
	return total
}

// uploadedLines are the cloud's lines for each file it archived; uploadedSizes reads a line's
// name, size and bytes sent.
var (
	uploadedLines = regexp.MustCompile(`time=\S+ level=INFO msg="resource uploaded".* name=\S+ size=\d+ sent=\d+ took=\S+`)
	uploadedSizes = regexp.MustCompile(`name=(\S+) size=(\d+) sent=(\d+)`)
)

// recordingUpload is a recording on its way to the cloud's archive, and what the archive held
// of it when a window began.
type recordingUpload struct {
	rec   siteRecording
	start int64
}

// The recording: the camera, the depth camera's point clouds and the odometry, about 120 kB a
// second of them, as much as the bulk lane gets at 2 Mbit/s beside an H.264 viewer: recorded
// for a window and a half, it is still uploading at the window's end. A rate cap records the
// camera's JPEG pictures as they are (without one the agent records H.264, a fifth of the
// bytes), and at 15 a second it keeps every one.
var recordingStreams = []string{"camera/image", "depth/points", "base/odom"}

const recordingMaxRate = 15

// startRecordingUpload makes a recording on the agent (recordOnSite) and returns once its
// upload to the cloud's archive has begun, so that a window measured next has it uploading.
func (s *shapedSite) startRecordingUpload(t testing.TB, window time.Duration) *recordingUpload {
	t.Helper()
	rec := s.recordOnSite(t, recordingStreams, recordingMaxRate, window*3/2)
	// The agent lists it at its next scan (10 s at most); the cloud uploads one file at a
	// time, the log's first.
	waitFor(t, 3*time.Minute, "the recording's upload to the cloud begun", func() bool {
		n, whole := s.archived(rec.id)
		return n > 0 || whole
	})
	n, _ := s.archived(rec.id)
	return &recordingUpload{rec: rec, start: n}
}

// window says how far the recording's upload went since startRecordingUpload, and fails t
// when it was not uploading in the window: archived whole before it.
func (u *recordingUpload) window(t testing.TB, s *shapedSite) string {
	t.Helper()
	n, whole := s.archived(u.rec.id)
	state := "still uploading"
	if whole {
		state = "archived whole"
	}
	if u.start >= u.rec.size {
		t.Errorf("the recording (%d bytes) was archived whole before the window: it did not upload in it", u.rec.size)
	}
	return fmt.Sprintf("%d kB (%d to %d kB of %d kB, %s)", (n-u.start)/1000, u.start/1000, n/1000, u.rec.size/1000, state)
}
