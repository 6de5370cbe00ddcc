package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/alert"
)

// Alerts an operator acts on. The gateway derives each robot's alerts from its status
// (status.go) and its fleet's threshold rules; a sweep every few seconds hands them to the
// tracker (internal/alert), which raises, keeps and clears them, and the operators who may
// drive a robot acknowledge them. An alert nobody acknowledged within its rule's time is
// escalated to the rule's webhook.

// AlertStore keeps the admins' alert rules and webhooks, per fleet.
type AlertStore interface {
	CreateWebhook(ctx context.Context, h fleetgate.Webhook) error
	Webhook(ctx context.Context, id string) (fleetgate.Webhook, error)
	Webhooks(ctx context.Context, fleetID string) ([]fleetgate.Webhook, error)
	DeleteWebhook(ctx context.Context, id string) error
	CreateAlertRule(ctx context.Context, r fleetgate.AlertRule) error
	AlertRule(ctx context.Context, id string) (fleetgate.AlertRule, error)
	// AlertRules lists the rules of a fleet, of every fleet for "".
	AlertRules(ctx context.Context, fleetID string) ([]fleetgate.AlertRule, error)
	DeleteAlertRule(ctx context.Context, id string) error
}

// Escalator posts an escalated alert to a webhook (internal/webhook, in the background) and
// keeps its last deliveries.
type Escalator interface {
	Escalate(h fleetgate.Webhook, a fleetgate.OpenAlert, robotName string)
	Deliveries(webhookID string) []fleetgate.WebhookDelivery
}

// AlertService is the core's alerts: the open ones, their acknowledgement, and the admins'
// rules and webhooks.
type AlertService struct {
	robots    *RobotService
	streams   *StreamService
	store     AlertStore
	tracker   *alert.Tracker
	escalator Escalator
	log       *slog.Logger
	// journal writes a change to the event log; see journalChange.
	journal func(alert.Change)
	// agentOf remembers which agent hosts each robot ("": this gateway): the entries of an
	// agent's robots are the agent's.
	agentOf sync.Map
}

var (
	// actAcknowledge: acknowledging says "I am on it", so it takes a role that may drive.
	actAcknowledge = actDrive
)

// journalChange writes c unless it is the raising or clearing of an alert that the robot's
// agent sees itself (its entries reach this log over the agent link): only the link's own
// alerts, offline and unconfirmed, are this gateway's to write for an agent's robot.
func (as *AlertService) journalChange(c alert.Change) {
	if as.journal == nil {
		return
	}
	if agent, _ := as.agentOf.Load(c.Alert.RobotID); agent != "" && c.What != alert.Acknowledged &&
		c.Alert.Kind != fleetgate.AlertOffline && c.Alert.Kind != fleetgate.AlertUnconfirmed {
		return
	}
	as.journal(c)
}

// SweepAlerts derives every robot's alerts now and hands them to the tracker, then escalates
// the alerts that are due. The composition root calls it every few seconds.
func (as *AlertService) SweepAlerts(ctx context.Context) error {
	robots, err := as.robots.AllRobots(ctx)
	if err != nil {
		return err
	}
	rules, err := as.store.AlertRules(ctx, "")
	if err != nil {
		return err
	}
	byFleet := map[string][]fleetgate.AlertRule{}
	for _, r := range rules {
		byFleet[r.FleetID] = append(byFleet[r.FleetID], r)
	}
	known := make(map[string]string, len(robots))
	for _, l := range robots {
		known[l.Robot.ID] = l.Robot.Name
		as.agentOf.Store(l.Robot.ID, l.Robot.AgentID)
	}
	for _, l := range robots {
		as.observe(ctx, l.Robot, byFleet[l.Robot.FleetID], fleetgate.RobotState{Online: l.Online})
	}
	as.tracker.Forget(func(id string) bool { _, ok := known[id]; return ok })
	as.escalate(ctx, rules, known)
	return nil
}

// observe derives r's alerts (its status and its fleet's threshold rules) and tells the tracker.
func (as *AlertService) observe(ctx context.Context, r fleetgate.Robot, rules []fleetgate.AlertRule, st fleetgate.RobotState) fleetgate.RobotStatus {
	s := as.streams.robotStatus(ctx, r, st)
	alerts := append(s.Alerts, as.thresholdAlerts(ctx, r, s, rules)...)
	as.tracker.Observe(r.ID, r.FleetID, alerts)
	return s
}

