package door_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

var (
	carol = door.Who{User: "carol@example.com", Path: door.PathW3}
	boss  = door.Who{User: "boss@example.com", Path: door.PathW3, Supervisor: true}
)

// handoverDoor is a door on a fake clock whose journal the test reads.
type handoverDoor struct {
	*door.Door
	clock *clocktest.Fake
	mu    sync.Mutex
	what  []string
}

func newHandoverDoor(t *testing.T) *handoverDoor {
	h := &handoverDoor{clock: clocktest.New()}
	h.Door = door.New(door.Config{Clock: h.clock, Journal: func(ch door.Change) {
		h.mu.Lock()
		h.what = append(h.what, ch.Who.User+": "+ch.What)
		h.mu.Unlock()
	}})
	t.Cleanup(h.Close)
	return h
}

// journaled reports whether an entry of the journal contains every part.
func (h *handoverDoor) journaled(parts ...string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
next:
	for _, w := range h.what {
		for _, p := range parts {
			if !strings.Contains(w, p) {
				continue next
			}
		}
		return true
	}
	return false
}

// holder is a session holding a control: what it was told and why it lost control.
type holder struct {
	ctl     *door.Control
	notices chan door.Notice
	lost    chan error
}

func take(t *testing.T, d *handoverDoor, r *fleettest.Robot, who door.Who, answers bool) *holder {
	t.Helper()
	ctl, err := d.Take(context.Background(), r, cmdVel, who)
	if err != nil {
		t.Fatal(err)
	}
	return watch(ctl, answers)
}

func watch(ctl *door.Control, answers bool) *holder {
	h := &holder{ctl: ctl, notices: make(chan door.Notice, 8), lost: make(chan error, 1)}
	if answers {
		ctl.Watch(func(n door.Notice) { h.notices <- n })
	}
	ctl.OnLost(func(err error) { h.lost <- err })
	return h
}

func (h *holder) notice(t *testing.T, kind door.NoticeKind, by string) door.Notice {
	t.Helper()
	select {
	case n := <-h.notices:
		if n.Kind != kind || n.By != by {
			t.Fatalf("notice %+v, want %s by %s", n, kind, by)
		}
		return n
	case <-time.After(5 * time.Second):
		t.Fatalf("no notice %s by %s", kind, by)
	}
	return door.Notice{}
}

func (h *holder) drive(t *testing.T, x float64) {
	t.Helper()
	if err := h.ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: x}}); err != nil {
		t.Fatal(err)
	}
}

// asking is a Request under way.
type asking struct {
	cancel context.CancelFunc
	done   chan struct{}
	ctl    *door.Control
	err    error
}

func request(d *handoverDoor, r *fleettest.Robot, who door.Who) *asking {
	ctx, cancel := context.WithCancel(context.Background())
	a := &asking{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.ctl, a.err = d.Request(ctx, r, cmdVel, who)
	}()
	return a
}

func (a *asking) answer(t *testing.T) (*door.Control, error) {
	t.Helper()
	select {
	case <-a.done:
		return a.ctl, a.err
	case <-time.After(5 * time.Second):
		t.Fatal("the request got no answer")
	}
	return nil, nil
}

func (a *asking) waiting() bool {
	select {
	case <-a.done:
		return false
	default:
		return true
	}
}

// A grant moves the lease: the old holder's zero reaches the robot before the new holder's
// first command, and nothing of the old holder's after it; the old holder's session is told
// who has the stream now.
func TestRequestGrantedMovesTheLeaseWithTheOldHoldersZeroFirst(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	alic.drive(t, 0.5)
	d.clock.Advance(time.Second / 10)
	alic.drive(t, 0.5) // keeps the key held
	asked := d.clock.Now()
	a := request(d, r, carol)
	n := alic.notice(t, door.NoticeRequested, carol.User)
	if !n.Since.Equal(asked) {
		t.Fatalf("the request is since %v, want %v", n.Since, asked)
	}
	d.clock.Advance(time.Second / 10)
	if !a.waiting() {
		t.Fatal("the request was answered before the holder answered")
	}
	alic.drive(t, 0.6)
	granted := d.clock.Now()
	if err := alic.ctl.Answer(true); err != nil {
		t.Fatal(err)
	}
	ctl, err := a.answer(t)
	if err != nil {
		t.Fatalf("Request = %v, want control", err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0.5, 0}, [2]float64{0.6, 0}, [2]float64{0, 0})
	select {
	case err := <-alic.lost:
		if !fleetgate.Is(err, fleetgate.EConflict) || !strings.Contains(err.Error(), "handed to "+carol.User) {
			t.Fatalf("the old holder lost control with %v, want a conflict naming %s", err, carol.User)
		}
	default:
		t.Fatal("the old holder's session was not told it lost control")
	}
	alic.notice(t, door.NoticeHanded, carol.User)
	// The old holder's keys stop counting at the grant: nothing of theirs reaches the robot.
	alic.drive(t, 0.9)
	d.clock.Advance(time.Second)
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0.5, 0}, [2]float64{0.6, 0}, [2]float64{0, 0})
	ctl.Observe(100 * time.Millisecond) // the new holder's session is governed from the grant: it measures
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.2}}); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0.5, 0}, [2]float64{0.6, 0}, [2]float64{0, 0}, [2]float64{0.2, 0})
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != carol.User || !h[0].Since.Equal(granted) {
		t.Fatalf("Held = %+v, want %s since the grant", h, carol.User)
	}
	// The old session's own end frees nothing of the new holder's.
	if err := alic.ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != carol.User {
		t.Fatalf("Held after the old session ended = %+v", h)
	}
	if !d.journaled(alice.User, "handed over to "+carol.User) || !d.journaled(carol.User, "took control (granted by "+alice.User+")") {
		t.Fatalf("the grant was not journaled: %q", d.what)
	}
}

