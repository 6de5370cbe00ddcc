package gateway_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// TestAnAgentsRobotsAlertsAreTheAgentsToWrite: on the cloud, a robot an agent hosts has its
// raisings and clearings written by the agent (they arrive over the link), except what the
// agent cannot see, its link: offline is the cloud's; an acknowledgement on the cloud is the
// cloud's too.
func TestAnAgentsRobotsAlertsAreTheAgentsToWrite(t *testing.T) {
	p := livePresence{}
	var j alertJournal
	e := newEnv(t, withPresence(p), func(c *gateway.Config) { c.AlertJournal = j.add })
	agent, _, err := e.g.AddAgent(e.ctx, "dock-1", "main")
	e.must(err)
	r := e.addRobot(e.fleet, "amr-1")
	r.AgentID = agent.ID
	e.must(e.db.SaveLiveRobot(e.ctx, r))
	live := &fleettest.Robot{ID: r.ID, Name: r.Name, KPIList: []fleetgate.KPI{kpi(t, "activity", &catalogpb.String{Data: "stuck"})}}
	p[r.ID] = live

	e.must(e.g.SweepAlerts(e.ctx))
	if got := j.take(); len(got) != 0 {
		t.Fatalf("the cloud wrote %q of an agent's robot", got)
	}
	admin := e.login(e.adminSecret)
	if _, err := e.g.AcknowledgeAlert(e.ctx, admin, r.ID, fleetgate.AlertBlocked); err != nil {
		t.Fatal(err)
	}
	if got := j.take(); !slices.Equal(got, []string{"acknowledged blocked"}) {
		t.Fatalf("journal = %q, want the acknowledgement made here", got)
	}
	delete(p, r.ID) // its link is gone
	e.must(e.g.SweepAlerts(e.ctx))
	if got := j.take(); !slices.Equal(got, []string{"raised offline"}) {
		t.Fatalf("journal = %q, want offline alone (the clearing of blocked is the agent's)", got)
	}
}

// TestThresholdOnAMetric: a threshold rule on a metric type reads the robot's metric; below
// raises (with the rule's words and value), at the bound does not; a robot whose metric is
// not a number raises nothing.
func TestThresholdOnAMetric(t *testing.T) {
	p := livePresence{}
	var j alertJournal
	e := newEnv(t, withPresence(p), func(c *gateway.Config) { c.AlertJournal = j.add })
	r := e.addRobot(e.fleet, "amr-1")
	other := e.addRobot(e.fleet, "amr-2")
	live := &fleettest.Robot{ID: r.ID, Name: r.Name, MetricList: []fleetgate.Metric{{Type: fleetgate.MetricCpu, Value: 3.0}}}
	p[r.ID] = live
	p[other.ID] = &fleettest.Robot{ID: other.ID, Name: other.Name, MetricList: []fleetgate.Metric{{Type: fleetgate.MetricCpu, Value: "busy"}}}
	admin := e.login(e.adminSecret)
	rule, err := e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertThreshold, Name: "cpu idle",
		Source: "metric", Key: "1", Threshold: 5})
	e.must(err)

	e.must(e.g.SweepAlerts(e.ctx))
	if got := j.take(); !slices.Equal(got, []string{"raised " + string(rule.AlertKindOf())}) {
		t.Fatalf("journal = %q", got)
	}
	open, err := e.g.OpenAlerts(e.ctx, admin, r.ID)
	if err != nil || len(open) != 1 || open[0].Words != "cpu idle (1 under 5: 3)" || open[0].Critical {
		t.Fatalf("open = %+v, %v", open, err)
	}
	live.Lock()
	live.MetricList[0].Value = 5.0
	live.Unlock()
	e.clock.Advance(2 * time.Second)
	e.must(e.g.SweepAlerts(e.ctx))
	if got := j.take(); !slices.Equal(got, []string{"cleared " + string(rule.AlertKindOf())}) {
		t.Fatalf("journal at the bound = %q", got)
	}
	all, err := e.g.FleetOpenAlerts(e.ctx, admin, e.fleet.ID)
	if err != nil || len(all) != 0 {
		t.Fatalf("the fleet's open alerts = %+v, %v", all, err)
	}
}

