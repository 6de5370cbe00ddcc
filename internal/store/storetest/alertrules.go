package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// testAlertRules: a fleet's webhooks and rules round-trip every field (a threshold's
// fraction, the escalation time, the flags), list per fleet and all together in creation
// order; deleting a webhook leaves its rules escalating nowhere, and a missing one is
// ENotFound.
func testAlertRules(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	other := fleetgate.Fleet{ID: "fleet-2", OrgID: f.org.ID, Name: "second"}
	must(t, db.CreateFleet(ctx, other))
	created := time.Now().UTC().Truncate(time.Millisecond)

	hook := fleetgate.Webhook{ID: "wh-1", FleetID: f.fleet.ID, Name: "on call", URL: "https://hooks.example.com/x", Secret: "s3cret", CreatedAt: created}
	must(t, db.CreateWebhook(ctx, hook))
	got, err := db.Webhook(ctx, hook.ID)
	must(t, err)
	if got != hook {
		t.Errorf("webhook = %+v, want %+v", got, hook)
	}
	threshold := fleetgate.AlertRule{ID: "rule-1", FleetID: f.fleet.ID, Kind: fleetgate.AlertThreshold, Name: "motor hot",
		Source: "kpi", Key: "motor_temp", Above: true, Threshold: 72.5, Critical: true, EscalateAfter: 90 * time.Second,
		WebhookID: hook.ID, CreatedAt: created}
	blocked := fleetgate.AlertRule{ID: "rule-2", FleetID: f.fleet.ID, Kind: fleetgate.AlertBlocked, EscalateAfter: 5 * time.Minute,
		WebhookID: hook.ID, CreatedAt: created.Add(time.Millisecond)}
	elsewhere := fleetgate.AlertRule{ID: "rule-3", FleetID: other.ID, Kind: fleetgate.AlertBattery, Source: "", CreatedAt: created.Add(2 * time.Millisecond)}
	for _, r := range []fleetgate.AlertRule{threshold, blocked, elsewhere} {
		must(t, db.CreateAlertRule(ctx, r))
	}
	one, err := db.AlertRule(ctx, threshold.ID)
	must(t, err)
	if !reflect.DeepEqual(one, threshold) {
		t.Errorf("rule = %+v, want %+v", one, threshold)
	}
	rules, err := db.AlertRules(ctx, f.fleet.ID)
	must(t, err)
	if len(rules) != 2 || rules[0].ID != threshold.ID || rules[1].ID != blocked.ID {
		t.Errorf("the fleet's rules = %+v", rules)
	}
	all, err := db.AlertRules(ctx, "")
	must(t, err)
	if len(all) != 3 || all[2].ID != elsewhere.ID || all[2].WebhookID != "" {
		t.Errorf("every rule = %+v", all)
	}

	wantCode(t, "a rule of an unknown fleet", db.CreateAlertRule(ctx, fleetgate.AlertRule{ID: "rule-x", FleetID: "nope", Kind: fleetgate.AlertBlocked, CreatedAt: created}), fleetgate.EInternal)
	must(t, db.DeleteWebhook(ctx, hook.ID))
	hooks, err := db.Webhooks(ctx, f.fleet.ID)
	must(t, err)
	if len(hooks) != 0 {
		t.Errorf("webhooks after delete = %+v", hooks)
	}
	one, err = db.AlertRule(ctx, blocked.ID)
	must(t, err)
	if one.WebhookID != "" {
		t.Errorf("a rule of a deleted webhook still posts to %q", one.WebhookID)
	}
	must(t, db.DeleteAlertRule(ctx, blocked.ID))
	_, err = db.AlertRule(ctx, blocked.ID)
	wantCode(t, "a deleted rule", err, fleetgate.ENotFound)
	wantCode(t, "deleting it again", db.DeleteAlertRule(ctx, blocked.ID), fleetgate.ENotFound)
	wantCode(t, "deleting a missing webhook", db.DeleteWebhook(ctx, "nope"), fleetgate.ENotFound)
}
