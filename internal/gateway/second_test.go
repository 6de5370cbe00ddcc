package gateway_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

const (
	poseType  = "Platform.Messages.geometry_msgs.PoseStamped"
	twistType = "Platform.Messages.geometry_msgs.Twist"
)

// livePresence is a Presence of scriptable robots, filled in after the world exists.
type livePresence map[string]*fleettest.Robot

func (p livePresence) Online(id string) bool { _, ok := p[id]; return ok }

func (p livePresence) Robot(id string) (fleet.Robot, bool) {
	r, ok := p[id]
	return r, ok
}

// newLiveWorld is the gateway test world with r1 online as a robot of one output stream
// (base/pose), one input stream (base/cmd_vel) and a Cpu metric.
func newLiveWorld(t *testing.T) (*world, livePresence) {
	t.Helper()
	p := livePresence{}
	w := newWorld(t, withPresence(p))
	p[w.r1.ID] = &fleettest.Robot{
		ID: w.r1.ID, Name: w.r1.Name,
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: poseType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
		Values:     map[fleetgate.StreamKey]fleetgate.Sample{{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}: {Type: poseType, Seq: 1}},
		MetricList: []fleetgate.Metric{{Type: fleetgate.MetricCpu, Value: 12.5}},
	}
	return w, p
}

func twistUpload(sel gateway.StreamSelector) gateway.UploadInput {
	return gateway.UploadInput{Stream: sel, DataType: twistType, JSON: []byte(`{"linear":{"x":0.5}}`)}
}

var cmdVel = gateway.StreamSelector{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}

// TestLimitedStreams runs the second convention's stream operations on the injected clock:
// one per second per caller, robot and stream; mistakes do not use up the second; v2's
// operations are not limited.
func TestLimitedStreams(t *testing.T) {
	w, p := newLiveWorld(t)
	ls := w.g.NewLimitedStreams()
	admin, dev, op := w.callers["org admin"], w.callers["developer"], w.callers["operator"]

	if _, err := ls.ReadStream(w.ctx, admin, w.r1.ID, pose); err != nil {
		t.Fatalf("first read: %v", err)
	}
	w.clock.Advance(300 * time.Millisecond)
	_, err := ls.ReadStream(w.ctx, admin, w.r1.ID, pose)
	wantCode(t, "second read within a second", err, fleetgate.ERateLimited)
	if wait := fleetgate.RetryAfter(err); wait != 700*time.Millisecond {
		t.Errorf("RetryAfter %v, want 700ms", wait)
	}
	if _, err := ls.ReadStream(w.ctx, op, w.r1.ID, pose); err != nil {
		t.Errorf("another caller's read: %v", err)
	}
	for range 3 {
		if _, err := w.g.ReadStream(w.ctx, admin, w.r1.ID, pose); err != nil {
			t.Errorf("v2 read is not limited: %v", err)
		}
	}
	w.clock.Advance(700 * time.Millisecond)
	if _, err := ls.ReadStream(w.ctx, admin, w.r1.ID, pose); err != nil {
		t.Errorf("read a second later: %v", err)
	}

	// Refusals for the caller's mistakes give the second back: the corrected request passes.
	wrongSource := gateway.StreamSelector{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceROS1}
	for _, m := range []struct {
		what string
		run  func() error
		code string
	}{
		{"unknown stream", func() error { return ls.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(wrongSource)) }, fleetgate.ENotFound},
		{"bad JSON", func() error {
			in := twistUpload(cmdVel)
			in.JSON = []byte(`{"turbo":true}`)
			return ls.UploadStream(w.ctx, dev, w.r1.ID, in)
		}, fleetgate.EInvalid},
		{"read of an input stream", func() error { _, err := ls.ReadStream(w.ctx, dev, w.r1.ID, cmdVel); return err }, fleetgate.EInvalid},
		{"operator uploading", func() error { return ls.UploadStream(w.ctx, op, w.r1.ID, twistUpload(cmdVel)) }, fleetgate.EForbidden},
		{"invisible robot", func() error { return ls.UploadStream(w.ctx, dev, w.r2.ID, twistUpload(cmdVel)) }, fleetgate.ENotFound},
	} {
		wantCode(t, m.what, m.run(), m.code)
	}
	if err := ls.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(cmdVel)); err != nil {
		t.Fatalf("upload after refused mistakes: %v", err)
	}
	err = ls.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(gateway.StreamSelector{Component: "base", Name: "cmd_vel"}))
	wantCode(t, "second upload, source left out", err, fleetgate.ERateLimited)
	if got := len(p[w.r1.ID].Published()); got != 1 {
		t.Errorf("the robot got %d messages, want 1", got)
	}

	// A robot that fails to answer was still asked: its slot stays taken.
	w.clock.Advance(time.Second)
	bot := p[w.r1.ID]
	bot.Lock()
	bot.PublishErr = fleetgate.Errorf(fleetgate.EUnavailable, "publisher down")
	bot.Unlock()
	wantCode(t, "failed publish", ls.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(cmdVel)), fleetgate.EUnavailable)
	wantCode(t, "retry at once", ls.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(cmdVel)), fleetgate.ERateLimited)
}

