package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
)

// TestAlertChangesAreAlertEntries: each step of an alert's life is an alert entry, an error
// for a critical alert and a warning otherwise, by fleetgate or by whoever acknowledged it,
// saying how long the alert had been open.
func TestAlertChangesAreAlertEntries(t *testing.T) {
	j := newJournal(slog.New(slog.DiscardHandler))
	var got []fleetgate.Event
	j.record = func(_ context.Context, e fleetgate.Event) error { got = append(got, e); return nil }
	j.mu.Lock()
	j.stopped = true // written at once, on this goroutine
	j.mu.Unlock()

	since := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	blocked := fleetgate.OpenAlert{RobotID: "r1", FleetID: "f1", Alert: fleetgate.Alert{Kind: fleetgate.AlertBlocked, Critical: true, Words: "stuck"}, Since: since}
	battery := fleetgate.OpenAlert{RobotID: "r2", Alert: fleetgate.Alert{Kind: fleetgate.AlertBattery, Words: "battery low (15 %)"}, Since: since}
	acked := blocked
	acked.AckBy, acked.AckAt = "op@example.com", since.Add(90*time.Second)
	j.addAlert(alert.Change{What: alert.Raised, Alert: blocked, At: since})
	j.addAlert(alert.Change{What: alert.Acknowledged, Alert: acked, At: acked.AckAt})
	j.addAlert(alert.Change{What: alert.Cleared, Alert: battery, At: since.Add(2500 * time.Millisecond)})

	want := []struct {
		author, message string
		severity        fleetgate.EventSeverity
	}{
		{systemAuthor, "alert raised (blocked): stuck", fleetgate.SeverityError},
		{"op@example.com", "alert acknowledged by op@example.com after 1m30s (blocked): stuck", fleetgate.SeverityError},
		{systemAuthor, "alert cleared after 2.5s (battery): battery low (15 %)", fleetgate.SeverityWarning},
	}
	if len(got) != len(want) {
		t.Fatalf("entries %+v", got)
	}
	for i, w := range want {
		e := got[i]
		if e.AuthorEmail != w.author || e.Message != w.message || e.Severity != w.severity || e.Type != fleetgate.EventAlert {
			t.Errorf("entry %d = %q by %q (%s, %s), want %q by %q (%s, alert)", i, e.Message, e.AuthorEmail, e.Severity, e.Type, w.message, w.author, w.severity)
		}
	}
	if !got[0].CreatedAt.Equal(since) || got[0].RobotID != "r1" || got[2].RobotID != "r2" {
		t.Errorf("entries' robots and times: %+v", got)
	}
}

// TestSiteZone: --timezone names a zone or is refused; without it, the host's local zone.
func TestSiteZone(t *testing.T) {
	loc, name, err := siteZone("Europe/Berlin")
	if err != nil || name != "Europe/Berlin" || loc.String() != "Europe/Berlin" {
		t.Fatalf("siteZone(Europe/Berlin) = %v, %q, %v", loc, name, err)
	}
	if _, _, err := siteZone("Mars/Olympus"); err == nil {
		t.Error("an unknown zone was taken")
	}
	t.Setenv("TZ", "America/Chicago")
	if loc, name, err := siteZone(""); err != nil || loc != time.Local || name != "America/Chicago" {
		t.Errorf("siteZone(\"\") with TZ = %v, %q, %v", loc, name, err)
	}
}
