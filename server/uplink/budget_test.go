package uplink

import (
	"testing"
	"time"
)

// TestBudgetArithmetic: a budget of 1000 bytes a second, a second's worth deep, at exact
// instants. A full bucket sends at once; a sample that does not fit waits for the bytes it
// lacks; a sample larger than the bucket goes once it is full, and the samples after it wait
// off what it owed.
func TestBudgetArithmetic(t *testing.T) {
	b := newBudget(1000)
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		name string
		at   time.Duration
		n    int
		want time.Duration
	}{
		{"a full bucket", 0, 600, 0},
		{"what is left", 0, 400, 0},
		{"empty: waits its bytes", 0, 250, 250 * time.Millisecond},
		{"refilled by then", 1250 * time.Millisecond, 1000, 0},
		{"larger than the bucket, waits for it to be full", 1250 * time.Millisecond, 3000, time.Second},
		{"waits off what the large one owed", 2250 * time.Millisecond, 1, 2*time.Second + time.Millisecond},
	}
	for _, s := range steps {
		if got := b.reserve(t0.Add(s.at), s.n); got != s.want {
			t.Errorf("%s: %d bytes at +%v wait %v, want %v", s.name, s.n, s.at, got, s.want)
		}
	}
	if newBudget(0) != nil || newBudget(-1) != nil {
		t.Error("a budget of 0 bytes a second is a cap, want none")
	}
}

// TestBudgetInRealTime: take waits in real time and gives up when its connection ends.
func TestBudgetInRealTime(t *testing.T) {
	b := newBudget(100_000)
	start := time.Now()
	if !b.take(100_000, nil) || !b.take(5_000, nil) {
		t.Fatal("take gave up with nothing closed")
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("105 kB took %v on a budget of 100 kB/s with a bucket of 100 kB, want at least 50 ms", d)
	}
	done := make(chan struct{})
	close(done)
	if b.take(100_000, done) {
		t.Error("take waited out a second's budget on an ended connection")
	}
	var none *budget
	if !none.take(1<<30, nil) {
		t.Error("no budget held a sample back")
	}
}
