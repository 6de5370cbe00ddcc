package clocktest

import (
	"slices"
	"testing"
	"time"
)

func TestFakeClock(t *testing.T) {
	clock := New()
	start := clock.Now()
	type fired struct {
		name string
		at   time.Duration
	}
	var got []fired
	record := func(name string) func() {
		return func() { got = append(got, fired{name, clock.Now().Sub(start)}) }
	}
	clock.AfterFunc(30*time.Millisecond, record("c"))
	clock.AfterFunc(10*time.Millisecond, record("a"))
	clock.AfterFunc(10*time.Millisecond, record("b")) // same instant: armed later, runs later
	stopped := clock.AfterFunc(20*time.Millisecond, record("stopped"))
	clock.AfterFunc(15*time.Millisecond, func() {
		record("d")()
		clock.AfterFunc(5*time.Millisecond, record("armed by d")) // due at 20 ms, inside this Advance
	})
	if !stopped.Stop() {
		t.Fatal("Stop of an armed timer = false, want true")
	}
	if stopped.Stop() {
		t.Fatal("second Stop = true, want false")
	}

	clock.Advance(29 * time.Millisecond)
	want := []fired{{"a", 10 * time.Millisecond}, {"b", 10 * time.Millisecond}, {"d", 15 * time.Millisecond}, {"armed by d", 20 * time.Millisecond}}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if now := clock.Now().Sub(start); now != 29*time.Millisecond {
		t.Fatalf("Now after Advance = start+%v, want start+29ms", now)
	}
	clock.Advance(time.Millisecond)
	if last := got[len(got)-1]; last != (fired{"c", 30 * time.Millisecond}) {
		t.Fatalf("last fired %v, want c at 30ms", last)
	}
	if n := clock.Pending(); n != 0 {
		t.Fatalf("%d timers still armed, want 0", n)
	}
}
