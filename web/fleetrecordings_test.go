package web_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/mcap"
)

// TestFleetRecordingsView: the recordings of the fleet in one table, filtered by robot and
// day, sorted, and several downloaded as one zip of whole MCAP files.
func TestFleetRecordingsView(t *testing.T) {
	a, bot := openRecordingAgent(t)
	r := "/robots/" + a.robot
	op, dev := a.as(t, "operator"), a.as(t, "developer")
	var ids []string
	for i := range 2 {
		wantRedirect(t, "start", dev.post(r+"/recordings", url.Values{"streams": {"base/pose"}}), r+"/recordings")
		m := stopAction.FindStringSubmatch(dev.get(r + "/recordings").body)
		if m == nil {
			t.Fatal("no stop button")
		}
		for range i + 1 {
			bot.Emit(poseKey, poseType, []byte{0x0a, 0x00})
		}
		wantRedirect(t, "stop", dev.post(m[1], url.Values{}), r+"/recordings")
		ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(m[1], r+"/recordings/"), "/stop"))
	}

	order := func(p page) []string {
		var got []string
		for _, id := range ids {
			if i := strings.Index(p.body, `data-recording-id="`+id+`"`); i >= 0 {
				got = append(got, id)
			}
		}
		slices.SortFunc(got, func(x, y string) int {
			return strings.Index(p.body, `data-recording-id="`+x+`"`) - strings.Index(p.body, `data-recording-id="`+y+`"`)
		})
		return got
	}
	p := op.get("/recordings")
	wantStatus(t, "the view", p, http.StatusOK)
	wantBody(t, "the view", p, "rec-bot", "/base/pose", "Download selected (zip)", `value="`+a.robot+"/"+ids[0]+`"`)
	if got := order(p); !slices.Equal(got, []string{ids[1], ids[0]}) {
		t.Errorf("newest first: %v, recorded %v", got, ids)
	}
	if got := order(op.get("/recordings?sort=oldest")); !slices.Equal(got, ids) {
		t.Errorf("oldest first: %v", got)
	}
	if got := order(op.get("/recordings?robot=rec-bot&from=" + time.Now().UTC().Format(time.DateOnly))); len(got) != 2 {
		t.Errorf("today's of rec-bot: %v", got)
	}
	wantBody(t, "another robot", op.get("/recordings?robot=nobody"), "No recordings match.")
	// Each file says what made it (its metadata record): recordings started by hand.
	wantBody(t, "the trigger column", p, "<th>Trigger</th>", "<td>manual</td>")
	if got := order(op.get("/recordings?trigger=Manual")); len(got) != 2 {
		t.Errorf("the manual ones: %v", got)
	}
	wantBody(t, "another trigger", op.get("/recordings?trigger=alert"), "No recordings match.")
	wantBody(t, "tomorrow", op.get("/recordings?from="+time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)), "No recordings match.")
	wantStatus(t, "a bad sort", op.get("/recordings?sort=random"), http.StatusBadRequest)
	wantStatus(t, "a bad day", op.get("/recordings?from=monday"), http.StatusBadRequest)

	z := op.get("/recordings/download?r=" + a.robot + "/" + ids[0] + "&r=" + a.robot + "/" + ids[1])
	wantStatus(t, "the zip", z, http.StatusOK)
	zr, err := zip.NewReader(bytes.NewReader([]byte(z.body)), int64(len(z.body)))
	if err != nil || len(zr.File) != 2 || z.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("the zip: %v, %d files, %s", err, len(zr.File), z.header.Get("Content-Type"))
	}
	for i, f := range zr.File {
		rc, _ := f.Open()
		var data bytes.Buffer
		data.ReadFrom(rc)
		rc.Close()
		s, err := mcap.ReadSummary(bytes.NewReader(data.Bytes()), int64(data.Len()))
		if err != nil || !strings.HasPrefix(f.Name, "rec-bot_") || s.Statistics.MessageCount == 0 {
			t.Errorf("zip entry %d %q: %v, %+v", i, f.Name, err, s)
		}
	}
	wantStatus(t, "nothing selected", op.get("/recordings/download"), http.StatusBadRequest)
	wantStatus(t, "an unknown recording", op.get("/recordings/download?r="+a.robot+"/"+strings.Repeat("0", 8)), http.StatusNotFound)
}
