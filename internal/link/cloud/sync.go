package cloud

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// An upload's deadlines. The agent sends files in its bulk lane, which on a busy uplink gets
// as little as a chunk a second: the whole upload's deadline allows for that rate, and a
// watchdog ends an upload that makes no progress for uploadIdle instead.
const (
	uploadRate  = 16 << 10 // bytes per second: the agent's bulk floor (server/uplink/lanes.go)
	uploadSlack = 30 * time.Second
	uploadIdle  = 30 * time.Second
	// DefaultResyncEvery is Config.ResyncEvery's default.
	DefaultResyncEvery = time.Minute
	// prefixHashRate is the slowest hashing of a resumed upload's first part (an SD card on
	// a small robot computer) the deadline allows for.
	prefixHashRate = 16 << 20 // bytes per second
)

// syncer copies a session's resource files into the cloud's archive, one at a time, so that
// they can be downloaded from the cloud also while the robot is offline. A file is listed
// only once it is whole and its SHA-256 matches the agent's; a dropped upload resumes from
// its partial file at the next connection.
type syncer struct {
	s    *session
	wake chan struct{}

	mu    sync.Mutex
	queue []wanted // oldest first; one entry per resource id
	// synced is when each resource was last archived by this session (Config.ResyncEvery),
	// and archivedAs the version: a list read from the store before it was saved is stale.
	synced     map[string]time.Time
	archivedAs map[string]fleetgate.Resource
	// whole are the resources whose next upload starts at 0: their agent's file did not grow
	// from the archived version.
	whole map[string]bool
	// uploading is the version on its way to the archive (nil: none). The agent lists its
	// robot's resources again whenever one of them changes (a log grows every few seconds),
	// and the archive does not hold a version before its upload ends: without this, a file
	// whose upload outlasts a scan was queued again and sent whole a second time, and a log
	// grown meanwhile whole again instead of its appended bytes.
	uploading *wanted
}

// wanted is a version of a resource file the archive lacks.
type wanted struct {
	robotID string
	res     fleetgate.Resource
	// grown: the archive holds an earlier version, which the upload starts from (a growth).
	grown bool
	// notBefore holds the upload back (Config.ResyncEvery).
	notBefore time.Time
}

func newSyncer(s *session) *syncer {
	return &syncer{s: s, wake: make(chan struct{}, 1), synced: map[string]time.Time{}, archivedAs: map[string]fleetgate.Resource{}, whole: map[string]bool{}}
}

