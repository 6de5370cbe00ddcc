package gateway

import (
	"context"
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/mcap"
)

// Recording downloads (an extension): a finished recording's MCAP file, whole or cut to a
// time range and chosen streams. A cut is computed while it is sent, by mcap.Trim, which
// reads only the chunks of the range: nothing is copied and no file is held in memory.

// RecordingCut is what a download keeps of a recording; its zero value keeps everything.
type RecordingCut struct {
	From, To time.Time // zero: from the first message, to the last
	// Streams names the streams to keep as "component/stream" or by their topic; none:
	// every stream.
	Streams []string
}

// Whole says whether the cut keeps the whole file.
func (c RecordingCut) Whole() bool { return c.From.IsZero() && c.To.IsZero() && len(c.Streams) == 0 }

// RecordingFile is an open recording to download: whole (File, served with ranges) or cut
// (WriteTo). Close it; until then retention does not delete the file.
type RecordingFile struct {
	// Resource is the file as the robot lists it; a cut's Name says that it is a part, and
	// its Size is unknown (0) until written.
	Resource fleetgate.Resource
	File     fleet.ResourceFile
	trim     *mcap.Trim
	cut      mcap.Cut
	release  func()
}

// Cut says whether the file is a cut, to be written by WriteTo rather than served whole.
func (f *RecordingFile) Cut() bool { return f.trim != nil }

// WriteTo writes the cut as a complete MCAP file to w.
func (f *RecordingFile) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	_, err := f.trim.WriteTo(cw, f.cut, mcap.Options{})
	return cw.n, err
}

// Close closes the file and lets retention delete it again.
func (f *RecordingFile) Close() error {
	f.release()
	return f.File.Close()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// downloads counts the downloads in progress of each file, so that retention keeps a file
// someone is reading.
type downloads struct {
	mu   sync.Mutex
	open map[string]int
}

func (d *downloads) hold(id string) func() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.open == nil {
		d.open = map[string]int{}
	}
	d.open[id]++
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.open[id]--; d.open[id] <= 0 {
				delete(d.open, id)
			}
		})
	}
}

func (d *downloads) busy(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.open[id] > 0
}

// OpenRecording opens recording recordingID of a robot to download it whole or cut (the
// rights of a resource download: Operator and above). A recording still being written is
// EConflict (the file has no index yet: download it when it has finished), as is one the
// cloud has not received whole yet; a cut that names an unknown stream or ends before it
// starts is EInvalid. The caller closes the file.
func (ag *AgentService) OpenRecording(ctx context.Context, c *Caller, robotID, recordingID string, cut RecordingCut) (*RecordingFile, error) {
	if !cut.From.IsZero() && !cut.To.IsZero() && cut.From.After(cut.To) {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "from (%s) is after to (%s)", cut.From.UTC().Format(time.RFC3339Nano), cut.To.UTC().Format(time.RFC3339Nano))
	}
	r, list, archived, err := ag.listResources(ctx, c, robotID, actDownload)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list, func(res fleetgate.Resource) bool { return res.ID == recordingID && res.MIMEType == mcapMIME })
	if i < 0 {
		return nil, ag.missingRecording(ctx, r, recordingID, archived)
	}
	res := list[i]
	release := ag.downloads.hold(res.ID)
	file, err := ag.openRecordingFile(ctx, r, res, archived)
	if err != nil {
		release()
		return nil, err
	}
	rf := &RecordingFile{Resource: res, File: file, release: release}
	if cut.Whole() {
		return rf, nil
	}
	if err := rf.prepareCut(r, cut); err != nil {
		rf.Close()
		return nil, err
	}
	return rf, nil
}

// openRecordingFile opens a listed recording: the archive's copy, or the robot's file.
func (ag *AgentService) openRecordingFile(ctx context.Context, r fleetgate.Robot, res fleetgate.Resource, archived bool) (fleet.ResourceFile, error) {
	if archived {
		f, err := ag.archive.Open(res.ID)
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.ENotFound, "the copy of recording %q is gone", res.Name)
		}
		return f, nil
	}
	live, ok := ag.presence.Robot(r.ID)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is offline", r.Name)
	}
	return robotCall(ctx, r, func(ctx context.Context) (fleet.ResourceFile, error) {
		f, _, err := live.OpenResource(ctx, res.ID)
		return f, err
	})
}

// prepareCut reads the file's summary and turns cut into the trim's terms.
func (f *RecordingFile) prepareCut(r fleetgate.Robot, cut RecordingCut) error {
	trim, err := mcap.NewTrim(readerAt(f.File), f.Resource.Size)
	if errors.Is(err, mcap.ErrMalformed) {
		return &fleetgate.Error{Code: fleetgate.EConflict, Message: "recording " + quote(f.Resource.Name) + " has no index to cut it by; download it whole", Err: err}
	}
	if err != nil {
		return err
	}
	f.trim = trim
	f.cut = mcap.Cut{From: 0, To: math.MaxUint64}
	if !cut.From.IsZero() {
		f.cut.From = mcap.Time(cut.From)
	}
	if !cut.To.IsZero() {
		f.cut.To = mcap.Time(cut.To)
	}
	if len(cut.Streams) > 0 {
		keep := map[uint16]bool{}
		for _, name := range cut.Streams {
			id, err := channelNamed(trim.Summary(), name)
			if err != nil {
				return err
			}
			keep[id] = true
		}
		f.cut.Keep = func(c mcap.Channel) bool { return keep[c.ID] }
	}
	f.Resource.Name = strings.TrimSuffix(f.Resource.Name, ".mcap") + "_cut.mcap"
	f.Resource.Size = 0
	return nil
}

// channelNamed finds the channel of a stream named "component/stream" or by its topic.
func channelNamed(s *mcap.Summary, name string) (uint16, error) {
	want := strings.TrimPrefix(strings.TrimSpace(name), "/")
	var names []string
	for _, id := range slices.Sorted(maps.Keys(s.Channels)) {
		c := s.Channels[id]
		streamName := c.Metadata["component"] + "/" + strings.TrimPrefix(c.Metadata["stream"], "/")
		if want != "" && (streamName == want || strings.TrimPrefix(c.Topic, "/") == want) {
			return id, nil
		}
		names = append(names, streamName)
	}
	return 0, fleetgate.Errorf(fleetgate.EInvalid, "the recording has no stream %q (it has %s)", name, strings.Join(names, ", "))
}

// missingRecording explains why a recording is not among the files to download.
func (ag *AgentService) missingRecording(ctx context.Context, r fleetgate.Robot, recordingID string, archived bool) error {
	notFound := fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no recording %q to download", r.Name, recordingID)
	live, ok := ag.presence.Robot(r.ID)
	if !ok {
		return notFound
	}
	rc, ok := fleet.As[fleet.RecordingControl](live)
	if !ok {
		return notFound
	}
	recs, err := robotCall(ctx, r, rc.Recordings)
	if err != nil {
		return notFound
	}
	i := slices.IndexFunc(recs, func(rec fleetgate.Recording) bool { return rec.ID == recordingID })
	switch {
	case i < 0:
		return notFound
	case recs[i].EndTime.IsZero():
		return fleetgate.Errorf(fleetgate.EConflict, "recording %s of robot %q is still being written: its file is indexed when it ends; download it then", recordingID, r.Name)
	case archived:
		return fleetgate.Errorf(fleetgate.EConflict, "recording %s of robot %q has ended and is still being copied to the cloud; try again shortly", recordingID, r.Name)
	}
	return notFound
}
