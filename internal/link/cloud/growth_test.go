package cloud_test

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
)

// resyncEvery is the test cloud's least time between two uploads of a resource it holds.
const resyncEvery = 500 * time.Millisecond

// growingRobot has one resource, a log that the test grows or rewrites.
type growingRobot struct {
	*fleettest.Robot
	mu   sync.Mutex
	data []byte
	res  fleetgate.Resource
}

func (r *growingRobot) set(data []byte) {
	r.mu.Lock()
	r.data = append([]byte(nil), data...)
	r.res.Size = int64(len(data))
	r.mu.Unlock()
}

func (r *growingRobot) Resources(context.Context) ([]fleetgate.Resource, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return []fleetgate.Resource{r.res}, nil
}

func (r *growingRobot) OpenResource(context.Context, string) (fleet.ResourceFile, fleetgate.Resource, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return nopCloser{bytes.NewReader(r.data)}, r.res, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

var sentRe = regexp.MustCompile(`msg="resource uploaded".* size=(\d+) sent=(\d+)`)

// A log only grows: after its first copy, only the appended bytes cross the link, and no more
// often than ResyncEvery; a file rewritten from the start is sent whole.
func TestAGrownFileSendsOnlyItsNewBytes(t *testing.T) {
	w := newWorld(t)
	log := bytes.Repeat([]byte("GET /robots 200\n"), 20_000) // 320 000 bytes
	bot := &growingRobot{Robot: scriptedRobot(idOne, "one"),
		res: fleetgate.Resource{ID: "cccccccc-0000-4000-8000-000000000001", Name: "agent.log", FileType: "log", CreatedAt: time.Unix(1700000000, 0)}}
	bot.set(log)
	w.startAgent("fga_alpha", bot)

	archived := func(want []byte) time.Time {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if f, err := w.dir.Open(bot.res.ID); err == nil {
				got, _ := io.ReadAll(f)
				f.Close()
				if bytes.Equal(got, want) {
					return time.Now()
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the archive never held the %d bytes\nlogs:\n%s", len(want), w.logs.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	sent := func(size int) int {
		t.Helper()
		// The line comes once the store lists the copy, just after the archive holds it.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			for _, m := range sentRe.FindAllStringSubmatch(w.logs.String(), -1) {
				if m[1] == strconv.Itoa(size) {
					n, _ := strconv.Atoi(m[2])
					return n
				}
			}
		}
		t.Fatalf("no upload of %d bytes logged\nlogs:\n%s", size, w.logs.String())
		return 0
	}
	first := archived(log)
	if n := sent(len(log)); n != len(log) {
		t.Fatalf("the first copy sent %d bytes, want the whole %d", n, len(log))
	}

	grown := append(bytes.Clone(log), []byte("GET /robots/one 200\n")...)
	bot.set(grown)
	second := archived(grown)
	if n := sent(len(grown)); n != len(grown)-len(log) {
		t.Fatalf("the grown log sent %d bytes, want the %d appended", n, len(grown)-len(log))
	}
	// Seen at most 5 ms after it happened, the first copy is at most that early here.
	if gap := second.Sub(first); gap < resyncEvery-10*time.Millisecond {
		t.Fatalf("the grown log was copied %v after the first copy, sooner than ResyncEvery (%v)", gap, resyncEvery)
	}

	// Rotated: new content from the first byte, longer than the copy. Not a growth: whole.
	rotated := append([]byte("rotated\n"), grown...)
	bot.set(rotated)
	archived(rotated)
	if n := sent(len(rotated)); n != len(rotated) {
		t.Fatalf("the rewritten log sent %d bytes, want it whole (%d)", n, len(rotated))
	}
}
