package mcap

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
)

// countingReader records which offsets a trim reads.
type countingReader struct {
	r io.ReaderAt

	mu    sync.Mutex
	reads []int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.reads = append(c.reads, off)
	c.mu.Unlock()
	return c.r.ReadAt(p, off)
}

// trimFile trims the file at path by cut into a new file and returns its path.
func trimFile(t testing.TB, path string, cut Cut) (string, Statistics, *countingReader) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	cr := &countingReader{r: f}
	tr, err := NewTrim(cr, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "trimmed.mcap")
	o, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	stats, err := tr.WriteTo(o, cut, Options{ChunkSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	return out, stats, cr
}

// keepTopics keeps the channels of the topics named.
func keepTopics(topics ...string) func(Channel) bool {
	return func(c Channel) bool { return slices.Contains(topics, c.Topic) }
}

// wanted is what a trim of w by cut must hold, with the topics of their channels.
func wanted(w written, cut Cut) (msgs []Message, topics []string) {
	for _, m := range w.messages {
		topic := w.topics[m.ChannelID]
		if m.LogTime >= cut.From && m.LogTime <= cut.To && (cut.Keep == nil || cut.Keep(Channel{Topic: topic})) {
			msgs = append(msgs, m)
			topics = append(topics, topic)
		}
	}
	return msgs, topics
}

// TestTrim cuts a range of two of three channels: the new file holds exactly their messages
// in that range, payloads and times intact, with schemas and channels of those two only, and
// indexes and statistics that are right for the new bytes; only the chunks overlapping the
// range were read.
func TestTrim(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 32 << 10}, 300, false)
	cut := Cut{
		From: Time(base.Add(5 * time.Second)), To: Time(base.Add(9*time.Second + 2*time.Millisecond)),
		Keep: keepTopics("/camera/image", "/beacon"),
	}
	out, stats, reads := trimFile(t, w.path, cut)

	want, wantTopics := wanted(w, cut)
	if len(want) < 100 {
		t.Fatalf("the cut keeps %d messages: the test needs more", len(want))
	}
	s := openSummary(t, out)
	checkIndexes(t, out, s)
	if got := s.Topics(); !slices.Equal(got, []string{"/camera/image", "/beacon"}) {
		t.Errorf("topics %v", got)
	}
	if len(s.Schemas) != 2 || stats.MessageCount != uint64(len(want)) || s.Statistics.MessageCount != stats.MessageCount {
		t.Errorf("%d schemas, %d messages (summary %d), want 2 and %d", len(s.Schemas), stats.MessageCount, s.Statistics.MessageCount, len(want))
	}
	if s.Start() != FromTime(want[0].LogTime) || s.End() != FromTime(want[len(want)-1].LogTime) {
		t.Errorf("the file spans %v to %v, want %v to %v", s.Start(), s.End(), FromTime(want[0].LogTime), FromTime(want[len(want)-1].LogTime))
	}
	got := readAll(t, out)
	for i := range got {
		if i < len(wantTopics) && s.Channels[got[i].ChannelID].Topic != wantTopics[i] {
			t.Fatalf("message %d on %s, want %s", i, s.Channels[got[i].ChannelID].Topic, wantTopics[i])
		}
		got[i].ChannelID = want[min(i, len(want)-1)].ChannelID // ids are renumbered; topics compared above
	}
	sameMessages(t, got, want)

	// Only the chunks that overlap the range were read (and the summary's records).
	src := openSummary(t, w.path)
	overlapping := map[int64]bool{}
	for _, ci := range src.ChunkIndexes {
		if ci.MessageEndTime >= cut.From && ci.MessageStartTime <= cut.To {
			overlapping[int64(ci.ChunkStartOffset)] = true
		}
	}
	var chunksRead int
	for _, ci := range src.ChunkIndexes {
		if slices.Contains(reads.reads, int64(ci.ChunkStartOffset)) {
			chunksRead++
			if !overlapping[int64(ci.ChunkStartOffset)] {
				t.Errorf("read the chunk at %d, outside the range", ci.ChunkStartOffset)
			}
		}
	}
	if chunksRead != len(overlapping) || chunksRead >= len(src.ChunkIndexes)/2 {
		t.Errorf("read %d chunks of %d; %d overlap the range", chunksRead, len(src.ChunkIndexes), len(overlapping))
	}
}

// TestTrimWholeAndNothing: the whole cut keeps every message; a cut before the first
// message, or of no channel, is a valid file without messages.
func TestTrimWholeAndNothing(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 16 << 10}, 40, false)
	out, stats, _ := trimFile(t, w.path, Whole)
	if stats.MessageCount != uint64(len(w.messages)) {
		t.Fatalf("the whole cut kept %d of %d messages", stats.MessageCount, len(w.messages))
	}
	sameMessages(t, readAll(t, out), w.messages)
	checkIndexes(t, out, openSummary(t, out))

	for name, cut := range map[string]Cut{
		"before":     {From: 0, To: Time(base) - 1},
		"no channel": {From: 0, To: math.MaxUint64, Keep: keepTopics()},
	} {
		out, stats, _ := trimFile(t, w.path, cut)
		s := openSummary(t, out)
		if stats.MessageCount != 0 || s.Statistics.MessageCount != 0 || len(readAll(t, out)) != 0 {
			t.Errorf("%s: %d messages", name, s.Statistics.MessageCount)
		}
	}
}

