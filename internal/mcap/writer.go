package mcap

import (
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// Options configure a Writer.
type Options struct {
	// Compression of the chunks: CompressionZstd (the default when Uncompressed is false) or
	// none.
	Uncompressed bool
	// ChunkSize is the uncompressed size past which a chunk is closed (default 1 MiB). A
	// chunk is the unit a crash can lose, besides what Flush closes early.
	ChunkSize int
	Profile   string
	Library   string
}

// DefaultChunkSize balances compression (larger is better) against what a crash loses and
// the memory a chunk holds.
const DefaultChunkSize = 1 << 20

// Writer writes an MCAP file in one pass: magic and header, schemas and channels as they
// are added, messages in chunks each followed by its message indexes, then at Close the
// data end, the summary (schemas, channels, chunk indexes, statistics), the summary offsets
// and the footer. Until Close, the file is valid up to its last complete chunk (see
// Recover). The first write error sticks: every later call returns it. Not safe for
// concurrent use.
type Writer struct {
	w    io.Writer
	opts Options
	off  uint64      // bytes written so far
	crc  hash.Hash32 // of every byte written, until the data end record
	err  error

	enc          *zstd.Encoder
	schemas      []Schema
	channels     []Channel
	chunkIndexes []ChunkIndex
	metadata     []metadataIndex
	stats        Statistics

	// The open chunk: its uncompressed records and what its index will say.
	chunk      builder
	chunkStart uint64
	chunkEnd   uint64
	chunkMsgs  int
	index      map[uint16][]indexEntry

	out        builder // scratch for what goes to w
	compressed []byte  // the open chunk's records compressed, reused from chunk to chunk
}

// NewWriter writes the magic and the header to w and returns a Writer.
func NewWriter(w io.Writer, opts Options) (*Writer, error) {
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = DefaultChunkSize
	}
	mw := &Writer{w: w, opts: opts, crc: crc32.NewIEEE(), index: map[uint16][]indexEntry{}}
	mw.stats.ChannelMessageCounts = map[uint16]uint64{}
	if !opts.Uncompressed {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true))
		if err != nil {
			return nil, err
		}
		mw.enc = enc
	}
	b := append(builder(nil), Magic...)
	if err := mw.write(appendHeader(b, Header{Profile: opts.Profile, Library: opts.Library})); err != nil {
		return nil, err
	}
	return mw, nil
}

// write writes b, counting it in the offset and the data section's CRC.
func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	n, err := w.w.Write(b)
	w.crc.Write(b[:n])
	w.off += uint64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("mcap: writing: %w", err)
	}
	return w.err
}

// Err is the write error that stopped the Writer, if any.
func (w *Writer) Err() error { return w.err }

// Size is the file's size so far, counting the open chunk's records uncompressed.
func (w *Writer) Size() int64 { return int64(w.off) + int64(len(w.chunk)) }

// Estimate bounds the file's size if it were closed now: what is written, the open chunk
// uncompressed with its message indexes, and the summary and footer.
func (w *Writer) Estimate() int64 {
	n := w.Size()
	for _, entries := range w.index {
		n += recordPrefix + 6 + 16*int64(len(entries))
	}
	n += recordPrefix + 8 + 8 + 8 + 4 + 4 + 8 // the open chunk's record fields
	summary := int64(dataEndRecord + footerRecord + len(Magic))
	for _, s := range w.schemas {
		summary += recordPrefix + 2 + 4 + int64(len(s.Name)) + 4 + int64(len(s.Encoding)) + 4 + int64(len(s.Data))
	}
	for _, c := range w.channels {
		summary += recordPrefix + 2 + 2 + 4 + int64(len(c.Topic)) + 4 + int64(len(c.MessageEncoding)) + 4
		for k, v := range c.Metadata {
			summary += 8 + int64(len(k)+len(v))
		}
	}
	chunkIndex := int64(recordPrefix+8*7+4+4+len(CompressionZstd)) + 10*int64(len(w.channels))
	summary += (int64(len(w.chunkIndexes)) + 1) * chunkIndex
	summary += recordPrefix + 8 + 2 + 4*4 + 8 + 8 + 4 + 10*int64(len(w.channels)) // statistics
	summary += 4 * (recordPrefix + 1 + 8 + 8)                                     // summary offsets
	return n + summary
}

