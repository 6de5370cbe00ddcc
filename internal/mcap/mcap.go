// Package mcap writes and reads MCAP files (https://mcap.dev/spec, major version 0), the
// container the recorder stores robot streams in: a chunked, zstd-compressed data section
// with message indexes, and a summary (schemas, channels, chunk indexes, statistics, summary
// offsets) that lets a reader seek. The reader is ours to check files, show their summary and
// finalise a file that a crash left without one (Recover).
package mcap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// Magic starts and ends every MCAP file: 0x89 "MCAP" then the major version '0', "\r\n".
var Magic = []byte{0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'}

// Opcodes of the records this package writes or reads.
const (
	opHeader          byte = 0x01
	opFooter          byte = 0x02
	opSchema          byte = 0x03
	opChannel         byte = 0x04
	opMessage         byte = 0x05
	opChunk           byte = 0x06
	opMessageIndex    byte = 0x07
	opChunkIndex      byte = 0x08
	opAttachment      byte = 0x09
	opAttachmentIndex byte = 0x0A
	opStatistics      byte = 0x0B
	opMetadata        byte = 0x0C
	opMetadataIndex   byte = 0x0D
	opSummaryOffset   byte = 0x0E
	opDataEnd         byte = 0x0F
)

// Well-known encodings (https://mcap.dev/spec/registry).
const (
	EncodingProtobuf = "protobuf" // schema and message encoding
	SchemaROS1       = "ros1msg"  // schema encoding of ROS 1 message definitions
	MessageROS1      = "ros1"     // message encoding of ROS 1 serialised messages
	MessageCDR       = "cdr"      // message encoding of ROS 2 messages: CDR, encapsulation header included
	CompressionZstd  = "zstd"
	CompressionNone  = ""
)

// Sizes of the fixed records: opcode, length, content.
const (
	recordPrefix  = 1 + 8
	footerRecord  = recordPrefix + 8 + 8 + 4
	dataEndRecord = recordPrefix + 4
)

// Header is the file's first record.
type Header struct {
	Profile string
	Library string
}

// Schema describes the messages of one or more channels.
type Schema struct {
	ID       uint16
	Name     string
	Encoding string
	Data     []byte
}

// Metadata is a named map of strings a file carries outside its messages (fleetgate writes
// one named "fleetgate": which robot, trigger and gateway made the file).
type Metadata struct {
	Name     string
	Metadata map[string]string
}

// metadataIndex locates a Metadata record, for the summary.
type metadataIndex struct {
	offset, length uint64
	name           string
}

// Channel is one stream of messages on a topic.
type Channel struct {
	ID              uint16
	SchemaID        uint16 // 0: no schema
	Topic           string
	MessageEncoding string
	Metadata        map[string]string
}

// Message is one timestamped message of a channel. Times are nanoseconds since the Unix epoch.
type Message struct {
	ChannelID   uint16
	Sequence    uint32
	LogTime     uint64 // when the recorder received it
	PublishTime uint64 // when the source published it
	Data        []byte
}

// ChunkIndex locates a chunk and its message indexes.
type ChunkIndex struct {
	MessageStartTime    uint64
	MessageEndTime      uint64
	ChunkStartOffset    uint64
	ChunkLength         uint64
	MessageIndexOffsets map[uint16]uint64
	MessageIndexLength  uint64
	Compression         string
	CompressedSize      uint64
	UncompressedSize    uint64
}

// Statistics sums up the file.
type Statistics struct {
	MessageCount         uint64
	SchemaCount          uint16
	ChannelCount         uint32
	AttachmentCount      uint32
	MetadataCount        uint32
	ChunkCount           uint32
	MessageStartTime     uint64
	MessageEndTime       uint64
	ChannelMessageCounts map[uint16]uint64
}

// Footer is the file's last record.
type Footer struct {
	SummaryStart       uint64
	SummaryOffsetStart uint64
	SummaryCRC         uint32
}

// ErrMalformed marks bytes that are not a valid MCAP file (or not one this reader takes).
var ErrMalformed = errors.New("mcap: malformed")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// builder appends the serialisations of the spec's field types.
type builder []byte

func (b builder) u8(v byte) builder    { return append(b, v) }
func (b builder) u16(v uint16) builder { return binary.LittleEndian.AppendUint16(b, v) }
func (b builder) u32(v uint32) builder { return binary.LittleEndian.AppendUint32(b, v) }
func (b builder) u64(v uint64) builder { return binary.LittleEndian.AppendUint64(b, v) }

func (b builder) str(s string) builder { return append(b.u32(uint32(len(s))), s...) }

func (b builder) bytes32(p []byte) builder { return append(b.u32(uint32(len(p))), p...) }

// stringMap writes a Map<string, string> with its keys sorted, so equal maps are equal bytes.
func (b builder) stringMap(m map[string]string) builder {
	at := len(b)
	b = b.u32(0)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b = b.str(k).str(m[k])
	}
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// idMap writes a Map<uint16, uint64> in key order.
func (b builder) idMap(m map[uint16]uint64) builder {
	b = b.u32(uint32(len(m) * 10))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b = b.u16(k).u64(m[k])
	}
	return b
}