// thresholdAlerts are the alerts of the threshold rules whose KPI or metric is past its bound.
func (as *AlertService) thresholdAlerts(ctx context.Context, r fleetgate.Robot, s fleetgate.RobotStatus, rules []fleetgate.AlertRule) []fleetgate.Alert {
	if !s.Online || !s.State().Confirmed() {
		return nil // offline says it all: nothing else is known
	}
	var out []fleetgate.Alert
	for _, rule := range rules {
		if rule.Kind != fleetgate.AlertThreshold {
			continue
		}
		v, ok := as.ruleValue(ctx, r, s, rule)
		if !ok || (rule.Above && v <= rule.Threshold) || (!rule.Above && v >= rule.Threshold) {
			continue
		}
		side := "under"
		if rule.Above {
			side = "over"
		}
		out = append(out, fleetgate.Alert{Kind: rule.AlertKindOf(), Critical: rule.Critical,
			Words: fmt.Sprintf("%s (%s %s %g: %g)", rule.Name, rule.Key, side, rule.Threshold, v)})
	}
	return out
}

// ruleValue reads what rule watches on r: a numeric KPI of its status, or a metric.
func (as *AlertService) ruleValue(ctx context.Context, r fleetgate.Robot, s fleetgate.RobotStatus, rule fleetgate.AlertRule) (float64, bool) {
	if rule.Source == "kpi" {
		v, ok := s.Numbers[rule.Key]
		return v, ok
	}
	n, err := strconv.Atoi(rule.Key)
	live, online := as.streams.presence.Robot(r.ID)
	if err != nil || !online {
		return 0, false
	}
	m, err := robotCall(ctx, r, func(ctx context.Context) (fleetgate.Metric, error) {
		return live.Metric(ctx, fleetgate.MetricType(n), "")
	})
	if err != nil {
		return 0, false
	}
	f, ok := m.Value.(float64)
	return f, ok && !math.IsNaN(f)
}

// escalate posts each alert due under its fleet's rule to the rule's webhook.
func (as *AlertService) escalate(ctx context.Context, rules []fleetgate.AlertRule, names map[string]string) {
	ruleOf := func(a fleetgate.OpenAlert) (fleetgate.AlertRule, bool) {
		for _, r := range rules {
			if r.FleetID == a.FleetID && r.AlertKindOf() == a.Kind && r.EscalateAfter > 0 && r.WebhookID != "" {
				return r, true
			}
		}
		return fleetgate.AlertRule{}, false
	}
	due := as.tracker.Due(func(a fleetgate.OpenAlert) (time.Duration, bool) {
		r, ok := ruleOf(a)
		return r.EscalateAfter, ok
	})
	for _, a := range due {
		r, _ := ruleOf(a)
		h, err := as.store.Webhook(ctx, r.WebhookID)
		if err != nil {
			as.log.Warn("an alert was due for escalation, its webhook could not be read", "robot_id", a.RobotID, "kind", a.Kind, "err", err)
			continue
		}
		as.escalator.Escalate(h, a, names[a.RobotID])
	}
}

// OpenAlerts lists the open alerts of a robot the caller may see, as derived now, the
// oldest first.
func (as *AlertService) OpenAlerts(ctx context.Context, c *Caller, robotID string) ([]fleetgate.OpenAlert, error) {
	r, _, err := as.robots.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	if err := as.refresh(ctx, r); err != nil {
		return nil, err
	}
	return as.tracker.Open(r.ID), nil
}

// FleetOpenAlerts lists the open alerts of the robots of a fleet the caller may see (the
// kiosk), each robot derived now as OpenAlerts does (its status is cached for a second, so a
// wall that just read the statuses costs nothing more).
func (as *AlertService) FleetOpenAlerts(ctx context.Context, c *Caller, fleetID string) ([]fleetgate.OpenAlert, error) {
	robots, err := as.robots.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	rules, err := as.store.AlertRules(ctx, fleetID)
	if err != nil {
		return nil, err
	}
	var out []fleetgate.OpenAlert
	for _, r := range robots {
		if r.FleetID == fleetID {
			as.observeNow(ctx, r, rules)
			out = append(out, as.tracker.Open(r.ID)...)
		}
	}
	return out, nil
}

