package web_test

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
)

// The operate screen, the fleet view and their fragments, as an operator's browser gets them.
func TestOperateScreenAndFleetView(t *testing.T) {
	a := openLiveAgent(t)
	op := a.as(t, "operator")
	r := "/robots/" + a.robot

	p := op.get(r)
	wantStatus(t, "operate", p, http.StatusOK)
	wantBody(t, "operate", p, `id="operate"`, `data-widget="pose-map"`, `data-trail="1"`, `data-widget="teleop"`, `data-compact="1"`,
		`data-refresh="/robots/`+a.robot+`/status"`, "Battery", "87 %", "Driven by", "nobody", "Details and members")
	// The page offers its one screen: no page-wide notice above it.
	if strings.Contains(p.body, `class="notice">You have no password`) {
		t.Error("the operate screen shows the password notice")
	}

	st := op.get(r + "/status")
	wantStatus(t, "status fragment", st, http.StatusOK)
	wantBody(t, "status fragment", st, "Battery", "87 %", "Position")
	if strings.Contains(st.body, "<html") {
		t.Error("the status fragment is a whole page")
	}

	list := op.get("/")
	wantBody(t, "robots list", list, "<th>Agent</th>", "this gateway", "<th>Alerts</th>")

	fv := op.get("/fleet")
	wantStatus(t, "fleet view", fv, http.StatusOK)
	wantBody(t, "fleet view", fv, `data-widget="kpi-wall"`, `data-theme="light"`, "1 of 1", "robots online", "panel-bot")
	wantStatus(t, "fleet view of another fleet", op.get("/fleet?fleet=no-such-fleet"), http.StatusNotFound)
	wantBody(t, "fleet fragment", op.get("/fleet/fragment"), "kpi-tile", "panel-bot")

	// The header says which gateway this is.
	wantBody(t, "header", list, `id="where"`, "Local gateway")

	none := a.as(t, "none")
	wantStatus(t, "status of a robot one may not see", none.get(r+"/status"), http.StatusNotFound)
}

// Every form's URL answers a GET with the page the form is on, and HEAD / answers like GET.
func TestFormURLsAndHead(t *testing.T) {
	a := openLiveAgent(t)
	admin := a.as(t, "admin")
	r := "/robots/" + a.robot
	for from, to := range map[string]string{
		r + "/streams/upload":                   r + "/streams",
		r + "/recordings/some-recording/stop":   r + "/recordings",
		"/settings/tokens":                      "/settings",
		"/settings/tokens/some-token/revoke":    "/settings",
		"/admin/users":                          "/admin",
		"/admin/users/some-user/disable":        "/admin",
		"/admin/robots/" + a.robot + "/remove":  "/admin",
		"/admin/robots/remove-stale":            "/admin",
		"/admin/agents":                         "/admin",
		"/admin/kiosk-tokens/some-token/revoke": "/admin",
		"/logout":                               "/",
	} {
		p := admin.get(from)
		if p.status != http.StatusSeeOther || p.header.Get("Location") != to {
			t.Errorf("GET %s: %d to %q, want 303 to %s", from, p.status, p.header.Get("Location"), to)
		}
	}
	head := admin.do("HEAD", "/", nil, nil)
	get := admin.get("/")
	if head.status != get.status || head.status != http.StatusOK || head.header.Get("Content-Type") != get.header.Get("Content-Type") || head.body != "" {
		t.Errorf("HEAD / = %d %q (%d bytes), GET / = %d %q", head.status, head.header.Get("Content-Type"), len(head.body), get.status, get.header.Get("Content-Type"))
	}
	if p := admin.get("/favicon.ico"); p.status != http.StatusMovedPermanently || !strings.Contains(p.header.Get("Location"), "favicon") {
		t.Errorf("favicon: %d %q", p.status, p.header.Get("Location"))
	}
}

