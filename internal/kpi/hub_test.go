package kpi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// These tests drive the hub tick by tick (tick, checkTokens) with an injected clock, so every
// rule is checked exactly; TestRunTicks runs the whole loop once.

const (
	poseType   = "Platform.Messages.geometry_msgs.Pose"
	floatType  = "Platform.Messages.std_msgs.Float64"
	stringType = "Platform.Messages.std_msgs.String"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)

// fakeSource is the gateway core as the hub sees it: fleets of online robots, and tokens
// with their views.
type fakeSource struct {
	mu     sync.Mutex
	fleets map[string][]Robot
	// listErr fails every fleet listing: the store is down.
	listErr error
	views   map[string]View  // by token
	errs    map[string]error // by token
	checks  atomic.Int64
	// checkDelay makes each Recheck take this long: a slow store.
	checkDelay atomic.Int64
}

func newSource() *fakeSource {
	return &fakeSource{fleets: map[string][]Robot{}, views: map[string]View{}, errs: map[string]error{}}
}

func (f *fakeSource) setOnline(fleetID string, robots ...Robot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fleets[fleetID] = robots
}

func (f *fakeSource) setToken(token string, v View, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views[token], f.errs[token] = v, err
}

func (f *fakeSource) OnlineRobots(ctx context.Context, fleetID string) ([]Robot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	return slices.Clone(f.fleets[fleetID]), nil
}

func (f *fakeSource) Recheck(ctx context.Context, token, fleetID string) (View, error) {
	time.Sleep(time.Duration(f.checkDelay.Load()))
	f.checks.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.views[token], f.errs[token]
}

// clock is a settable time for stall detection.
type clock struct{ ns atomic.Int64 }

func newClock() *clock               { c := &clock{}; c.set(t0); return c }
func (c *clock) set(t time.Time)     { c.ns.Store(t.UnixNano()) }
func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