// AcknowledgeAlert records that the caller acknowledged a robot's open alert of kind: the
// caller must be allowed to drive the robot. ENotFound when no such alert is open.
func (as *AlertService) AcknowledgeAlert(ctx context.Context, c *Caller, robotID string, kind fleetgate.AlertKind) (fleetgate.OpenAlert, error) {
	r, _, err := as.robots.authorizeRobot(ctx, c, robotID, actAcknowledge)
	if err != nil {
		return fleetgate.OpenAlert{}, err
	}
	if err := as.refresh(ctx, r); err != nil {
		return fleetgate.OpenAlert{}, err
	}
	return as.tracker.Acknowledge(r.ID, kind, c.User.Email)
}

// refresh observes r now, so that what the caller acts on is what the page derived a
// moment ago, not what the last sweep saw.
func (as *AlertService) refresh(ctx context.Context, r fleetgate.Robot) error {
	rules, err := as.store.AlertRules(ctx, r.FleetID)
	if err != nil {
		return err
	}
	as.observeNow(ctx, r, rules)
	return nil
}

// observeNow derives r's alerts now under its fleet's rules.
func (as *AlertService) observeNow(ctx context.Context, r fleetgate.Robot, rules []fleetgate.AlertRule) {
	as.agentOf.Store(r.ID, r.AgentID)
	as.observe(ctx, r, rules, fleetgate.RobotState{Online: as.streams.presence.Online(r.ID)})
}

// AlertSettings is a fleet's alert rules and webhooks, with each webhook's last deliveries,
// as the admin page shows them (the secrets are left out).
type AlertSettings struct {
	Fleet      fleetgate.Fleet
	Rules      []fleetgate.AlertRule
	Webhooks   []fleetgate.Webhook
	Deliveries map[string][]fleetgate.WebhookDelivery
}

// FleetAlertSettings is a fleet's rules and webhooks (org admins only).
func (as *AlertService) FleetAlertSettings(ctx context.Context, c *Caller, fleetID string) (AlertSettings, error) {
	f, err := as.adminFleet(ctx, c, fleetID)
	if err != nil {
		return AlertSettings{}, err
	}
	rules, err := as.store.AlertRules(ctx, f.ID)
	if err != nil {
		return AlertSettings{}, err
	}
	hooks, err := as.store.Webhooks(ctx, f.ID)
	if err != nil {
		return AlertSettings{}, err
	}
	out := AlertSettings{Fleet: f, Rules: rules, Deliveries: map[string][]fleetgate.WebhookDelivery{}}
	for _, h := range hooks {
		h.Secret = ""
		out.Webhooks = append(out.Webhooks, h)
		out.Deliveries[h.ID] = as.escalator.Deliveries(h.ID)
	}
	return out, nil
}

func (as *AlertService) adminFleet(ctx context.Context, c *Caller, fleetID string) (fleetgate.Fleet, error) {
	if err := requireOrgAdmin(c); err != nil {
		return fleetgate.Fleet{}, err
	}
	return as.robots.visibleFleet(ctx, c, fleetID)
}

// alertKindsWithRules are the derived kinds an escalation rule may name.
var alertKindsWithRules = []fleetgate.AlertKind{fleetgate.AlertOffline, fleetgate.AlertBlocked, fleetgate.AlertEStop,
	fleetgate.AlertBattery, fleetgate.AlertStale, fleetgate.AlertUnconfirmed, fleetgate.AlertThreshold}

