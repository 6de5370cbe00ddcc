package limit

import (
	"fmt"
	"testing"
	"time"
)

// clock is a manual clock; tests move it, the window reads it.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time          { return c.t }
func (c *clock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func newWindow(max int, period time.Duration) (*Window, *clock) {
	c := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	return &Window{Max: max, Period: period, Now: c.Now}, c
}

func TestWindowBlocksAfterMaxFailures(t *testing.T) {
	w, c := newWindow(10, time.Minute)
	// One failure a second: the oldest leaves the window 60 s after it was recorded.
	for i := range 10 {
		if wait, blocked := w.Blocked("a"); blocked {
			t.Fatalf("blocked after %d failures (wait %v); the limit is 10", i, wait)
		}
		w.Fail("a")
		c.Advance(time.Second)
	}
	// Now 10 s after the first failure.
	wait, blocked := w.Blocked("a")
	if !blocked {
		t.Fatal("not blocked after 10 failures")
	}
	if want := 50 * time.Second; wait != want {
		t.Errorf("wait = %v, want %v (until the oldest failure leaves)", wait, want)
	}

	c.Advance(wait - time.Millisecond)
	if _, blocked := w.Blocked("a"); !blocked {
		t.Error("unblocked before the oldest failure left the window")
	}
	c.Advance(time.Millisecond)
	if wait, blocked := w.Blocked("a"); blocked {
		t.Errorf("still blocked (wait %v) once the oldest failure left", wait)
	}

	// Nine failures remain live: one more blocks again, until the second oldest leaves.
	w.Fail("a")
	wait, blocked = w.Blocked("a")
	if !blocked || wait != time.Second {
		t.Errorf("after an 11th failure: Blocked = %v, %v; want true, 1s", wait, blocked)
	}
}

func TestWindowWait(t *testing.T) {
	tests := []struct {
		name    string
		elapsed time.Duration // since the failures, all at one instant
		want    time.Duration
	}{
		{"right after", 0, time.Minute},
		{"half way", 30 * time.Second, 30 * time.Second},
		{"under a second left rounds up to one", 59*time.Second + 500*time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, c := newWindow(3, time.Minute)
			for range 3 {
				w.Fail("k")
			}
			c.Advance(tt.elapsed)
			wait, blocked := w.Blocked("k")
			if !blocked || wait != tt.want {
				t.Errorf("Blocked = %v, %v; want %v, true", wait, blocked, tt.want)
			}
		})
	}
}

func TestWindowKeysAreIndependent(t *testing.T) {
	w, _ := newWindow(2, time.Minute)
	w.Fail("10.0.0.1")
	w.Fail("10.0.0.1")
	if _, blocked := w.Blocked("10.0.0.1"); !blocked {
		t.Fatal("10.0.0.1 not blocked after 2 failures")
	}
	if wait, blocked := w.Blocked("10.0.0.2"); blocked {
		t.Errorf("10.0.0.2 blocked (wait %v) by the failures of 10.0.0.1", wait)
	}
	w.Fail("10.0.0.2")
	if _, blocked := w.Blocked("10.0.0.2"); blocked {
		t.Error("10.0.0.2 blocked after 1 of 2 failures")
	}
}

func TestWindowFailuresBeyondMaxDoNotExtendTheBlock(t *testing.T) {
	w, c := newWindow(2, time.Minute)
	w.Fail("k")
	c.Advance(10 * time.Second)
	w.Fail("k")
	c.Advance(10 * time.Second)
	w.Fail("k") // the first no longer matters: the second and third decide
	wait, blocked := w.Blocked("k")
	if !blocked || wait != 50*time.Second {
		t.Errorf("Blocked = %v, %v; want 50s, true (until the second failure leaves)", wait, blocked)
	}
	if n := len(w.failures["k"]); n != 2 {
		t.Errorf("kept %d failure times, want at most Max = 2", n)
	}
}

func TestWindowSweepsIdleKeys(t *testing.T) {
	w, c := newWindow(10, time.Minute)
	// An attacker cycling addresses: each fails once.
	for i := range 1000 {
		w.Fail(fmt.Sprintf("203.0.113.%d", i))
	}
	if n := len(w.failures); n != 1000 {
		t.Fatalf("tracking %d keys, want 1000", n)
	}
	c.Advance(2 * time.Minute)
	w.Fail("198.51.100.1")
	if n := len(w.failures); n != 1 {
		t.Errorf("tracking %d keys after the others went idle, want 1", n)
	}
}

func TestWindowBlockedForgetsExpiredKey(t *testing.T) {
	w, c := newWindow(10, time.Minute)
	w.Fail("k")
	c.Advance(time.Minute)
	if _, blocked := w.Blocked("k"); blocked {
		t.Fatal("blocked with no live failure")
	}
	if _, ok := w.failures["k"]; ok {
		t.Error("a key with no live failure is still tracked")
	}
}

