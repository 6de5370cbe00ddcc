// Package clock is the time source of the timing rules (the teleop deadman and rate cap, the
// door's leases), so tests can replace real time with a clock they advance by hand
// (clocktest.Fake) and assert exact instants.
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
