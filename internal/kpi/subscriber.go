package kpi

import (
	"sync"
	"sync/atomic"
	"time"
)

// Frame is one FleetCustomKpiEventDto, marshalled once and shared by every subscriber of its
// set: nobody may modify Data.
type Frame struct {
	Data []byte
	At   time.Time // the tick that built it
}

// Subscriber is one client of the hub. Its queue is a single slot, newest wins: the hub never
// waits for a subscriber, and a slow one loses older frames (the contract's best effort).
//
// The owner loops on Ready and Done, takes frames with Next, brackets each write with
// BeginWrite and EndWrite (the hub cuts off writes that stall), and finally calls Close.
type Subscriber struct {
	hub   *Hub
	token tokenKey
	abort func()
	group *group // guarded by hub.mu

	frame atomic.Pointer[Frame]
	ready chan struct{} // capacity 1: a pending signal stands for any number of offers

	endOnce sync.Once
	err     error // set before done closes
	done    chan struct{}

	writing   atomic.Int64 // UnixNano when the write under way began; 0 between writes
	dropped   atomic.Uint64
	closeOnce sync.Once
	onReady   atomic.Pointer[func()] // OnReady's
}

// OnReady has f called, on the hub's goroutine, after each offer and when the subscription
// ends, instead of a writer waiting on Ready: a writer woken only when there is work keeps no
// goroutine (and no stack) between frames. f must not block; it is called once at once.
func (s *Subscriber) OnReady(f func()) {
	s.onReady.Store(&f)
	f()
}

func (s *Subscriber) notify() {
	if f := s.onReady.Load(); f != nil {
		(*f)()
	}
}

// Ready signals that a frame may be waiting; Next takes it.
func (s *Subscriber) Ready() <-chan struct{} { return s.ready }

// Next takes the pending frame, nil when there is none (a signal may outlive its frame).
func (s *Subscriber) Next() *Frame { return s.frame.Swap(nil) }

// Done is closed when the hub ends the subscription; Err says why.
func (s *Subscriber) Done() <-chan struct{} { return s.done }

// Err is why the subscription ended (EUnauthorized, ErrStalled, ErrClosed); nil before Done.
func (s *Subscriber) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Dropped counts the frames this subscriber lost because it had not taken the one before.
func (s *Subscriber) Dropped() uint64 { return s.dropped.Load() }

// BeginWrite marks the start of a frame's write, for stall detection.
func (s *Subscriber) BeginWrite() { s.writing.Store(s.hub.cfg.Now().UnixNano()) }

// EndWrite marks its end.
func (s *Subscriber) EndWrite() { s.writing.Store(0) }

// Close leaves the hub. It is safe to call more than once.
func (s *Subscriber) Close() {
	s.closeOnce.Do(func() { s.hub.remove(s) })
}

// offer puts f in the slot, replacing (and counting as dropped) a frame not yet taken, and
// signals the owner without blocking.
func (s *Subscriber) offer(f *Frame) {
	if old := s.frame.Swap(f); old != nil {
		s.dropped.Add(1)
		s.hub.stats.drops.Add(1)
	}
	select {
	case s.ready <- struct{}{}:
	default:
	}
	s.notify()
}

// end ends the subscription once with err.
func (s *Subscriber) end(err error) {
	s.endOnce.Do(func() {
		s.err = err
		close(s.done)
		s.frame.Swap(nil) // nothing more goes out after a revocation
		s.notify()
	})
}

// abortNow ends the subscription as stalled (unless it ended already) and closes the
// connection under the writer.
func (s *Subscriber) abortNow() {
	s.end(ErrStalled)
	if s.abort != nil {
		s.abort()
	}
}

// stalled reports whether the write under way began more than limit before now.
func (s *Subscriber) stalled(now time.Time, limit time.Duration) bool {
	began := s.writing.Load()
	return began != 0 && now.UnixNano()-began > int64(limit)
}
