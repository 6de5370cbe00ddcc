package fleet_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
)

func TestTopicLatestWins(t *testing.T) {
	var events []bool
	topic := fleet.NewTopic("T", func(active bool) { events = append(events, active) })
	at := time.Now()
	topic.Publish([]byte("a"), at)

	sub, err := topic.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	// The latest sample is pending at once for a new subscriber.
	if s, ok := sub.Take(); !ok || string(s.Payload) != "a" || s.Seq != 1 || s.Type != "T" {
		t.Fatalf("first take: %+v %v", s, ok)
	}
	topic.Publish([]byte("b"), at)
	topic.Publish([]byte("c"), at)
	s, err := sub.Next(context.Background())
	if err != nil || string(s.Payload) != "c" || s.Seq != 3 {
		t.Fatalf("a slow reader gets the newest sample only: %+v %v", s, err)
	}
	if _, ok := sub.Take(); ok {
		t.Error("the slot holds one sample: nothing is left after taking the newest")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := sub.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next with nothing published: %v, want the context's error", err)
	}

	second, _ := topic.Subscribe()
	if topic.Subscribers() != 2 {
		t.Errorf("subscribers %d, want 2", topic.Subscribers())
	}
	sub.Close()
	second.Close()
	second.Close() // idempotent
	if topic.Subscribers() != 0 {
		t.Errorf("subscribers after close %d", topic.Subscribers())
	}
	if len(events) != 2 || !events[0] || events[1] {
		t.Errorf("onActive calls %v, want [true false]: once when the first arrives, once when the last leaves", events)
	}
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Errorf("closed subscription Err %v", sub.Err())
	}
}

func TestTopicCloseEndsSubscriptions(t *testing.T) {
	topic := fleet.NewTopic("T", nil)
	sub, _ := topic.Subscribe()
	done := make(chan error, 1)
	go func() {
		_, err := sub.Next(context.Background())
		done <- err
	}()
	topic.Close(fleetgate.Errorf(fleetgate.EOffline, "offline"))
	select {
	case err := <-done:
		if !fleetgate.Is(err, fleetgate.EOffline) {
			t.Errorf("Next after Close: %v, want EOffline", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return after the topic closed")
	}
	if _, err := topic.Subscribe(); !fleetgate.Is(err, fleetgate.EOffline) {
		t.Errorf("Subscribe on a closed topic: %v", err)
	}
}

func TestTopicConcurrentUse(t *testing.T) {
	topic := fleet.NewTopic("T", nil)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub, err := topic.Subscribe()
			if err != nil {
				return
			}
			defer sub.Close()
			var last uint64
			for {
				s, err := sub.Next(ctx)
				if err != nil {
					return
				}
				if s.Seq <= last {
					t.Errorf("sequence went backwards: %d after %d", s.Seq, last)
				}
				last = s.Seq
			}
		}()
	}
	for range 2000 {
		topic.Publish([]byte{1}, time.Time{})
	}
	cancel()
	wg.Wait()
}

type trackerCall struct {
	what, id, fleet string
	at              time.Time
}

type recordingTracker struct {
	mu    sync.Mutex
	calls []trackerCall
	fail  error
}

func (r *recordingTracker) RobotOnline(_ context.Context, info fleetgate.Info, home fleet.Home, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, trackerCall{"online", info.ID, home.FleetID + "/" + home.AgentID, at})
	return r.fail
}

func (r *recordingTracker) RobotSeen(_ context.Context, id string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, trackerCall{"seen", id, "", at})
	return nil
}

func (r *recordingTracker) snapshot() []trackerCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]trackerCall(nil), r.calls...)
}

