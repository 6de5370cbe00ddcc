package gateway

import (
	"context"
	"io"
	"sync"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/mcap"
)

func (s *seekReader) ReadAt(p []byte, off int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s.f, p)
}

type seekReader struct {
	mu sync.Mutex
	f  io.ReadSeeker
}

// readerAt reads a resource file at offsets: directly when it can, else by seeking.
func readerAt(f fleet.ResourceFile) io.ReaderAt {
	if ra, ok := f.(io.ReaderAt); ok {
		return ra
	}
	return &seekReader{f: f}
}

const mcapMIME = "application/mcap"

// maxSummaries bounds the recordings whose summaries one listing reads.
const maxSummaries = 100

// ResourceDetails is Resources with the summary of each MCAP recording read from its file
// (the cloud's copy, or the robot's own), for the panel.
func (ag *AgentService) ResourceDetails(ctx context.Context, c *Caller, robotID string) ([]fleetgate.ResourceDetail, error) {
	list, err := ag.Resources(ctx, c, robotID)
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.ResourceDetail, len(list))
	read := 0
	for i, res := range list {
		out[i].Resource = res
		if res.MIMEType != mcapMIME || read >= maxSummaries {
			continue
		}
		read++
		if s, trigger, err := ag.recordingSummary(ctx, c, robotID, res); err == nil {
			out[i].Topics = s.Topics()
			out[i].Messages = s.Statistics.MessageCount
			out[i].Duration = s.End().Sub(s.Start())
			out[i].Trigger = trigger
		} else {
			ag.log.Debug("reading a recording's summary", "resource", res.ID, "err", err)
		}
	}
	return out, nil
}

// recordingSummary reads the summary of an MCAP resource as a download would open it, and
// the trigger its "fleetgate" metadata record names.
func (ag *AgentService) recordingSummary(ctx context.Context, c *Caller, robotID string, res fleetgate.Resource) (*mcap.Summary, string, error) {
	r, _, err := ag.robots.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, "", err
	}
	f, err := ag.openRecordingFile(ctx, r, res, ag.archive != nil && r.AgentID != "")
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	ra := readerAt(f)
	s, err := mcap.ReadSummary(ra, res.Size)
	if err != nil {
		return nil, "", err
	}
	trigger := ""
	if metas, err := mcap.ReadMetadata(ra, res.Size); err == nil {
		for _, m := range metas {
			if m.Name == "fleetgate" {
				trigger = m.Metadata["trigger"]
			}
		}
	}
	return s, trigger, nil
}
