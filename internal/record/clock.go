package record

import "time"

// Clock is the recorder's time source: the duration limit, the rate cap and the flush of
// chunks read it, so tests can replace real time with a clock they advance by hand.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f in its own goroutine after d, like time.AfterFunc.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call; Stop behaves as time.Timer.Stop.
type Timer interface{ Stop() bool }

// RealClock is the wall clock.
func RealClock() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
