package record

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/mcap"
)

// meta describes a recording on disk, beside its file (<id>.json): what the file itself does
// not say (the robot, the request, how it ended), and whether it is complete.
type meta struct {
	ID        string        `json:"id"`
	RobotID   string        `json:"robotId"`
	RobotName string        `json:"robotName"`
	Name      string        `json:"name"` // the file's name as a resource
	Streams   []streamMeta  `json:"streams"`
	Duration  time.Duration `json:"durationLimit,omitempty"`
	MaxBytes  int64         `json:"maxBytes,omitempty"`
	MaxRate   float64       `json:"maxRate,omitempty"`
	// State is fleetgate.RecordingActive until the file is complete: a description found in
	// that state at start is of a recording a crash interrupted.
	State     string    `json:"state"`
	ErrorType string    `json:"errorType,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end,omitzero"`
	Size      int64     `json:"size"`
	Messages  int64     `json:"messages"`
	Dropped   int64     `json:"dropped"`
	// Trigger and EventID: what made the recording ("" for one started by request, before
	// the flight recorder) and the event-log entry it was made for.
	Trigger string `json:"trigger,omitempty"`
	EventID string `json:"eventId,omitempty"`
	// NeedsRecovery: the file could not be completed (the disk was still full); the next
	// start tries again.
	NeedsRecovery bool `json:"needsRecovery,omitempty"`
}

type streamMeta struct {
	Component string `json:"component"`
	Name      string `json:"name"`
	Source    int    `json:"source"`
	Type      string `json:"type"`
	Topic     string `json:"topic"`
}

func (m meta) recording() fleetgate.Recording {
	rec := fleetgate.Recording{
		ID: m.ID, State: m.State, ErrorType: m.ErrorType, Reason: m.Reason, StartTime: m.Start, EndTime: m.End,
		Request: fleetgate.RecordingRequest{Duration: m.Duration, MaxBytes: m.MaxBytes, MaxRate: m.MaxRate},
		Size:    m.Size, Messages: m.Messages, Dropped: m.Dropped, Trigger: cmp.Or(m.Trigger, fleetgate.TriggerManual), EventID: m.EventID,
	}
	for _, s := range m.Streams {
		key := fleetgate.StreamKey{Component: s.Component, Name: s.Name, Source: fleetgate.SourceType(s.Source)}
		rec.Streams = append(rec.Streams, fleetgate.RecordedStream{Key: key, Type: s.Type, Topic: s.Topic})
		rec.Request.Streams = append(rec.Request.Streams, key)
	}
	return rec
}

func (r *Recorder) metaPath(id string) string { return filepath.Join(r.cfg.Dir, id+".json") }

// saveMeta writes m atomically: a crash leaves the old description or the new one.
func (r *Recorder) saveMeta(m meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := r.metaPath(m.ID) + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, r.metaPath(m.ID))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// load reads the descriptions in the directory, finalising the files of recordings that a
// crash (or a disk that stayed full) left incomplete.
func (r *Recorder) load() error {
	names, err := os.ReadDir(r.cfg.Dir)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	for _, d := range names {
		name := d.Name()
		if strings.HasSuffix(name, ".json.tmp") {
			os.Remove(filepath.Join(r.cfg.Dir, name))
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || uuid.Validate(id) != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.cfg.Dir, name))
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		var m meta
		if err := json.Unmarshal(b, &m); err != nil || m.ID != id {
			r.log.Warn("ignoring a damaged recording description", "file", name, "err", err)
			continue
		}
		e := &entry{meta: m}
		if m.State == fleetgate.RecordingActive || m.NeedsRecovery {
			r.recoverEntry(e)
		}
		st, err := os.Stat(r.path(id))
		e.file = err == nil && st.Mode().IsRegular() && !e.meta.NeedsRecovery
		if !e.file && !e.meta.NeedsRecovery {
			// Nothing to offer: the file is gone (deleted by hand, or never written).
			os.Remove(r.metaPath(id))
			continue
		}
		if e.file {
			e.meta.Size = st.Size()
		}
		r.entries[id] = e
	}
	// Files without a description are what a crash between the two writes, or a hand, left.
	for _, d := range names {
		id, ok := strings.CutSuffix(d.Name(), ".mcap")
		if ok && r.entries[id] == nil && uuid.Validate(id) == nil {
			if _, err := os.Stat(r.metaPath(id)); errors.Is(err, os.ErrNotExist) {
				r.log.Warn("deleting a recording file without its description", "file", d.Name())
				os.Remove(filepath.Join(r.cfg.Dir, d.Name()))
			}
		}
	}
	return nil
}

// recoverEntry finalises the file of a recording that was being written when the agent
// stopped, and records how it ended.
func (r *Recorder) recoverEntry(e *entry) {
	m := &e.meta
	path := r.path(m.ID)
	rec, err := mcap.Recover(path)
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, mcap.ErrMalformed):
		// Nothing was written, or not even a whole header: nothing to keep.
		os.Remove(path)
		m.NeedsRecovery = false
	case err != nil:
		r.log.Warn("a recording's file could not be finalised; trying again at the next start", "recording", m.ID, "err", err)
		m.NeedsRecovery = true
	default:
		interrupted := m.State == fleetgate.RecordingActive
		m.NeedsRecovery = false
		m.Size, m.Messages = rec.Size, int64(rec.Messages)
		if f, err := os.Open(path); err == nil {
			if s, err := mcap.ReadSummary(f, rec.Size); err == nil && s.Statistics.MessageCount > 0 {
				m.End = s.End().UTC()
			}
			f.Close()
		}
		if m.End.IsZero() {
			m.End = m.Start
		}
		if interrupted {
			m.State, m.ErrorType, m.Reason = fleetgate.RecordingStopped, fleetgate.RecordingInterrupted, "the agent stopped while recording; finalised at its next start"
		}
		r.log.Info("recording finalised after an interruption", "recording", m.ID, "robot", m.RobotName,
			"messages", rec.Messages, "dropped_bytes", rec.Dropped)
	}
	if m.State == fleetgate.RecordingActive {
		m.State, m.ErrorType = fleetgate.RecordingFailed, fleetgate.RecordingInterrupted
		m.Reason = "the agent stopped while recording"
	}
	if err := r.saveMeta(*m); err != nil {
		r.log.Warn("saving a recording's description", "recording", m.ID, "err", err)
	}
}
