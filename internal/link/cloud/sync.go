package cloud

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// uploadRate is the slowest transfer an upload's deadline allows for, on top of uploadSlack.
const (
	uploadRate  = 256 << 10 // bytes per second
	uploadSlack = 30 * time.Second
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
}

// wanted is a version of a resource file the archive lacks.
type wanted struct {
	robotID string
	res     fleetgate.Resource
}

func newSyncer(s *session) *syncer {
	return &syncer{s: s, wake: make(chan struct{}, 1)}
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
		if h, ok := held[res.ID]; ok && h.Size == res.Size && h.CreatedAt.Equal(res.CreatedAt.UTC().Truncate(time.Millisecond)) {
			continue
		}
		y.queue = append(removeID(y.queue, res.ID), wanted{robotID: robotID, res: res})
	}
	select {
	case y.wake <- struct{}{}:
	default:
	}
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

func (y *syncer) next() (wanted, bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if len(y.queue) == 0 {
		return wanted{}, false
	}
	w := y.queue[0]
	y.queue = y.queue[1:]
	return w, true
}

// run uploads queued files until the session ends.
func (y *syncer) run() {
	for {
		w, ok := y.next()
		if !ok {
			select {
			case <-y.s.done:
				return
			case <-y.wake:
				continue
			}
		}
		start := y.s.acc.now()
		if err := y.upload(w); err != nil {
			select {
			case <-y.s.done:
				return // the partial file stays; the next session resumes it
			default:
			}
			y.s.log.Warn("resource upload failed", "robot", w.robotID, "resource", w.res.ID, "name", w.res.Name, "err", err)
			continue
		}
		y.s.log.Info("resource uploaded", "robot", w.robotID, "resource", w.res.ID, "name", w.res.Name,
			"size", w.res.Size, "took", y.s.acc.now().Sub(start).Round(time.Millisecond))
	}
}

// upload fetches one file version from the agent, from where an earlier attempt stopped.
func (y *syncer) upload(w wanted) error {
	r := y.s.robot(w.robotID)
	if r == nil {
		return errors.New("the robot left")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err := y.s.acc.cfg.Core.MayArchive(ctx, w.robotID, w.res.ID)
	cancel()
	if err != nil {
		return err
	}
	version := fmt.Sprintf("%d@%d", w.res.Size, w.res.CreatedAt.UnixNano())
	up, err := y.s.acc.cfg.Archive.StartUpload(w.res.ID, version)
	if err != nil {
		return err
	}
	defer up.Close()
	offset := up.Offset()
	if offset > 0 {
		y.s.log.Info("resuming resource upload", "robot", w.robotID, "resource", w.res.ID, "offset", offset, "size", w.res.Size)
	}
	// The agent hashes the bytes the archive has before it sends the rest.
	timeout := uploadSlack + time.Duration((w.res.Size-offset)/uploadRate+offset/prefixHashRate)*time.Second
	ctx, cancel = context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := y.s.request(ctx, r, &linkpb.Request{Op: &linkpb.Request_Upload{Upload: &linkpb.ResourceUpload{
		ResourceId: w.res.ID, Offset: offset, Size: w.res.Size,
	}}}, func(ch *linkpb.ResourceChunk) error {
		return up.Write(ch.GetOffset(), ch.GetData())
	})
	// An INVALID answer means the file changed under the agent; its next list has a new
	// version, whose StartUpload discards this partial.
	if err != nil {
		return err
	}
	done := resp.GetUpload()
	if done == nil {
		return unexpected(resp)
	}
	if done.GetSize() != w.res.Size {
		return fmt.Errorf("the agent sent %d bytes of a %d-byte file", done.GetSize(), w.res.Size)
	}
	if err := up.Commit(done.GetSize(), done.GetSha256()); err != nil {
		return err
	}
	pctx, pcancel := context.WithTimeout(context.Background(), uploadSlack+time.Duration(done.GetSize()/uploadRate)*time.Second)
	defer pcancel()
	if err := y.s.acc.cfg.Archive.publish(pctx, w.res.ID, done.GetSize(), done.GetSha256()); err != nil {
		return err
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return y.s.acc.cfg.Core.SaveArchivedResource(ctx, w.robotID, w.res, done.GetSha256())
}