// TestLimitedUploadTimeout is the upload timeout in real time: an upload makes two robot
// calls, each bounded by RobotReadTimeout; the second convention bounds the whole upload by
// it, so a robot taking 0.6 s per call fails there and succeeds on v2.
func TestLimitedUploadTimeout(t *testing.T) {
	w, p := newLiveWorld(t)
	ls := w.g.NewLimitedStreams()
	dev := w.callers["developer"]
	bot := p[w.r1.ID]
	bot.Lock()
	bot.Delay = 600 * time.Millisecond
	bot.Unlock()

	start := time.Now()
	err := ls.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(cmdVel))
	took := time.Since(start)
	wantCode(t, "limited upload to a slow robot", err, fleetgate.EUnavailable)
	if took > gateway.RobotReadTimeout+500*time.Millisecond {
		t.Errorf("refused after %v; the upload timeout is %v", took, gateway.RobotReadTimeout)
	}
	if err := w.g.UploadStream(w.ctx, dev, w.r1.ID, twistUpload(cmdVel)); err != nil {
		t.Errorf("v2 upload, each call within its deadline: %v", err)
	}
	if got := len(bot.Published()); got != 1 {
		t.Errorf("the robot got %d messages, want only v2's", got)
	}
}

// TestVisibleMetricTypes is S9: the union of the metric types of the caller's visible
// robots that are online, sorted; offline, invisible and too slow robots add nothing.
func TestVisibleMetricTypes(t *testing.T) {
	w, p := newLiveWorld(t)
	metrics := func(types ...fleetgate.MetricType) []fleetgate.Metric {
		var out []fleetgate.Metric
		for _, typ := range types {
			out = append(out, fleetgate.Metric{Type: typ, Value: 1.0})
		}
		return out
	}
	p[w.r1.ID].MetricList = metrics(fleetgate.MetricRam, fleetgate.MetricCpu)
	p[w.r3.ID] = &fleettest.Robot{ID: w.r3.ID, Name: w.r3.Name, MetricList: metrics(fleetgate.MetricBattery, fleetgate.MetricCpu, fleetgate.MetricCustom, fleetgate.MetricCustom)}
	p[w.x1.ID] = &fleettest.Robot{ID: w.x1.ID, Name: w.x1.Name, MetricList: metrics(fleetgate.MetricThermal)}
	// r2 is offline.

	tests := []struct {
		caller string
		want   []fleetgate.MetricType
	}{
		{"org admin", []fleetgate.MetricType{1, 2, 4, 100}},
		{"read-only org admin", []fleetgate.MetricType{1, 2, 4, 100}},
		{"operator", []fleetgate.MetricType{1, 2}},
		{"admin", []fleetgate.MetricType{1, 2, 4, 100}},
		{"fleet-restricted org admin", []fleetgate.MetricType{1, 4, 100}},
		{"other admin", []fleetgate.MetricType{32}},
		{"none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.caller, func(t *testing.T) {
			got, err := w.g.VisibleMetricTypes(w.ctx, w.callers[tt.caller])
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("VisibleMetricTypes = %v, %v; want %v", got, err, tt.want)
			}
		})
	}

	t.Run("slow robot", func(t *testing.T) {
		slow := p[w.r3.ID]
		slow.Lock()
		slow.Delay = time.Minute
		slow.Unlock()
		start := time.Now()
		got, err := w.g.VisibleMetricTypes(w.ctx, w.callers["org admin"])
		if err != nil || !slices.Equal(got, []fleetgate.MetricType{1, 2}) {
			t.Errorf("with r3 too slow: %v, %v; want r1's [1 2]", got, err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("took %v; a slow robot may delay the list by %v", took, gateway.RobotReadTimeout)
		}
	})
}