func TestWindowZeroValue(t *testing.T) {
	var w Window // Max 0: no limit, and no panic on an empty key
	w.Fail("k")
	if wait, blocked := w.Blocked("k"); blocked {
		t.Errorf("zero Window blocked (wait %v)", wait)
	}
}

func TestWindowRealClock(t *testing.T) {
	w := &Window{Max: 1, Period: time.Hour}
	w.Fail("k")
	wait, blocked := w.Blocked("k")
	if !blocked || wait <= 59*time.Minute || wait > time.Hour {
		t.Errorf("Blocked = %v, %v; want about 1h, true", wait, blocked)
	}
}

func TestWindowAttemptCountsBeforeTheCheck(t *testing.T) {
	w, c := newWindow(3, time.Minute)
	for i := range 3 {
		if wait, blocked := w.Attempt("a"); blocked {
			t.Fatalf("attempt %d blocked (wait %v); the limit is 3", i, wait)
		}
	}
	wait, blocked := w.Attempt("a")
	if !blocked || wait != time.Minute {
		t.Fatalf("4th attempt: blocked %v, wait %v; want blocked for a minute", blocked, wait)
	}
	// A blocked attempt is not recorded: the block ends when the first attempt ages out.
	c.Advance(time.Minute)
	if _, blocked := w.Attempt("a"); blocked {
		t.Fatal("still blocked a minute after the first attempts")
	}
}

func TestWindowForgiveTakesBackASuccess(t *testing.T) {
	w, _ := newWindow(2, time.Minute)
	for i := range 10 {
		if _, blocked := w.Attempt("a"); blocked {
			t.Fatalf("attempt %d blocked although each one was forgiven", i)
		}
		w.Forgive("a")
	}
	w.Forgive("b") // nothing to forgive: no effect
	w.Attempt("a")
	w.Attempt("a")
	if _, blocked := w.Blocked("a"); !blocked {
		t.Error("two unforgiven attempts do not block at a limit of 2")
	}
	w.Forgive("a")
	if _, blocked := w.Blocked("a"); blocked {
		t.Error("blocked after one of the two was forgiven")
	}
}

func TestWindowCountAndLast(t *testing.T) {
	w, c := newWindow(5, time.Minute)
	if n := w.Count("a"); n != 0 {
		t.Errorf("count of an unknown key: %d", n)
	}
	if _, ok := w.Last("a"); ok {
		t.Error("an unknown key has a last failure")
	}
	first := c.Now()
	w.Fail("a")
	c.Advance(20 * time.Second)
	w.Fail("a")
	if n := w.Count("a"); n != 2 {
		t.Errorf("count %d, want 2", n)
	}
	if last, ok := w.Last("a"); !ok || !last.Equal(first.Add(20*time.Second)) {
		t.Errorf("last %v %v, want the second failure", last, ok)
	}
	c.Advance(45 * time.Second) // the first left the window
	if n := w.Count("a"); n != 1 {
		t.Errorf("count %d after the first expired, want 1", n)
	}
	for range 10 {
		w.Fail("a")
	}
	if n := w.Count("a"); n != 5 {
		t.Errorf("count %d, want at most Max", n)
	}
}

// TestSharedWindows: two windows that pass their failures to each other (as the cloud's
// replicas do) block a key after Max failures between them, and a failure taken back on one
// is taken back on the other.
func TestSharedWindows(t *testing.T) {
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { return now }
	a := &Window{Max: 4, Period: time.Minute, Now: clock}
	b := &Window{Max: 4, Period: time.Minute, Now: clock}
	a.Share = func(key string, at time.Time, forgiven bool) { b.Apply(key, at, forgiven) }
	b.Share = func(key string, at time.Time, forgiven bool) { a.Apply(key, at, forgiven) }
	for i := range 4 {
		w := a
		if i%2 == 1 {
			w = b
		}
		if _, blocked := w.Attempt("10.0.0.9"); blocked {
			t.Fatalf("attempt %d blocked", i+1)
		}
		now = now.Add(time.Second)
	}
	for name, w := range map[string]*Window{"a": a, "b": b} {
		if _, blocked := w.Blocked("10.0.0.9"); !blocked {
			t.Errorf("%s does not block after 4 failures spread over both", name)
		}
	}
	b.Forgive("10.0.0.9") // the newest, recorded on b, turned out a success
	for name, w := range map[string]*Window{"a": a, "b": b} {
		if n := w.Count("10.0.0.9"); n != 3 {
			t.Errorf("%s counts %d failures after one was forgiven, want 3", name, n)
		}
	}
	// A failure from elsewhere older than the window is not counted.
	a.Apply("10.0.0.7", now.Add(-2*time.Minute), false)
	if n := a.Count("10.0.0.7"); n != 0 {
		t.Errorf("a failure outside the window counts: %d", n)
	}
}
