package views

import (
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// TestTimesAreInTheSiteZone: every time the panel shows is in the zone SetTimeZone names,
// with its abbreviation, and the kiosk's clock carries the zone's name for the browser.
func TestTimesAreInTheSiteZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	SetTimeZone(berlin, "Europe/Berlin")
	defer SetTimeZone(time.UTC, "UTC")
	at := time.Date(2026, 1, 15, 11, 30, 0, 0, time.UTC)
	if got := When(at); got != "2026-01-15 12:30:00 CET" {
		t.Errorf("When = %q, want Berlin's winter time", got)
	}
	if got := When(at.AddDate(0, 6, 0)); got != "2026-07-15 13:30:00 CEST" {
		t.Errorf("When in summer = %q", got)
	}
	if got := Day(time.Date(2026, 1, 15, 23, 30, 0, 0, time.UTC)); got != "16 January 2026" {
		t.Errorf("Day = %q: the date is Berlin's, an hour past midnight", got)
	}
	page := render(t, Kiosk(KioskView{Fleet: fleetgate.Fleet{ID: "f1", Name: "hall"}, Tiles: KioskTilesView{Now: at}}))
	if !strings.Contains(page, `data-timezone="Europe/Berlin">12:30:00</time>`) {
		t.Errorf("the kiosk's clock is not Berlin's 24-hour time:\n%s", page)
	}
}

// TestOpenAlertWords: an open alert says how long it has been open and whether anyone
// acknowledged it; only an unacknowledged one, for a caller who may, offers the button.
func TestOpenAlertWords(t *testing.T) {
	now := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		-time.Second:                  "0 s",
		42 * time.Second:              "42 s",
		4*time.Minute + time.Second:   "4 min",
		2*time.Hour + 5*time.Minute:   "2 h 5 min",
		26*time.Hour + 59*time.Minute: "26 h 59 min",
	} {
		if got := durationWords(d); got != want {
			t.Errorf("durationWords(%v) = %q, want %q", d, got, want)
		}
	}
	open := fleetgate.OpenAlert{RobotID: "r1", Alert: fleetgate.Alert{Kind: fleetgate.AlertBlocked, Critical: true, Words: "blocked"}, Since: now.Add(-4 * time.Minute)}
	acked := open
	acked.Kind, acked.AckBy, acked.AckAt = fleetgate.AlertBattery, "op@x", now.Add(-time.Minute)
	if got := openFor(open, now); got != "for 4 min, unacknowledged" {
		t.Errorf("openFor = %q", got)
	}
	if got := openFor(acked, now); got != "for 4 min" {
		t.Errorf("openFor acknowledged = %q", got)
	}
	html := render(t, OpenAlertList(OpenAlerts{Alerts: []fleetgate.OpenAlert{open, acked}, Now: now, CanAck: true, Back: "kiosk"}))
	if strings.Count(html, `class="ack"`) != 1 || !strings.Contains(html, `action="/robots/r1/alerts/blocked/ack"`) ||
		!strings.Contains(html, `value="kiosk"`) || !strings.Contains(html, "acknowledged by op@x") {
		t.Errorf("the list:\n%s", html)
	}
	if strings.Contains(render(t, OpenAlertList(OpenAlerts{Alerts: []fleetgate.OpenAlert{open}, Now: now})), `class="ack"`) {
		t.Error("a caller who may not acknowledge is offered the button")
	}
	if n := unacknowledged([]fleetgate.OpenAlert{open, acked}); n != 1 {
		t.Errorf("unacknowledged = %d", n)
	}
	if keys := alertKeys([]fleetgate.OpenAlert{open, acked, {RobotID: "r2", Alert: fleetgate.Alert{Kind: "rule-7"}}}); keys != "r1/blocked r2/rule-7" {
		t.Errorf("alertKeys = %q: the unacknowledged ones, robot/kind", keys)
	}
}

// TestOfflineNotice: since when, or never.
func TestOfflineNotice(t *testing.T) {
	SetTimeZone(time.UTC, "UTC")
	now := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
	if got := render(t, OfflineNotice(now.Add(-90*time.Minute), now)); !strings.Contains(got, "Offline since 2026-11-28 00:30:00 UTC (1 h 30 min ago): nothing to drive until it is back.") {
		t.Errorf("notice: %s", got)
	}
	if got := render(t, OfflineNotice(time.Time{}, now)); !strings.Contains(got, "never connected") {
		t.Errorf("notice of a robot never seen: %s", got)
	}
}

// TestAlertRuleWords: the admin page's table in words.
func TestAlertRuleWords(t *testing.T) {
	hooks := []fleetgate.Webhook{{ID: "w1", Name: "on call"}}
	hot := fleetgate.AlertRule{Kind: fleetgate.AlertThreshold, Name: "motor hot", Source: "kpi", Key: "motor_temp", Above: true, Threshold: 72.5,
		Critical: true, EscalateAfter: 90 * time.Second, WebhookID: "w1"}
	cpu := fleetgate.AlertRule{Kind: fleetgate.AlertThreshold, Name: "idle", Source: "metric", Key: "1", Threshold: 5}
	blocked := fleetgate.AlertRule{Kind: fleetgate.AlertBlocked}
	for got, want := range map[string]string{
		ruleKindWords(hot):                         "threshold: motor hot",
		thresholdWords(hot):                        "KPI motor_temp above 72.5, critical",
		thresholdWords(cpu):                        "metric 1 below 5",
		thresholdWords(blocked):                    "–",
		escalateWords(hot):                         "1 min",
		escalateWords(blocked):                     "never",
		webhookName(hooks, "w1"):                   "on call",
		webhookName(hooks, ""):                     "–",
		ruleKindWords(blocked):                     "blocked",
		statusText(0):                              "–",
		statusText(503):                            "503",
		deliveryWords(fleetgate.WebhookDelivery{}): "delivered",
		deliveryWords(fleetgate.WebhookDelivery{Error: "refused"}):              "refused (will retry)",
		deliveryWords(fleetgate.WebhookDelivery{Error: "refused", Final: true}): "refused (gave up)",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