func newHub(src Source, clk *clock) *Hub {
	return New(Config{Source: src, Now: clk.now, ReadTimeout: 200 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// countingRobot counts its KPI reads.
type countingRobot struct {
	*fleettest.Robot
	reads atomic.Int64
}

func (r *countingRobot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	r.reads.Add(1)
	return r.Robot.KPIs(ctx)
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// simRobot is a robot with the simulator's three custom KPIs: pose, battery and activity.
func simRobot(t testing.TB, id, name string, x, battery float64, activity string, at time.Time) *countingRobot {
	t.Helper()
	pose := &catalogpb.Pose{Position: &catalogpb.Point{X: x, Y: -2, Z: 0.25}, Orientation: &catalogpb.Quaternion{Z: 0.6, W: 0.8}}
	return &countingRobot{Robot: &fleettest.Robot{ID: id, Name: name, KPIList: []fleetgate.KPI{
		{Name: "pose", DataType: poseType, Payload: mustMarshal(t, pose), Time: at},
		{Name: "battery", DataType: floatType, Payload: mustMarshal(t, &catalogpb.Float64{Data: battery}), Time: at},
		{Name: "activity", DataType: stringType, Payload: mustMarshal(t, &catalogpb.String{Data: activity}), Time: at},
	}}}
}

func online(r *countingRobot) Robot { return Robot{ID: r.ID, Name: r.Name, Live: r} }

func subscribe(t *testing.T, h *Hub, fleetID, token string, v View) *Subscriber {
	t.Helper()
	s, err := h.Subscribe(Request{FleetID: fleetID, Token: token, View: v})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// pending takes the subscriber's frame, checking that the signal and the slot agree.
func pending(t *testing.T, s *Subscriber) *Frame {
	t.Helper()
	select {
	case <-s.Ready():
		return s.Next()
	default:
		if f := s.Next(); f != nil {
			t.Fatalf("a frame is waiting without a ready signal")
		}
		return nil
	}
}

type decodedFrame struct {
	Updates []struct {
		BasicData struct{ ID, Name string }
		Metric    struct{ Name string }
	}
}

// robotIDs lists the robots of a frame's updates, each once, in order.
func robotIDs(t *testing.T, f *Frame) []string {
	t.Helper()
	if f == nil {
		return nil
	}
	var d decodedFrame
	if err := json.Unmarshal(f.Data, &d); err != nil {
		t.Fatalf("frame %s: %v", f.Data, err)
	}
	var ids []string
	for _, u := range d.Updates {
		if len(ids) == 0 || ids[len(ids)-1] != u.BasicData.ID {
			ids = append(ids, u.BasicData.ID)
		}
	}
	return ids
}

func TestFrameShape(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	kpiAt := time.Date(2025, 3, 4, 5, 6, 6, 500000000, time.FixedZone("CET", 3600)) // not UTC on purpose
	a := simRobot(t, "0b9d5ea4-0000-4000-8000-00000000000a", "alpha", 1.5, 87.25, "moving", kpiAt)
	b := simRobot(t, "0b9d5ea4-0000-4000-8000-00000000000b", "bravo", -3, 12, "charging", time.Time{})
	src.setOnline("fleet-1", online(b), online(a))
	s := subscribe(t, h, "fleet-1", "tok", View{All: true})

	h.tick(context.Background(), t0, nil)
	f := pending(t, s)
	if f == nil {
		t.Fatal("no frame")
	}
	// Field by field against the contract's FleetCustomKpiEventDto: updates[] of basicData
	// {id, name}, updateTime (ISO 8601, UTC), metric {name, dataType, value} with the native
	// JSON value; one update per KPI, the robots by name, and nothing else in the frame.
	pose := `{"position":{"x":%s,"y":-2,"z":0.25},"orientation":{"x":0,"y":0,"z":0.6,"w":0.8}}`
	want := fmt.Sprintf(`{"updates":[
		{"basicData":{"id":"%[1]s","name":"alpha"},"updateTime":"2025-03-04T04:06:06.5Z","metric":{"name":"pose","dataType":"%[3]s","value":`+fmt.Sprintf(pose, "1.5")+`}},
		{"basicData":{"id":"%[1]s","name":"alpha"},"updateTime":"2025-03-04T04:06:06.5Z","metric":{"name":"battery","dataType":"%[4]s","value":87.25}},
		{"basicData":{"id":"%[1]s","name":"alpha"},"updateTime":"2025-03-04T04:06:06.5Z","metric":{"name":"activity","dataType":"%[5]s","value":"moving"}},
		{"basicData":{"id":"%[2]s","name":"bravo"},"updateTime":"2025-03-04T05:06:07.123456789Z","metric":{"name":"pose","dataType":"%[3]s","value":`+fmt.Sprintf(pose, "-3")+`}},
		{"basicData":{"id":"%[2]s","name":"bravo"},"updateTime":"2025-03-04T05:06:07.123456789Z","metric":{"name":"battery","dataType":"%[4]s","value":12}},
		{"basicData":{"id":"%[2]s","name":"bravo"},"updateTime":"2025-03-04T05:06:07.123456789Z","metric":{"name":"activity","dataType":"%[5]s","value":"charging"}}
	]}`, a.ID, b.ID, poseType, floatType, stringType)
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(want)); err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != compact.String() {
		t.Errorf("frame\n%s\nwant\n%s", f.Data, compact.String())
	}
	if !f.At.Equal(t0) {
		t.Errorf("frame At = %v, want the tick %v", f.At, t0)
	}

	// The same, decoded: every updateTime parses as ISO 8601 in UTC; the pose is an object
	// with position{x,y,z} and orientation{x,y,z,w}; battery a number; activity a string.
	var d struct {
		Updates []struct {
			UpdateTime string
			Metric     struct {
				Name  string
				Value any
			}
		}
	}
	if err := json.Unmarshal(f.Data, &d); err != nil {
		t.Fatal(err)
	}
	for _, u := range d.Updates {
		at, err := time.Parse(time.RFC3339Nano, u.UpdateTime)
		if err != nil || at.Location() != time.UTC {
			t.Errorf("updateTime %q is not ISO 8601 UTC: %v", u.UpdateTime, err)
		}
		switch v := u.Metric.Value.(type) {
		case map[string]any:
			pos, _ := v["position"].(map[string]any)
			ori, _ := v["orientation"].(map[string]any)
			if u.Metric.Name != "pose" || len(v) != 2 || len(pos) != 3 || len(ori) != 4 {
				t.Errorf("%s value %v", u.Metric.Name, v)
			}
		case float64:
			if u.Metric.Name != "battery" {
				t.Errorf("%s is a number", u.Metric.Name)
			}
		case string:
			if u.Metric.Name != "activity" {
				t.Errorf("%s is a string", u.Metric.Name)
			}
		default:
			t.Errorf("%s value %#v", u.Metric.Name, v)
		}
	}
}

func TestOneFramePerSet(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	a := simRobot(t, "a", "alpha", 1, 50, "idle", t0)
	b := simRobot(t, "b", "bravo", 2, 60, "moving", t0)
	c := simRobot(t, "c", "charlie", 3, 70, "blocked", t0)
	src.setOnline("fleet-1", online(a), online(b))
	src.setOnline("fleet-2", online(c))
	admin1 := subscribe(t, h, "fleet-1", "admin-1", View{All: true})
	admin2 := subscribe(t, h, "fleet-1", "admin-2", View{All: true})
	kiosk := []*Subscriber{ // many kiosks sharing one token
		subscribe(t, h, "fleet-1", "kiosk", View{All: true}),
		subscribe(t, h, "fleet-1", "kiosk", View{All: true}),
	}
	member1 := subscribe(t, h, "fleet-1", "member-1", View{Robots: []string{"b", "x"}})
	member2 := subscribe(t, h, "fleet-1", "member-2", View{Robots: []string{"x", "b", "b"}}) // the same set
	// Another view, with the same robots in this fleet (c is in fleet-2): the same frame.
	member3 := subscribe(t, h, "fleet-1", "member-3", View{Robots: []string{"b", "c"}})
	other := subscribe(t, h, "fleet-2", "admin-1", View{All: true})

	h.tick(context.Background(), t0, nil)
	all := pending(t, admin1)
	if got := robotIDs(t, all); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("admin frame robots %v, want [a b]", got)
	}
	for _, s := range append([]*Subscriber{admin2}, kiosk...) {
		if f := pending(t, s); f != all {
			t.Errorf("a subscriber of the same set got another frame (%p, want %p)", f, all)
		}
	}
	m := pending(t, member1)
	if got := robotIDs(t, m); !slices.Equal(got, []string{"b"}) {
		t.Errorf("member frame robots %v, want [b]", got)
	}
	if f := pending(t, member2); f != m {
		t.Errorf("equal views got different frames")
	}
	if f := pending(t, member3); f != m {
		t.Errorf("views seeing the same robots got different frames")
	}
	if got := robotIDs(t, pending(t, other)); !slices.Equal(got, []string{"c"}) {
		t.Errorf("fleet-2 frame robots %v, want [c]", got)
	}
	st := h.Stats()
	if st.Frames != 3 || st.Groups != 4 || st.Subscribers != 8 {
		t.Errorf("stats %+v, want 3 frames (one per set) for 4 groups of 8 subscribers", st)
	}
	for _, r := range []*countingRobot{a, b, c} {
		if n := r.reads.Load(); n != 1 {
			t.Errorf("robot %s read %d times in a tick, want once", r.ID, n)
		}
	}
}

func TestNoFrameWithoutVisibleOnlineRobot(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	a := simRobot(t, "a", "alpha", 1, 50, "idle", t0)
	silent := &countingRobot{Robot: &fleettest.Robot{ID: "s", Name: "silent"}} // no custom KPIs
	src.setOnline("busy", online(a), online(silent))
	src.setOnline("quiet", online(silent))
	empty := subscribe(t, h, "empty", "tok", View{All: true})            // nothing online
	blind := subscribe(t, h, "busy", "member", View{Robots: []string{}}) // sees none
	other := subscribe(t, h, "busy", "member-2", View{Robots: []string{"s", "elsewhere"}})
	quiet := subscribe(t, h, "quiet", "tok", View{All: true})
	h.tick(context.Background(), t0, nil)
	for name, s := range map[string]*Subscriber{"empty fleet": empty, "empty view": blind, "robots without KPIs": other, "quiet fleet": quiet} {
		if f := pending(t, s); f != nil {
			t.Errorf("%s: got frame %s, want none", name, f.Data)
		}
	}
	if n := a.reads.Load(); n != 0 {
		t.Errorf("a robot nobody sees was read %d times", n)
	}
	if st := h.Stats(); st.Frames != 0 {
		t.Errorf("%d frames built, want 0", st.Frames)
	}
}

func TestRobotsJoiningAndLeaving(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	a := simRobot(t, "a", "alpha", 1, 50, "idle", t0)
	b := simRobot(t, "b", "bravo", 2, 60, "moving", t0)
	s := subscribe(t, h, "f", "tok", View{All: true})
	steps := []struct {
		online []*countingRobot
		want   []string
	}{
		{nil, nil},
		{[]*countingRobot{a}, []string{"a"}},
		{[]*countingRobot{a, b}, []string{"a", "b"}},
		{[]*countingRobot{b}, []string{"b"}},
		{nil, nil},
		{[]*countingRobot{a}, []string{"a"}},
	}
	for i, step := range steps {
		var robots []Robot
		for _, r := range step.online {
			robots = append(robots, online(r))
		}
		src.setOnline("f", robots...)
		h.tick(context.Background(), t0.Add(time.Duration(i)*time.Second), nil)
		if got := robotIDs(t, pending(t, s)); !slices.Equal(got, step.want) {
			t.Errorf("tick %d: robots %v, want %v", i, got, step.want)
		}
	}
}

func TestSlowSubscriberDropsFrames(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	src.setOnline("f", online(simRobot(t, "a", "alpha", 1, 50, "idle", t0)))
	slow := subscribe(t, h, "f", "tok", View{All: true})
	healthy := subscribe(t, h, "f", "tok", View{All: true})
	for i := range 3 {
		h.tick(context.Background(), t0.Add(time.Duration(i)*time.Second), nil)
		if f := pending(t, healthy); f == nil || !f.At.Equal(t0.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("tick %d: healthy subscriber got %v", i, f)
		}
	}
	// The slow one never took a frame: only the newest waits; the two before were dropped.
	f := pending(t, slow)
	if f == nil || !f.At.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("slow subscriber's frame %+v, want the newest (tick 2)", f)
	}
	if slow.Dropped() != 2 || healthy.Dropped() != 0 {
		t.Errorf("dropped: slow %d (want 2), healthy %d (want 0)", slow.Dropped(), healthy.Dropped())
	}
	if st := h.Stats(); st.Drops != 2 {
		t.Errorf("hub drops %d, want 2", st.Drops)
	}
	if f := pending(t, slow); f != nil {
		t.Errorf("a frame twice")
	}
}

// stuckRobot ignores its context until released, as a badly written source would.
type stuckRobot struct {
	*fleettest.Robot
	release chan struct{}
}

func (r *stuckRobot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	<-r.release
	return nil, nil
}

func TestSlowOrFailingRobotIsLeftOut(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	a := simRobot(t, "a", "alpha", 1, 50, "idle", t0)
	slow := simRobot(t, "b", "bravo", 2, 60, "moving", t0)
	slow.Delay = time.Minute // answers at its deadline with the context's error
	stuck := &stuckRobot{Robot: &fleettest.Robot{ID: "c", Name: "charlie"}, release: make(chan struct{})}
	defer close(stuck.release)
	broken := simRobot(t, "d", "delta", 4, 80, "idle", t0)
	broken.KPIList = append(broken.KPIList, fleetgate.KPI{Name: "garbage", DataType: floatType, Payload: []byte{0xff}, Time: t0})
	src.setOnline("f", online(a), online(slow), Robot{ID: "c", Name: "charlie", Live: stuck}, online(broken))
	s := subscribe(t, h, "f", "tok", View{All: true})

	start := time.Now()
	h.tick(context.Background(), t0, nil)
	took := time.Since(start)
	f := pending(t, s)
	if got := robotIDs(t, f); !slices.Equal(got, []string{"a", "d"}) {
		t.Errorf("robots %v, want [a d]: the slow and the stuck one left out, the broken KPI alone", got)
	}
	if bytes.Contains(f.Data, []byte("garbage")) {
		t.Errorf("an undecodable KPI went out: %s", f.Data)
	}
	// The read deadline is 200 ms; a stuck robot must not hold the frame (generous bound).
	if took > 2*time.Second {
		t.Errorf("tick took %v with a stuck robot", took)
	}
}

func TestRecheck(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	a := simRobot(t, "a", "alpha", 1, 50, "idle", t0)
	b := simRobot(t, "b", "bravo", 2, 60, "moving", t0)
	src.setOnline("f", online(a), online(b))
	revoked := []*Subscriber{subscribe(t, h, "f", "revoked", View{All: true}), subscribe(t, h, "f", "revoked", View{All: true})}
	good := subscribe(t, h, "f", "good", View{All: true})
	flaky := subscribe(t, h, "f", "flaky", View{All: true})
	member := subscribe(t, h, "f", "member", View{Robots: []string{"a"}})
	src.setToken("good", View{All: true}, nil)
	src.setToken("revoked", View{}, fleetgate.Errorf(fleetgate.EUnauthorized, "bearer token expired"))
	src.setToken("flaky", View{}, errors.New("database is locked"))
	src.setToken("member", View{Robots: []string{"b"}}, nil) // a membership moved from a to b
	h.tick(context.Background(), t0.Add(-time.Second), nil)  // frames for the views as they were

	h.checkTokens(context.Background())
	// The frames waiting since that tick went with the views they were built for.
	if f := member.Next(); f != nil {
		t.Errorf("a frame built for the old membership survived the change: %v", robotIDs(t, f))
	}
	if f := revoked[1].Next(); f != nil {
		t.Errorf("a frame survived the revocation")
	}
	if n := src.checks.Load(); n != 4 {
		t.Errorf("%d checks, want one per distinct token (4)", n)
	}
	for _, s := range revoked {
		select {
		case <-s.Done():
			if !fleetgate.Is(s.Err(), fleetgate.EUnauthorized) {
				t.Errorf("revoked subscriber ended with %v", s.Err())
			}
		default:
			t.Errorf("revoked subscriber still open")
		}
	}
	for name, s := range map[string]*Subscriber{"good": good, "flaky": flaky, "member": member} {
		if s.Err() != nil {
			t.Errorf("%s subscriber ended: %v", name, s.Err())
		}
	}
	h.tick(context.Background(), t0, nil)
	if got := robotIDs(t, pending(t, member)); !slices.Equal(got, []string{"b"}) {
		t.Errorf("member sees %v after its membership moved, want [b]", got)
	}
	if f := pending(t, revoked[0]); f != nil {
		t.Errorf("a revoked subscriber got a frame")
	}
}

func TestStalledWriteIsCut(t *testing.T) {
	src := newSource()
	clk := newClock()
	h := newHub(src, clk)
	src.setOnline("f", online(simRobot(t, "a", "alpha", 1, 50, "idle", t0)))
	var aborted, abortedEnded atomic.Bool
	stalled, err := h.Subscribe(Request{FleetID: "f", Token: "tok", View: View{All: true}, Abort: func() { aborted.Store(true) }})
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	ended, err := h.Subscribe(Request{FleetID: "f", Token: "gone", View: View{All: true}, Abort: func() { abortedEnded.Store(true) }})
	if err != nil {
		t.Fatal(err)
	}
	defer ended.Close()
	healthy := subscribe(t, h, "f", "tok", View{All: true})

	stalled.BeginWrite()
	ended.BeginWrite()
	src.setToken("tok", View{All: true}, nil)
	src.setToken("gone", View{}, fleetgate.Errorf(fleetgate.EUnauthorized, "revoked"))
	h.checkTokens(context.Background())

	clk.add(900 * time.Millisecond)
	h.tick(context.Background(), t0, nil)
	if aborted.Load() || abortedEnded.Load() {
		t.Fatalf("a write of 900 ms was cut")
	}
	clk.add(200 * time.Millisecond) // an ended subscription gets one tick to finish its write
	h.tick(context.Background(), t0, nil)
	if aborted.Load() || !abortedEnded.Load() {
		t.Fatalf("after 1.1 s: stalled cut %v (want false), revoked cut %v (want true)", aborted.Load(), abortedEnded.Load())
	}
	if !fleetgate.Is(ended.Err(), fleetgate.EUnauthorized) {
		t.Errorf("the revoked subscriber ended with %v, want EUnauthorized kept", ended.Err())
	}
	clk.add(DefaultStallTimeout)
	h.tick(context.Background(), t0, nil)
	if !aborted.Load() || !errors.Is(stalled.Err(), ErrStalled) {
		t.Fatalf("after the stall timeout: cut %v, err %v", aborted.Load(), stalled.Err())
	}
	if healthy.Err() != nil || pending(t, healthy) == nil {
		t.Errorf("the healthy subscriber suffered: %v", healthy.Err())
	}
}

func TestViewKey(t *testing.T) {
	if k := (View{All: true, Robots: []string{"a"}}).key(); k != "*" {
		t.Errorf("all: %q", k)
	}
	if a, b := (View{Robots: []string{"b", "a", "b"}}).key(), (View{Robots: []string{"a", "b"}}).key(); a != b {
		t.Errorf("equal sets, keys %q and %q", a, b)
	}
	if a, b := (View{}).key(), (View{All: true}).key(); a == b {
		t.Errorf("no robots and all robots share a key")
	}
}

// TestRunTickFollowsItsCheck: a tick's frames follow what the token check of that tick found
// (the tick waits for it, up to its read deadline): a membership removed or a token revoked
// before a tick shows in that tick's frame.
func TestRunTickFollowsItsCheck(t *testing.T) {
	src := newSource()
	src.setOnline("f", online(simRobot(t, "a", "alpha", 1, 50, "idle", t0)), online(simRobot(t, "b", "bravo", 2, 60, "idle", t0)))
	src.setToken("member", View{Robots: []string{"a", "b"}}, nil)
	src.checkDelay.Store(int64(100 * time.Millisecond)) // the check ends after the reads
	ticks := make(chan time.Time)
	h := New(Config{Source: src, Ticks: ticks, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s, err := h.Subscribe(Request{FleetID: "f", Token: "member", View: View{Robots: []string{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	next := func(at time.Time) *Frame {
		t.Helper()
		ticks <- at
		select {
		case <-s.Ready():
			return s.Next()
		case <-s.Done():
			return nil
		case <-time.After(5 * time.Second):
			t.Fatalf("no frame for tick %v", at)
			return nil
		}
	}
	if got := robotIDs(t, next(t0)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("first frame %v, want [a b]", got)
	}
	waitUntil(t, func() bool { return src.checks.Load() >= 1 }) // that tick's round is over
	src.setToken("member", View{Robots: []string{"b"}}, nil)
	if got := robotIDs(t, next(t0.Add(time.Second))); !slices.Equal(got, []string{"b"}) {
		t.Errorf("frame of the tick after the membership of a was removed: %v, want [b]", got)
	}
	waitUntil(t, func() bool { return src.checks.Load() >= 2 })
	src.setToken("member", View{}, fleetgate.Errorf(fleetgate.EUnauthorized, "revoked"))
	if f := next(t0.Add(2 * time.Second)); f != nil {
		t.Errorf("a frame after the revocation: %v", robotIDs(t, f))
	}
	if !fleetgate.Is(s.Err(), fleetgate.EUnauthorized) {
		t.Errorf("ended with %v, want EUnauthorized", s.Err())
	}
}

func TestRunTicks(t *testing.T) {
	src := newSource()
	src.setOnline("f", online(simRobot(t, "a", "alpha", 1, 50, "idle", t0)))
	src.setToken("tok", View{All: true}, nil)
	ticks := make(chan time.Time)
	h := New(Config{Source: src, Ticks: ticks, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s, err := h.Subscribe(Request{FleetID: "f", Token: "tok", View: View{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); h.Run(ctx) }()

	for i := range 2 {
		at := t0.Add(time.Duration(i) * time.Second)
		ticks <- at
		select {
		case <-s.Ready():
			if f := s.Next(); f == nil || !f.At.Equal(at) {
				t.Fatalf("tick %d: frame %+v", i, f)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("tick %d: no frame", i)
		}
	}
	// Frames come from ticks only: none without one (the hub never samples faster).
	select {
	case <-s.Ready():
		t.Fatalf("a frame without a tick")
	case <-time.After(50 * time.Millisecond):
	}
	// Each tick also re-checks the token, beside the frame.
	waitUntil(t, func() bool { return src.checks.Load() >= 1 })

	cancel()
	select {
	case <-s.Done():
		if !errors.Is(s.Err(), ErrClosed) {
			t.Errorf("ended with %v, want ErrClosed", s.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("subscription not ended at shutdown")
	}
	s.Close() // the owner says goodbye; Run returns
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	if _, err := h.Subscribe(Request{FleetID: "f", Token: "tok", View: View{All: true}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Run: %v, want ErrClosed", err)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTickPhase: a hub ticks at its phase within each second of the wall clock, whatever
// phase it is given (replicas on one host take turns).
func TestTickPhase(t *testing.T) {
	h := New(Config{Source: &fakeSource{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	second := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		phase time.Duration
		now   time.Duration // after the whole second
		want  time.Duration
	}{
		{0, 0, time.Second},
		{0, 300 * time.Millisecond, 700 * time.Millisecond},
		{250 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond},
		{250 * time.Millisecond, 250 * time.Millisecond, time.Second},
		{250 * time.Millisecond, 900 * time.Millisecond, 350 * time.Millisecond},
		{-250 * time.Millisecond, 0, 750 * time.Millisecond}, // modulo the period
		{1300 * time.Millisecond, 0, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		h.SetPhase(tt.phase)
		if got := h.untilTick(second.Add(tt.now)); got != tt.want {
			t.Errorf("phase %s, %s into the second: next tick in %s, want %s", tt.phase, tt.now, got, tt.want)
		}
	}

	// In real time: the ticks come at the phase, never before it.
	const phase = 400 * time.Millisecond
	h.SetPhase(phase)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ticks := h.ticker(ctx)
	for range 2 {
		select {
		case at := <-ticks:
			if into := at.Sub(at.Truncate(time.Second)); into < phase {
				t.Errorf("a tick %s into its second, before the phase %s", into, phase)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("no tick within 3 s")
		}
	}
}

// TestStoreDownKeepsTheFrames: while the fleet's listing fails (the store unreachable), the
// ticks frame the robots of its last listing, their KPIs read live as ever; a fleet never
// listed gets no frame rather than a wrong one.
func TestStoreDownKeepsTheFrames(t *testing.T) {
	src := newSource()
	h := newHub(src, newClock())
	a := simRobot(t, "0b9d5ea4-0000-4000-8000-00000000000a", "alpha", 1, 50, "moving", t0)
	src.setOnline("fleet-1", online(a))
	s := subscribe(t, h, "fleet-1", "tok", View{All: true})
	h.tick(context.Background(), t0, nil)
	if ids := robotIDs(t, pending(t, s)); !slices.Equal(ids, []string{a.ID}) {
		t.Fatalf("before the outage: robots %v", ids)
	}

	src.mu.Lock()
	src.listErr = fleetgate.Errorf(fleetgate.EUnavailable, "the database is unreachable")
	src.mu.Unlock()
	readsBefore := a.reads.Load()
	for i := range 3 {
		h.tick(context.Background(), t0.Add(time.Duration(i+1)*time.Second), nil)
		if ids := robotIDs(t, pending(t, s)); !slices.Equal(ids, []string{a.ID}) {
			t.Fatalf("tick %d with the store down: robots %v, want the last listing's %v", i+1, ids, a.ID)
		}
	}
	if a.reads.Load() == readsBefore {
		t.Error("the KPIs were not read live while the store was down")
	}

	other := subscribe(t, h, "fleet-2", "tok", View{All: true})
	h.tick(context.Background(), t0.Add(5*time.Second), nil)
	if f := pending(t, other); f != nil {
		t.Errorf("a fleet never listed got a frame: %s", f.Data)
	}
}
