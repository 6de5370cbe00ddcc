package api_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/server/api"
)

// TestEventListRoute: GET /events reads its filter from the query and answers a page with the
// cursor of the next; a bad filter is 400 before the core is asked.
func TestEventListRoute(t *testing.T) {
	asked := &calls{}
	e := fakeAPI(api.Services{Events: fakeEvents{asked}})
	from, to := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	page := `{"events":[
		{"id":7,"time":"2026-11-27T08:00:00Z","robotId":"r1","robotName":"tugger","fleetId":"","agent":"a1","agentName":"dock-7",
		 "author":"op@example.com via agent dock-7","message":"=HYPERLINK(\"x\")","type":"alert","severity":"error","recordingId":"rec-1"},
		{"id":5,"time":"2026-11-27T07:59:59Z","robotId":"r1","robotName":"tugger","fleetId":"f1","agent":"","agentName":"",
		 "author":"op@example.com","message":"docked","type":"note","severity":"info","recordingId":""}],
		"nextCursor":"MTc5NTc2NjM5OTAwMC41"}`
	cases := []routeCase{
		{name: "every filter", method: http.MethodGet, wantStatus: http.StatusOK, wantBody: page,
			target: "/events?robotId=r1&fleetId=f1&agent=a1&author=op%40example.com&from=2026-11-01T00:00:00Z&to=2026-11-28T00:00:00Z&q=dock&type=alert&severity=error&limit=2",
			wantCalls: []call{{fakeCaller, "QueryEvents", fleetgate.EventFilter{RobotID: "r1", FleetID: "f1", AgentID: "a1", Author: "op@example.com",
				From: from, To: to, Text: "dock", Type: fleetgate.EventAlert, Severity: fleetgate.SeverityError, Limit: 2}}}},
		{name: "the next page", method: http.MethodGet, target: "/events?cursor=MTc5NTc2NjM5OTAwMC41", wantStatus: http.StatusOK,
			wantBody:  `{"events":[],"nextCursor":""}`,
			wantCalls: []call{{fakeCaller, "QueryEvents", fleetgate.EventFilter{After: &fleetgate.EventCursor{CreatedAt: time.Date(2026, 11, 27, 7, 59, 59, 0, time.UTC), ID: 5}}}}},
		{name: "a robot the core does not find", method: http.MethodGet, target: "/events?robotId=r9", wantStatus: http.StatusNotFound,
			wantCalls: []call{{fakeCaller, "QueryEvents", fleetgate.EventFilter{RobotID: "r9"}}}},
		{name: "limit 0", method: http.MethodGet, target: "/events?limit=0", wantStatus: http.StatusBadRequest},
		{name: "limit 1001", method: http.MethodGet, target: "/events?limit=1001", wantStatus: http.StatusBadRequest},
		{name: "limit in words", method: http.MethodGet, target: "/events?limit=ten", wantStatus: http.StatusBadRequest},
		{name: "a cursor it did not give", method: http.MethodGet, target: "/events?cursor=bm90IG9uZQ", wantStatus: http.StatusBadRequest},
		{name: "a cursor of no base64", method: http.MethodGet, target: "/events?cursor=%25%25", wantStatus: http.StatusBadRequest},
		{name: "a time in no format", method: http.MethodGet, target: "/events?from=yesterday", wantStatus: http.StatusBadRequest},
		{name: "from after to", method: http.MethodGet, target: "/events?from=2026-11-28T00:00:00Z&to=2026-11-01T00:00:00Z", wantStatus: http.StatusBadRequest},
		{name: "an unknown type", method: http.MethodGet, target: "/events?type=gossip", wantStatus: http.StatusBadRequest},
		{name: "an unknown severity", method: http.MethodGet, target: "/events?severity=dire", wantStatus: http.StatusBadRequest},
		{name: "an unknown format", method: http.MethodGet, target: "/events?format=xml", wantStatus: http.StatusBadRequest},
		{name: "a limit on an export", method: http.MethodGet, target: "/events?format=csv&limit=5", wantStatus: http.StatusBadRequest},
		{name: "a filter twice", method: http.MethodGet, target: "/events?robotId=r1&robotId=r2", wantStatus: http.StatusBadRequest},
		{name: "a text over the limit", method: http.MethodGet, target: "/events?q=" + strings.Repeat("a", 4097), wantStatus: http.StatusBadRequest},
		{name: "without a token", method: http.MethodGet, target: "/events", bearer: "-", wantStatus: http.StatusUnauthorized},
	}
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) { rc.run(t, e, asked) })
	}
}

// TestEventExport: format=csv and jsonl give every page of the filtered view, one entry a
// line, and a spreadsheet never runs a message as a formula.
func TestEventExport(t *testing.T) {
	asked := &calls{}
	e := fakeAPI(api.Services{Events: fakeEvents{asked}})
	get := func(format string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, api.V2Prefix+"/events?robotId=r1&format="+format, nil)
		req.Header.Set(echo.HeaderAuthorization, "bearer "+fakeBearer)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", format, rec.Code, rec.Body)
		}
		if cd := rec.Header().Get(echo.HeaderContentDisposition); cd != `attachment; filename="events.`+format+`"` {
			t.Errorf("%s: Content-Disposition %q", format, cd)
		}
		// Two pages: the first, then the one after its cursor, each with the largest size.
		if got := asked.take(); len(got) != 2 || got[0][2].(fleetgate.EventFilter).Limit != 1000 || got[1][2].(fleetgate.EventFilter).After == nil {
			t.Errorf("%s: the core was asked %+v", format, got)
		}
		return rec
	}

	rec := get("csv")
	if ct := rec.Header().Get(echo.HeaderContentType); ct != "text/csv; charset=utf-8" {
		t.Errorf("csv: Content-Type %q", ct)
	}
	records, err := csv.NewReader(rec.Body).ReadAll()
	if err != nil || len(records) != 3 {
		t.Fatalf("csv: %d records, %v:\n%s", len(records), err, rec.Body)
	}
	if strings.Join(records[0], ",") != "id,time,robotId,robotName,fleetId,agent,agentName,author,message,type,severity,recordingId" {
		t.Errorf("csv header %q", records[0])
	}
	if r := records[1]; r[0] != "7" || r[8] != `'=HYPERLINK("x")` || r[9] != "alert" || r[11] != "rec-1" {
		t.Errorf("csv first entry %q", r)
	}

	rec = get("jsonl")
	lines := strings.Split(strings.TrimSpace(rec.Body.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("jsonl: %d lines:\n%s", len(lines), rec.Body)
	}
	var first struct {
		ID      int64
		Message string
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.ID != 7 || first.Message != `=HYPERLINK("x")` {
		t.Errorf("jsonl first line %s: %+v %v", lines[0], first, err)
	}
}