// listed takes the agent's list of robotID's resources and queues the files whose version
// (size and time) the archive does not hold.
func (y *syncer) listed(robotID string, list []fleetgate.Resource, wire []*linkpb.Resource) {
	if y.s.acc.cfg.Archive == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	have, err := y.s.acc.cfg.Core.ArchivedResources(ctx, robotID)
	if err != nil {
		y.s.log.Warn("listing archived resources", "robot", robotID, "err", err)
		return
	}
	held := map[string]fleetgate.Resource{}
	for _, res := range have {
		held[res.ID] = res
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	for _, res := range list {
		if !isUUID(res.ID) || res.Size < 0 || res.Name == "" {
			continue
		}
		h, ok := held[res.ID]
		if ok && h.Size == res.Size && h.CreatedAt.Equal(res.CreatedAt.UTC().Truncate(time.Millisecond)) {
			continue
		}
		if u := y.uploading; u != nil && u.res.ID == res.ID && sameVersion(u.res, res) {
			continue // on its way
		}
		if a, ok := y.archivedAs[res.ID]; ok && sameVersion(a, res) {
			continue
		}
		w := wanted{robotID: robotID, res: res, grown: ok && h.Size < res.Size}
		if last, ok := y.synced[res.ID]; ok {
			w.notBefore = last.Add(y.resyncEvery())
		}
		y.queue = append(removeID(y.queue, res.ID), w)
	}
	select {
	case y.wake <- struct{}{}:
	default:
	}
}

func sameVersion(a, b fleetgate.Resource) bool {
	return a.Size == b.Size && a.CreatedAt.Equal(b.CreatedAt)
}

func removeID(q []wanted, id string) []wanted {
	out := q[:0]
	for _, w := range q {
		if w.res.ID != id {
			out = append(out, w)
		}
	}
	return out
}

func (y *syncer) resyncEvery() time.Duration {
	if every := y.s.acc.cfg.ResyncEvery; every > 0 {
		return every
	}
	return DefaultResyncEvery
}

// next takes the oldest queued upload that may go now; with none, wait is how long until
// one held back may (0: none is queued).
func (y *syncer) next(now time.Time) (w wanted, ok bool, wait time.Duration) {
	y.mu.Lock()
	defer y.mu.Unlock()
	for i, w := range y.queue {
		if d := w.notBefore.Sub(now); d > 0 {
			if wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		y.queue = append(y.queue[:i:i], y.queue[i+1:]...)
		if y.whole[w.res.ID] {
			w.grown = false
		}
		y.uploading = &w
		return w, true, 0
	}
	return wanted{}, false, wait
}

// again queues w at once, sent whole: its agent's file did not grow from the archived version.
func (y *syncer) again(w wanted) {
	y.mu.Lock()
	y.whole[w.res.ID] = true
	w.grown, w.notBefore = false, time.Time{}
	y.queue = append(removeID(y.queue, w.res.ID), w)
	y.mu.Unlock()
}

// done notes that w is archived. A later version listed during its upload grew from it, or
// not, and waits its turn from now (ResyncEvery).
func (y *syncer) done(w wanted) {
	y.mu.Lock()
	now := y.s.acc.now()
	y.synced[w.res.ID] = now
	y.archivedAs[w.res.ID] = w.res
	delete(y.whole, w.res.ID)
	for i, q := range y.queue {
		if q.res.ID == w.res.ID {
			y.queue[i].grown = q.res.Size > w.res.Size
			y.queue[i].notBefore = now.Add(y.resyncEvery())
		}
	}
	y.uploading = nil
	y.mu.Unlock()
}

// failed notes that the upload under way ended without archiving its file.
func (y *syncer) failed() {
	y.mu.Lock()
	y.uploading = nil
	y.mu.Unlock()
}

// run uploads queued files until the session ends.
func (y *syncer) run() {
	held := time.NewTimer(time.Hour)
	defer held.Stop()
	for {
		w, ok, wait := y.next(y.s.acc.now())
		if !ok {
			if wait > 0 {
				held.Reset(wait)
			}
			select {
			case <-y.s.done:
				return
			case <-y.wake:
			case <-held.C:
			}
			continue
		}
		start := y.s.acc.now()
		sent, err := y.upload(w)
		if err != nil {
			y.failed()
			select {
			case <-y.s.done:
				return // the partial file stays; the next session resumes it
			default:
			}
			if errors.Is(err, errNotGrown) {
				y.s.log.Info("resource changed, not only grown: sending it whole", "robot", w.robotID, "resource", w.res.ID, "name", w.res.Name, "err", err)
				y.again(w)
				continue
			}
			y.s.log.Warn("resource upload failed", "robot", w.robotID, "resource", w.res.ID, "name", w.res.Name, "err", err)
			continue
		}
		y.done(w)
		y.s.log.Info("resource uploaded", "robot", w.robotID, "resource", w.res.ID, "name", w.res.Name,
			"size", w.res.Size, "sent", sent, "took", y.s.acc.now().Sub(start).Round(time.Millisecond))
	}
}

// errNotGrown: the agent's file is not the archived version with bytes appended.
var errNotGrown = errors.New("the file did not grow from the archived version")

// upload fetches one file version from the agent, from where an earlier attempt stopped or,
// for a file that grew, from the end of the archived version. sent is the bytes that crossed.
func (y *syncer) upload(w wanted) (sent int64, err error) {
	r := y.s.robot(w.robotID)
	if r == nil {
		return 0, errors.New("the robot left")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err = y.s.acc.cfg.Core.MayArchive(ctx, w.robotID, w.res.ID)
	cancel()
	if err != nil {
		return 0, err
	}
	version := fmt.Sprintf("%d@%d", w.res.Size, w.res.CreatedAt.UnixNano())
	start := y.s.acc.cfg.Archive.StartUpload
	if w.grown {
		start = y.s.acc.cfg.Archive.StartGrowth
	}
	up, err := start(w.res.ID, version)
	if err != nil {
		return 0, err
	}
	defer up.Close()
	offset := up.Offset()
	if offset > w.res.Size {
		up.Discard() // the archived version is longer: not a growth
		return 0, errNotGrown
	}
	if offset > 0 {
		y.s.log.Info("resuming resource upload", "robot", w.robotID, "resource", w.res.ID, "offset", offset, "size", w.res.Size, "grown", w.grown)
	}
	// The agent hashes the bytes the archive has before it sends the rest; then a watchdog
	// ends an upload that stalls, however long the whole may take in the bulk lane.
	firstChunk := uploadSlack + time.Duration(offset/prefixHashRate)*time.Second
	ctx, cancel = context.WithTimeout(context.Background(), firstChunk+time.Duration((w.res.Size-offset)/uploadRate)*time.Second)
	defer cancel()
	watchdog := time.AfterFunc(firstChunk, cancel)
	defer watchdog.Stop()
	req := &linkpb.ResourceUpload{ResourceId: w.res.ID, Offset: offset, Size: w.res.Size}
	if offset > 0 {
		req.PrefixSha256 = up.Sum()
	}
	resp, err := y.s.request(ctx, r, &linkpb.Request{Op: &linkpb.Request_Upload{Upload: req}}, func(ch *linkpb.ResourceChunk) error {
		watchdog.Reset(uploadIdle)
		sent += int64(len(ch.GetData()))
		return up.Write(ch.GetOffset(), ch.GetData())
	})
	// An INVALID answer means the file changed under the agent; its next list has a new
	// version, whose StartUpload discards this partial. After a prefix (a resume, a growth),
	// the prefix may be what changed: the file is sent whole next.
	if err != nil {
		if offset > 0 && fleetgate.Is(err, fleetgate.EInvalid) {
			up.Discard()
			return sent, fmt.Errorf("%w: %v", errNotGrown, err)
		}
		return sent, err
	}
	done := resp.GetUpload()
	if done == nil {
		return sent, unexpected(resp)
	}
	if done.GetSize() != w.res.Size {
		return sent, fmt.Errorf("the agent sent %d bytes of a %d-byte file", done.GetSize(), w.res.Size)
	}
	if err := up.Commit(done.GetSize(), done.GetSha256()); err != nil {
		if offset > 0 && errors.Is(err, blob.ErrCorrupt) {
			// An agent that predates the prefix check sent the rest of a file whose
			// beginning changed.
			return sent, fmt.Errorf("%w: %v", errNotGrown, err)
		}
		return sent, err
	}
	pctx, pcancel := context.WithTimeout(context.Background(), uploadSlack+time.Duration(done.GetSize()/(256<<10))*time.Second)
	defer pcancel()
	if err := y.s.acc.cfg.Archive.publish(pctx, w.res.ID, done.GetSize(), done.GetSha256()); err != nil {
		return sent, err
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return sent, y.s.acc.cfg.Core.SaveArchivedResource(ctx, w.robotID, w.res, done.GetSha256())
}
