package gateway

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

func TestDeriveAlerts(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	fresh := now.Add(-time.Second)
	rules := DefaultAlertRules
	cases := []struct {
		name   string
		status fleetgate.RobotStatus
		want   []fleetgate.AlertKind
		crit   []bool
	}{
		{"offline says only that", fleetgate.RobotStatus{Online: false, HasBattery: true, Battery: 1}, []fleetgate.AlertKind{fleetgate.AlertOffline}, []bool{true}},
		{"all well", fleetgate.RobotStatus{Online: true, HasBattery: true, Battery: 80, Activity: "moving", Updated: fresh}, nil, nil},
		{"battery at the threshold is no alert", fleetgate.RobotStatus{Online: true, HasBattery: true, Battery: 20, Updated: fresh}, nil, nil},
		{"battery low warns", fleetgate.RobotStatus{Online: true, HasBattery: true, Battery: 15, Updated: fresh}, []fleetgate.AlertKind{fleetgate.AlertBattery}, []bool{false}},
		{"battery under half the threshold is critical", fleetgate.RobotStatus{Online: true, HasBattery: true, Battery: 9, Updated: fresh}, []fleetgate.AlertKind{fleetgate.AlertBattery}, []bool{true}},
		{"blocked", fleetgate.RobotStatus{Online: true, Activity: "Blocked", Updated: fresh}, []fleetgate.AlertKind{fleetgate.AlertBlocked}, []bool{true}},
		{"stuck", fleetgate.RobotStatus{Online: true, Activity: "stuck", Updated: fresh}, []fleetgate.AlertKind{fleetgate.AlertBlocked}, []bool{true}},
		{"an emergency stop is its own alert", fleetgate.RobotStatus{Online: true, Activity: "emergency_stop", Updated: fresh}, []fleetgate.AlertKind{fleetgate.AlertEStop}, []bool{true}},
		{"e-stop", fleetgate.RobotStatus{Online: true, Activity: "E-Stop", Updated: fresh}, []fleetgate.AlertKind{fleetgate.AlertEStop}, []bool{true}},
		{"stale after 5 s", fleetgate.RobotStatus{Online: true, Updated: now.Add(-6 * time.Second)}, []fleetgate.AlertKind{fleetgate.AlertStale}, []bool{false}},
		{"not stale at 5 s", fleetgate.RobotStatus{Online: true, Updated: now.Add(-5 * time.Second)}, nil, nil},
		{"no answer is stale", fleetgate.RobotStatus{Online: true, Stale: true}, []fleetgate.AlertKind{fleetgate.AlertStale}, []bool{false}},
		{"several, most urgent first", fleetgate.RobotStatus{Online: true, Activity: "blocked", HasBattery: true, Battery: 12, Updated: now.Add(-time.Minute)},
			[]fleetgate.AlertKind{fleetgate.AlertBlocked, fleetgate.AlertBattery, fleetgate.AlertStale}, []bool{true, false, false}},
		{"unknown battery is no alert", fleetgate.RobotStatus{Online: true, Updated: fresh}, nil, nil},
		{"its agent silent for 2 s is still confirmed", fleetgate.RobotStatus{Online: true, Updated: fresh, Silent: fleetgate.ConfirmWithin}, nil, nil},
		{"not confirmed beyond 2 s says only that", fleetgate.RobotStatus{Online: true, Activity: "blocked", HasBattery: true, Battery: 1, Silent: fleetgate.ConfirmWithin + time.Millisecond},
			[]fleetgate.AlertKind{fleetgate.AlertUnconfirmed}, []bool{true}},
		{"offline is offline, however silent", fleetgate.RobotStatus{Online: false, Silent: time.Minute}, []fleetgate.AlertKind{fleetgate.AlertOffline}, []bool{true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := DeriveAlerts(tc.status, rules, now)
			if len(got) != len(tc.want) {
				t.Fatalf("alerts %+v, want kinds %v", got, tc.want)
			}
			for i, a := range got {
				if a.Kind != tc.want[i] || a.Critical != tc.crit[i] || a.Words == "" {
					t.Errorf("alert %d = %+v, want kind %s critical %v with words", i, a, tc.want[i], tc.crit[i])
				}
			}
		})
	}
}

func TestAlertWords(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	got := DeriveAlerts(fleetgate.RobotStatus{Online: true, HasBattery: true, Battery: 14.6, Updated: now.Add(-90 * time.Second)}, DefaultAlertRules, now)
	if got[0].Words != "battery low (15 %)" || got[1].Words != "no fresh data for 2 min" {
		t.Errorf("words %q, %q", got[0].Words, got[1].Words)
	}
	got = DeriveAlerts(fleetgate.RobotStatus{Online: true, Silent: 3900 * time.Millisecond}, DefaultAlertRules, now)
	if got[0].Words != "not confirmed for 3 s: its gateway does not answer" {
		t.Errorf("words %q", got[0].Words)
	}
}

// TestNumericKPIsAreKept: the KPIs that are numbers are kept by name for the threshold rules;
// the others (text, a pose) are not.
func TestNumericKPIsAreKept(t *testing.T) {
	var s fleetgate.RobotStatus
	temp, _ := proto.Marshal(&catalogpb.Float64{Data: 71.5})
	text, _ := proto.Marshal(&catalogpb.String{Data: "hot"})
	applyKPI(&s, fleetgate.KPI{Name: "motor_temp", DataType: "Platform.Messages.std_msgs.Float64", Payload: temp})
	applyKPI(&s, fleetgate.KPI{Name: "mood", DataType: "Platform.Messages.std_msgs.String", Payload: text})
	if len(s.Numbers) != 1 || s.Numbers["motor_temp"] != 71.5 {
		t.Errorf("numbers = %v, want motor_temp alone", s.Numbers)
	}
}
