package cloud_test

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"slices"
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

// gatedRobot is a growingRobot whose resource gated, when read, says so on reading and waits
// for gate to close: an upload that outlasts the agent's scans of its resources. It may have
// a finished recording besides the log.
type gatedRobot struct {
	*growingRobot
	recording *fleetgate.Resource
	recData   []byte
	gated     string
	once      sync.Once
	reading   chan struct{}
	gate      chan struct{}
}

func (r *gatedRobot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	list, _ := r.growingRobot.Resources(ctx)
	if r.recording != nil {
		list = append([]fleetgate.Resource{*r.recording}, list...)
	}
	return list, nil
}

func (r *gatedRobot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	f, res, err := r.growingRobot.OpenResource(ctx, id)
	if r.recording != nil && id == r.recording.ID {
		f, res = nopCloser{bytes.NewReader(r.recData)}, *r.recording
	}
	if id == r.gated {
		f = gatedFile{f.(nopCloser), r}
	}
	return f, res, err
}

type gatedFile struct {
	nopCloser
	r *gatedRobot
}

func (f gatedFile) Read(p []byte) (int, error) {
	f.r.once.Do(func() { close(f.r.reading) })
	<-f.r.gate
	return f.nopCloser.Read(p)
}

// uploadsOf are the sizes and bytes sent of each upload of name the cloud logged.
func uploadsOf(w *world, name string) [][2]int {
	var out [][2]int
	for _, m := range regexp.MustCompile(`msg="resource uploaded".* name=`+regexp.QuoteMeta(name)+` size=(\d+) sent=(\d+)`).FindAllStringSubmatch(w.logs.String(), -1) {
		size, _ := strconv.Atoi(m[1])
		sent, _ := strconv.Atoi(m[2])
		out = append(out, [2]int{size, sent})
	}
	return out
}

// growDuringUpload waits for bot's gated upload to begin, grows its log to grown, waits for
// the cloud to compare the agent's new list with its archive, and lets the upload go on.
func growDuringUpload(t *testing.T, w *world, bot *gatedRobot, grown []byte) {
	t.Helper()
	select {
	case <-bot.reading:
	case <-time.After(10 * time.Second):
		t.Fatalf("the upload never began\nlogs:\n%s", w.logs.String())
	}
	w.core.mu.Lock()
	before := w.core.listings
	w.core.mu.Unlock()
	bot.set(grown)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		w.core.mu.Lock()
		n := w.core.listings
		w.core.mu.Unlock()
		if n > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent's list after the growth never reached the cloud")
		}
	}
	close(bot.gate)
}

// The agent lists its robot's resources again whenever one changes (its log grows every few
// seconds): a recording listed again while its upload runs is uploaded once, not a second
// time whole once the first ends (on a site's uplink that doubled the bulk lane's bytes).
func TestAFileListedAgainDuringItsUploadIsSentOnce(t *testing.T) {
	w := newWorld(t)
	log := bytes.Repeat([]byte("GET /robots 200\n"), 1_000)
	rec := &fleetgate.Resource{ID: "cccccccc-0000-4000-8000-000000000002", Name: "one_20261128.mcap", FileType: "recording",
		Size: 200_000, CreatedAt: time.Unix(1700000100, 0)}
	bot := &gatedRobot{growingRobot: &growingRobot{Robot: scriptedRobot(idOne, "one"),
		res: fleetgate.Resource{ID: "cccccccc-0000-4000-8000-000000000001", Name: "agent.log", FileType: "log", CreatedAt: time.Unix(1700000000, 0)}},
		recording: rec, recData: bytes.Repeat([]byte{7}, int(rec.Size)), gated: rec.ID, reading: make(chan struct{}), gate: make(chan struct{})}
	bot.set(log)
	w.startAgent("fga_alpha", bot)
	grown := append(bytes.Clone(log), []byte("GET /robots/one 200\n")...)
	growDuringUpload(t, w, bot, grown)
	// The recording goes first (listed first), the log after it: once the grown log is
	// archived, a second upload of the recording would have been logged before it.
	for deadline := time.Now().Add(10 * time.Second); !slices.Contains(uploadsOf(w, "agent.log"), [2]int{len(grown), len(grown)}); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the grown log was never archived\nlogs:\n%s", w.logs.String())
		}
	}
	if got := uploadsOf(w, rec.Name); len(got) != 1 {
		t.Fatalf("the recording was uploaded %d times (size, sent): %v, want once", len(got), got)
	}
}

// A log that grows while its own upload runs sends, after it, only the bytes appended since
// (it was sent whole again: the archive held no version when the agent listed the grown one).
func TestALogGrownDuringItsUploadSendsOnlyTheNewBytes(t *testing.T) {
	w := newWorld(t)
	log := bytes.Repeat([]byte("GET /robots 200\n"), 1_000)
	bot := &gatedRobot{growingRobot: &growingRobot{Robot: scriptedRobot(idOne, "one"),
		res: fleetgate.Resource{ID: "cccccccc-0000-4000-8000-000000000001", Name: "agent.log", FileType: "log", CreatedAt: time.Unix(1700000000, 0)}},
		gated: "cccccccc-0000-4000-8000-000000000001", reading: make(chan struct{}), gate: make(chan struct{})}
	bot.set(log)
	w.startAgent("fga_alpha", bot)
	grown := append(bytes.Clone(log), []byte("GET /robots/one 200\n")...)
	growDuringUpload(t, w, bot, grown)
	for deadline := time.Now().Add(10 * time.Second); len(uploadsOf(w, "agent.log")) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the grown log was never archived: %v\nlogs:\n%s", uploadsOf(w, "agent.log"), w.logs.String())
		}
	}
	want := [][2]int{{len(log), len(log)}, {len(grown), len(grown) - len(log)}}
	if got := uploadsOf(w, "agent.log"); !slices.Equal(got, want) {
		t.Fatalf("the log's uploads (size, sent) %v, want %v", got, want)
	}
}
