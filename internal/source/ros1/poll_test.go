package ros1

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/ros1/xmlrpc"
)

// fakeMaster answers the master calls the robot makes and counts the topic-list reads.
type fakeMaster struct {
	srv   *httptest.Server
	pids  atomic.Int64 // getPid calls
	reads atomic.Int64 // getSystemState calls
}

func startFakeMaster(t *testing.T) *fakeMaster {
	fm := &fakeMaster{}
	ok := func(v any) (any, error) { return []any{1, "", v}, nil }
	fm.srv = httptest.NewServer(&xmlrpc.Handler{Methods: map[string]xmlrpc.Method{
		"getPid": func(context.Context, []any) (any, error) { fm.pids.Add(1); return ok(42) },
		"getSystemState": func(context.Context, []any) (any, error) {
			fm.reads.Add(1)
			return ok([]any{
				[]any{[]any{"/odom", []any{"/base"}}},
				[]any{[]any{"/cmd_vel", []any{"/base"}}},
				[]any{},
			})
		},
		"getTopicTypes": func(context.Context, []any) (any, error) {
			return ok([]any{[]any{"/odom", "nav_msgs/Odometry"}, []any{"/cmd_vel", "geometry_msgs/Twist"}})
		},
	}})
	t.Cleanup(fm.srv.Close)
	return fm
}

// manualClock is a clock the test moves.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// The topic list is read from the master at most every PollPeriod, and only when asked:
// with the clock held, any number of Streams calls read it once.
func TestTopicListPolledAtMostEveryPeriod(t *testing.T) {
	fm := startFakeMaster(t)
	clock := &manualClock{now: time.Unix(1_800_000_000, 0)}
	p := &presence{}
	r, err := Start(context.Background(), Config{
		MasterURI: fm.srv.URL, Host: "127.0.0.1", DataDir: t.TempDir(), Presence: p,
		Logger: slog.New(slog.DiscardHandler), PollPeriod: 2 * time.Second, Now: clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rostest.Eventually(t, 10*time.Second, "the robot is online", p.is(true))
	ctx := context.Background()
	streams := func() {
		t.Helper()
		s, err := r.Streams(ctx)
		if err != nil || len(s) != 2 {
			t.Fatalf("streams %v, %v", s, err)
		}
	}
	for range 5 {
		streams()
	}
	if n := fm.reads.Load(); n != 1 {
		t.Fatalf("%d topic-list reads for 5 calls at one instant, want 1", n)
	}
	clock.Add(1999 * time.Millisecond)
	streams()
	if n := fm.reads.Load(); n != 1 {
		t.Errorf("read again %v after the last read", 1999*time.Millisecond)
	}
	clock.Add(time.Millisecond)
	streams()
	streams()
	if n := fm.reads.Load(); n != 2 {
		t.Errorf("%d reads once the list is 2 s old, want 2", n)
	}
	// Nobody asks: the master's health is checked (getPid) but the topics are not read.
	pids := fm.pids.Load()
	rostest.Eventually(t, 10*time.Second, "two more master checks", func() bool { return fm.pids.Load() >= pids+2 })
	clock.Add(time.Hour)
	if n := fm.reads.Load(); n != 2 {
		t.Errorf("%d reads while nobody asked, want 2", n)
	}
}
