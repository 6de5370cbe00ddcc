package camera

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// fakeClock is the fake clock with a wait for the supervisor's timers.
type fakeClock struct{ *clocktest.Fake }

func newFakeClock() fakeClock {
	return fakeClock{clocktest.NewAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
}

// waitTimer waits until a timer of duration d is pending: the supervisor runs in its own
// goroutine, and the test must not advance the clock before it set the timer up.
func (c fakeClock) waitTimer(t *testing.T, d time.Duration) {
	t.Helper()
	waitFor(t, "a pending timer of "+d.String(), func() bool { return c.PendingAt(c.Now().Add(d)) > 0 })
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// fakeProducer stands in for ffmpeg.
type fakeProducer struct {
	frames  chan Frame
	stopped chan struct{}
	once    sync.Once
	err     error
	live    *atomic.Int32
}

func (p *fakeProducer) Frames() <-chan Frame { return p.frames }
func (p *fakeProducer) Err() error           { return p.err }

func (p *fakeProducer) Stop() {
	p.once.Do(func() {
		close(p.stopped)
		p.live.Add(-1)
		close(p.frames)
	})
}

// end closes the producer's output as ffmpeg exiting does.
func (p *fakeProducer) end(err error) {
	p.once.Do(func() {
		p.err = err
		p.live.Add(-1)
		close(p.frames)
	})
}

// fakeSource hands out fake producers and counts them.
type fakeSource struct {
	mu       sync.Mutex
	opens    int
	fail     error // the next opens fail with it
	current  *fakeProducer
	live     atomic.Int32
	maxLive  atomic.Int32
	produced chan *fakeProducer
}

func newFakeSource() *fakeSource { return &fakeSource{produced: make(chan *fakeProducer, 16)} }

func (s *fakeSource) open(context.Context) (producer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opens++
	if s.fail != nil {
		return nil, s.fail
	}
	p := &fakeProducer{frames: make(chan Frame), stopped: make(chan struct{}), live: &s.live}
	if n := s.live.Add(1); n > s.maxLive.Load() {
		s.maxLive.Store(n)
	}
	s.current = p
	s.produced <- p
	return p, nil
}

func (s *fakeSource) openCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens
}

// next waits for the next producer the camera opens.
func (s *fakeSource) next(t *testing.T) *fakeProducer {
	t.Helper()
	select {
	case p := <-s.produced:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("the camera opened no producer")
		return nil
	}
}

func newFakeCamera(t *testing.T) (*Camera, *fakeSource, fakeClock) {
	t.Helper()
	src, clock := newFakeSource(), newFakeClock()
	c := New(Config{Name: "dock", Spec: Spec{Source: fleetgate.SourceRTSP, URL: "rtsp://cam.example/s"}, Clock: clock, open: src.open})
	t.Cleanup(c.Close)
	return c, src, clock
}

// send hands one image to the supervisor and waits until the subscriber has it.
func send(t *testing.T, p *fakeProducer, sub *fleet.Subscription, shade uint8, at time.Time) fleetgate.Sample {
	t.Helper()
	select {
	case p.frames <- Frame{JPEG: []byte{0xFF, 0xD8, shade, 0xFF, 0xD9}, At: at}:
	case <-time.After(10 * time.Second):
		t.Fatal("the supervisor took no image")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("no sample: %v", err)
	}
	return s
}

func TestCameraPublishesCompressedImages(t *testing.T) {
	c, src, clock := newFakeCamera(t)
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	p := src.next(t)
	s := send(t, p, sub, 7, clock.Now())
	var img catalogpb.CompressedImage
	if err := proto.Unmarshal(s.Payload, &img); err != nil {
		t.Fatal(err)
	}
	if img.Format != "jpeg" || img.Header.GetFrameId() != "dock" || img.Data[2] != 7 {
		t.Fatalf("image %v", &img)
	}
	if s.Type != ImageType || img.Header.Stamp.GetSec() != int32(clock.Now().Unix()) {
		t.Fatalf("sample type %s stamp %v", s.Type, img.Header.Stamp)
	}
	if got := c.Stream(); got.Component != Component || got.Name != "dock" || got.SourceURL != "rtsp://cam.example/s" || got.Source != fleetgate.SourceRTSP {
		t.Fatalf("descriptor %+v", got)
	}
}

func TestCameraLingersAfterTheLastViewer(t *testing.T) {
	c, src, clock := newFakeCamera(t)
	sub, _ := c.Subscribe()
	p := src.next(t)
	send(t, p, sub, 1, clock.Now())
	sub.Close()
	clock.waitTimer(t, DefaultLinger)

	// A viewer back within the linger keeps the same ffmpeg.
	clock.Advance(DefaultLinger - time.Millisecond)
	sub2, _ := c.Subscribe()
	send(t, p, sub2, 2, clock.Now())
	if src.openCount() != 1 {
		t.Fatalf("%d opens, want 1", src.openCount())
	}
	sub2.Close()
	clock.waitTimer(t, DefaultLinger)
	clock.Advance(DefaultLinger - time.Millisecond)
	select {
	case <-p.stopped:
		t.Fatal("stopped before the linger was over")
	default:
	}
	clock.Advance(time.Millisecond)
	select {
	case <-p.stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("ffmpeg still runs after the linger")
	}
}

func TestCameraRestartsAStalledStreamWithBackoff(t *testing.T) {
	c, src, clock := newFakeCamera(t)
	sub, _ := c.Subscribe()
	defer sub.Close()
	p := src.next(t)
	send(t, p, sub, 1, clock.Now())
	waits := []time.Duration{DefaultBackoffMin, 2 * DefaultBackoffMin, 4 * DefaultBackoffMin}
	for i, wait := range waits {
		clock.waitTimer(t, DefaultStallTimeout)
		clock.Advance(DefaultStallTimeout - time.Millisecond)
		if src.openCount() != i+1 {
			t.Fatalf("restarted before the stall timeout")
		}
		clock.Advance(time.Millisecond)
		select {
		case <-p.stopped:
		case <-time.After(10 * time.Second):
			t.Fatal("a stalled ffmpeg was not stopped")
		}
		clock.waitTimer(t, wait)
		clock.Advance(wait - time.Millisecond)
		if src.openCount() != i+1 {
			t.Fatalf("restart %d came before its backoff of %s", i+1, wait)
		}
		clock.Advance(time.Millisecond)
		p = src.next(t)
		// The viewer stayed through the stall and gets the restarted stream.
		send(t, p, sub, uint8(i+2), clock.Now())
	}
	if m := src.maxLive.Load(); m != 1 {
		t.Fatalf("%d producers ran at once", m)
	}
}

func TestCameraRestartsAfterTheStreamEnds(t *testing.T) {
	c, src, clock := newFakeCamera(t)
	sub, _ := c.Subscribe()
	defer sub.Close()
	p := src.next(t)
	send(t, p, sub, 1, clock.Now())
	p.end(errors.New("connection reset"))
	clock.waitTimer(t, DefaultBackoffMin)
	clock.Advance(DefaultBackoffMin)
	p = src.next(t)
	send(t, p, sub, 2, clock.Now())
}

func TestCameraUnreachableEndsViewersWithTheReason(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(*fakeSource)
		act    func(*testing.T, *fakeSource, fakeClock)
		reason string
	}{
		{"open fails", func(s *fakeSource) { s.fail = errors.New("Connection refused") },
			func(*testing.T, *fakeSource, fakeClock) {}, "Connection refused"},
		{"no first image", nil, func(t *testing.T, s *fakeSource, clock fakeClock) {
			s.next(t)
			clock.waitTimer(t, DefaultFirstImage)
			clock.Advance(DefaultFirstImage)
		}, "sent no image within 10s"},
		{"exits before an image", nil, func(t *testing.T, s *fakeSource, clock fakeClock) {
			s.next(t).end(errors.New("401 Unauthorized"))
		}, "401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, src, clock := newFakeCamera(t)
			if tt.setup != nil {
				tt.setup(src)
			}
			subs := make([]*fleet.Subscription, 3)
			for i := range subs {
				subs[i], _ = c.Subscribe()
			}
			tt.act(t, src, clock)
			for _, sub := range subs {
				select {
				case <-sub.Done():
				case <-time.After(10 * time.Second):
					t.Fatal("the viewer was not told")
				}
				if err := sub.Err(); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), tt.reason) {
					t.Fatalf("viewer ended with %v, want unavailable: %s", err, tt.reason)
				}
			}
			// The next viewer makes a new attempt.
			src.mu.Lock()
			src.fail = nil
			before := src.opens
			src.mu.Unlock()
			sub, err := c.Subscribe()
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			send(t, src.next(t), sub, 9, clock.Now())
			if n := src.openCount(); n != before+1 {
				t.Fatalf("%d opens, want %d", n, before+1)
			}
		})
	}
}

