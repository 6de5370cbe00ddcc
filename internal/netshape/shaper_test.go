package netshape_test

import (
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/netshape"
)

// arrivals records what a shaper delivered and when, by the fake clock.
type arrivals struct {
	c    *clocktest.Fake
	mu   sync.Mutex
	at   []time.Duration // since start
	ids  []byte
	from time.Time
}

func newArrivals(c *clocktest.Fake) *arrivals { return &arrivals{c: c, from: c.Now()} }

func (a *arrivals) out(pkt []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = append(a.at, a.c.Now().Sub(a.from))
	a.ids = append(a.ids, pkt[0])
}

func (a *arrivals) got() ([]time.Duration, []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Duration(nil), a.at...), append([]byte(nil), a.ids...)
}

func packet(id byte, size int) []byte {
	p := make([]byte, size)
	p[0] = id
	return p
}

// A packet leaves the line after its serialization time behind those before it, then takes
// the delay: 1,250 bytes at 1 Mbit/s are 10 ms on the line.
func TestRateThenDelayInOrder(t *testing.T) {
	c := clocktest.New()
	a := newArrivals(c)
	s := netshape.NewShaper(c, netshape.Profile{Rate: 1_000_000, Delay: 50 * time.Millisecond}, 1, a.out)
	for id := byte(1); id <= 3; id++ {
		s.Push(packet(id, 1250))
	}
	c.Advance(59 * time.Millisecond)
	if at, _ := a.got(); len(at) != 0 {
		t.Fatalf("delivered before 60 ms: %v", at)
	}
	c.Advance(time.Second)
	at, ids := a.got()
	want := []time.Duration{60 * time.Millisecond, 70 * time.Millisecond, 80 * time.Millisecond}
	if len(at) != 3 || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] || string(ids) != "\x01\x02\x03" {
		t.Fatalf("arrivals %v of %v, want %v in order", at, ids, want)
	}
	// An idle line starts at once again.
	s.Push(packet(4, 1250))
	c.Advance(time.Second)
	at, _ = a.got()
	if got := at[3] - (time.Second + 59*time.Millisecond); got != 60*time.Millisecond {
		t.Fatalf("after idle: %v after the push, want 60 ms", got)
	}
}

// The buffer holds what waits for the line: beyond it, packets are dropped at the tail, and
// room comes back as the line sends.
func TestTailDropAtTheBuffer(t *testing.T) {
	c := clocktest.New()
	a := newArrivals(c)
	s := netshape.NewShaper(c, netshape.Profile{Rate: 1_000_000, Buffer: 3000}, 1, a.out)
	for id := byte(1); id <= 4; id++ {
		s.Push(packet(id, 1000))
	}
	if st := s.Stats(); st.TailDrops != 1 || st.Packets != 4 {
		t.Fatalf("stats %+v, want the fourth dropped", st)
	}
	c.Advance(8 * time.Millisecond) // the first has left the line: room for one more
	s.Push(packet(5, 1000))
	c.Advance(time.Second)
	if _, ids := a.got(); string(ids) != "\x01\x02\x03\x05" {
		t.Fatalf("delivered %v, want 1 2 3 5", ids)
	}
	if st := s.Stats(); st.Delivered != 4 || st.Bytes != 4000 || st.TailDrops != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// Loss drops about its share, the same packets for the same seed; Down drops all.
func TestLossIsRandomButRepeatable(t *testing.T) {
	run := func(seed uint64) []byte {
		c := clocktest.New()
		a := newArrivals(c)
		s := netshape.NewShaper(c, netshape.Profile{Loss: 0.2}, seed, a.out)
		for i := range 1000 {
			s.Push(packet(byte(i), 100))
		}
		c.Advance(time.Millisecond)
		if st := s.Stats(); st.Lost+st.Delivered != 1000 {
			t.Fatalf("stats %+v: every packet lost or delivered", st)
		}
		_, ids := a.got()
		return ids
	}
	first, again, other := run(7), run(7), run(8)
	if n := 1000 - len(first); n < 150 || n > 250 {
		t.Fatalf("%d of 1000 lost at 20%%", n)
	}
	if string(first) != string(again) {
		t.Fatal("the same seed lost other packets")
	}
	if string(first) == string(other) {
		t.Fatal("another seed lost the same packets")
	}

	c := clocktest.New()
	a := newArrivals(c)
	s := netshape.NewShaper(c, netshape.Profile{Down: true}, 1, a.out)
	s.Push(packet(1, 100))
	s.SetProfile(netshape.Profile{})
	s.Push(packet(2, 100))
	c.Advance(time.Millisecond)
	if _, ids := a.got(); string(ids) != "\x02" {
		t.Fatalf("delivered %v, want only the packet after the link came back", ids)
	}
}

// A shorter delay set while packets wait never lets a later packet overtake them.
func TestAShorterDelayNeverReorders(t *testing.T) {
	c := clocktest.New()
	a := newArrivals(c)
	s := netshape.NewShaper(c, netshape.Profile{Delay: 100 * time.Millisecond}, 1, a.out)
	s.Push(packet(1, 100))
	s.SetProfile(netshape.Profile{Delay: 10 * time.Millisecond})
	s.Push(packet(2, 100))
	c.Advance(time.Second)
	at, ids := a.got()
	if string(ids) != "\x01\x02" || at[1] < at[0] {
		t.Fatalf("delivered %v at %v, want 1 then 2", ids, at)
	}
	s.Close()
	s.Push(packet(3, 100))
	c.Advance(time.Second)
	if _, ids := a.got(); len(ids) != 2 {
		t.Fatalf("delivered after Close: %v", ids)
	}
}