// TestFleetOpenAlertsAreTheCallersRobots: the kiosk's list holds the robots the caller sees,
// of the fleet asked for; a removed robot's alerts go with it, unwritten.
func TestFleetOpenAlertsAreTheCallersRobots(t *testing.T) {
	var j alertJournal
	e := newEnv(t, func(c *gateway.Config) { c.AlertJournal = j.add })
	mine := e.addRobot(e.fleet, "amr-1")
	e.addRobot(e.fleet, "amr-2")
	e.must(e.g.SweepAlerts(e.ctx)) // both offline
	j.take()
	op := e.login(e.addToken(e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{mine.ID: fleetgate.RoleOperator}), fleetgate.ScopeRead, ""))
	open, err := e.g.FleetOpenAlerts(e.ctx, op, e.fleet.ID)
	if err != nil || len(open) != 1 || open[0].RobotID != mine.ID || open[0].Kind != fleetgate.AlertOffline {
		t.Fatalf("open = %+v, %v; want amr-1's offline alone", open, err)
	}
	admin := e.login(e.adminSecret)
	e.must(e.g.RemoveRobot(e.ctx, admin, mine.ID))
	e.must(e.g.SweepAlerts(e.ctx))
	if open, _ := e.g.FleetOpenAlerts(e.ctx, admin, e.fleet.ID); len(open) != 1 || open[0].RobotID == mine.ID {
		t.Fatalf("after the removal: %+v", open)
	}
	if got := j.take(); len(got) != 0 {
		t.Fatalf("a removed robot's alert was written: %q", got)
	}
}

// TestARuleKeepsOnlyWhatItsKindUses: a rule for a derived alert drops the threshold's fields
// it was given; an escalation beyond a week, or before zero, is refused; a webhook of another
// fleet may not be named.
func TestARuleKeepsOnlyWhatItsKindUses(t *testing.T) {
	e := newEnv(t)
	admin := e.login(e.adminSecret)
	r, err := e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertStale, Name: "x", Source: "kpi",
		Key: "t", Above: true, Threshold: 3, Critical: true})
	e.must(err)
	if r.Name != "" || r.Source != "" || r.Key != "" || r.Above || r.Threshold != 0 || r.Critical || r.AlertKindOf() != fleetgate.AlertStale {
		t.Errorf("rule = %+v, want the stale kind alone", r)
	}
	for _, d := range []time.Duration{-time.Minute, 8 * 24 * time.Hour} {
		_, err := e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertStale, EscalateAfter: d})
		wantCode(t, "escalate after "+d.String(), err, fleetgate.EInvalid)
	}
	other, _, err := e.g.EnsureFleet(e.ctx, "yard")
	e.must(err)
	hook, err := e.g.AddWebhook(e.ctx, admin, other.ID, "yard's", "https://hooks.example.com/yard")
	e.must(err)
	_, err = e.g.AddAlertRule(e.ctx, admin, fleetgate.AlertRule{FleetID: e.fleet.ID, Kind: fleetgate.AlertStale, EscalateAfter: time.Minute, WebhookID: hook.ID})
	wantCode(t, "another fleet's webhook", err, fleetgate.EInvalid)
}

// TestAWebhookAddressIsBounded: an address past 2000 characters is refused, one at it taken.
func TestAWebhookAddressIsBounded(t *testing.T) {
	base := "https://hooks.example.com/"
	if err := gateway.ValidateWebhookURL(base + strings.Repeat("a", 2000-len(base))); err != nil {
		t.Errorf("2000 characters: %v", err)
	}
	wantCode(t, "2001 characters", gateway.ValidateWebhookURL(base+strings.Repeat("a", 2001-len(base))), fleetgate.EInvalid)
}