// Written is the number of bytes written to the underlying writer: the file is valid MCAP up
// to here once Recover finalises it.
func (w *Writer) Written() int64 { return int64(w.off) }

// Stats returns the statistics of the messages written so far, open chunk included.
func (w *Writer) Stats() Statistics {
	s := w.stats
	s.ChannelMessageCounts = maps.Clone(w.stats.ChannelMessageCounts)
	return s
}

// AddSchema writes a schema record and returns its id (from 1).
func (w *Writer) AddSchema(name, encoding string, data []byte) (uint16, error) {
	if len(w.schemas) >= 0xFFFF {
		return 0, errors.New("mcap: too many schemas")
	}
	s := Schema{ID: uint16(len(w.schemas) + 1), Name: name, Encoding: encoding, Data: slices.Clone(data)}
	if err := w.write(appendSchema(w.out[:0], s)); err != nil {
		return 0, err
	}
	w.schemas = append(w.schemas, s)
	w.stats.SchemaCount++
	return s.ID, nil
}

// AddChannel writes a channel record and returns its id (from 0). schemaID 0 means none.
func (w *Writer) AddChannel(schemaID uint16, topic, messageEncoding string, metadata map[string]string) (uint16, error) {
	if len(w.channels) > 0xFFFF {
		return 0, errors.New("mcap: too many channels")
	}
	if schemaID > uint16(len(w.schemas)) {
		return 0, fmt.Errorf("mcap: no schema %d", schemaID)
	}
	c := Channel{ID: uint16(len(w.channels)), SchemaID: schemaID, Topic: topic, MessageEncoding: messageEncoding, Metadata: maps.Clone(metadata)}
	if err := w.write(appendChannel(w.out[:0], c)); err != nil {
		return 0, err
	}
	w.channels = append(w.channels, c)
	w.stats.ChannelCount++
	return c.ID, nil
}

// WriteMetadata writes a metadata record in the data section (closing the open chunk first:
// metadata is never inside a chunk), indexed in the summary.
func (w *Writer) WriteMetadata(m Metadata) error {
	if err := w.Flush(); err != nil {
		return err
	}
	at := w.off
	b := appendMetadata(w.out[:0], m)
	w.out = b[:0]
	if err := w.write(b); err != nil {
		return err
	}
	w.metadata = append(w.metadata, metadataIndex{offset: at, length: uint64(len(b)), name: m.Name})
	w.stats.MetadataCount++
	return nil
}

// WriteMessage adds m to the open chunk, closing the chunk when it is full.
func (w *Writer) WriteMessage(m Message) error {
	if w.err != nil {
		return w.err
	}
	if int(m.ChannelID) >= len(w.channels) {
		return fmt.Errorf("mcap: no channel %d", m.ChannelID)
	}
	if w.chunkMsgs == 0 || m.LogTime < w.chunkStart {
		w.chunkStart = m.LogTime
	}
	if m.LogTime > w.chunkEnd {
		w.chunkEnd = m.LogTime
	}
	w.index[m.ChannelID] = append(w.index[m.ChannelID], indexEntry{logTime: m.LogTime, offset: uint64(len(w.chunk))})
	w.chunk = appendMessage(w.chunk, m)
	w.chunkMsgs++
	if w.stats.MessageCount == 0 || m.LogTime < w.stats.MessageStartTime {
		w.stats.MessageStartTime = m.LogTime
	}
	w.stats.MessageEndTime = max(w.stats.MessageEndTime, m.LogTime)
	w.stats.MessageCount++
	w.stats.ChannelMessageCounts[m.ChannelID]++
	if len(w.chunk) >= w.opts.ChunkSize {
		return w.Flush()
	}
	return nil
}