func TestRequestRefusedLeavesTheHolderDriving(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	a := request(d, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	if err := alic.ctl.Answer(false); err != nil {
		t.Fatal(err)
	}
	_, err := a.answer(t)
	if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != alice.User || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Request = %v, want a refusal by %s", err, alice.User)
	}
	alic.drive(t, 0.5)
	wantTwists(t, r, [2]float64{0.5, 0})
	if err := alic.ctl.Answer(true); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("a second answer = %v, want invalid (nothing waits)", err)
	}
	if !d.journaled(carol.User, "was refused control by "+alice.User) {
		t.Fatalf("the refusal was not journaled: %q", d.what)
	}
}

// No answer in 15 s refuses, and the holder's widget is told the request is over.
func TestRequestUnansweredFor15SecondsIsRefused(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	a := request(d, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	d.clock.Advance(door.AnswerTimeout - time.Millisecond)
	if !a.waiting() {
		t.Fatal("the request ended before 15 s")
	}
	d.clock.Advance(time.Millisecond)
	_, err := a.answer(t)
	if !fleetgate.Is(err, fleetgate.EConflict) || !strings.Contains(err.Error(), "did not answer within 15s") {
		t.Fatalf("Request = %v, want a refusal for silence", err)
	}
	alic.notice(t, door.NoticeExpired, carol.User)
	if err := alic.ctl.Answer(true); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("a grant after the timeout = %v, want invalid", err)
	}
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != alice.User {
		t.Fatalf("Held = %+v, want %s still", h, alice.User)
	}
}

func TestRequestWithdrawnTellsTheHolder(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	a := request(d, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	a.cancel()
	if _, err := a.answer(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("Request = %v, want canceled", err)
	}
	alic.notice(t, door.NoticeWithdrawn, carol.User)
	if err := alic.ctl.Answer(true); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("a grant of a withdrawn request = %v, want invalid", err)
	}
}

// A holder whose client does not speak the extension (it never called Watch), or an upload,
// cannot answer: asking it is refused at once, naming the holder, as the contract's 409.
func TestRequestOfAHolderThatCannotAnswerIsRefusedAtOnce(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	take(t, d, r, alice, false)
	_, err := request(d, r, carol).answer(t)
	if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != alice.User || !strings.Contains(err.Error(), "cannot answer") {
		t.Fatalf("Request = %v, want refused at once", err)
	}
	d2 := newHandoverDoor(t)
	r2 := newRobot()
	if err := d2.Send(context.Background(), r2, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); err != nil {
		t.Fatal(err)
	}
	if _, err := request(d2, r2, carol).answer(t); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("Request of an upload's stream = %v, want a conflict", err)
	}
}