// TestTrimReadByMcapCore: the reference reader opens a trimmed file and reads exactly the
// messages of the range and streams, in order, with their sequences and times.
func TestTrimReadByMcapCore(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 32 << 10}, 200, false)
	cut := Cut{From: Time(base.Add(3 * time.Second)), To: Time(base.Add(6 * time.Second)), Keep: keepTopics("/base/pose", "/beacon")}
	out, _, _ := trimFile(t, w.path, cut)
	r := mcaptest.Indexed(t, out)
	want, _ := wanted(w, cut)
	if int(r.Statistics.MessageCount) != len(want) || len(r.Channels) != 2 || r.DataSectionCRC != r.ComputedDataCRC {
		t.Fatalf("@mcap/core: %d messages on %d channels (data CRC %08x, computed %08x), want %d on 2",
			r.Statistics.MessageCount, len(r.Channels), r.DataSectionCRC, r.ComputedDataCRC, len(want))
	}
	for _, topic := range []string{"/base/pose", "/beacon"} {
		ch := r.Topic(topic)
		var seqs []uint32
		var times []uint64
		for _, m := range want {
			if w.topics[m.ChannelID] == topic {
				seqs, times = append(seqs, m.Sequence), append(times, m.LogTime)
			}
		}
		got := make([]uint64, len(ch.LogTimes))
		for i, lt := range ch.LogTimes {
			got[i] = uint64(lt)
		}
		if !slices.Equal(ch.Sequences, seqs) || !slices.Equal(got, times) {
			t.Errorf("%s: @mcap/core read sequences %v at %v, want %v at %v", topic, ch.Sequences, got, seqs, times)
		}
	}
	if got := jsonPath(r.Topic("/base/pose").First, "header", "frame_id"); got != "map" {
		t.Errorf("the first pose decodes with frame %v", got)
	}
}

