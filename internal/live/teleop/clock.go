// Package teleop is the policy of teleoperation: which frames are commands, how fast a robot
// may be asked to go, who may control an input stream, and the rate cap and deadman between a
// client's commands and the robot. The live sessions (internal/live) run it on a socket.
package teleop

import "time"

// Clock is the time source. The deadman and the rate cap read it, so tests can replace real
// time with a clock they advance by hand and assert exact instants.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f in its own goroutine after d, like time.AfterFunc.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call. Stop behaves as time.Timer.Stop: it reports whether it
// prevented the call, and a call that has already started is not waited for.
type Timer interface{ Stop() bool }

// RealClock returns the wall clock (time.Now and time.AfterFunc).
func RealClock() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
