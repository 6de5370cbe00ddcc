// Package netshape makes a real, impaired network link between two network namespaces, in
// user space: a robot site's uplink (a few Mbit/s, 50 to 150 ms of round trip, some loss) for
// the tests and benchmarks that need one, on a kernel without sch_netem.
//
// A Link opens two TUN devices, moves one into each of two namespaces it creates, and
// forwards the IP packets between them through a Shaper per direction: random loss, a
// tail-drop buffer served at a fixed rate, then a fixed delay, in order. Processes run in the
// namespaces (Link.Command); nothing is addressed outside them.
package netshape

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/clock"
)

// Profile is one direction's impairment. The zero Profile forwards every packet at once.
type Profile struct {
	// Rate is the line rate in bits a second; 0 is unlimited (no serialization, no buffer).
	Rate int64
	// Delay is added to every packet after it leaves the line (one way: half the round trip
	// when both directions have it).
	Delay time.Duration
	// Loss is the chance each packet is dropped on arrival, 0 to 1.
	Loss float64
	// Buffer is the bytes that may wait for the line (a tail-drop queue); 0 is
	// DefaultBuffer. Unused when Rate is 0.
	Buffer int
	// Down drops every packet: the link is cut.
	Down bool
}

// DefaultBuffer holds about 100 ms at 2 Mbit/s plus a burst: a router's modest queue, not a
// bufferbloated one.
const DefaultBuffer = 64 * 1024

// Stats counts a direction's packets.
type Stats struct {
	Packets   int64 // arrived
	Delivered int64
	Lost      int64 // dropped by Loss or Down
	TailDrops int64 // dropped because the buffer was full
	Bytes     int64 // delivered
}

// Shaper impairs one direction: Push a packet, and it reaches out later, or never. Packets
// leave in the order they came. Safe for concurrent use; out is called on one goroutine at a
// time, never under the shaper's lock.
type Shaper struct {
	clock clock.Clock
	out   func([]byte)

	mu       sync.Mutex
	profile  Profile
	rng      *rand.Rand
	lineFree time.Time   // when the line has sent every queued packet
	onLine   []departure // packets queued or on the line, oldest first: the buffer's fill
	queued   int         // their bytes
	pending  []due       // packets waiting for their delivery time, in order
	armed    bool        // a pump is armed for pending[0]
	stats    Stats
	closed   bool
}

type departure struct {
	at   time.Time
	size int
}

type due struct {
	at  time.Time
	pkt []byte
}

// NewShaper returns a shaper that hands packets to out; seed makes its losses repeatable.
func NewShaper(c clock.Clock, p Profile, seed uint64, out func([]byte)) *Shaper {
	return &Shaper{clock: c, out: out, profile: p, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// SetProfile changes the impairment for the packets that arrive from now on; packets already
// queued keep their times.
func (s *Shaper) SetProfile(p Profile) {
	s.mu.Lock()
	s.profile = p
	s.mu.Unlock()
}

// Stats returns the counts so far.
func (s *Shaper) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Close drops what waits and every later packet.
func (s *Shaper) Close() {
	s.mu.Lock()
	s.closed = true
	s.pending = nil
	s.mu.Unlock()
}

// Push takes one packet (the shaper keeps pkt: the caller must not reuse it).
func (s *Shaper) Push(pkt []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Packets++
	p := s.profile
	if s.closed || p.Down || (p.Loss > 0 && s.rng.Float64() < p.Loss) {
		s.stats.Lost++
		return
	}
	now := s.clock.Now()
	leaves := now
	if p.Rate > 0 {
		s.drainLine(now)
		buffer := p.Buffer
		if buffer <= 0 {
			buffer = DefaultBuffer
		}
		if s.queued+len(pkt) > buffer {
			s.stats.TailDrops++
			return
		}
		start := now
		if s.lineFree.After(now) {
			start = s.lineFree // behind the packets on the line
		}
		leaves = start.Add(time.Duration(int64(len(pkt)) * 8 * int64(time.Second) / p.Rate))
		s.lineFree = leaves
		s.onLine = append(s.onLine, departure{at: leaves, size: len(pkt)})
		s.queued += len(pkt)
	}
	at := leaves.Add(p.Delay)
	if n := len(s.pending); n > 0 && at.Before(s.pending[n-1].at) {
		at = s.pending[n-1].at // a shorter delay set since: never overtake
	}
	s.pending = append(s.pending, due{at: at, pkt: pkt})
	s.armLocked(now)
}

// drainLine forgets the packets that have left the line by now.
func (s *Shaper) drainLine(now time.Time) {
	i := 0
	for ; i < len(s.onLine) && !s.onLine[i].at.After(now); i++ {
		s.queued -= s.onLine[i].size
	}
	s.onLine = s.onLine[i:]
}

// armLocked arms the pump for the oldest pending packet, unless one is armed: one pump at a
// time keeps the packets in order.
func (s *Shaper) armLocked(now time.Time) {
	if s.armed || len(s.pending) == 0 {
		return
	}
	s.armed = true
	s.clock.AfterFunc(s.pending[0].at.Sub(now), s.pump)
}

// pump delivers every packet due by now, in order, then arms itself for the next.
func (s *Shaper) pump() {
	s.mu.Lock()
	now := s.clock.Now()
	var ready [][]byte
	i := 0
	for ; i < len(s.pending) && !s.pending[i].at.After(now); i++ {
		ready = append(ready, s.pending[i].pkt)
	}
	s.pending = s.pending[i:]
	s.mu.Unlock()
	for _, pkt := range ready {
		s.out(pkt)
	}
	s.mu.Lock()
	for _, pkt := range ready {
		s.stats.Delivered++
		s.stats.Bytes += int64(len(pkt))
	}
	s.armed = false
	s.armLocked(s.clock.Now())
	s.mu.Unlock()
}