func TestCameraReadStartsTheCamera(t *testing.T) {
	c, src, clock := newFakeCamera(t)
	done := make(chan fleetgate.Sample)
	go func() {
		s, err := c.Read(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	p := src.next(t)
	p.frames <- Frame{JPEG: []byte{0xFF, 0xD8, 0xFF, 0xD9}, At: clock.Now()}
	s := <-done
	// A second read takes the fresh image without waiting for another.
	s2, err := c.Read(context.Background())
	if err != nil || s2.Seq != s.Seq {
		t.Fatalf("second read %d, %v; want the same sample %d", s2.Seq, err, s.Seq)
	}
}

func TestCameraCloseEndsViewersAndStopsFFmpeg(t *testing.T) {
	c, src, _ := newFakeCamera(t)
	sub, _ := c.Subscribe()
	p := src.next(t)
	c.Close()
	<-p.stopped
	<-sub.Done()
	if !fleetgate.Is(sub.Err(), fleetgate.EOffline) {
		t.Fatalf("viewer ended with %v", sub.Err())
	}
	if _, err := c.Subscribe(); !fleetgate.Is(err, fleetgate.EOffline) {
		t.Fatalf("subscribe after close: %v", err)
	}
}

// A stalled camera whose restart is not answered in time is retried with backoff while its
// viewers stay; one that refuses the restart ends them.
func TestCameraStalledRestartOutcomes(t *testing.T) {
	t.Run("unanswered restarts are retried", func(t *testing.T) {
		c, src, clock := newFakeCamera(t)
		sub, _ := c.Subscribe()
		defer sub.Close()
		send(t, src.next(t), sub, 1, clock.Now())
		clock.waitTimer(t, DefaultStallTimeout)
		clock.Advance(DefaultStallTimeout)
		clock.waitTimer(t, DefaultBackoffMin)
		clock.Advance(DefaultBackoffMin)
		src.next(t) // says nothing
		clock.waitTimer(t, DefaultFirstImage)
		clock.Advance(DefaultFirstImage)
		clock.waitTimer(t, 2*DefaultBackoffMin)
		clock.Advance(2 * DefaultBackoffMin)
		send(t, src.next(t), sub, 2, clock.Now())
	})
	t.Run("a refused restart ends the viewers", func(t *testing.T) {
		c, src, clock := newFakeCamera(t)
		sub, _ := c.Subscribe()
		send(t, src.next(t), sub, 1, clock.Now())
		src.mu.Lock()
		src.fail = errors.New("Connection refused")
		src.mu.Unlock()
		clock.waitTimer(t, DefaultStallTimeout)
		clock.Advance(DefaultStallTimeout)
		clock.waitTimer(t, DefaultBackoffMin)
		clock.Advance(DefaultBackoffMin)
		select {
		case <-sub.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the viewer was not told")
		}
		if err := sub.Err(); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "Connection refused") {
			t.Fatalf("viewer ended with %v", err)
		}
	})
}
