package mcap

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Recovered says what Recover did.
type Recovered struct {
	// Complete: the file had its summary already and was left as it was.
	Complete bool
	// Dropped is how many bytes at the end (a chunk the crash cut, a partial summary) were
	// cut off; Size is the file's size after recovery.
	Dropped int64
	Size    int64
	// Messages and Chunks are what the recovered file holds.
	Messages uint64
	Chunks   uint32
}

// Recover finalises the MCAP file at path that a crash, a kill or a full disk left without
// its summary: it keeps the file up to the end of its last complete chunk and that chunk's
// message indexes (writing them anew when the crash cut them), drops what follows, and
// writes the data end, the summary and the footer there, so that indexed readers open it
// and find every message of the kept chunks. A file that is already complete is left as it
// is. A file without a whole header cannot be recovered (ErrMalformed).
func Recover(path string) (Recovered, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return Recovered{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Recovered{}, err
	}
	size := st.Size()
	if s, err := ReadSummary(f, size); err == nil {
		return Recovered{Complete: true, Size: size, Messages: s.Statistics.MessageCount, Chunks: s.Statistics.ChunkCount}, nil
	}
	w, cut, tail, err := scanForRecovery(f, size)
	if err != nil {
		return Recovered{}, err
	}
	if err := f.Truncate(cut); err != nil {
		return Recovered{}, fmt.Errorf("mcap: recovering %s: %w", path, err)
	}
	// The data section's CRC covers every byte kept.
	if _, err := io.Copy(w.crc, io.NewSectionReader(f, 0, cut)); err != nil {
		return Recovered{}, err
	}
	if _, err := f.Seek(cut, io.SeekStart); err != nil {
		return Recovered{}, err
	}
	w.w, w.off = f, uint64(cut)
	if len(tail) > 0 {
		w.write(tail)
	}
	if err := w.finish(); err != nil {
		return Recovered{}, fmt.Errorf("mcap: recovering %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return Recovered{}, err
	}
	return Recovered{Dropped: size - cut, Size: int64(w.off), Messages: w.stats.MessageCount, Chunks: w.stats.ChunkCount}, nil
}

// openChunk is a complete chunk of a scan whose message indexes are still being read.
type openChunk struct {
	index   ChunkIndex
	entries map[uint16][]indexEntry
	after   int64 // the offset after the chunk record
	stats   Statistics
	// The schemas and channels the chunk holds, if any.
	schemas  []Schema
	channels []Channel
}

// scanForRecovery reads the data section of a file until it ends or stops making sense. It
// returns a Writer holding the schemas, channels, chunk indexes and statistics of what is
// kept, the offset to cut the file at, and the bytes to write there before the summary
// (the message indexes of a last chunk whose own indexes the crash cut).
func scanForRecovery(r io.ReaderAt, size int64) (w *Writer, cut int64, tail []byte, err error) {
	_, pos, err := readHeader(r, size)
	if err != nil {
		return nil, 0, nil, err
	}
	w = &Writer{crc: crc32.NewIEEE(), index: map[uint16][]indexEntry{}}
	w.stats.ChannelMessageCounts = map[uint16]uint64{}
	schemas, channels := map[uint16]bool{}, map[uint16]bool{}
	addSchema := func(s Schema) {
		if !schemas[s.ID] {
			schemas[s.ID] = true
			w.schemas = append(w.schemas, s)
			w.stats.SchemaCount++
		}
	}
	addChannel := func(c Channel) {
		if !channels[c.ID] {
			channels[c.ID] = true
			w.channels = append(w.channels, c)
			w.stats.ChannelCount++
		}
	}
	sc := scanner{r: r, size: size, pos: pos}
	good := pos
	var open *openChunk
	commit := func() {
		w.chunkIndexes = append(w.chunkIndexes, open.index)
		mergeStats(&w.stats, open.stats)
		w.stats.ChunkCount++
		open = nil
	}
scan:
	for {
		at := sc.pos
		op, body, err := sc.next()
		if err != nil {
			if err == io.EOF || errors.Is(err, errTruncated) || errors.Is(err, ErrMalformed) {
				break
			}
			return nil, 0, nil, err
		}
		if open != nil && op != opMessageIndex {
			break // a chunk whose indexes stop short: it is the last one kept
		}
		switch op {
		case opSchema:
			s, err := parseSchema(body)
			if err != nil {
				break scan
			}
			addSchema(s)
		case opChannel:
			c, err := parseChannel(body)
			if err != nil {
				break scan
			}
			addChannel(c)
		case opMessage:
			m, err := parseMessage(body)
			if err != nil || !channels[m.ChannelID] {
				break scan
			}
			countMessage(&w.stats, m)
		case opChunk:
			oc, ok := readChunk(body, at, sc.pos, channels)
			if !ok {
				break scan
			}
			for _, s := range oc.schemas {
				addSchema(s)
			}
			for _, c := range oc.channels {
				addChannel(c)
			}
			open = oc
			if len(open.entries) == 0 {
				commit()
			}
		case opMessageIndex:
			ch, _, err := parseMessageIndex(body)
			if err != nil || open == nil || open.entries[ch] == nil {
				break scan
			}
			if _, dup := open.index.MessageIndexOffsets[ch]; dup {
				break scan
			}
			open.index.MessageIndexOffsets[ch] = uint64(at)
			if len(open.index.MessageIndexOffsets) < len(open.entries) {
				continue // more of this chunk's indexes follow; good stays before the chunk
			}
			open.index.MessageIndexLength = uint64(sc.pos) - uint64(open.after)
			commit()
		case opMetadata:
			m, err := parseMetadata(body)
			if err != nil {
				break scan
			}
			w.metadata = append(w.metadata, metadataIndex{offset: uint64(at), length: uint64(sc.pos - at), name: m.Name})
			w.stats.MetadataCount++
		case opDataEnd:
			break scan // the summary after it is rewritten
		case opHeader, opFooter, opChunkIndex, opStatistics, opSummaryOffset:
			break scan // not of a data section
		}
		// Attachments and private records are kept as they are.
		good = sc.pos
	}
	if open != nil {
		// The last chunk is whole but not all its indexes are: cut after the chunk and write
		// them again.
		good = open.after
		offsets, b := appendMessageIndexes(nil, uint64(good), open.entries)
		open.index.MessageIndexOffsets, open.index.MessageIndexLength = offsets, uint64(len(b))
		tail = b
		commit()
	}
	return w, good, tail, nil
}

// readChunk decodes the chunk record body found at file offset at (ending at after) and
// returns it with its index to be, or false if it is damaged.
func readChunk(body []byte, at, after int64, channels map[uint16]bool) (*openChunk, bool) {
	c, err := parseChunk(body)
	if err != nil {
		return nil, false
	}
	data, err := c.decode()
	if err != nil {
		return nil, false
	}
	oc := &openChunk{
		index: ChunkIndex{
			MessageStartTime: c.start, MessageEndTime: c.end, ChunkStartOffset: uint64(at), ChunkLength: uint64(after - at),
			MessageIndexOffsets: map[uint16]uint64{}, Compression: c.compression,
			CompressedSize: uint64(len(c.records)), UncompressedSize: c.uncompressedSize,
		},
		entries: map[uint16][]indexEntry{},
		after:   after,
		stats:   Statistics{ChannelMessageCounts: map[uint16]uint64{}},
	}
	inChunk := map[uint16]bool{}
	err = eachRecord(data, func(op byte, body []byte, offset int) error {
		switch op {
		case opSchema:
			s, err := parseSchema(body)
			oc.schemas = append(oc.schemas, s)
			return err
		case opChannel:
			ch, err := parseChannel(body)
			oc.channels = append(oc.channels, ch)
			inChunk[ch.ID] = true
			return err
		case opMessage:
			m, err := parseMessage(body)
			if err != nil {
				return err
			}
			if !channels[m.ChannelID] && !inChunk[m.ChannelID] {
				return malformed("message of unknown channel %d", m.ChannelID)
			}
			oc.entries[m.ChannelID] = append(oc.entries[m.ChannelID], indexEntry{logTime: m.LogTime, offset: uint64(offset)})
			countMessage(&oc.stats, m)
		}
		return nil
	})
	return oc, err == nil
}

func countMessage(s *Statistics, m Message) {
	if s.MessageCount == 0 || m.LogTime < s.MessageStartTime {
		s.MessageStartTime = m.LogTime
	}
	s.MessageEndTime = max(s.MessageEndTime, m.LogTime)
	s.MessageCount++
	s.ChannelMessageCounts[m.ChannelID]++
}

func mergeStats(into *Statistics, s Statistics) {
	if s.MessageCount == 0 {
		return
	}
	if into.MessageCount == 0 || s.MessageStartTime < into.MessageStartTime {
		into.MessageStartTime = s.MessageStartTime
	}
	into.MessageEndTime = max(into.MessageEndTime, s.MessageEndTime)
	into.MessageCount += s.MessageCount
	for ch, n := range s.ChannelMessageCounts {
		into.ChannelMessageCounts[ch] += n
	}
}
