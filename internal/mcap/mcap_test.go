package mcap

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// written is a file a test wrote and what it put in it.
type written struct {
	path     string
	messages []Message // in the order written
	topics   map[uint16]string
	chunks   []int64 // file size after each chunk was closed
}

var base = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func posePayload(t testing.TB, i int) []byte {
	b, err := proto.Marshal(&catalogpb.PoseStamped{
		Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: int32(1000 + i), Nanosec: uint32(i)}, FrameId: "map"},
		Pose:   &catalogpb.Pose{Position: &catalogpb.Point{X: float64(i), Y: -float64(i) / 2, Z: 0.25}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func imagePayload(t testing.TB, i int) []byte {
	data := bytes.Repeat([]byte{byte(i), 0xD8, 0xFF}, 2000+i)
	b, err := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "camera"}, Format: "jpeg", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes n rounds of a pose, an image and (each third round) an opaque ROS 1
// message, closing the file unless open is set.
func writeFile(t testing.TB, opts Options, n int, keepOpen bool) written {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.mcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	w, err := NewWriter(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	pose, err := ProtobufSchema((&catalogpb.PoseStamped{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	image, err := ProtobufSchema((&catalogpb.CompressedImage{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := w.AddSchema("Platform.Messages.geometry_msgs.PoseStamped", EncodingProtobuf, pose)
	is, _ := w.AddSchema("Platform.Messages.sensor_msgs.CompressedImage", EncodingProtobuf, image)
	rs, _ := w.AddSchema("custom_msgs/Beacon", SchemaROS1, []byte("uint32 id\nstring label\n"))
	out := written{path: path, topics: map[uint16]string{}}
	add := func(schema uint16, topic, enc string) uint16 {
		id, err := w.AddChannel(schema, topic, enc, map[string]string{"component": "c", "stream": topic})
		if err != nil {
			t.Fatal(err)
		}
		out.topics[id] = topic
		return id
	}
	pc := add(ps, "/base/pose", EncodingProtobuf)
	ic := add(is, "/camera/image", EncodingProtobuf)
	rc := add(rs, "/beacon", MessageROS1)
	chunks := w.Stats().ChunkCount
	for i := range n {
		at := base.Add(time.Duration(i) * 50 * time.Millisecond)
		msgs := []Message{
			{ChannelID: pc, Sequence: uint32(i + 1), LogTime: Time(at.Add(time.Millisecond)), PublishTime: Time(at), Data: posePayload(t, i)},
			{ChannelID: ic, Sequence: uint32(i + 1), LogTime: Time(at.Add(2 * time.Millisecond)), PublishTime: Time(at), Data: imagePayload(t, i)},
		}
		if i%3 == 0 {
			ros := binary.LittleEndian.AppendUint32(nil, uint32(i))
			ros = append(binary.LittleEndian.AppendUint32(ros, 4), "beep"...)
			msgs = append(msgs, Message{ChannelID: rc, Sequence: uint32(i/3 + 1), LogTime: Time(at.Add(3 * time.Millisecond)), PublishTime: Time(at), Data: ros})
		}
		for _, m := range msgs {
			if err := w.WriteMessage(m); err != nil {
				t.Fatal(err)
			}
			out.messages = append(out.messages, m)
			if c := w.Stats().ChunkCount; c != chunks {
				chunks = c
				out.chunks = append(out.chunks, w.Written())
			}
		}
	}
	if keepOpen {
		// A last small message, so that an open chunk is always left behind.
		m := Message{ChannelID: pc, Sequence: uint32(n + 1), LogTime: Time(base.Add(time.Hour)), PublishTime: Time(base.Add(time.Hour)), Data: posePayload(t, n)}
		if err := w.WriteMessage(m); err != nil {
			t.Fatal(err)
		}
		out.messages = append(out.messages, m)
	}
	if !keepOpen {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	} else if w.Err() != nil {
		t.Fatal(w.Err())
	}
	return out
}

func openSummary(t *testing.T, path string) *Summary {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	s, err := ReadSummary(f, st.Size())
	if err != nil {
		t.Fatalf("ReadSummary: %v", err)
	}
	return s
}

func readAll(t *testing.T, path string) []Message {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var out []Message
	err = ReadMessages(f, st.Size(), func(_ Channel, m Message) error {
		m.Data = bytes.Clone(m.Data)
		out = append(out, m)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadMessages: %v", err)
	}
	return out
}

func sameMessages(t *testing.T, got, want []Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("read %d messages, wrote %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ChannelID != w.ChannelID || g.Sequence != w.Sequence || g.LogTime != w.LogTime ||
			g.PublishTime != w.PublishTime || !bytes.Equal(g.Data, w.Data) {
			t.Fatalf("message %d: read channel %d seq %d at %d/%d (%d bytes), wrote channel %d seq %d at %d/%d (%d bytes)", i,
				g.ChannelID, g.Sequence, g.LogTime, g.PublishTime, len(g.Data), w.ChannelID, w.Sequence, w.LogTime, w.PublishTime, len(w.Data))
		}
	}
}

// checkIndexes proves the summary's offsets: every chunk index points at a chunk record
// whose times it repeats, and every message index offset at a message index record of its
// channel whose entries point at messages of that channel and time in the chunk.
func checkIndexes(t *testing.T, path string, s *Summary) {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	record := func(at uint64, op byte) []byte {
		t.Helper()
		if at+recordPrefix > uint64(len(file)) || file[at] != op {
			t.Fatalf("no record 0x%02x at %d", op, at)
		}
		n := binary.LittleEndian.Uint64(file[at+1:])
		return file[at+recordPrefix : at+recordPrefix+n]
	}
	var messages uint64
	for _, ci := range s.ChunkIndexes {
		c, err := parseChunk(record(ci.ChunkStartOffset, opChunk))
		if err != nil {
			t.Fatal(err)
		}
		if c.start != ci.MessageStartTime || c.end != ci.MessageEndTime || c.compression != ci.Compression ||
			uint64(len(c.records)) != ci.CompressedSize || c.uncompressedSize != ci.UncompressedSize {
			t.Fatalf("chunk index %+v does not match its chunk", ci)
		}
		data, err := c.decode()
		if err != nil {
			t.Fatal(err)
		}
		if len(ci.MessageIndexOffsets) == 0 {
			t.Fatal("a chunk without message indexes")
		}
		var indexBytes uint64
		for ch, off := range ci.MessageIndexOffsets {
			body := record(off, opMessageIndex)
			indexBytes += recordPrefix + uint64(len(body))
			got, entries, err := parseMessageIndex(body)
			if err != nil || got != ch {
				t.Fatalf("message index at %d: channel %d, %v; want channel %d", off, got, err, ch)
			}
			for _, e := range entries {
				m, err := parseMessage(data[e.offset+recordPrefix : e.offset+recordPrefix+binary.LittleEndian.Uint64(data[e.offset+1:])])
				if err != nil || data[e.offset] != opMessage || m.ChannelID != ch || m.LogTime != e.logTime {
					t.Fatalf("message index entry %+v of channel %d points at %+v (%v)", e, ch, m, err)
				}
				messages++
			}
		}
		if indexBytes != ci.MessageIndexLength {
			t.Fatalf("message indexes of %d bytes, chunk index says %d", indexBytes, ci.MessageIndexLength)
		}
	}
	if messages != s.Statistics.MessageCount {
		t.Fatalf("message indexes list %d messages, statistics %d", messages, s.Statistics.MessageCount)
	}
	if crc := crc32.ChecksumIEEE(file[:s.Footer.SummaryStart-dataEndRecord]); crc != s.DataSectionCRC {
		t.Fatalf("data section CRC %08x, data end says %08x", crc, s.DataSectionCRC)
	}
}

func TestWriteAndReadBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		n    int
	}{
		{"zstd, many chunks", Options{ChunkSize: 32 << 10, Library: "test"}, 60},
		{"uncompressed", Options{Uncompressed: true, ChunkSize: 64 << 10}, 40},
		{"one chunk", Options{}, 5},
		{"empty", Options{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := writeFile(t, tc.opts, tc.n, false)
			s := openSummary(t, w.path)
			if s.Header.Library != tc.opts.Library {
				t.Errorf("library %q, want %q", s.Header.Library, tc.opts.Library)
			}
			if got := s.Statistics.MessageCount; got != uint64(len(w.messages)) {
				t.Errorf("statistics count %d messages, wrote %d", got, len(w.messages))
			}
			if len(s.Schemas) != 3 || len(s.Channels) != 3 || s.Statistics.SchemaCount != 3 || s.Statistics.ChannelCount != 3 {
				t.Errorf("%d schemas and %d channels (statistics %d, %d), want 3 and 3", len(s.Schemas), len(s.Channels),
					s.Statistics.SchemaCount, s.Statistics.ChannelCount)
			}
			if int(s.Statistics.ChunkCount) != len(s.ChunkIndexes) {
				t.Errorf("statistics count %d chunks, %d chunk indexes", s.Statistics.ChunkCount, len(s.ChunkIndexes))
			}
			if tc.n > 0 {
				first, last := w.messages[0].LogTime, w.messages[len(w.messages)-1].LogTime
				if s.Statistics.MessageStartTime != first || s.Statistics.MessageEndTime != last {
					t.Errorf("statistics from %d to %d, want %d to %d", s.Statistics.MessageStartTime, s.Statistics.MessageEndTime, first, last)
				}
			}
			sameMessages(t, readAll(t, w.path), w.messages)
			checkIndexes(t, w.path, s)
		})
	}
}

// truncations lists cut points to try: around each chunk's end, and spread over the rest.
func truncations(w written, size int64) []int64 {
	cuts := map[int64]bool{int64(len(Magic)) + 5: true, size - 1: true, size - footerRecord: true}
	for _, end := range w.chunks {
		for _, d := range []int64{-1, 0, 1, 20} {
			if end+d > 0 && end+d < size {
				cuts[end+d] = true
			}
		}
	}
	for c := int64(1); c < size; c += size/37 + 1 {
		cuts[c] = true
	}
	var out []int64
	for c := range cuts {
		out = append(out, c)
	}
	return out
}

// TestRecoverTruncated cuts a file everywhere that matters and recovers it: the result is a
// complete file holding exactly the messages of the chunks written whole before the cut.
func TestRecoverTruncated(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 16 << 10}, 40, false)
	full, err := os.ReadFile(w.path)
	if err != nil {
		t.Fatal(err)
	}
	// Which messages each chunk boundary keeps.
	s := openSummary(t, w.path)
	keptAt := func(cut int64) int {
		n := 0
		for _, ci := range s.ChunkIndexes {
			if int64(ci.ChunkStartOffset+ci.ChunkLength) <= cut {
				n += countIn(t, full, ci)
			}
		}
		return n
	}
	for _, cut := range truncations(w, int64(len(full))) {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cut.mcap")
			if err := os.WriteFile(path, full[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			rec, err := Recover(path)
			headerEnd := int64(len(Magic)) + recordPrefix + 4 + 4 // empty profile and library
			if cut < headerEnd {
				if err == nil {
					t.Fatalf("recovered a file cut at %d, inside its header", cut)
				}
				return
			}
			if err != nil {
				t.Fatalf("Recover: %v", err)
			}
			want := keptAt(cut)
			if rec.Messages != uint64(want) {
				t.Fatalf("recovered %d messages, want the %d of the whole chunks", rec.Messages, want)
			}
			got := openSummary(t, path)
			checkIndexes(t, path, got)
			sameMessages(t, readAll(t, path), w.messages[:want])
			again, err := Recover(path)
			if err != nil || !again.Complete {
				t.Fatalf("a recovered file is not complete: %+v, %v", again, err)
			}
		})
	}
}

// TestRecoverOpenFile recovers a file whose writer never closed it, as a kill leaves it.
func TestRecoverOpenFile(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 16 << 10}, 30, true)
	if len(w.chunks) < 2 {
		t.Fatalf("only %d chunks: the test needs several", len(w.chunks))
	}
	rec, err := Recover(w.path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Complete || rec.Dropped != 0 || rec.Chunks != uint32(len(w.chunks)) {
		t.Fatalf("recovered %+v; want %d chunks kept whole, nothing dropped", rec, len(w.chunks))
	}
	msgs := readAll(t, w.path)
	sameMessages(t, msgs, w.messages[:len(msgs)])
	if len(msgs) == 0 || len(msgs) >= len(w.messages) {
		t.Fatalf("%d of %d messages: the open chunk is lost, the closed ones kept", len(msgs), len(w.messages))
	}
}

func countIn(t *testing.T, file []byte, ci ChunkIndex) int {
	t.Helper()
	n := binary.LittleEndian.Uint64(file[ci.ChunkStartOffset+1:])
	c, err := parseChunk(file[ci.ChunkStartOffset+recordPrefix : ci.ChunkStartOffset+recordPrefix+n])
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.decode()
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	eachRecord(data, func(op byte, _ []byte, _ int) error {
		if op == opMessage {
			count++
		}
		return nil
	})
	return count
}

func TestReadSummaryRefusesDamage(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 16 << 10}, 10, false)
	full, err := os.ReadFile(w.path)
	if err != nil {
		t.Fatal(err)
	}
	s := openSummary(t, w.path)
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }},
		{"no leading magic", func(b []byte) []byte { b[1] = 'X'; return b }},
		{"summary byte flipped", func(b []byte) []byte { b[s.Footer.SummaryStart+3] ^= 1; return b }},
		{"summary start out of range", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-len(Magic)-footerRecord+recordPrefix:], uint64(len(b)))
			return b
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.damage(bytes.Clone(full))
			if _, err := ReadSummary(bytes.NewReader(b), int64(len(b))); err == nil {
				t.Fatal("a damaged file read as whole")
			}
		})
	}
}

