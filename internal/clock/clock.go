// Package clock is the one time source of the timing rules (the teleop deadman and rate cap,
// the door's leases, the recorder's limits, the camera supervisor's timeouts and backoff), so
// tests can replace real time with a clock they advance by hand (clocktest.Fake) and assert
// exact instants.
package clock

import "time"

// Clock is the time source.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f in its own goroutine after d, like time.AfterFunc.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call. Stop behaves as time.Timer.Stop: it reports whether it
// prevented the call, and a call that has already started is not waited for.
type Timer interface{ Stop() bool }

// Real returns the wall clock (time.Now and time.AfterFunc).
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// ChanTimer is a timer that sends on its channel, like time.Timer, for code that waits on it
// in a select beside other channels (the camera supervisor's start, stall and backoff
// timeouts). It runs on a Clock's AfterFunc, so every Clock has it, a fake one too.
type ChanTimer struct {
	// C receives the clock's time once, when the timer fires.
	C <-chan time.Time
	t Timer
}

// NewTimer returns a timer of c that fires once after d, like time.NewTimer.
func NewTimer(c Clock, d time.Duration) *ChanTimer {
	ch := make(chan time.Time, 1) // one send ever: it never blocks the clock
	return &ChanTimer{C: ch, t: c.AfterFunc(d, func() { ch <- c.Now() })}
}

// Stop prevents the timer from firing; false when it has fired or was stopped already. As
// with time.Timer, a value sent before Stop stays in C.
func (t *ChanTimer) Stop() bool { return t.t.Stop() }
