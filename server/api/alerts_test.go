package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
)

// fakeAlerts is the core's alerts: robot r1 has a blocked alert, escalated, and an acknowledged
// battery alert; r3 is one the caller may only view; any other robot is unknown.
type fakeAlerts struct{ asked *calls }

var alertSince = time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)

func (f fakeAlerts) OpenAlerts(_ context.Context, c *gateway.Caller, robotID string) ([]fleetgate.OpenAlert, error) {
	f.asked.add(c, "OpenAlerts", robotID)
	if robotID != "r1" && robotID != "r3" {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", robotID)
	}
	return []fleetgate.OpenAlert{
		{RobotID: robotID, FleetID: "f1", Alert: fleetgate.Alert{Kind: fleetgate.AlertBlocked, Critical: true, Words: "blocked"},
			Since: alertSince, Escalated: alertSince.Add(5 * time.Minute)},
		{RobotID: robotID, FleetID: "f1", Alert: fleetgate.Alert{Kind: fleetgate.AlertBattery, Words: "battery low (15 %)"},
			Since: alertSince.Add(time.Minute), AckBy: "op@example.com", AckAt: alertSince.Add(2 * time.Minute)},
	}, nil
}

func (f fakeAlerts) AcknowledgeAlert(_ context.Context, c *gateway.Caller, robotID string, kind fleetgate.AlertKind) (fleetgate.OpenAlert, error) {
	f.asked.add(c, "AcknowledgeAlert", robotID, kind)
	switch {
	case robotID == "r3":
		return fleetgate.OpenAlert{}, fleetgate.Errorf(fleetgate.EForbidden, "a read-only token may not drive robots")
	case robotID != "r1" || kind != fleetgate.AlertBlocked:
		return fleetgate.OpenAlert{}, fleetgate.Errorf(fleetgate.ENotFound, "no %s alert is open on this robot", kind)
	}
	return fleetgate.OpenAlert{RobotID: "r1", FleetID: "f1", Alert: fleetgate.Alert{Kind: kind, Critical: true, Words: "blocked"},
		Since: alertSince, AckBy: c.User.Email, AckAt: alertSince.Add(3 * time.Minute)}, nil
}

// TestAlertRoutes: the open alerts of a robot and their acknowledgement (an extension) over a
// fake of Alerts: the times in RFC 3339 UTC, acknowledgedBy and the times absent until they
// happen, no body taken, and the core's refusals as problems.
func TestAlertRoutes(t *testing.T) {
	asked := &calls{}
	e := fakeAPI(api.Services{Alerts: fakeAlerts{asked}})
	cases := []routeCase{
		{name: "list", method: http.MethodGet, target: "/robots/r1/alerts", wantStatus: http.StatusOK,
			wantBody: `{"alerts":[
				{"robotId":"r1","fleetId":"f1","kind":"blocked","critical":true,"words":"blocked","since":"2026-11-28T01:00:00Z","escalatedAt":"2026-11-28T01:05:00Z"},
				{"robotId":"r1","fleetId":"f1","kind":"battery","critical":false,"words":"battery low (15 %)","since":"2026-11-28T01:01:00Z",
				 "acknowledgedBy":"op@example.com","acknowledgedAt":"2026-11-28T01:02:00Z"}]}`,
			wantCalls: []call{{fakeCaller, "OpenAlerts", "r1"}}},
		{name: "list of an unknown robot", method: http.MethodGet, target: "/robots/r9/alerts", wantStatus: http.StatusNotFound,
			wantCalls: []call{{fakeCaller, "OpenAlerts", "r9"}}},
		{name: "list without a token", method: http.MethodGet, target: "/robots/r1/alerts", bearer: "-", wantStatus: http.StatusUnauthorized},
		{name: "acknowledge", method: http.MethodPost, target: "/robots/r1/alerts/blocked/ack", wantStatus: http.StatusOK,
			wantBody: `{"robotId":"r1","fleetId":"f1","kind":"blocked","critical":true,"words":"blocked","since":"2026-11-28T01:00:00Z",
				"acknowledgedBy":"op@example.com","acknowledgedAt":"2026-11-28T01:03:00Z"}`,
			wantCalls: []call{{fakeCaller, "AcknowledgeAlert", "r1", fleetgate.AlertBlocked}}},
		{name: "acknowledge a threshold rule's alert", method: http.MethodPost, target: "/robots/r1/alerts/rule-7/ack", wantStatus: http.StatusNotFound,
			wantCalls: []call{{fakeCaller, "AcknowledgeAlert", "r1", fleetgate.AlertKind("rule-7")}}},
		{name: "acknowledge with a read-only token", method: http.MethodPost, target: "/robots/r3/alerts/blocked/ack", wantStatus: http.StatusForbidden,
			wantCalls: []call{{fakeCaller, "AcknowledgeAlert", "r3", fleetgate.AlertBlocked}}},
		{name: "acknowledge with a body", method: http.MethodPost, target: "/robots/r1/alerts/blocked/ack", body: `{"who":"me"}`, wantStatus: http.StatusBadRequest},
		{name: "acknowledge with GET", method: http.MethodGet, target: "/robots/r1/alerts/blocked/ack", wantStatus: http.StatusMethodNotAllowed},
		{name: "acknowledge without a token", method: http.MethodPost, target: "/robots/r1/alerts/blocked/ack", bearer: "-", wantStatus: http.StatusUnauthorized},
	}
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) { rc.run(t, e, asked) })
	}
}