func TestRegistry(t *testing.T) {
	tr := &recordingTracker{}
	now := time.Unix(1000, 0)
	reg := fleet.NewRegistry(tr, nil, func() time.Time { return now })
	a := &fleettest.Robot{ID: "a", Name: "alpha"}
	b := &fleettest.Robot{ID: "b", Name: "beta"}
	ctx := context.Background()
	if err := reg.Add(ctx, a, "f1"); err != nil {
		t.Fatal(err)
	}
	if err := reg.Add(ctx, b, "f1"); err != nil {
		t.Fatal(err)
	}
	if !reg.Online("a") || !reg.Online("b") || reg.Online("c") {
		t.Error("online set wrong")
	}
	if got, ok := reg.Robot("a"); !ok || got != fleet.Robot(a) {
		t.Errorf("Robot(a) = %v %v", got, ok)
	}
	if ids := reg.IDs(); len(ids) != 2 || ids[0] != "a" || ids[1] != "b" {
		t.Errorf("IDs %v", ids)
	}

	// A reconnect of a replaces the old connection; the old one leaving changes nothing.
	a2 := &fleettest.Robot{ID: "a", Name: "alpha"}
	reg.Add(ctx, a2, "f1")
	reg.Remove(a)
	if got, _ := reg.Robot("a"); got != fleet.Robot(a2) {
		t.Error("removing a replaced connection removed the new one")
	}
	now = now.Add(time.Minute)
	reg.Remove(a2)
	if reg.Online("a") {
		t.Error("a still online after Remove")
	}
	calls := tr.snapshot()
	want := []trackerCall{
		{"online", "a", "f1/", time.Unix(1000, 0)}, {"online", "b", "f1/", time.Unix(1000, 0)},
		{"online", "a", "f1/", time.Unix(1000, 0)}, {"seen", "a", "", time.Unix(1060, 0)},
	}
	if len(calls) != len(want) {
		t.Fatalf("tracker calls %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, calls[i], want[i])
		}
	}

	// A robot whose record cannot be written does not come online.
	tr.fail = errors.New("disk full")
	if err := reg.Add(ctx, &fleettest.Robot{ID: "c"}, "f1"); err == nil || reg.Online("c") {
		t.Errorf("Add with a failing tracker: %v, online %v", err, reg.Online("c"))
	}
}

