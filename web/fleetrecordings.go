package web

import (
	"archive/zip"
	"cmp"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// The fleet's recordings: one table of every visible robot's finished recordings (the cloud's
// copies, or a local gateway's files), filtered by robot and time, sorted, and several
// downloaded at once as one zip stream (one download is one browser prompt, however many
// files; each entry is stored, not compressed again: MCAP chunks are zstd already).

// maxZipRecordings bounds the files of one zip download.
const maxZipRecordings = 100

// recordingSorts are the orders the view offers, the first the default.
var recordingSorts = []views.Choice{{Value: "newest", Label: "Newest first"}, {Value: "oldest", Label: "Oldest first"},
	{Value: "largest", Label: "Largest first"}, {Value: "robot", Label: "By robot"}}

func (p *Panel) fleetRecordingsPage(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	q := c.QueryParams()
	v := views.FleetRecordingsView{Nav: p.nav(c, "Recordings", "recordings"), Robot: q.Get("robot"), From: q.Get("from"), To: q.Get("to"),
		Trigger: strings.TrimSpace(q.Get("trigger")),
		Sort:    cmp.Or(q.Get("sort"), recordingSorts[0].Value), Sorts: recordingSorts}
	if !slices.ContainsFunc(recordingSorts, func(s views.Choice) bool { return s.Value == v.Sort }) {
		return fleetgate.Errorf(fleetgate.EInvalid, "sort %q is not one of newest, oldest, largest, robot", v.Sort)
	}
	from, err := panelDay(v.From, "from", 0)
	if err != nil {
		return err
	}
	to, err := panelDay(v.To, "to", 1)
	if err != nil {
		return err
	}
	rows, unreachable, err := p.agents.FleetRecordings(ctx, caller)
	if err != nil {
		return err
	}
	v.Unreachable = unreachable
	for _, r := range rows {
		if !slices.Contains(v.Robots, r.RobotName) {
			v.Robots = append(v.Robots, r.RobotName)
		}
	}
	slices.Sort(v.Robots)
	v.Rows = slices.DeleteFunc(rows, func(r fleetgate.RecordingRow) bool {
		end := r.CreatedAt.Add(r.Duration)
		return v.Robot != "" && r.RobotName != v.Robot || !from.IsZero() && end.Before(from) || !to.IsZero() && !r.CreatedAt.Before(to) ||
			v.Trigger != "" && !strings.Contains(strings.ToLower(r.Trigger), strings.ToLower(v.Trigger))
	})
	sortRecordings(v.Rows, v.Sort)
	return p.render(c, http.StatusOK, views.FleetRecordings(v))
}

// sortRecordings orders rows as the view's sort says; ties newest first.
func sortRecordings(rows []fleetgate.RecordingRow, by string) {
	newest := func(a, b fleetgate.RecordingRow) int { return b.CreatedAt.Compare(a.CreatedAt) }
	slices.SortStableFunc(rows, func(a, b fleetgate.RecordingRow) int {
		switch by {
		case "oldest":
			return -newest(a, b)
		case "largest":
			return cmp.Or(cmp.Compare(b.Size, a.Size), newest(a, b))
		case "robot":
			return cmp.Or(strings.Compare(a.RobotName, b.RobotName), newest(a, b))
		}
		return newest(a, b)
	})
}

// downloadRecordings streams the recordings named by the form's "r" values (robotId/recordingId)
// as one zip. Each is opened (and so checked) before the first byte: a refused one is the
// answer's error; a failure while streaming cuts the connection.
func (p *Panel) downloadRecordings(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	picks := c.QueryParams()["r"]
	if len(picks) == 0 {
		return fleetgate.Errorf(fleetgate.EInvalid, "select at least one recording to download")
	}
	if len(picks) > maxZipRecordings {
		return fleetgate.Errorf(fleetgate.EInvalid, "select at most %d recordings to download at once", maxZipRecordings)
	}
	var files []*gateway.RecordingFile
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, pick := range picks {
		robotID, recordingID, ok := strings.Cut(pick, "/")
		if !ok {
			return fleetgate.Errorf(fleetgate.EInvalid, "%q names no recording (robot/recording)", pick)
		}
		f, err := p.agents.OpenRecording(ctx, caller, robotID, recordingID, gateway.RecordingCut{})
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/zip")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="recordings_`+time.Now().UTC().Format("20060102-150405")+`.zip"`)
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	z := zip.NewWriter(c.Response())
	names := map[string]int{}
	for _, f := range files {
		w, err := z.CreateHeader(&zip.FileHeader{Name: uniqueName(names, f.Resource.Name), Method: zip.Store, Modified: f.Resource.CreatedAt})
		if err == nil {
			_, err = io.CopyN(w, f.File, f.Resource.Size)
		}
		if err != nil {
			panic(http.ErrAbortHandler) // the status is sent: a cut connection, not a short zip
		}
	}
	if err := z.Close(); err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}

// uniqueName is name, or name-2, -3... when the zip has it already.
func uniqueName(seen map[string]int, name string) string {
	seen[name]++
	if n := seen[name]; n > 1 {
		base, ext := strings.TrimSuffix(name, ".mcap"), ".mcap"
		if !strings.HasSuffix(name, ext) {
			base, ext = name, ""
		}
		return base + "-" + strconv.Itoa(n) + ext
	}
	return name
}