// record starts a record of opcode op; end fills in its length.
func (b builder) record(op byte) (builder, int) {
	b = append(b, op).u64(0)
	return b, len(b)
}

func (b builder) end(start int) builder {
	binary.LittleEndian.PutUint64(b[start-8:], uint64(len(b)-start))
	return b
}

func appendHeader(b builder, h Header) builder {
	b, at := b.record(opHeader)
	return b.str(h.Profile).str(h.Library).end(at)
}

func appendSchema(b builder, s Schema) builder {
	b, at := b.record(opSchema)
	return b.u16(s.ID).str(s.Name).str(s.Encoding).bytes32(s.Data).end(at)
}

func appendChannel(b builder, c Channel) builder {
	b, at := b.record(opChannel)
	return b.u16(c.ID).u16(c.SchemaID).str(c.Topic).str(c.MessageEncoding).stringMap(c.Metadata).end(at)
}

func appendMessage(b builder, m Message) builder {
	b, at := b.record(opMessage)
	b = b.u16(m.ChannelID).u32(m.Sequence).u64(m.LogTime).u64(m.PublishTime)
	return append(b, m.Data...).end(at)
}

// indexEntry is one message's place in its chunk's uncompressed records.
type indexEntry struct {
	logTime uint64
	offset  uint64
}

func appendMessageIndex(b builder, channel uint16, entries []indexEntry) builder {
	b, at := b.record(opMessageIndex)
	b = b.u16(channel).u32(uint32(len(entries) * 16))
	for _, e := range entries {
		b = b.u64(e.logTime).u64(e.offset)
	}
	return b.end(at)
}

func appendChunkIndex(b builder, c ChunkIndex) builder {
	b, at := b.record(opChunkIndex)
	b = b.u64(c.MessageStartTime).u64(c.MessageEndTime).u64(c.ChunkStartOffset).u64(c.ChunkLength)
	b = b.idMap(c.MessageIndexOffsets).u64(c.MessageIndexLength).str(c.Compression)
	return b.u64(c.CompressedSize).u64(c.UncompressedSize).end(at)
}

func appendStatistics(b builder, s Statistics) builder {
	b, at := b.record(opStatistics)
	b = b.u64(s.MessageCount).u16(s.SchemaCount).u32(s.ChannelCount).u32(s.AttachmentCount)
	b = b.u32(s.MetadataCount).u32(s.ChunkCount).u64(s.MessageStartTime).u64(s.MessageEndTime)
	return b.idMap(s.ChannelMessageCounts).end(at)
}

func appendMetadata(b builder, m Metadata) builder {
	b, at := b.record(opMetadata)
	return b.str(m.Name).stringMap(m.Metadata).end(at)
}

func appendMetadataIndex(b builder, m metadataIndex) builder {
	b, at := b.record(opMetadataIndex)
	return b.u64(m.offset).u64(m.length).str(m.name).end(at)
}

func parseMetadata(b []byte) (Metadata, error) {
	p := parser{b: b}
	m := Metadata{Name: p.str("metadata name"), Metadata: p.stringMap("metadata")}
	return m, p.err
}

func parseMetadataIndex(b []byte) (metadataIndex, error) {
	p := parser{b: b}
	m := metadataIndex{offset: p.u64("metadata index offset"), length: p.u64("metadata index length"), name: p.str("metadata index name")}
	return m, p.err
}

func appendSummaryOffset(b builder, op byte, start, length uint64) builder {
	b, at := b.record(opSummaryOffset)
	return b.u8(op).u64(start).u64(length).end(at)
}

func appendDataEnd(b builder, crc uint32) builder {
	b, at := b.record(opDataEnd)
	return b.u32(crc).end(at)
}

// parser reads the spec's field types from a record's content. The first failure sticks: the
// caller checks err once at the end.
type parser struct {
	b   []byte
	err error
}

func (p *parser) take(n uint64, what string) []byte {
	if p.err != nil {
		return nil
	}
	if n > uint64(len(p.b)) {
		p.err = malformed("%s: %d bytes wanted, %d left", what, n, len(p.b))
		return nil
	}
	out := p.b[:n]
	p.b = p.b[n:]
	return out
}

func (p *parser) u8(what string) byte {
	if b := p.take(1, what); b != nil {
		return b[0]
	}
	return 0
}