func TestOneRequestAtATime(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	first := request(d, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	_, err := request(d, r, door.Who{User: "dave@example.com", Path: door.PathW3}).answer(t)
	if !fleetgate.Is(err, fleetgate.EConflict) || !strings.Contains(err.Error(), carol.User+" is asking") {
		t.Fatalf("a second request = %v, want refused while %s asks", err, carol.User)
	}
	first.cancel()
	first.answer(t)
}

// A holder that lets go while asked leaves the stream to the asker.
func TestTheAskerTakesAStreamItsHolderLetGo(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	a := request(d, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	if err := alic.ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.answer(t); err != nil {
		t.Fatalf("Request after the holder let go = %v, want control", err)
	}
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != carol.User {
		t.Fatalf("Held = %+v", h)
	}
}

// A supervisor takes control from anyone: the robot gets the holder's zero first, the holder's
// session is told who took it, a pending request is refused, and the journal says it.
func TestOverrideByASupervisorZeroesFirst(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	alic.drive(t, 0.5)
	a := request(d, r, carol)
	alic.notice(t, door.NoticeRequested, carol.User)
	ctl, err := d.Override(context.Background(), r, cmdVel, boss)
	if err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0})
	if err := <-alic.lost; !strings.Contains(err.Error(), "taken by "+boss.User+" (supervisor override)") {
		t.Fatalf("the old holder lost control with %v, want it to name %s", err, boss.User)
	}
	alic.notice(t, door.NoticeTaken, boss.User)
	if _, err := a.answer(t); !fleetgate.Is(err, fleetgate.EConflict) || !strings.Contains(err.Error(), boss.User) {
		t.Fatalf("the pending request = %v, want refused naming the supervisor", err)
	}
	alic.drive(t, 0.9)
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: -0.3}}); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0}, [2]float64{-0.3, 0})
	if !d.journaled(boss.User, "took control (supervisor override, from "+alice.User+")") || !d.journaled(alice.User, "taken over by "+boss.User) {
		t.Fatalf("the override was not journaled: %q", d.what)
	}
	// Also a holder whose client does not speak the extension loses control.
	d2 := newHandoverDoor(t)
	r2 := newRobot()
	plain := take(t, d2, r2, alice, false)
	if _, err := d2.Override(context.Background(), r2, cmdVel, boss); err != nil {
		t.Fatal(err)
	}
	if err := <-plain.lost; !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("lost = %v", err)
	}
	// A control taken over before its session listened is told as soon as it does.
	d3 := newHandoverDoor(t)
	r3 := newRobot()
	unwatched, err := d3.Take(context.Background(), r3, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d3.Override(context.Background(), r3, cmdVel, boss); err != nil {
		t.Fatal(err)
	}
	if w := watch(unwatched, false); !fleetgate.Is(<-w.lost, fleetgate.EConflict) {
		t.Fatal("a control lost before OnLost was not told when it listened")
	}
}

func TestOverrideRefusedToANonSupervisor(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	alic := take(t, d, r, alice, true)
	alic.drive(t, 0.5)
	if _, err := d.Override(context.Background(), r, cmdVel, carol); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Fatalf("Override by an operator = %v, want forbidden", err)
	}
	d.clock.Advance(time.Second / 10)
	alic.drive(t, 0.4)
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0.4, 0})
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != alice.User {
		t.Fatalf("Held = %+v", h)
	}
	if !d.journaled(carol.User, "refused", "organization admin") {
		t.Fatalf("the refused override was not journaled: %q", d.what)
	}
}

// A grant from the gateway's account to the cloud's account of the same email names the new
// holder as the cloud's user: two people, one email.
func TestAGrantToTheCloudsUserOfTheSameEmailNamesThemApart(t *testing.T) {
	d := newHandoverDoor(t)
	r := newRobot()
	local := take(t, d, r, alice, true)
	cloud := door.Who{User: alice.User, Path: door.PathCloudW3}
	a := request(d, r, cloud)
	local.notice(t, door.NoticeRequested, alice.User+" via the cloud")
	if err := local.ctl.Answer(true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.answer(t); err != nil {
		t.Fatal(err)
	}
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != alice.User+" via the cloud" {
		t.Fatalf("Held = %+v, want the cloud's user", h)
	}
	// The local account's own upload is somebody else's now.
	err := d.Send(context.Background(), r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), door.Who{User: alice.User, Path: door.PathUpload})
	if !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("the local account's upload = %v, want a conflict", err)
	}
}

// On the real clock, with the holder's key repeating as fast as a browser's: after the zero of
// the grant, the robot gets nothing of the old holder's, and the new holder's commands follow.
func TestRealTimeGrantHasNoCommandOfTheOldHolderAfterItsZero(t *testing.T) {
	d := door.New(door.Config{})
	t.Cleanup(d.Close)
	r := newRobot()
	ctl, err := d.Take(context.Background(), r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	old := watch(ctl, true)
	stop := make(chan struct{})
	keys := make(chan struct{})
	go func() {
		defer close(keys)
		for {
			select {
			case <-stop:
				return
			default:
			}
			old.ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}})
			time.Sleep(time.Millisecond) // a key's repeat; not a synchronisation
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); len(twistsOf(t, r)) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the holder's key drove nothing")
		}
	}
	a := request(&handoverDoor{Door: d}, r, carol)
	old.notice(t, door.NoticeRequested, carol.User)
	if err := old.ctl.Answer(true); err != nil {
		t.Fatal(err)
	}
	next, err := a.answer(t)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := next.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.2}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond) // the rate cap's window; each goes out
	}
	close(stop)
	<-keys
	got := twistsOf(t, r)
	zero := -1
	for i, tw := range got {
		if tw == [2]float64{0, 0} {
			zero = i
			break
		}
		if tw != [2]float64{0.5, 0} {
			t.Fatalf("before the grant's zero the robot got %v: %v", tw, got)
		}
	}
	if zero < 1 {
		t.Fatalf("no command of the old holder, or no zero: %v", got)
	}
	after := got[zero+1:]
	if len(after) == 0 {
		t.Fatalf("the new holder's commands did not arrive: %v", got)
	}
	for _, tw := range after {
		if tw != [2]float64{0.2, 0} {
			t.Fatalf("after the grant's zero the robot got %v (want only the new holder's 0.2): %v", tw, got)
		}
	}
}