func TestRegistryHostedRobotsAndChanges(t *testing.T) {
	tr := &recordingTracker{}
	reg := fleet.NewRegistry(tr, nil, nil)
	ctx := context.Background()
	changed := reg.Changed()
	select {
	case <-changed:
		t.Fatal("Changed fired before any change")
	default:
	}
	b := &fleettest.Robot{ID: "b"}
	if err := reg.AddHosted(ctx, b, fleet.Home{FleetID: "f", AgentID: "agent1"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Fatal("Add did not signal Changed")
	}
	if calls := tr.snapshot(); len(calls) != 1 || calls[0].fleet != "f/agent1" {
		t.Errorf("tracker got %+v, want the agent in the home", calls)
	}
	a := &fleettest.Robot{ID: "a"}
	reg.Add(ctx, a, "f")
	if robots := reg.Robots(); len(robots) != 2 || robots[0] != fleet.Robot(a) || robots[1] != fleet.Robot(b) {
		t.Errorf("Robots() = %v, want a then b", robots)
	}
	changed = reg.Changed()
	reg.Remove(&fleettest.Robot{ID: "a"}) // not the registered connection: no change
	select {
	case <-changed:
		t.Fatal("removing a stale connection signalled Changed")
	default:
	}
	reg.Remove(a)
	select {
	case <-changed:
	default:
		t.Fatal("Remove did not signal Changed")
	}
}

// TestRegistryAddHostedWhile: a connection that ended while its robot was being recorded adds
// nothing, and leaves in place the robot of the connection that replaced it.
func TestRegistryAddHostedWhile(t *testing.T) {
	reg := fleet.NewRegistry(&recordingTracker{}, nil, nil)
	ctx := context.Background()
	newer := &fleettest.Robot{ID: "r"}
	reg.AddHosted(ctx, newer, fleet.Home{FleetID: "f", AgentID: "a"})
	older := &fleettest.Robot{ID: "r"}
	added, err := reg.AddHostedWhile(ctx, older, fleet.Home{FleetID: "f", AgentID: "a"}, func() bool { return false })
	if err != nil || added {
		t.Fatalf("AddHostedWhile of an ended connection: %v, %v; want not added", added, err)
	}
	if got, _ := reg.Robot("r"); got != fleet.Robot(newer) {
		t.Error("the ended connection replaced the newer one")
	}
	added, err = reg.AddHostedWhile(ctx, older, fleet.Home{FleetID: "f", AgentID: "a"}, func() bool { return true })
	if got, _ := reg.Robot("r"); err != nil || !added || got != fleet.Robot(older) {
		t.Errorf("AddHostedWhile of a live connection: %v, %v; want it registered", added, err)
	}
}

func TestRegistryKeepSeen(t *testing.T) {
	tr := &recordingTracker{}
	reg := fleet.NewRegistry(tr, nil, nil)
	reg.Add(context.Background(), &fleettest.Robot{ID: "a"}, "f")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { reg.KeepSeen(ctx, 5*time.Millisecond); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		seen := 0
		for _, c := range tr.snapshot() {
			if c.what == "seen" && c.id == "a" {
				seen++
			}
		}
		if seen >= 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	seen := 0
	for _, c := range tr.snapshot() {
		if c.what == "seen" {
			seen++
		}
	}
	if seen < 2 {
		t.Errorf("KeepSeen recorded %d times, want repeated records", seen)
	}
}

func TestMetricClassAndNames(t *testing.T) {
	cases := []struct {
		value any
		class fleetgate.MetricClass
		name  string
	}{
		{nil, fleetgate.ClassNone, "NoneMetric"},
		{3, fleetgate.ClassInt, "IntMetric"},
		{1.5, fleetgate.ClassDouble, "DoubleMetric"},
		{"x", fleetgate.ClassString, "StringMetric"},
		{true, fleetgate.ClassBool, "BoolMetric"},
		{fleetgate.Usage{}, fleetgate.ClassUsage, "UsageMetric"},
		{time.Time{}, fleetgate.ClassLicenseExpiration, "LicenseExpirationMetric"},
		{fleetgate.AgentSw{}, fleetgate.ClassAgentSw, "AgentSwMetric"},
		{fleetgate.AgentOperationalState{}, fleetgate.ClassAgentOperationalState, "AgentOperationalStateMetric"},
		{int64(1), fleetgate.ClassLong, "LongMetric"},
		{[]fleetgate.Recorder{}, fleetgate.ClassAgentRecording, "AgentRecordingMetric"},
		{[]fleetgate.ComponentInfo{}, fleetgate.ClassComponentInfo, "ComponentInfoMetric"},
		{fleetgate.ConfigInfo{}, fleetgate.ClassConfigInfo, "ConfigInfoMetric"},
	}
	for _, c := range cases {
		m := fleetgate.Metric{Value: c.value}
		if m.Class() != c.class || c.class.Name() != c.name {
			t.Errorf("%T: class %d %q, want %d %q", c.value, m.Class(), m.Class().Name(), c.class, c.name)
		}
	}
	if fleetgate.MetricCustom.Name() != "Custom" || fleetgate.MetricType(30).Name() != "AgentOperationalState" || fleetgate.MetricType(41).Known() {
		t.Error("metric names do not follow the contract's table")
	}
}

// TestTopicNeverHandsOutAStaleSample: a new subscriber gets the latest sample at once only
// while it is younger than twice the stream's period and than a second; an older one (a
// sensor nobody watched for minutes) is not shown as live: the subscriber waits for the next.
func TestTopicNeverHandsOutAStaleSample(t *testing.T) {
	start := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	cases := []struct {
		name    string
		publish []time.Duration // sample times after start
		at      time.Duration   // when the subscriber arrives
		fresh   bool
	}{
		{"one sample, just now", []time.Duration{0}, 900 * time.Millisecond, true},
		{"one sample, over a second ago", []time.Duration{0}, 1001 * time.Millisecond, false},
		{"10 Hz stream, within two periods", []time.Duration{0, 100 * time.Millisecond}, 300 * time.Millisecond, true},
		{"10 Hz stream, beyond two periods", []time.Duration{0, 100 * time.Millisecond}, 301 * time.Millisecond, false},
		{"slow stream: the second bounds it", []time.Duration{0, 5 * time.Second}, 6100 * time.Millisecond, false},
		{"minutes old", []time.Duration{0, 50 * time.Millisecond}, 3 * time.Minute, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic := fleet.NewTopic("T", nil)
			topic.SetClock(func() time.Time { return now })
			for i, d := range c.publish {
				topic.Publish([]byte{byte(i)}, start.Add(d))
			}
			now = start.Add(c.at)
			sub, err := topic.Subscribe()
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			_, got := sub.Take()
			if got != c.fresh {
				t.Errorf("pending at once: %v, want %v", got, c.fresh)
			}
			if _, ok := topic.Latest(); !ok {
				t.Error("Latest lost the sample: the REST read still has it")
			}
			topic.Publish([]byte("next"), now)
			if s, ok := sub.Take(); !ok || string(s.Payload) != "next" {
				t.Errorf("the next sample: %q %v", s.Payload, ok)
			}
		})
	}
}

// TestTopicHandsOutALatchedSampleWhateverItsAge: a latched sample (a map published once, a
// ROS 1 latched topic, a transient-local writer) reaches every new subscriber however old it
// is, with its own time; a periodic sample published after it is fresh-ruled again.
func TestTopicHandsOutALatchedSampleWhateverItsAge(t *testing.T) {
	start := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	topic := fleet.NewTopic("T", nil)
	topic.SetClock(func() time.Time { return now })
	topic.PublishLatched([]byte("map"), start, true)
	for i, at := range []time.Duration{time.Second, 10 * time.Minute, 48 * time.Hour} {
		now = start.Add(at)
		sub, err := topic.Subscribe()
		if err != nil {
			t.Fatal(err)
		}
		s, ok := sub.Take()
		if !ok || string(s.Payload) != "map" || !s.Latched || !s.Time.Equal(start) {
			t.Errorf("subscriber %d, %v after the map: %q latched=%v at %v, pending %v", i+1, at, s.Payload, s.Latched, s.Time, ok)
		}
		sub.Close()
	}
	topic.Publish([]byte("not latched"), now)
	now = now.Add(time.Minute)
	sub, err := topic.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if s, ok := sub.Take(); ok {
		t.Errorf("a minute-old sample that is not latched was handed out: %q", s.Payload)
	}
}

type decorated struct{ fleet.Robot }

func (d decorated) Unwrap() fleet.Robot { return d.Robot }

type withDefs struct{ *fleettest.Robot }

func (withDefs) MessageDefinition(context.Context, fleetgate.StreamKey) (string, string, error) {
	return "ros1msg", "string data", nil
}

// TestAsFindsACapabilityThroughDecorators: a capability of the robot under a chain of
// decorators (cameras added, recordable) is found, as errors.As finds a wrapped error.
func TestAsFindsACapabilityThroughDecorators(t *testing.T) {
	inner := withDefs{&fleettest.Robot{ID: "r", Name: "r"}}
	r := decorated{decorated{inner}}
	if _, ok := fleet.Robot(r).(fleet.MessageDefinitions); ok {
		t.Fatal("the test's decorator should hide the capability from a plain type assertion")
	}
	if _, ok := fleet.As[fleet.MessageDefinitions](r); !ok {
		t.Error("As did not find the capability through two decorators")
	}
	if _, ok := fleet.As[fleet.RemoteDriven](r); ok {
		t.Error("As found a capability nobody in the chain has")
	}
}

// A relay keeps its source's numbers, so the gaps say what was dropped before it; numbers
// never go back.
func TestTopicKeepsTheNumbersItIsGiven(t *testing.T) {
	topic := fleet.NewTopic("T", nil)
	at := time.Now()
	for _, tc := range []struct {
		given, want uint64
	}{{5, 5}, {9, 9}, {0, 10}, {3, 11}, {20, 20}} {
		if s := topic.PublishNumbered([]byte("x"), at, false, tc.given); s.Seq != tc.want {
			t.Fatalf("published numbered %d: seq %d, want %d", tc.given, s.Seq, tc.want)
		}
	}
}