// Flush closes the open chunk, if it holds anything: its records are on the file, followed
// by its message indexes, in one write.
func (w *Writer) Flush() error {
	if w.err != nil || w.chunkMsgs == 0 {
		return w.err
	}
	idx := ChunkIndex{
		MessageStartTime: w.chunkStart, MessageEndTime: w.chunkEnd, ChunkStartOffset: w.off,
		Compression: CompressionNone, UncompressedSize: uint64(len(w.chunk)), MessageIndexOffsets: map[uint16]uint64{},
	}
	records := []byte(w.chunk)
	if w.enc != nil {
		w.compressed = w.enc.EncodeAll(w.chunk, w.compressed[:0])
		records = w.compressed
		idx.Compression = CompressionZstd
	}
	idx.CompressedSize = uint64(len(records))
	b, at := w.out[:0].record(opChunk)
	b = b.u64(w.chunkStart).u64(w.chunkEnd).u64(uint64(len(w.chunk))).u32(crc32.ChecksumIEEE(w.chunk))
	b = b.str(idx.Compression).u64(uint64(len(records)))
	b = append(b, records...).end(at)
	idx.ChunkLength = uint64(len(b))
	idx.MessageIndexOffsets, b = appendMessageIndexes(b, w.off, w.index)
	idx.MessageIndexLength = uint64(len(b)) - idx.ChunkLength
	w.out = b[:0]
	if err := w.write(b); err != nil {
		return err
	}
	w.chunkIndexes = append(w.chunkIndexes, idx)
	w.stats.ChunkCount++
	w.chunk = w.chunk[:0]
	w.chunkMsgs = 0
	clear(w.index)
	return nil
}

// appendMessageIndexes appends the message index records of a chunk, one per channel in
// channel order, to b, which starts at file offset base; it returns where each one is.
func appendMessageIndexes(b builder, base uint64, index map[uint16][]indexEntry) (map[uint16]uint64, builder) {
	offsets := make(map[uint16]uint64, len(index))
	channels := make([]uint16, 0, len(index))
	for ch := range index {
		channels = append(channels, ch)
	}
	slices.Sort(channels)
	for _, ch := range channels {
		offsets[ch] = base + uint64(len(b))
		b = appendMessageIndex(b, ch, index[ch])
	}
	return offsets, b
}

// Close closes the open chunk and writes the data end, the summary and the footer. It does
// not close the underlying writer.
func (w *Writer) Close() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.enc != nil {
		w.enc.Close()
	}
	return w.finish()
}

// finish writes the data end record, the summary, the summary offsets, the footer and the
// closing magic.
func (w *Writer) finish() error {
	if err := w.write(appendDataEnd(w.out[:0], w.crc.Sum32())); err != nil {
		return err
	}
	summaryStart := w.off
	b := w.out[:0]
	type group struct {
		op            byte
		start, length uint64
	}
	var groups []group
	add := func(op byte, appendAll func(builder) builder) {
		start := len(b)
		b = appendAll(b)
		if len(b) > start {
			groups = append(groups, group{op, summaryStart + uint64(start), uint64(len(b) - start)})
		}
	}
	add(opSchema, func(b builder) builder {
		for _, s := range w.schemas {
			b = appendSchema(b, s)
		}
		return b
	})
	add(opChannel, func(b builder) builder {
		for _, c := range w.channels {
			b = appendChannel(b, c)
		}
		return b
	})
	add(opChunkIndex, func(b builder) builder {
		for _, c := range w.chunkIndexes {
			b = appendChunkIndex(b, c)
		}
		return b
	})
	add(opMetadataIndex, func(b builder) builder {
		for _, m := range w.metadata {
			b = appendMetadataIndex(b, m)
		}
		return b
	})
	add(opStatistics, func(b builder) builder { return appendStatistics(b, w.stats) })
	offsetStart := summaryStart + uint64(len(b))
	for _, g := range groups {
		b = appendSummaryOffset(b, g.op, g.start, g.length)
	}
	// The footer's length is fixed, and the summary's CRC covers it.
	b = b.u8(opFooter).u64(footerRecord - recordPrefix).u64(summaryStart).u64(offsetStart)
	b = b.u32(crc32.ChecksumIEEE(b))
	b = append(b, Magic...)
	w.out = b[:0]
	return w.write(b)
}
