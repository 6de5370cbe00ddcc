package mcap

import (
	"bytes"
	"testing"
)

// seeds are small complete files (compressed and not, with chunks and message indexes)
// and cuts of them: the fuzzer mutates small inputs quickly.
func seeds(f *testing.F) {
	for _, opts := range []Options{{ChunkSize: 200}, {ChunkSize: 200, Uncompressed: true}} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, opts)
		if err != nil {
			f.Fatal(err)
		}
		s, _ := w.AddSchema("pkg/Type", SchemaROS1, []byte("int32 x\n"))
		a, _ := w.AddChannel(s, "/a", MessageROS1, map[string]string{"k": "v"})
		b, _ := w.AddChannel(0, "/b", "json", nil)
		for i := range 12 {
			w.WriteMessage(Message{ChannelID: a, Sequence: uint32(i), LogTime: uint64(i), PublishTime: uint64(i), Data: []byte{byte(i), 0, 0, 0}})
			w.WriteMessage(Message{ChannelID: b, LogTime: uint64(i), Data: []byte(`{"x":1}`)})
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		full := buf.Bytes()
		f.Add(full)
		for _, cut := range []int{len(full) / 3, len(full) / 2, len(full) - 40, len(full) - 1} {
			f.Add(full[:cut])
		}
	}
	f.Add(Magic)
}

// FuzzReadSummary: any bytes are read without a panic or a runaway allocation, and what
// reads as complete has consistent statistics.
func FuzzReadSummary(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadSummary(bytes.NewReader(b), int64(len(b)))
		if err == nil && int(s.Statistics.ChunkCount) > len(b) {
			t.Fatalf("%d chunks in %d bytes", s.Statistics.ChunkCount, len(b))
		}
		n := 0
		ReadMessages(bytes.NewReader(b), int64(len(b)), func(Channel, Message) error { n++; return nil })
		if n > len(b) {
			t.Fatalf("%d messages in %d bytes", n, len(b))
		}
	})
}

// FuzzRecover: whatever the bytes, recovery either refuses them or writes a file that
// ReadSummary reads as complete, with as many messages as it says.
func FuzzRecover(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		w, cut, tail, err := scanForRecovery(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if cut < 0 || cut > int64(len(b)) {
			t.Fatalf("cut at %d of %d bytes", cut, len(b))
		}
		var out bytes.Buffer
		out.Write(b[:cut])
		w.crc.Write(b[:cut])
		w.w, w.off = &out, uint64(cut)
		w.write(tail)
		if err := w.finish(); err != nil {
			t.Fatal(err)
		}
		s, err := ReadSummary(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("the recovered file does not read: %v", err)
		}
		if s.Statistics.MessageCount != w.stats.MessageCount {
			t.Fatalf("recovered %d messages, the summary says %d", w.stats.MessageCount, s.Statistics.MessageCount)
		}
		n := uint64(0)
		err = ReadMessages(bytes.NewReader(out.Bytes()), int64(out.Len()), func(Channel, Message) error { n++; return nil })
		if err != nil || n != s.Statistics.MessageCount {
			t.Fatalf("the recovered file reads %d messages (%v), its summary says %d", n, err, s.Statistics.MessageCount)
		}
	})
}
