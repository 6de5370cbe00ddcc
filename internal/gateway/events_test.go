package gateway_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

func TestPostEventValidation(t *testing.T) {
	w := newWorld(t)
	admin := w.callers["org admin"]
	restricted := w.callers["fleet-restricted org admin"]
	tests := []struct {
		name   string
		caller *gateway.Caller
		in     gateway.PostEventInput
		code   string
	}{
		{"valid", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: "docked"}, ""},
		{"empty robotId", admin, gateway.PostEventInput{Message: "docked"}, fleetgate.EInvalid},
		{"empty message", admin, gateway.PostEventInput{RobotID: w.r1.ID}, fleetgate.EInvalid},
		{"blank message", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: " \t\n"}, fleetgate.EInvalid},
		{"4096 bytes", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: strings.Repeat("a", 4096)}, ""},
		{"4096 bytes of 2-byte runes", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: strings.Repeat("é", 2048)}, ""},
		{"4097 bytes", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: strings.Repeat("a", 4097)}, fleetgate.EInvalid},
		{"4097 bytes of mixed runes", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: "a" + strings.Repeat("é", 2048)}, fleetgate.EInvalid},
		{"invalid UTF-8", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: "bad \xff byte"}, fleetgate.EInvalid},
		{"truncated UTF-8", admin, gateway.PostEventInput{RobotID: w.r1.ID, Message: "cut \xc3"}, fleetgate.EInvalid},
		{"unknown robot", admin, gateway.PostEventInput{RobotID: "no-such-robot", Message: "x"}, fleetgate.ENotFound},
		{"with its fleet", admin, gateway.PostEventInput{RobotID: w.r1.ID, FleetID: w.fleet.ID, Message: "x"}, ""},
		{"unknown fleet", admin, gateway.PostEventInput{RobotID: w.r1.ID, FleetID: "no-such-fleet", Message: "x"}, fleetgate.ENotFound},
		{"fleet of another org", admin, gateway.PostEventInput{RobotID: w.r1.ID, FleetID: w.otherFleet.ID, Message: "x"}, fleetgate.ENotFound},
		{"fleet outside the token's restriction", restricted, gateway.PostEventInput{RobotID: w.r3.ID, FleetID: w.fleet.ID, Message: "x"}, fleetgate.ENotFound},
		{"fleet inside the token's restriction", restricted, gateway.PostEventInput{RobotID: w.r3.ID, FleetID: w.second.ID, Message: "x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := w.g.EventLog(w.ctx, fleetgate.EventFilter{RobotID: "", Limit: 0})
			w.must(err)
			ev, postErr := w.g.PostEvent(w.ctx, tt.caller, tt.in)
			wantCode(t, "PostEvent", postErr, tt.code)
			after, err := w.g.EventLog(w.ctx, fleetgate.EventFilter{RobotID: "", Limit: 0})
			w.must(err)
			stored := len(after) - len(before)
			if tt.code != "" {
				if stored != 0 {
					t.Errorf("a refused event was stored")
				}
				if msg := fleetgate.ErrorMessage(postErr); msg == "" || msg == "internal error" {
					t.Errorf("message %q explains nothing to the caller", msg)
				}
				return
			}
			if stored != 1 || after[0] != ev {
				t.Errorf("stored %d events, newest %+v; want 1, %+v", stored, after[0], ev)
			}
		})
	}
}

func TestPostEventRecordsAuthorAndTime(t *testing.T) {
	w := newWorld(t)
	w.clock.Advance(1234 * time.Millisecond)
	c := w.callers["operator"]
	ev, err := w.g.PostEvent(w.ctx, c, gateway.PostEventInput{RobotID: w.r1.ID, FleetID: w.fleet.ID, Message: "battery swapped"})
	if err != nil {
		t.Fatal(err)
	}
	want := fleetgate.Event{
		ID: ev.ID, RobotID: w.r1.ID, FleetID: w.fleet.ID, UserID: c.User.ID,
		AuthorEmail: "op@example.com", Message: "battery swapped", CreatedAt: w.clock.Now(),
		Type: fleetgate.EventNote, Severity: fleetgate.SeverityInfo,
	}
	if ev.ID <= 0 || ev != want {
		t.Errorf("PostEvent = %+v, want %+v", ev, want)
	}
	log, err := w.g.EventLog(w.ctx, fleetgate.EventFilter{RobotID: w.r1.ID, Limit: 10})
	if err != nil || len(log) != 1 || log[0] != want {
		t.Errorf("EventLog = %+v, %v; want [%+v]", log, err, want)
	}
}

func TestEventLog(t *testing.T) {
	w := newWorld(t)
	c := w.callers["org admin"]
	var ids []int64
	for _, r := range []fleetgate.Robot{w.r1, w.r2, w.r1} {
		ev, err := w.g.PostEvent(w.ctx, c, gateway.PostEventInput{RobotID: r.ID, Message: "m"})
		w.must(err)
		ids = append(ids, ev.ID)
	}
	tests := []struct {
		name    string
		robotID string
		limit   int
		want    []int64
	}{
		{"every robot, default limit", "", 0, []int64{ids[2], ids[1], ids[0]}},
		{"negative limit is the default", "", -5, []int64{ids[2], ids[1], ids[0]}},
		{"one robot", w.r1.ID, 0, []int64{ids[2], ids[0]}},
		{"limited", "", 2, []int64{ids[2], ids[1]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, err := w.g.EventLog(w.ctx, fleetgate.EventFilter{RobotID: tt.robotID, Limit: tt.limit})
			w.must(err)
			var got []int64
			for _, e := range log {
				got = append(got, e.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ids = %v, want %v", got, tt.want)
			}
		})
	}
}
