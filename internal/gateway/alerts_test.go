package gateway_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

type alertJournal struct {
	mu      sync.Mutex
	changes []alert.Change
}

func (j *alertJournal) add(c alert.Change) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.changes = append(j.changes, c)
}

func (j *alertJournal) take() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, c := range j.changes {
		out = append(out, string(c.What)+" "+string(c.Alert.Kind))
	}
	j.changes = nil
	return out
}

type escalated struct {
	hook  fleetgate.Webhook
	alert fleetgate.OpenAlert
	robot string
}

type escalator struct {
	mu   sync.Mutex
	sent []escalated
}

func (e *escalator) Escalate(h fleetgate.Webhook, a fleetgate.OpenAlert, robot string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sent = append(e.sent, escalated{h, a, robot})
}

func (e *escalator) Deliveries(string) []fleetgate.WebhookDelivery { return nil }

func (e *escalator) take() []escalated {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.sent
	e.sent = nil
	return out
}

func kpi(t *testing.T, name string, m proto.Message) fleetgate.KPI {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return fleetgate.KPI{Name: name, DataType: string(m.ProtoReflect().Descriptor().FullName()), Payload: b}
}

// TestAlertsAreTrackedAcknowledgedAndEscalated walks an alert's life through the core: a
// sweep raises what the robot's status says (an e-stop from its activity, a threshold rule
// on a KPI); only a caller who may drive the robot acknowledges (not a read-only token, not a
// user who cannot see it); the escalation rule posts the unacknowledged alert once, at its
// time, to its webhook; and the sweep that no longer derives it clears it.
func TestAlertsAreTrackedAcknowledgedAndEscalated(t *testing.T) {
	p := livePresence{}
	var j alertJournal
	var esc escalator
	e := newEnv(t, withPresence(p), func(c *gateway.Config) { c.AlertJournal = j.add; c.Escalator = &esc })
	r := e.addRobot(e.fleet, "amr-1")
	hidden := e.addRobot(e.fleet, "amr-2")
	live := &fleettest.Robot{ID: r.ID, Name: r.Name}
	p[r.ID] = live
	admin := e.login(e.adminSecret)

	hook, err := e.g.AddWebhook(e.ctx, admin, e.fleet.ID, "on call", "https://hooks.example.com/fleet")
	e.must(err)
	if len(hook.Secret) < 32 {
		t.Fatalf("webhook secret %q is too short", hook.Secret)
	}
	_, err = e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertEStop, EscalateAfter: 2 * time.Minute, WebhookID: hook.ID})
	e.must(err)
	hot, err := e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertThreshold, Name: "motor hot",
		Source: "kpi", Key: "motor_temp", Above: true, Threshold: 70})
	e.must(err)

	// KPIs without a time: the robot is never stale, whatever the clock.
	live.KPIList = []fleetgate.KPI{kpi(t, "activity", &catalogpb.String{Data: "emergency_stop"}), kpi(t, "motor_temp", &catalogpb.Float64{Data: 75})}
	e.must(e.g.SweepAlerts(e.ctx))
	// amr-2 is not connected: offline.
	if got, want := j.take(), []string{"raised estop", "raised " + string(hot.AlertKindOf()), "raised offline"}; !slices.Equal(got, want) {
		t.Fatalf("journal = %q, want %q", got, want)
	}

	operator := e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleOperator})
	kiosk := e.login(e.addToken(operator, fleetgate.ScopeRead, ""))
	_, err = e.g.AcknowledgeAlert(e.ctx, kiosk, r.ID, fleetgate.AlertEStop)
	wantCode(t, "a read-only token acknowledging", err, fleetgate.EForbidden)
	op := e.login(e.addToken(operator, fleetgate.ScopeFull, ""))
	_, err = e.g.AcknowledgeAlert(e.ctx, op, hidden.ID, fleetgate.AlertOffline)
	wantCode(t, "acknowledging on a robot the user cannot see", err, fleetgate.ENotFound)
	_, err = e.g.OpenAlerts(e.ctx, op, hidden.ID)
	wantCode(t, "listing a robot the user cannot see", err, fleetgate.ENotFound)

	e.clock.Advance(time.Minute)
	a, err := e.g.AcknowledgeAlert(e.ctx, op, r.ID, fleetgate.AlertThreshold+"-none")
	wantCode(t, "an alert that is not open", err, fleetgate.ENotFound)
	a, err = e.g.AcknowledgeAlert(e.ctx, op, r.ID, hot.AlertKindOf())
	if err != nil || a.AckBy != "op@example.com" || !a.AckAt.Equal(e.clock.Now()) {
		t.Fatalf("acknowledge = %+v, %v", a, err)
	}
	if got := j.take(); !slices.Equal(got, []string{"acknowledged " + string(hot.AlertKindOf())}) {
		t.Fatalf("journal = %q", got)
	}

	e.clock.Advance(time.Minute - time.Millisecond)
	e.must(e.g.SweepAlerts(e.ctx))
	if sent := esc.take(); len(sent) != 0 {
		t.Fatalf("escalated before two minutes: %+v", sent)
	}
	e.clock.Advance(time.Millisecond)
	e.must(e.g.SweepAlerts(e.ctx))
	sent := esc.take()
	if len(sent) != 1 || sent[0].alert.Kind != fleetgate.AlertEStop || sent[0].robot != "amr-1" || sent[0].hook.ID != hook.ID || sent[0].hook.Secret != hook.Secret {
		t.Fatalf("escalated %+v, want amr-1's e-stop to the fleet's webhook", sent)
	}
	e.must(e.g.SweepAlerts(e.ctx))
	if sent := esc.take(); len(sent) != 0 {
		t.Fatalf("escalated twice: %+v", sent)
	}

	open, err := e.g.OpenAlerts(e.ctx, op, r.ID)
	if err != nil || len(open) != 2 || open[0].Kind != fleetgate.AlertEStop || open[0].Acknowledged() || !open[1].Acknowledged() {
		t.Fatalf("open = %+v, %v", open, err)
	}
	live.Lock()
	live.KPIList = []fleetgate.KPI{kpi(t, "activity", &catalogpb.String{Data: "idle"}), kpi(t, "motor_temp", &catalogpb.Float64{Data: 60})}
	live.Unlock()
	e.clock.Advance(2 * time.Second) // past the status cache
	e.must(e.g.SweepAlerts(e.ctx))
	if got, want := j.take(), []string{"cleared estop", "cleared " + string(hot.AlertKindOf())}; !slices.Equal(got, want) {
		t.Fatalf("journal = %q, want %q", got, want)
	}
}

