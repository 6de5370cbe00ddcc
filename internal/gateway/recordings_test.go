package gateway_test

import (
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/record"
)

// robotPresence is a Presence of any robots.
type robotPresence map[string]fleet.Robot

func (p robotPresence) Online(id string) bool { _, ok := p[id]; return ok }

func (p robotPresence) Robot(id string) (fleet.Robot, bool) { r, ok := p[id]; return r, ok }

func recordableRobot(id string) *fleettest.Robot {
	return &fleettest.Robot{ID: id, Name: "rec", StreamList: []fleetgate.Stream{
		{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "camera", Name: "image", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "front", Name: "image", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Name: "/scan", Type: "Platform.Messages.sensor_msgs.LaserScan", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
	}}
}

// TestRecordingControl: roles (Developer and above start and stop, Operator lists, a
// read-only token never acts), stream names as people write them, and the recording's file
// among the robot's resources with its topics and time span.
func TestRecordingControl(t *testing.T) {
	p := robotPresence{}
	e := newEnv(t, withPresence(p))
	r := e.addRobot(e.fleet, "rec")
	plain := e.addRobot(e.fleet, "plain")
	rec, err := record.Open(record.Config{Dir: t.TempDir(), FlushEvery: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	raw := recordableRobot(r.ID)
	p[r.ID] = rec.Wrap(raw)
	p[plain.ID] = recordableRobot(plain.ID) // a source without a recorder

	dev := e.login(e.addToken(e.addUser(e.org.ID, "dev@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleDeveloper, plain.ID: fleetgate.RoleDeveloper}), fleetgate.ScopeFull, ""))
	opUser := e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleOperator})
	op := e.login(e.addToken(opUser, fleetgate.ScopeFull, ""))
	kiosk := e.login(e.addToken(e.admin, fleetgate.ScopeRead, ""))
	stranger := e.login(e.addToken(e.addUser(e.org.ID, "none@example.com", false, nil), fleetgate.ScopeFull, ""))
	pose := gateway.RecordingInput{Streams: []string{"base/pose"}}

	for _, tc := range []struct {
		name   string
		caller *gateway.Caller
		robot  string
		in     gateway.RecordingInput
		code   string
	}{
		{"operator", op, r.ID, pose, fleetgate.EForbidden},
		{"read-only token", kiosk, r.ID, pose, fleetgate.EForbidden},
		{"no role", stranger, r.ID, pose, fleetgate.ENotFound},
		{"no recorder", dev, plain.ID, pose, fleetgate.EInvalid},
		{"no stream", dev, r.ID, gateway.RecordingInput{}, fleetgate.EInvalid},
		{"unknown stream", dev, r.ID, gateway.RecordingInput{Streams: []string{"base/nothing"}}, fleetgate.EInvalid},
		{"ambiguous name", dev, r.ID, gateway.RecordingInput{Streams: []string{"image"}}, fleetgate.EInvalid},
		{"input stream", dev, r.ID, gateway.RecordingInput{Streams: []string{"base/cmd_vel"}}, fleetgate.EInvalid},
		{"bad limit", dev, r.ID, gateway.RecordingInput{Streams: []string{"base/pose"}, MaxRate: -1}, fleetgate.EInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.g.StartRecording(e.ctx, tc.caller, tc.robot, tc.in)
			wantCode(t, "StartRecording", err, tc.code)
		})
	}

	started, err := e.g.StartRecording(e.ctx, dev, r.ID, gateway.RecordingInput{Streams: []string{"pose", "camera/image", "scan"}, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var topics []string
	for _, s := range started.Streams {
		topics = append(topics, s.Topic)
	}
	if len(topics) != 3 || topics[0] != "/base/pose" || topics[1] != "/camera/image" || topics[2] != "/scan" {
		t.Fatalf("recording topics %v", topics)
	}
	list, err := e.g.Recordings(e.ctx, op, r.ID)
	if err != nil || len(list) != 1 || list[0].ID != started.ID {
		t.Fatalf("an operator lists %+v, %v", list, err)
	}
	_, err = e.g.StopRecording(e.ctx, op, r.ID, started.ID)
	wantCode(t, "an operator stops", err, fleetgate.EForbidden)
	_, err = e.g.StopRecording(e.ctx, dev, r.ID, "unknown")
	wantCode(t, "stopping an unknown recording", err, fleetgate.ENotFound)

	for i := range 3 {
		raw.Emit(fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}, "Platform.Messages.geometry_msgs.PoseStamped", []byte{0x0a, 0x00})
		deadline := time.Now().Add(10 * time.Second)
		for {
			l, _ := e.g.Recordings(e.ctx, op, r.ID)
			if l[0].Messages == int64(i+1) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the pose was never recorded")
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // the recording spans time
	}
	done, err := e.g.StopRecording(e.ctx, dev, r.ID, started.ID)
	if err != nil || done.State != fleetgate.RecordingStopped || done.Messages != 3 {
		t.Fatalf("stopped: %+v, %v", done, err)
	}

	details, err := e.g.ResourceDetails(e.ctx, op, r.ID)
	if err != nil || len(details) != 1 {
		t.Fatalf("resource details %+v, %v", details, err)
	}
	d := details[0]
	if d.ID != started.ID || d.MIMEType != "application/mcap" || d.Messages != 3 || len(d.Topics) != 3 ||
		d.Duration < 40*time.Millisecond || d.Duration > done.EndTime.Sub(done.StartTime) {
		t.Fatalf("the recording as a resource: %+v (recorded from %v to %v)", d, done.StartTime, done.EndTime)
	}
}

// TestPostEventRecord: an entry posted with Record has the robot's flight recorder make a
// recording named after it, linked both ways; a second post while it is made links to the
// same one. A robot that cannot record gets no entry; one whose recorder refuses gets the
// entry, unlinked, and the caller is told.
func TestPostEventRecord(t *testing.T) {
	p := robotPresence{}
	e := newEnv(t, withPresence(p))
	flying, grounded, plain, offline := e.addRobot(e.fleet, "flying"), e.addRobot(e.fleet, "grounded"), e.addRobot(e.fleet, "plain"), e.addRobot(e.fleet, "offline")
	open := func(buffer time.Duration) *record.Recorder {
		rec, err := record.Open(record.Config{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Flight: record.FlightConfig{Buffer: buffer, After: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rec.Close)
		return rec
	}
	on := open(time.Minute)
	p[flying.ID] = on.Wrap(recordableRobot(flying.ID))
	p[grounded.ID] = open(0).Wrap(recordableRobot(grounded.ID))
	p[plain.ID] = recordableRobot(plain.ID)
	op := e.login(e.addToken(e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{
		flying.ID: fleetgate.RoleOperator, grounded.ID: fleetgate.RoleOperator, plain.ID: fleetgate.RoleOperator, offline.ID: fleetgate.RoleOperator}), fleetgate.ScopeFull, ""))
	kiosk := e.login(e.addToken(e.admin, fleetgate.ScopeRead, ""))
	entries := func(robotID string) []fleetgate.Event {
		t.Helper()
		list, err := e.g.EventLog(e.ctx, fleetgate.EventFilter{RobotID: robotID})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}

	for _, tc := range []struct {
		name   string
		caller *gateway.Caller
		robot  string
		code   string
		stored bool
	}{
		{"no recorder", op, plain.ID, fleetgate.EInvalid, false},
		{"offline", op, offline.ID, fleetgate.EUnavailable, false},
		{"read-only token", kiosk, flying.ID, fleetgate.EForbidden, false},
		{"flight recorder off", op, grounded.ID, fleetgate.EUnavailable, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(entries(tc.robot))
			ev, err := e.g.PostEvent(e.ctx, tc.caller, gateway.PostEventInput{RobotID: tc.robot, Message: "pallet dropped", Record: true})
			wantCode(t, "PostEvent", err, tc.code)
			after := entries(tc.robot)
			if stored := len(after) > before; stored != tc.stored || tc.stored && (ev.ID == 0 || after[0].RecordingID != "") {
				t.Fatalf("entries %+v (stored: %v, want %v)", after, stored, tc.stored)
			}
			if tc.stored && !strings.Contains(fleetgate.ErrorMessage(err), "the entry is posted") {
				t.Errorf("the caller is not told the entry was posted: %v", err)
			}
		})
	}

	ev, err := e.g.PostEvent(e.ctx, op, gateway.PostEventInput{RobotID: flying.ID, Message: "pallet dropped", Record: true})
	if err != nil || ev.RecordingID == "" {
		t.Fatalf("PostEvent with Record: %+v, %v", ev, err)
	}
	again, err := e.g.PostEvent(e.ctx, op, gateway.PostEventInput{RobotID: flying.ID, Message: "and another", Record: true})
	if err != nil || again.RecordingID != ev.RecordingID {
		t.Fatalf("a second post while the recording is made: %+v, %v; want linked to %s", again, err, ev.RecordingID)
	}
	if log := entries(flying.ID); len(log) != 2 || log[0].RecordingID != ev.RecordingID || log[1].RecordingID != ev.RecordingID {
		t.Fatalf("stored entries %+v", log)
	}
	recs, err := e.g.Recordings(e.ctx, op, flying.ID)
	if err != nil || len(recs) != 1 || recs[0].ID != ev.RecordingID || recs[0].Trigger != "pallet dropped" || recs[0].EventID != strconv.FormatInt(ev.ID, 10) {
		t.Fatalf("the robot's recordings %+v, %v", recs, err)
	}
}