func (p *parser) u16(what string) uint16 {
	if b := p.take(2, what); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (p *parser) u32(what string) uint32 {
	if b := p.take(4, what); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (p *parser) u64(what string) uint64 {
	if b := p.take(8, what); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (p *parser) str(what string) string { return string(p.take(uint64(p.u32(what)), what)) }

func (p *parser) bytes32(what string) []byte { return p.take(uint64(p.u32(what)), what) }

func (p *parser) stringMap(what string) map[string]string {
	sub := parser{b: p.take(uint64(p.u32(what)), what)}
	m := map[string]string{}
	for p.err == nil && sub.err == nil && len(sub.b) > 0 {
		k := sub.str(what)
		m[k] = sub.str(what)
	}
	if p.err == nil {
		p.err = sub.err
	}
	return m
}

func (p *parser) idMap(what string) map[uint16]uint64 {
	sub := parser{b: p.take(uint64(p.u32(what)), what)}
	m := map[uint16]uint64{}
	for p.err == nil && sub.err == nil && len(sub.b) > 0 {
		k := sub.u16(what)
		m[k] = sub.u64(what)
	}
	if p.err == nil {
		p.err = sub.err
	}
	return m
}

func parseHeader(b []byte) (Header, error) {
	p := parser{b: b}
	h := Header{Profile: p.str("header profile"), Library: p.str("header library")}
	return h, p.err
}

func parseSchema(b []byte) (Schema, error) {
	p := parser{b: b}
	s := Schema{ID: p.u16("schema id"), Name: p.str("schema name"), Encoding: p.str("schema encoding"), Data: slices.Clone(p.bytes32("schema data"))}
	if p.err == nil && s.ID == 0 {
		p.err = malformed("schema id 0")
	}
	return s, p.err
}

func parseChannel(b []byte) (Channel, error) {
	p := parser{b: b}
	c := Channel{ID: p.u16("channel id"), SchemaID: p.u16("channel schema"), Topic: p.str("channel topic"),
		MessageEncoding: p.str("channel encoding"), Metadata: p.stringMap("channel metadata")}
	return c, p.err
}

// parseMessage returns a message whose Data aliases b.
func parseMessage(b []byte) (Message, error) {
	p := parser{b: b}
	m := Message{ChannelID: p.u16("message channel"), Sequence: p.u32("message sequence"),
		LogTime: p.u64("message log time"), PublishTime: p.u64("message publish time")}
	m.Data = p.b
	return m, p.err
}

// chunk is a parsed Chunk record; records aliases the record's (compressed) bytes.
type chunk struct {
	start, end       uint64
	uncompressedSize uint64
	uncompressedCRC  uint32
	compression      string
	records          []byte
}

func parseChunk(b []byte) (chunk, error) {
	p := parser{b: b}
	c := chunk{start: p.u64("chunk start"), end: p.u64("chunk end"), uncompressedSize: p.u64("chunk size"),
		uncompressedCRC: p.u32("chunk crc"), compression: p.str("chunk compression")}
	c.records = p.take(p.u64("chunk records"), "chunk records")
	return c, p.err
}

func parseMessageIndex(b []byte) (uint16, []indexEntry, error) {
	p := parser{b: b}
	channel := p.u16("message index channel")
	raw := p.take(uint64(p.u32("message index records")), "message index records")
	if p.err != nil {
		return 0, nil, p.err
	}
	if len(raw)%16 != 0 {
		return 0, nil, malformed("message index of %d bytes", len(raw))
	}
	entries := make([]indexEntry, len(raw)/16)
	for i := range entries {
		entries[i] = indexEntry{binary.LittleEndian.Uint64(raw[16*i:]), binary.LittleEndian.Uint64(raw[16*i+8:])}
	}
	return channel, entries, nil
}

func parseChunkIndex(b []byte) (ChunkIndex, error) {
	p := parser{b: b}
	c := ChunkIndex{
		MessageStartTime: p.u64("chunk index start"), MessageEndTime: p.u64("chunk index end"),
		ChunkStartOffset: p.u64("chunk index offset"), ChunkLength: p.u64("chunk index length"),
		MessageIndexOffsets: p.idMap("chunk index message indexes"), MessageIndexLength: p.u64("chunk index message index length"),
		Compression: p.str("chunk index compression"), CompressedSize: p.u64("chunk index compressed size"),
		UncompressedSize: p.u64("chunk index uncompressed size"),
	}
	return c, p.err
}

func parseStatistics(b []byte) (Statistics, error) {
	p := parser{b: b}
	s := Statistics{
		MessageCount: p.u64("statistics messages"), SchemaCount: p.u16("statistics schemas"),
		ChannelCount: p.u32("statistics channels"), AttachmentCount: p.u32("statistics attachments"),
		MetadataCount: p.u32("statistics metadata"), ChunkCount: p.u32("statistics chunks"),
		MessageStartTime: p.u64("statistics start"), MessageEndTime: p.u64("statistics end"),
		ChannelMessageCounts: p.idMap("statistics channel counts"),
	}
	return s, p.err
}

func parseFooter(b []byte) (Footer, error) {
	p := parser{b: b}
	f := Footer{SummaryStart: p.u64("footer summary start"), SummaryOffsetStart: p.u64("footer summary offset start"), SummaryCRC: p.u32("footer crc")}
	return f, p.err
}

// Time is t as an MCAP timestamp: nanoseconds since the Unix epoch, 0 for earlier times.
func Time(t time.Time) uint64 {
	if t.Before(time.Unix(0, 0)) {
		return 0
	}
	return uint64(t.UnixNano())
}

// FromTime is the time of an MCAP timestamp.
func FromTime(ns uint64) time.Time {
	if ns > math.MaxInt64 {
		ns = math.MaxInt64
	}
	return time.Unix(0, int64(ns))
}