// A password an admin made is changed at the first login, before any page or API call.
func TestGeneratedPasswordMustBeChanged(t *testing.T) {
	a := openLiveAgent(t)
	admin := a.as(t, "admin")
	made := admin.submit("/admin/users", url.Values{"email": {"newcomer@example.com"}})
	m := secretPattern.FindStringSubmatch(made.body)
	if m == nil {
		t.Fatalf("no password shown:\n%s", made.body)
	}
	first := m[1]

	b := a.browser(t)
	wantRedirect(t, "first login", b.loginPassword("newcomer@example.com", first), "/password")
	wantBody(t, "the password page", b.get("/password"), "An admin made your current password")
	wantRedirect(t, "any page first", b.get("/"), "/password")
	wantRedirect(t, "a robot page first", b.get("/settings"), "/password")
	if p := b.get("/panel/api/robots"); p.status != http.StatusForbidden || !strings.Contains(p.body, "change it at /password") {
		t.Errorf("the API mirror before the change: %d %s", p.status, p.body)
	}
	wantBody(t, "the same password again", b.submit("/password", url.Values{"current": {first}, "new": {first}}), "must differ")
	wantBody(t, "a wrong current password", b.submit("/password", url.Values{"current": {"not it at all"}, "new": {"my own password"}}), "current password is wrong")
	wantBody(t, "the change", b.submit("/password", url.Values{"current": {first}, "new": {"my own password"}}), "Your password is set")
	wantStatus(t, "pages after the change", b.get("/"), http.StatusOK)

	// A reset makes it generated again.
	users, err := a.Store.Users(t.Context(), a.users["admin"].OrgID)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, u := range users {
		if u.Email == "newcomer@example.com" {
			id = u.ID
			if u.MustChangePassword {
				t.Error("the changed password is still marked generated")
			}
		}
	}
	reset := admin.submit("/admin/users/"+id+"/reset-password", url.Values{})
	if m = secretPattern.FindStringSubmatch(reset.body); m == nil {
		t.Fatal("no reset password shown")
	}
	c := a.browser(t)
	wantRedirect(t, "login after the reset", c.loginPassword("newcomer@example.com", m[1]), "/password")
	wantRedirect(t, "pages after the reset", c.get("/"), "/password")
}

// The event log: every robot's history with fleet and agent columns and filters.
func TestEventLogPage(t *testing.T) {
	a := openLiveAgent(t)
	op := a.as(t, "operator")
	r := "/robots/" + a.robot
	wantRedirect(t, "post", op.post(r+"/events", url.Values{"message": {"battery swapped"}, "fleetId": {"local-fleet"}}), r+"/events")
	p := op.get("/events")
	wantStatus(t, "event log", p, http.StatusOK)
	wantBody(t, "event log", p, "<th>Robot</th>", "<th>Fleet</th>", "<th>Agent</th>", "battery swapped", "panel-bot", "this gateway", `name="fleet"`)
	wantBody(t, "robot tab", op.get(r+"/events"), "<th>Agent</th>", "battery swapped")
	if p := op.get("/events?fleet=another-fleet"); strings.Contains(p.body, "battery swapped") {
		t.Error("the fleet filter shows another fleet's entry")
	}
	none := a.as(t, "none")
	if p := none.get("/events"); strings.Contains(p.body, "battery swapped") {
		t.Error("a user without the robot sees its events")
	}

	// Type, severity and text filters, a page of 100 with the next, and the export of the view.
	sameOrigin := http.Header{"Sec-Fetch-Site": {"same-origin"}}
	wantStatus(t, "post an alert", op.do("POST", "/panel/api/events/log?robotId="+a.robot+"&message=pallet+dropped&type=alert&severity=error", nil, sameOrigin), http.StatusOK)
	alerts := op.get("/events?type=alert&severity=error")
	wantBody(t, "alerts", alerts, "pallet dropped", "alert, error", `<option value="alert" selected>`)
	if strings.Contains(alerts.body, "battery swapped") {
		t.Error("the type filter shows a note")
	}
	if p := op.get("/events?q=PALLET"); !strings.Contains(p.body, "pallet dropped") || strings.Contains(p.body, "battery swapped") {
		t.Error("the text filter: want the alert alone")
	}
	if p := op.get("/events?from=2000-01-01&to=2000-01-02"); strings.Contains(p.body, "pallet dropped") {
		t.Error("the date filter shows today's entry in a day of 2000")
	}
	wantStatus(t, "a date in words", op.get("/events?from=yesterday"), http.StatusBadRequest)
	for i := range 100 {
		wantStatus(t, "post", op.do("POST", fmt.Sprintf("/panel/api/events/log?robotId=%s&message=filler+%d", a.robot, i), nil, sameOrigin), http.StatusOK)
	}
	first := op.get("/events")
	older := regexp.MustCompile(`<a href="([^"]+)" rel="next">Older entries</a>`).FindStringSubmatch(first.body)
	if older == nil || !strings.Contains(first.body, "filler 99") || strings.Contains(first.body, "pallet dropped") {
		t.Fatal("the first page: want the newest 100 entries and a link to older ones")
	}
	second := op.get(html.UnescapeString(older[1]))
	wantBody(t, "the older page", second, "pallet dropped", "battery swapped")
	if strings.Contains(second.body, "filler 99") || strings.Contains(second.body, "Older entries") {
		t.Error("the second page repeats the first, or says there is a third")
	}
	export := regexp.MustCompile(`<a href="([^"]+)" download>CSV</a>`).FindStringSubmatch(op.get("/events?type=alert").body)
	if export == nil {
		t.Fatal("no CSV export link")
	}
	csv := op.get(html.UnescapeString(export[1]))
	if wantStatus(t, "export", csv, http.StatusOK); strings.Count(csv.body, "\n") != 2 || !strings.Contains(csv.body, "pallet dropped") {
		t.Errorf("the export of the alerts:\n%s", csv.body)
	}
}