func TestWriteErrorSticks(t *testing.T) {
	fw := &failingWriter{room: 300}
	w, err := NewWriter(fw, Options{ChunkSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.AddSchema("s", "", nil)
	ch, _ := w.AddChannel(id, "/t", "json", nil)
	var first error
	for i := 0; i < 20 && first == nil; i++ {
		first = w.WriteMessage(Message{ChannelID: ch, Data: bytes.Repeat([]byte("x"), 80)})
	}
	if first == nil {
		t.Fatal("no error from a full writer")
	}
	if err := w.WriteMessage(Message{ChannelID: ch}); err == nil || w.Err() == nil {
		t.Fatal("the writer went on after a write error")
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close after a write error succeeded")
	}
}

type failingWriter struct{ room int }

func (f *failingWriter) Write(b []byte) (int, error) {
	if len(b) > f.room {
		n := f.room
		f.room = 0
		return n, fmt.Errorf("no space left on device")
	}
	f.room -= len(b)
	return len(b), nil
}

// TestEstimateBoundsTheFile: the estimate of a writer, taken before each message and at the
// end, is never below the size the file has once closed there.
func TestEstimateBoundsTheFile(t *testing.T) {
	for _, n := range []int{0, 1, 7, 40} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Options{ChunkSize: 16 << 10})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := w.AddSchema("Platform.Messages.sensor_msgs.CompressedImage", EncodingProtobuf, []byte("schema"))
		a, _ := w.AddChannel(s, "/camera/image", EncodingProtobuf, map[string]string{"component": "camera", "stream": "image"})
		b, _ := w.AddChannel(s, "/b", EncodingProtobuf, nil)
		for i := range n {
			w.WriteMessage(Message{ChannelID: a, LogTime: uint64(i), Data: imagePayload(t, i)})
			w.WriteMessage(Message{ChannelID: b, LogTime: uint64(i), Data: []byte{1, 2, 3}})
		}
		estimate := w.Estimate()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if int64(buf.Len()) > estimate {
			t.Errorf("%d rounds: the file has %d bytes, the estimate said at most %d", n, buf.Len(), estimate)
		}
	}
}

// BenchmarkWriteMessage writes camera-sized (incompressible, 10 KiB) and cloud-sized
// (300 KiB, half zeros) messages through zstd chunks to memory.
func BenchmarkWriteMessage(b *testing.B) {
	for _, tc := range []struct {
		name string
		data []byte
		opts Options
	}{
		{"camera-10KiB/zstd", random(10 << 10), Options{}},
		{"cloud-300KiB/zstd", append(make([]byte, 150<<10), random(150<<10)...), Options{}},
		{"cloud-300KiB/uncompressed", append(make([]byte, 150<<10), random(150<<10)...), Options{Uncompressed: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w, err := NewWriter(io.Discard, tc.opts)
			if err != nil {
				b.Fatal(err)
			}
			s, _ := w.AddSchema("s", EncodingProtobuf, nil)
			ch, _ := w.AddChannel(s, "/t", EncodingProtobuf, nil)
			b.SetBytes(int64(len(tc.data)))
			for i := 0; b.Loop(); i++ {
				if err := w.WriteMessage(Message{ChannelID: ch, LogTime: uint64(i), Data: tc.data}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// writeWithMetadata writes three messages with a "fleetgate" metadata record after the first;
// it returns the file and how much of it was written before the second message.
func writeWithMetadata(t *testing.T) (path string, open int64) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "meta.mcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := w.AddChannel(0, "/a", "protobuf", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if i == 1 {
			if err := w.WriteMetadata(Metadata{Name: "fleetgate", Metadata: map[string]string{"robotId": "r-1", "trigger": "pallet dropped"}}); err != nil {
				t.Fatal(err)
			}
			open = w.Written()
		}
		if err := w.WriteMessage(Message{ChannelID: ch, LogTime: Time(base.Add(time.Duration(i) * time.Second)), Data: []byte{byte(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, open
}

// TestMetadataIsIndexedAndSurvivesRecovery writes a metadata record between messages: the
// summary indexes it, the messages around it read back, and a file cut before its summary
// keeps it once recovered.
func TestMetadataIsIndexedAndSurvivesRecovery(t *testing.T) {
	path, open := writeWithMetadata(t)
	check := func(path string, messages int) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		md, err := ReadMetadata(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if len(md) != 1 || md[0].Name != "fleetgate" || md[0].Metadata["trigger"] != "pallet dropped" || md[0].Metadata["robotId"] != "r-1" {
			t.Fatalf("metadata %+v", md)
		}
		if s := openSummary(t, path); s.Statistics.MetadataCount != 1 {
			t.Errorf("statistics count %d metadata records, want 1", s.Statistics.MetadataCount)
		}
		if got := len(readAll(t, path)); got != messages {
			t.Errorf("%d messages read, want %d", got, messages)
		}
	}
	check(path, 3)
	// Cut where the writer stood after the metadata: the first message's chunk and the
	// metadata are whole.
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.mcap")
	if err := os.WriteFile(cut, full[:open], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(cut); err != nil {
		t.Fatal(err)
	}
	check(cut, 1)
}

// TestReadMetadataRefusesABadIndex: a metadata index that points outside the file or at
// another record is malformed, never a panic or a huge allocation.
func TestReadMetadataRefusesABadIndex(t *testing.T) {
	path, _ := writeWithMetadata(t)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := openSummary(t, path)
	if len(s.metadata) != 1 {
		t.Fatalf("%d metadata indexes", len(s.metadata))
	}
	idx := s.metadata[0]
	for name, damage := range map[string]func(b []byte){
		"not a metadata record": func(b []byte) { b[idx.offset] = opMessage },
		"its length changed":    func(b []byte) { binary.LittleEndian.PutUint64(b[idx.offset+1:], idx.length) },
	} {
		t.Run(name, func(t *testing.T) {
			b := bytes.Clone(good)
			damage(b)
			if _, err := ReadMetadata(bytes.NewReader(b), int64(len(b))); err == nil {
				t.Fatal("read metadata from a damaged file")
			}
		})
	}
}