// AddAlertRule stores a rule for a fleet (org admins only), checked: a known kind, a
// threshold's KPI name or metric number, a webhook of the same fleet.
func (as *AlertService) AddAlertRule(ctx context.Context, c *Caller, r fleetgate.AlertRule) (fleetgate.AlertRule, error) {
	f, err := as.adminFleet(ctx, c, r.FleetID)
	if err != nil {
		return fleetgate.AlertRule{}, err
	}
	known := false
	for _, k := range alertKindsWithRules {
		known = known || r.Kind == k
	}
	if !known {
		return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "alert kind %q is not one of offline, blocked, estop, battery, stale, unconfirmed, threshold", r.Kind)
	}
	r.Name, r.Key = strings.TrimSpace(r.Name), strings.TrimSpace(r.Key)
	if r.Kind == fleetgate.AlertThreshold {
		switch {
		case r.Name == "" || len(r.Name) > 100:
			return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "a threshold rule has a name of 1 to 100 characters")
		case r.Source == "kpi" && (r.Key == "" || len(r.Key) > 200):
			return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "a KPI threshold names the KPI")
		case r.Source == "metric":
			if n, err := strconv.Atoi(r.Key); err != nil || !fleetgate.MetricType(n).Known() {
				return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "a metric threshold names a metric type by its number")
			}
		case r.Source != "kpi":
			return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "a threshold watches a kpi or a metric")
		}
		if math.IsNaN(r.Threshold) || math.IsInf(r.Threshold, 0) {
			return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "a threshold is a finite number")
		}
	} else {
		r.Name, r.Source, r.Key, r.Threshold, r.Above, r.Critical = "", "", "", 0, false, false
	}
	if r.EscalateAfter < 0 || r.EscalateAfter > 7*24*time.Hour {
		return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "an alert is escalated within a week")
	}
	if r.WebhookID != "" {
		h, err := as.store.Webhook(ctx, r.WebhookID)
		if fleetgate.ErrorCode(err) == fleetgate.ENotFound || (err == nil && h.FleetID != f.ID) {
			return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "the webhook is not one of this fleet's")
		} else if err != nil {
			return fleetgate.AlertRule{}, err
		}
	}
	if r.EscalateAfter > 0 && r.WebhookID == "" {
		return fleetgate.AlertRule{}, fleetgate.Errorf(fleetgate.EInvalid, "an escalation needs a webhook")
	}
	r.ID, r.FleetID, r.CreatedAt = uuid.NewString(), f.ID, as.robots.now().UTC()
	return r, as.store.CreateAlertRule(ctx, r)
}

// RemoveAlertRule deletes a rule of a fleet the caller administers.
func (as *AlertService) RemoveAlertRule(ctx context.Context, c *Caller, ruleID string) error {
	r, err := as.store.AlertRule(ctx, ruleID)
	if err != nil {
		return err
	}
	if _, err := as.adminFleet(ctx, c, r.FleetID); err != nil {
		return err
	}
	return as.store.DeleteAlertRule(ctx, ruleID)
}

// AddWebhook stores a webhook for a fleet (org admins only) with a new secret, which is
// returned this once: the admin gives it to the receiver, which checks each post with it.
func (as *AlertService) AddWebhook(ctx context.Context, c *Caller, fleetID, name, rawURL string) (fleetgate.Webhook, error) {
	f, err := as.adminFleet(ctx, c, fleetID)
	if err != nil {
		return fleetgate.Webhook{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return fleetgate.Webhook{}, fleetgate.Errorf(fleetgate.EInvalid, "a webhook has a name of 1 to 100 characters")
	}
	if err := ValidateWebhookURL(rawURL); err != nil {
		return fleetgate.Webhook{}, err
	}
	h := fleetgate.Webhook{ID: uuid.NewString(), FleetID: f.ID, Name: name, URL: strings.TrimSpace(rawURL),
		Secret: NewSecret("whsec_", 32), CreatedAt: as.robots.now().UTC()}
	return h, as.store.CreateWebhook(ctx, h)
}

// RemoveWebhook deletes a webhook of a fleet the caller administers.
func (as *AlertService) RemoveWebhook(ctx context.Context, c *Caller, webhookID string) error {
	h, err := as.store.Webhook(ctx, webhookID)
	if err != nil {
		return err
	}
	if _, err := as.adminFleet(ctx, c, h.FleetID); err != nil {
		return err
	}
	return as.store.DeleteWebhook(ctx, webhookID)
}

// NoEscalation is the Escalator of a gateway with no webhooks wired: nothing is posted.
type NoEscalation struct{}

func (NoEscalation) Escalate(fleetgate.Webhook, fleetgate.OpenAlert, string) {}
func (NoEscalation) Deliveries(string) []fleetgate.WebhookDelivery           { return nil }

// ValidateWebhookURL checks a webhook's address: absolute http or https with a host, no user
// information (a password in it would show on the admin page), at most 2000 characters.
func ValidateWebhookURL(raw string) error {
	raw = strings.TrimSpace(raw)
	if len(raw) > 2000 {
		return fleetgate.Errorf(fleetgate.EInvalid, "a webhook address has at most 2000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "the webhook address is not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fleetgate.Errorf(fleetgate.EInvalid, "a webhook address starts with http:// or https://")
	}
	if u.Hostname() == "" {
		return fleetgate.Errorf(fleetgate.EInvalid, "the webhook address has no host")
	}
	if u.User != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "a webhook address may not carry a user or password")
	}
	return nil
}