// HEAD answers leave nothing unread on a kept-alive connection: a GET sent right behind a
// HEAD on the same connection gets its own answer, not the HEAD's page.
func TestHeadThenGetOnOneConnection(t *testing.T) {
	a := openLiveAgent(t)
	admin := a.as(t, "admin")
	u, _ := url.Parse(admin.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var cookies []string
	for _, c := range admin.jar.Cookies(u) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	head, _ := http.NewRequest("HEAD", admin.base+"/", nil)
	get, _ := http.NewRequest("GET", admin.base+"/settings", nil)
	for _, r := range []*http.Request{head, get} {
		r.Header.Set("Cookie", strings.Join(cookies, "; "))
		if err := r.Write(conn); err != nil { // pipelined: both sent before either answer is read
			t.Fatal(err)
		}
	}
	br := bufio.NewReader(conn)
	hr, err := http.ReadResponse(br, head)
	if err != nil || hr.StatusCode != http.StatusOK {
		t.Fatalf("HEAD /: %v %v", hr, err)
	}
	gr, err := http.ReadResponse(br, get)
	if err != nil {
		t.Fatalf("the GET behind the HEAD: %v (the HEAD's body was sent)", err)
	}
	body, _ := io.ReadAll(gr.Body)
	if gr.StatusCode != http.StatusOK || !strings.Contains(string(body), "API tokens") {
		t.Errorf("the GET behind the HEAD: %d, %d bytes", gr.StatusCode, len(body))
	}
}

// silentBot is a robot another process hosts (fleet.Confirmer) whose process last answered at
// a time the test sets.
type silentBot struct {
	*fleettest.Robot
	answered atomic.Int64 // unix nanoseconds
}

func (b *silentBot) Confirm(context.Context) time.Time { return time.Unix(0, b.answered.Load()) }

// The panel says "online" of a robot only while its agent answered within 2 s: the header and
// the status card refresh the state every second and say "not confirmed for N s" beyond, the
// status card then knows nobody who drives and raises the alert.
func TestRobotStateIsConfirmed(t *testing.T) {
	a := openLiveAgent(t)
	bot := &silentBot{Robot: &fleettest.Robot{ID: "5b1d2c3e-4f50-4617-8a9b-0c1d2e3f4a5b", Name: "linked-bot",
		StreamList: []fleetgate.Stream{{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent}}}}
	bot.answered.Store(time.Now().UnixNano())
	if err := a.Registry().Add(context.Background(), bot, fleetgate.LocalFleetID); err != nil {
		t.Fatal(err)
	}
	admin := a.as(t, "admin")
	r := "/robots/" + bot.ID

	page := admin.get(r)
	wantStatus(t, "operate", page, http.StatusOK)
	wantBody(t, "operate", page, `data-refresh="/robots/`+bot.ID+`/state" data-every="1000"`, `data-refresh="/robots/`+bot.ID+`/status" data-every="1000"`,
		`data-robot-state="online"`)
	st := admin.get(r + "/state")
	wantStatus(t, "state", st, http.StatusOK)
	wantBody(t, "state answered now", st, `data-robot-state="online"`, `data-silent-ms="`, "online")

	bot.answered.Store(time.Now().Add(-5 * time.Second).UnixNano())
	st = admin.get(r + "/state")
	wantBody(t, "state silent for 5 s", st, `data-robot-state="unconfirmed"`, "not confirmed for 5 s")
	if strings.Contains(st.body, ">online") {
		t.Errorf("state of a robot silent for 5 s says online: %s", st.body)
	}
	card := admin.get(r + "/status")
	wantBody(t, "status card silent for 5 s", card, "not confirmed for 5 s", "its gateway does not answer", "unknown (not confirmed)")
	if strings.Contains(card.body, ">online") || strings.Contains(card.body, "nobody") {
		t.Errorf("status card of a robot silent for 5 s says online or that nobody drives: %s", card.body)
	}
	wantBody(t, "header silent for 5 s", admin.get(r+"/metrics"), `data-robot-state="unconfirmed"`)

	none := a.as(t, "none")
	wantStatus(t, "state of a robot one may not see", none.get(r+"/state"), http.StatusNotFound)
}