// FuzzTrim: for any range and choice of channels, the trim of a file is a complete file
// holding exactly the messages of that range and those channels.
func FuzzTrim(f *testing.F) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{ChunkSize: 300})
	if err != nil {
		f.Fatal(err)
	}
	s, _ := w.AddSchema("pkg/Type", SchemaROS1, []byte("int32 x\n"))
	var all []Message
	for i := range 3 {
		w.AddChannel(s*uint16(i%2), fmt.Sprintf("/t%d", i), MessageROS1, nil)
	}
	for i := range 90 {
		m := Message{ChannelID: uint16(i % 3), Sequence: uint32(i), LogTime: uint64(i / 2), Data: []byte{byte(i)}}
		w.WriteMessage(m)
		all = append(all, m)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	file := buf.Bytes()
	f.Add(uint64(0), uint64(math.MaxUint64), uint8(7))
	f.Add(uint64(10), uint64(20), uint8(5))
	f.Add(uint64(44), uint64(44), uint8(2))
	f.Add(uint64(30), uint64(3), uint8(1))
	f.Fuzz(func(t *testing.T, from, to uint64, channels uint8) {
		tr, err := NewTrim(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		cut := Cut{From: from, To: to, Keep: func(c Channel) bool { return channels&(1<<c.ID) != 0 }}
		var out bytes.Buffer
		if _, err := tr.WriteTo(&out, cut, Options{ChunkSize: 100}); err != nil {
			t.Fatal(err)
		}
		sum, err := ReadSummary(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("the trimmed file: %v", err)
		}
		var want []string
		for _, m := range all {
			if m.LogTime >= from && m.LogTime <= to && channels&(1<<m.ChannelID) != 0 {
				want = append(want, fmt.Sprintf("/t%d %d", m.ChannelID, m.Sequence))
			}
		}
		var got []string
		ReadMessages(bytes.NewReader(out.Bytes()), int64(out.Len()), func(c Channel, m Message) error {
			got = append(got, fmt.Sprintf("%s %d", c.Topic, m.Sequence))
			return nil
		})
		if !slices.Equal(got, want) || sum.Statistics.MessageCount != uint64(len(want)) {
			t.Fatalf("kept %v (summary: %d), want %v", got, sum.Statistics.MessageCount, want)
		}
	})
}

// bigFile writes a file of about mb MiB of incompressible 10 KiB messages, one every 10 ms.
func bigFile(tb testing.TB, mb int) (string, uint64) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "big.mcap")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	a, _ := w.AddChannel(0, "/a", "raw", nil)
	b, _ := w.AddChannel(0, "/b", "raw", nil)
	payload := make([]byte, 10<<10)
	n := mb << 20 / len(payload)
	for i := range n {
		rand.Read(payload)
		if err := w.WriteMessage(Message{ChannelID: []uint16{a, b}[i%2], LogTime: uint64(i) * 10e6, Data: payload}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, uint64(n) * 10e6
}

// trimAllocated is the bytes a trim of the middle half of the file at path allocates.
func trimAllocated(tb testing.TB, path string, end uint64) uint64 {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr, err := NewTrim(f, st.Size())
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := tr.WriteTo(io.Discard, Cut{From: end / 4, To: end * 3 / 4}, Options{}); err != nil {
		tb.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTrimMemoryIsFlat: trimming a file eight times larger allocates about the same (a chunk's
// buffers, reused), not eight times as much.
func TestTrimMemoryIsFlat(t *testing.T) {
	small, smallEnd := bigFile(t, 4)
	large, largeEnd := bigFile(t, 32)
	trimAllocated(t, small, smallEnd) // warms the decoder pool
	s, l := trimAllocated(t, small, smallEnd), trimAllocated(t, large, largeEnd)
	if l > 2*s {
		t.Fatalf("trimming 4 MiB allocated %d bytes, 32 MiB %d: memory grows with the file", s, l)
	}
}

// BenchmarkTrim trims the middle half of files of 8 and 64 MiB and reports the bytes
// allocated per MiB of input: flat memory shows as a ratio that falls as the file grows.
func BenchmarkTrim(b *testing.B) {
	for _, mb := range []int{8, 64} {
		b.Run(fmt.Sprintf("%dMiB", mb), func(b *testing.B) {
			path, end := bigFile(b, mb)
			trimAllocated(b, path, end)
			b.SetBytes(int64(mb) << 20)
			b.ResetTimer()
			var allocated uint64
			for range b.N {
				allocated += trimAllocated(b, path, end)
			}
			b.ReportMetric(float64(allocated)/float64(b.N)/float64(mb), "alloc-B/MiB-in")
		})
	}
}

// TestTrimSharedSchema: channels that share a schema keep sharing one in the new file, and
// a channel without a schema keeps none.
func TestTrimSharedSchema(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	unused, _ := w.AddSchema("pkg/Unused", SchemaROS1, []byte("int8 u\n"))
	s, _ := w.AddSchema("pkg/Shared", SchemaROS1, []byte("int32 x\n"))
	for i, topic := range []string{"/left", "/right"} {
		w.AddChannel(s, topic, MessageROS1, nil)
		w.WriteMessage(Message{ChannelID: uint16(i), LogTime: uint64(i), Data: []byte{1}})
	}
	w.AddChannel(0, "/raw", "json", nil)
	w.AddChannel(unused, "/dropped", MessageROS1, nil)
	w.WriteMessage(Message{ChannelID: 2, LogTime: 5, Data: []byte("{}")})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrim(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := tr.WriteTo(&out, Cut{To: math.MaxUint64, Keep: keepTopics("/left", "/right", "/raw")}, Options{}); err != nil {
		t.Fatal(err)
	}
	sum, err := ReadSummary(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Schemas) != 1 || sum.Schemas[1].Name != "pkg/Shared" {
		t.Fatalf("schemas %+v, want pkg/Shared alone", sum.Schemas)
	}
	for _, c := range sum.Channels {
		if want := uint16(1); c.Topic == "/raw" && c.SchemaID != 0 || c.Topic != "/raw" && c.SchemaID != want {
			t.Errorf("channel %s has schema %d", c.Topic, c.SchemaID)
		}
	}
	if sum.Statistics.MessageCount != 3 || len(sum.Channels) != 3 {
		t.Errorf("%d messages on %d channels, want 3 on 3", sum.Statistics.MessageCount, len(sum.Channels))
	}
}

// TestTrimNeedsACompleteFile: a file being written (no summary yet) cannot be trimmed; the
// error says it is malformed, which the download answers as a conflict.
func TestTrimNeedsACompleteFile(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 16 << 10}, 30, true)
	f, err := os.Open(w.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if _, err := NewTrim(f, st.Size()); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trimming an open file: %v, want ErrMalformed", err)
	}
}

// A cut keeps the file's metadata records: a downloaded part still says what it is.
func TestTrimKeepsTheMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.mcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(f, Options{ChunkSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	meta := Metadata{Name: "fleetgate", Metadata: map[string]string{"robotName": "sim-1", "trigger": "pallet dropped"}}
	if err := w.WriteMetadata(meta); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, _, _ := trimFile(t, path, Cut{From: 0, To: 1})
	o, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	st, _ := o.Stat()
	got, err := ReadMetadata(o, st.Size())
	if err != nil || len(got) != 1 || got[0].Name != "fleetgate" || got[0].Metadata["trigger"] != "pallet dropped" {
		t.Fatalf("the cut's metadata: %+v %v", got, err)
	}
}