// TestAlertRulesAreForOrgAdminsAndChecked: an operator may not set rules or webhooks; a
// webhook's address is http or https with a host; a rule names a known kind, a threshold its
// KPI or metric, and an escalation a webhook of the same fleet.
func TestAlertRulesAreForOrgAdminsAndChecked(t *testing.T) {
	e := newEnv(t)
	r := e.addRobot(e.fleet, "amr-1")
	admin := e.login(e.adminSecret)
	op := e.login(e.addToken(e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleAdmin}), fleetgate.ScopeFull, ""))

	_, err := e.g.AddWebhook(e.ctx, op, e.fleet.ID, "x", "https://hooks.example.com/")
	wantCode(t, "an operator adding a webhook", err, fleetgate.EForbidden)
	for _, bad := range []string{"ftp://x/y", "file:///etc/passwd", "https://", "/relative", "https://u:p@x.com/", "javascript:alert(1)"} {
		_, err := e.g.AddWebhook(e.ctx, admin, e.fleet.ID, "x", bad)
		wantCode(t, bad, err, fleetgate.EInvalid)
	}
	hook, err := e.g.AddWebhook(e.ctx, admin, e.fleet.ID, "x", "http://127.0.0.1:9/hook")
	e.must(err)
	_, otherFleet := e.addOrg("other")
	_, err = e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: otherFleet.ID, Kind: fleetgate.AlertBlocked})
	wantCode(t, "a rule on another organization's fleet", err, fleetgate.ENotFound)
	for name, rule := range map[string]fleetgate.AlertRule{
		"unknown kind":              {Kind: "sunburn"},
		"threshold without name":    {Kind: fleetgate.AlertThreshold, Source: "kpi", Key: "t"},
		"threshold of no source":    {Kind: fleetgate.AlertThreshold, Name: "n", Source: "file", Key: "t"},
		"metric that is no number":  {Kind: fleetgate.AlertThreshold, Name: "n", Source: "metric", Key: "cpu"},
		"escalation without a hook": {Kind: fleetgate.AlertBlocked, EscalateAfter: time.Minute},
		"hook of nobody":            {Kind: fleetgate.AlertBlocked, EscalateAfter: time.Minute, WebhookID: "nope"},
	} {
		rule.FleetID = e.fleet.ID
		_, err := e.g.AddAlertRule(e.ctx, admin, rule)
		wantCode(t, name, err, fleetgate.EInvalid)
	}
	_, err = e.g.AddAlertRule(e.ctx, op, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertBlocked})
	wantCode(t, "an operator adding a rule", err, fleetgate.EForbidden)
	rule, err := e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertThreshold, Name: "cpu busy",
		Source: "metric", Key: "1", Above: true, Threshold: 90, EscalateAfter: time.Minute, WebhookID: hook.ID})
	e.must(err)
	settings, err := e.g.FleetAlertSettings(e.ctx, admin, e.fleet.ID)
	e.must(err)
	if len(settings.Rules) != 1 || len(settings.Webhooks) != 1 || settings.Webhooks[0].Secret != "" {
		t.Fatalf("settings = %+v, want the rule and the webhook without its secret", settings)
	}
	wantCode(t, "an operator removing a rule", e.g.RemoveAlertRule(e.ctx, op, rule.ID), fleetgate.EForbidden)
	e.must(e.g.RemoveAlertRule(e.ctx, admin, rule.ID))
	e.must(e.g.RemoveWebhook(e.ctx, admin, hook.ID))
}
