package camera

import "time"

// Clock is the supervisor's time source: the stall and start timeouts, the restart backoff
// and the linger after the last viewer read it, so tests can advance time by hand.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d, like time.NewTimer.
	NewTimer(d time.Duration) Timer
}

// Timer is a pending timer of a Clock.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; false when it already fired or stopped.
	Stop() bool
}

// RealClock is the wall clock.
func RealClock() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }
