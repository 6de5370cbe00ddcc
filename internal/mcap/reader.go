package mcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Bounds on what the reader takes from a file, so that a corrupt length never allocates more
// than this: our chunks are about DefaultChunkSize, a sample at most a few tens of MiB.
const (
	MaxRecord  = 256 << 20 // a record's content, a chunk's uncompressed records
	maxHeader  = 1 << 20
	maxSummary = 64 << 20
)

// Summary is what a file's summary section says, with its header and footer.
type Summary struct {
	Header         Header
	Footer         Footer
	Schemas        map[uint16]Schema
	Channels       map[uint16]Channel
	ChunkIndexes   []ChunkIndex
	Statistics     Statistics
	DataSectionCRC uint32
	metadata       []metadataIndex
}

// Start and End are the log times of the first and last message (zero times when empty).
func (s *Summary) Start() time.Time { return s.time(s.Statistics.MessageStartTime) }
func (s *Summary) End() time.Time   { return s.time(s.Statistics.MessageEndTime) }

func (s *Summary) time(ns uint64) time.Time {
	if s.Statistics.MessageCount == 0 {
		return time.Time{}
	}
	return FromTime(ns)
}

// Topics lists the channels' topics in channel order.
func (s *Summary) Topics() []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(s.Channels)) {
		out = append(out, s.Channels[id].Topic)
	}
	return out
}

// readHeader checks the leading magic and reads the header; it returns the offset after it.
func readHeader(r io.ReaderAt, size int64) (Header, int64, error) {
	prefix := make([]byte, len(Magic)+recordPrefix)
	if size < int64(len(prefix)) {
		return Header{}, 0, malformed("%d bytes: too small for an MCAP file", size)
	}
	if _, err := r.ReadAt(prefix, 0); err != nil {
		return Header{}, 0, err
	}
	if !bytes.Equal(prefix[:len(Magic)], Magic) {
		return Header{}, 0, malformed("no MCAP magic at the start")
	}
	if prefix[len(Magic)] != opHeader {
		return Header{}, 0, malformed("the first record is not a header")
	}
	n := binary.LittleEndian.Uint64(prefix[len(Magic)+1:])
	end := int64(len(prefix)) + int64(n)
	if n > maxHeader || end > size {
		return Header{}, 0, malformed("header of %d bytes in a file of %d", n, size)
	}
	body := make([]byte, n)
	if _, err := r.ReadAt(body, int64(len(prefix))); err != nil {
		return Header{}, 0, err
	}
	h, err := parseHeader(body)
	return h, end, err
}

// ReadSummary reads the header, the footer and the summary section of a complete file of
// size bytes, checking the summary's CRC. A file without a summary (one a crash cut short)
// is ErrMalformed: Recover finalises it.
func ReadSummary(r io.ReaderAt, size int64) (*Summary, error) {
	h, headerEnd, err := readHeader(r, size)
	if err != nil {
		return nil, err
	}
	tail := make([]byte, footerRecord+len(Magic))
	footerAt := size - int64(len(tail))
	if footerAt < headerEnd {
		return nil, malformed("no room for a footer")
	}
	if _, err := r.ReadAt(tail, footerAt); err != nil {
		return nil, err
	}
	if !bytes.Equal(tail[footerRecord:], Magic) {
		return nil, malformed("no MCAP magic at the end: the file is incomplete")
	}
	if tail[0] != opFooter || binary.LittleEndian.Uint64(tail[1:]) != footerRecord-recordPrefix {
		return nil, malformed("no footer before the closing magic")
	}
	f, err := parseFooter(tail[recordPrefix:footerRecord])
	if err != nil {
		return nil, err
	}
	dataEndAt := int64(f.SummaryStart) - dataEndRecord
	if f.SummaryStart == 0 || dataEndAt < headerEnd || int64(f.SummaryStart) > footerAt {
		return nil, malformed("summary start %d out of place", f.SummaryStart)
	}
	if footerAt-dataEndAt > maxSummary {
		return nil, malformed("summary of %d bytes", footerAt-dataEndAt)
	}
	section := make([]byte, footerAt-dataEndAt)
	if _, err := r.ReadAt(section, dataEndAt); err != nil {
		return nil, err
	}
	if f.SummaryCRC != 0 {
		crc := crc32.NewIEEE()
		crc.Write(section[dataEndRecord:])
		crc.Write(tail[:footerRecord-4])
		if crc.Sum32() != f.SummaryCRC {
			return nil, malformed("summary CRC %08x, footer says %08x", crc.Sum32(), f.SummaryCRC)
		}
	}
	s := &Summary{Header: h, Footer: f, Schemas: map[uint16]Schema{}, Channels: map[uint16]Channel{}}
	first := true
	err = eachRecord(section, func(op byte, body []byte, _ int) error {
		if first && op != opDataEnd {
			return malformed("no data end record before the summary")
		}
		first = false
		switch op {
		case opDataEnd:
			p := parser{b: body}
			s.DataSectionCRC = p.u32("data end crc")
			return p.err
		case opSchema:
			sc, err := parseSchema(body)
			s.Schemas[sc.ID] = sc
			return err
		case opChannel:
			c, err := parseChannel(body)
			s.Channels[c.ID] = c
			return err
		case opChunkIndex:
			c, err := parseChunkIndex(body)
			s.ChunkIndexes = append(s.ChunkIndexes, c)
			return err
		case opStatistics:
			st, err := parseStatistics(body)
			s.Statistics = st
			return err
		case opMetadataIndex:
			m, err := parseMetadataIndex(body)
			s.metadata = append(s.metadata, m)
			return err
		case opHeader, opFooter, opMessage, opChunk, opMessageIndex, opAttachment, opMetadata:
			return malformed("record 0x%02x in the summary", op)
		}
		return nil // indexes of attachments, summary offsets, private records
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// eachRecord calls fn for each record of b, with its offset in b. A record that does not
// fit is ErrMalformed.
func eachRecord(b []byte, fn func(op byte, body []byte, at int) error) error {
	for at := 0; at < len(b); {
		if len(b)-at < recordPrefix {
			return malformed("%d stray bytes after the last record", len(b)-at)
		}
		n := binary.LittleEndian.Uint64(b[at+1:])
		if n > uint64(len(b)-at-recordPrefix) {
			return malformed("record 0x%02x of %d bytes overruns its section", b[at], n)
		}
		if err := fn(b[at], b[at+recordPrefix:at+recordPrefix+int(n)], at); err != nil {
			return err
		}
		at += recordPrefix + int(n)
	}
	return nil
}

var decoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxRecord))
	if err != nil {
		panic(err) // only for invalid options
	}
	return d
}}

// decode returns a chunk's uncompressed records, checking their size and CRC.
func (c chunk) decode() ([]byte, error) { return c.decodeInto(nil) }

// decodeInto is decode appending to dst, for a reader that reuses one buffer for every
// chunk. Uncompressed records are returned as they are, aliasing the chunk's.
func (c chunk) decodeInto(dst []byte) ([]byte, error) {
	if c.uncompressedSize > MaxRecord {
		return nil, malformed("chunk of %d bytes uncompressed", c.uncompressedSize)
	}
	var data []byte
	switch c.compression {
	case CompressionNone:
		data = c.records
	case CompressionZstd:
		d := decoders.Get().(*zstd.Decoder)
		// The size is the file's word: allocate for a plausible ratio, let a larger one grow.
		if dst == nil {
			dst = make([]byte, 0, min(c.uncompressedSize, 16*uint64(len(c.records))+4096))
		}
		out, err := d.DecodeAll(c.records, dst)
		decoders.Put(d)
		if err != nil {
			return nil, malformed("chunk: %v", err)
		}
		data = out
	default:
		return nil, malformed("chunk compression %q", c.compression)
	}
	if uint64(len(data)) != c.uncompressedSize {
		return nil, malformed("chunk of %d bytes, its record says %d", len(data), c.uncompressedSize)
	}
	if c.uncompressedCRC != 0 && crc32.ChecksumIEEE(data) != c.uncompressedCRC {
		return nil, malformed("chunk CRC mismatch")
	}
	return data, nil
}

// scanner reads a file's records one after the other from the end of its header.
type scanner struct {
	r    io.ReaderAt
	size int64
	pos  int64
	buf  []byte
}

// errTruncated ends a scan at a record the file holds only part of.
var errTruncated = errors.New("mcap: truncated record")

// next reads the record at pos. Its body is valid until the next call. io.EOF: the file
// ends exactly here; errTruncated: a record starts but does not fit.
func (s *scanner) next() (op byte, body []byte, err error) {
	left := s.size - s.pos
	if left == 0 {
		return 0, nil, io.EOF
	}
	if left < recordPrefix {
		return 0, nil, errTruncated
	}
	var prefix [recordPrefix]byte
	if _, err := s.r.ReadAt(prefix[:], s.pos); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint64(prefix[1:])
	if n > uint64(left-recordPrefix) {
		return 0, nil, errTruncated
	}
	if n > MaxRecord {
		return 0, nil, malformed("record of %d bytes", n)
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	body = s.buf[:n]
	if _, err := s.r.ReadAt(body, s.pos+recordPrefix); err != nil {
		return 0, nil, err
	}
	s.pos += recordPrefix + int64(n)
	return prefix[0], body, nil
}

// ReadMessages calls fn for every message of the data section in file order, with its
// channel, reading chunks as well as messages outside them (so it reads a file a crash cut
// short, up to its last complete record). It stops at the data end record, at the first
// error of fn, or at a malformed record; a truncated last record is not an error.
func ReadMessages(r io.ReaderAt, size int64, fn func(Channel, Message) error) error {
	_, pos, err := readHeader(r, size)
	if err != nil {
		return err
	}
	sc := scanner{r: r, size: size, pos: pos}
	channels := map[uint16]Channel{}
	handle := func(op byte, body []byte) error {
		switch op {
		case opChannel:
			c, err := parseChannel(body)
			channels[c.ID] = c
			return err
		case opMessage:
			m, err := parseMessage(body)
			if err != nil {
				return err
			}
			c, ok := channels[m.ChannelID]
			if !ok {
				return malformed("message of unknown channel %d", m.ChannelID)
			}
			return fn(c, m)
		}
		return nil
	}
	for {
		op, body, err := sc.next()
		if err == io.EOF || errors.Is(err, errTruncated) {
			return nil
		}
		if err != nil {
			return err
		}
		switch op {
		case opDataEnd:
			return nil
		case opChunk:
			c, err := parseChunk(body)
			if err != nil {
				return err
			}
			data, err := c.decode()
			if err != nil {
				return err
			}
			if err := eachRecord(data, func(op byte, body []byte, _ int) error { return handle(op, body) }); err != nil {
				return err
			}
		default:
			if err := handle(op, body); err != nil {
				return err
			}
		}
	}
}

// ReadMetadata reads the metadata records the summary of a complete file of size bytes
// indexes, in file order.
func ReadMetadata(r io.ReaderAt, size int64) ([]Metadata, error) {
	s, err := ReadSummary(r, size)
	if err != nil {
		return nil, err
	}
	out := make([]Metadata, 0, len(s.metadata))
	for _, idx := range s.metadata {
		if idx.length < recordPrefix || idx.length > maxHeader || int64(idx.offset) < 0 || int64(idx.offset+idx.length) > size {
			return nil, malformed("metadata index out of the file")
		}
		b := make([]byte, idx.length)
		if _, err := r.ReadAt(b, int64(idx.offset)); err != nil {
			return nil, err
		}
		if b[0] != opMetadata || binary.LittleEndian.Uint64(b[1:]) != idx.length-recordPrefix {
			return nil, malformed("the metadata index points at no metadata record")
		}
		m, err := parseMetadata(b[recordPrefix:])
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
