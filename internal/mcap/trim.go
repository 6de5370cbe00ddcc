package mcap

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
)

// Cut chooses the part of a file that a Trim keeps: the messages logged from From to To
// (nanoseconds since the epoch, both included) of the channels Keep accepts.
type Cut struct {
	From, To uint64
	// Keep says whether a channel's messages are kept; nil keeps every channel.
	Keep func(Channel) bool
}

// Whole is a Cut that keeps everything.
var Whole = Cut{From: 0, To: math.MaxUint64}

// Trim writes parts of a complete file as new files. It reads the file by its summary: the
// chunk index says which chunks hold messages of the range, and only those are read, one at
// a time, so that the memory a trim takes is about one chunk however large the file is.
type Trim struct {
	r       io.ReaderAt
	size    int64
	summary *Summary

	// Reused from chunk to chunk: the chunk record as read, and its records decompressed.
	record, records []byte
}

// NewTrim reads the summary of the complete file of size bytes in r. A file without a
// summary (one being written, or a crash cut short) is ErrMalformed.
func NewTrim(r io.ReaderAt, size int64) (*Trim, error) {
	s, err := ReadSummary(r, size)
	if err != nil {
		return nil, err
	}
	return &Trim{r: r, size: size, summary: s}, nil
}

// Summary is the summary of the file being trimmed.
func (t *Trim) Summary() *Summary { return t.summary }

// WriteTo writes the messages of cut as a new, complete file to w, with only the schemas
// and channels of the kept channels (renumbered, their topics and metadata as they were),
// its own chunks, indexes, statistics and summary; the header and the metadata records (what
// the file is: robot, trigger, entry) are the original's. It returns
// the statistics of what it wrote. A cut that matches nothing is a valid file without
// messages.
func (t *Trim) WriteTo(w io.Writer, cut Cut, opts Options) (Statistics, error) {
	opts.Profile, opts.Library = t.summary.Header.Profile, t.summary.Header.Library
	mw, err := NewWriter(w, opts)
	if err != nil {
		return Statistics{}, err
	}
	channels, err := t.copyChannels(mw, cut)
	if err != nil {
		return Statistics{}, err
	}
	// A cut file says what it was cut from, as the whole file does.
	metas, err := ReadMetadata(t.r, t.size)
	if err != nil {
		return Statistics{}, err
	}
	for _, m := range metas {
		if err := mw.WriteMetadata(m); err != nil {
			return Statistics{}, err
		}
	}
	chunks := slices.SortedFunc(slices.Values(t.summary.ChunkIndexes), func(a, b ChunkIndex) int {
		return cmp.Compare(a.ChunkStartOffset, b.ChunkStartOffset)
	})
	for _, ci := range chunks {
		if ci.MessageEndTime < cut.From || ci.MessageStartTime > cut.To || !holdsAny(ci, channels) {
			continue
		}
		records, err := t.readChunk(ci)
		if err != nil {
			return Statistics{}, err
		}
		err = eachRecord(records, func(op byte, body []byte, _ int) error {
			if op != opMessage {
				return nil
			}
			m, err := parseMessage(body)
			if err != nil {
				return err
			}
			id, kept := channels[m.ChannelID]
			if !kept || m.LogTime < cut.From || m.LogTime > cut.To {
				return nil
			}
			m.ChannelID = id
			return mw.WriteMessage(m)
		})
		if err != nil {
			return Statistics{}, err
		}
	}
	if err := mw.Close(); err != nil {
		return Statistics{}, err
	}
	return mw.Stats(), nil
}

// copyChannels adds the kept channels and their schemas to mw, in the original's id order;
// it returns the new id of each kept channel by its old id.
func (t *Trim) copyChannels(mw *Writer, cut Cut) (map[uint16]uint16, error) {
	schemas := map[uint16]uint16{}
	channels := map[uint16]uint16{}
	for _, old := range slices.Sorted(maps.Keys(t.summary.Channels)) {
		c := t.summary.Channels[old]
		if cut.Keep != nil && !cut.Keep(c) {
			continue
		}
		schemaID := uint16(0)
		if c.SchemaID != 0 {
			s, ok := t.summary.Schemas[c.SchemaID]
			if !ok {
				return nil, malformed("channel %d names schema %d, which the summary lacks", c.ID, c.SchemaID)
			}
			id, added := schemas[s.ID]
			if !added {
				var err error
				if id, err = mw.AddSchema(s.Name, s.Encoding, s.Data); err != nil {
					return nil, err
				}
				schemas[s.ID] = id
			}
			schemaID = id
		}
		id, err := mw.AddChannel(schemaID, c.Topic, c.MessageEncoding, c.Metadata)
		if err != nil {
			return nil, err
		}
		channels[old] = id
	}
	return channels, nil
}

// holdsAny says whether the chunk has messages of one of channels, by its message indexes
// (a chunk index without them may hold any channel).
func holdsAny(ci ChunkIndex, channels map[uint16]uint16) bool {
	if len(ci.MessageIndexOffsets) == 0 {
		return len(channels) > 0
	}
	for ch := range ci.MessageIndexOffsets {
		if _, ok := channels[ch]; ok {
			return true
		}
	}
	return false
}

// readChunk reads and decompresses the chunk ci points at, into buffers reused by the next.
func (t *Trim) readChunk(ci ChunkIndex) ([]byte, error) {
	if ci.ChunkLength < recordPrefix || ci.ChunkLength > MaxRecord+recordPrefix {
		return nil, malformed("chunk of %d bytes at %d", ci.ChunkLength, ci.ChunkStartOffset)
	}
	t.record = slices.Grow(t.record[:0], int(ci.ChunkLength))[:ci.ChunkLength]
	if _, err := t.r.ReadAt(t.record, int64(ci.ChunkStartOffset)); err != nil {
		return nil, fmt.Errorf("mcap: reading the chunk at %d: %w", ci.ChunkStartOffset, err)
	}
	if t.record[0] != opChunk {
		return nil, malformed("no chunk at %d, where the chunk index points", ci.ChunkStartOffset)
	}
	c, err := parseChunk(t.record[recordPrefix:])
	if err != nil {
		return nil, err
	}
	t.records, err = c.decodeInto(t.records[:0])
	return t.records, err
}
