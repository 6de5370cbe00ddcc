package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

var playLink = regexp.MustCompile(`href="(/robots/[^"/]+/recordings/[^"/?]+)"`)

// TestPlaybackPage: a finished recording is offered to play from the recordings and
// resources tabs; its page, also at a shared moment (?t=), opens for those who may see the
// robot and for nobody else (no signature in the link grants anything), and the player's
// download answers range requests.
func TestPlaybackPage(t *testing.T) {
	a, bot := openRecordingAgent(t)
	org, _ := a.DefaultOrg()
	a.users["none"] = a.AddUser(org.ID, "none@example.com", false, map[string]fleetgate.Role{})
	a.setPassword(t, "none@example.com", "password of none")
	r := "/robots/" + a.robot
	op, dev, outsider := a.as(t, "operator"), a.as(t, "developer"), a.as(t, "none")

	wantRedirect(t, "start", dev.post(r+"/recordings", url.Values{"streams": {"base/pose"}, "duration": {"10m"}}), r+"/recordings")
	m := stopAction.FindStringSubmatch(dev.get(r + "/recordings").body)
	if m == nil {
		t.Fatal("no stop button")
	}
	for range 3 {
		bot.Emit(poseKey, poseType, []byte{0x0a, 0x00})
		time.Sleep(30 * time.Millisecond)
	}
	if strings.Contains(op.get(r+"/recordings").body, `>Play</a>`) {
		t.Error("a running recording is offered to play")
	}
	wantRedirect(t, "stop", dev.post(m[1], url.Values{}), r+"/recordings")

	tab := op.get(r + "/recordings")
	link := playLink.FindStringSubmatch(tab.body)
	if link == nil {
		t.Fatalf("the recordings tab offers no Play link:\n%s", tab.body)
	}
	player := link[1]
	recordingID := player[strings.LastIndex(player, "/")+1:]
	wantBody(t, "the resources tab", op.get(r+"/resources"), `href="`+player+`"`)

	moment := "2026-11-28T01:02:03.5Z"
	p := op.get(player + "?t=" + moment)
	wantStatus(t, "the player's page", p, http.StatusOK)
	wantBody(t, "the player's page", p, `data-widget="player"`, `data-robot-id="`+a.robot+`"`, `data-recording-id="`+recordingID+`"`,
		`data-t="`+moment+`"`, "/base/pose", r+"/resources/"+recordingID+"/download")

	// Nobody else: the robot is invisible to a user without a role on it, the link or not.
	wantStatus(t, "an outsider's player", outsider.get(player+"?t="+moment), http.StatusNotFound)
	wantStatus(t, "an outsider's file", outsider.get("/panel/api"+r+"/resource/"+recordingID+"/download"), http.StatusNotFound)
	wantStatus(t, "an unknown recording", op.get(r+"/recordings/0f9a7c1e-2b3d-4e5f-8a9b-1c2d3e4f5a6b"), http.StatusNotFound)
	// Signed out: the login keeps the moment for afterwards.
	anon := a.browser(t).get(player + "?t=" + moment)
	wantRedirect(t, "signed out", anon, "/login?next="+url.QueryEscape(player+"?t="+moment))

	// The player reads the file in parts through the signed download link.
	api := op.get("/panel/api" + r + "/resource/" + recordingID + "/download")
	wantStatus(t, "the player's link", api, http.StatusOK)
	var signed struct{ URL string }
	if err := json.Unmarshal([]byte(api.body), &signed); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(signed.URL)
	if err != nil {
		t.Fatal(err)
	}
	whole := op.get(u.RequestURI())
	wantStatus(t, "the whole file", whole, http.StatusOK)
	part := op.do("GET", u.RequestURI(), nil, http.Header{"Range": {"bytes=1-4"}})
	wantStatus(t, "a part of the file", part, http.StatusPartialContent)
	if part.body != "MCAP" || part.header.Get("Accept-Ranges") != "bytes" ||
		part.header.Get("Content-Range") != "bytes 1-4/"+strconv.Itoa(len(whole.body)) {
		t.Errorf("range 1-4: %q, Accept-Ranges %q, Content-Range %q; want MCAP of %d bytes", part.body,
			part.header.Get("Accept-Ranges"), part.header.Get("Content-Range"), len(whole.body))
	}
	tail := op.do("GET", u.RequestURI(), nil, http.Header{"Range": {"bytes=-8"}})
	if tail.status != http.StatusPartialContent || tail.body != whole.body[len(whole.body)-8:] {
		t.Errorf("the last 8 bytes (the footer's magic the reader starts from): %d %q", tail.status, tail.body)
	}
}
