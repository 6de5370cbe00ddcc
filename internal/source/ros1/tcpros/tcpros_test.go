package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"runtime"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{
		"callerid":           "/fleetgate_1",
		"topic":              "/scan",
		"md5sum":             "90c7ef2dc6895d81024acba2ac42f369",
		"type":               "sensor_msgs/LaserScan",
		"message_definition": "Header header\nfloat32 angle_min\n",
		"tcp_nodelay":        "1",
		"empty":              "",
		"with_equals":        "a=b=c",
	}
	got, err := ReadHeader(bytes.NewReader(h.Marshal()))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, h) {
		t.Errorf("got %v, want %v", got, h)
	}
}

// A header as rospy writes it, byte for byte (fields in its order).
func TestParseRospyHeader(t *testing.T) {
	var b []byte
	for _, f := range []string{"callerid=/talker", "latching=0", "md5sum=992ce8a1687cec8c8bd883ec73ca41d1", "type=std_msgs/String"} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	h, err := ParseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	if h["type"] != "std_msgs/String" || h["latching"] != "0" || h["callerid"] != "/talker" {
		t.Errorf("got %v", h)
	}
}

func TestParseHeaderMalformed(t *testing.T) {
	field := func(s string) []byte { return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...) }
	tests := map[string][]byte{
		"stray bytes":      {1, 2},
		"field past end":   binary.LittleEndian.AppendUint32(nil, 100),
		"no equals":        field("topic"),
		"empty key":        field("=x"),
		"huge field count": binary.LittleEndian.AppendUint32(nil, 0xffffffff),
	}
	for name, b := range tests {
		if h, err := ParseHeader(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v, %v", name, h, err)
		}
	}
}

func TestReadMessage(t *testing.T) {
	msg := bytes.Repeat([]byte("ros"), 100_000) // over firstChunk: read in steps
	var w bytes.Buffer
	if err := WriteMessage(&w, msg); err != nil {
		t.Fatal(err)
	}
	WriteMessage(&w, []byte("second"))
	r := bytes.NewReader(w.Bytes())
	got, err := ReadMessage(r, 0, nil)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("first: %d bytes, %v", len(got), err)
	}
	buf := make([]byte, 0, 16)
	got, err = ReadMessage(r, 0, buf)
	if err != nil || string(got) != "second" || &got[0] != &buf[:1][0] {
		t.Fatalf("second: %q, %v (buffer reused: %v)", got, err, len(got) > 0 && &got[0] == &buf[:1][0])
	}
	if _, err := ReadMessage(r, 0, nil); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

func TestReadMessageFaults(t *testing.T) {
	frame := func(n uint32, body string) *bytes.Reader {
		return bytes.NewReader(append(binary.LittleEndian.AppendUint32(nil, n), body...))
	}
	if _, err := ReadMessage(frame(MaxMessage+1, ""), 0, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over 64 MiB: %v", err)
	}
	if _, err := ReadMessage(frame(2000, ""), 1000, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the caller's cap: %v", err)
	}
	if _, err := ReadMessage(frame(10, "abc"), 0, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("publisher died mid-message: %v", err)
	}
	if _, err := ReadHeader(frame(MaxHeader+1, "")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge header: %v", err)
	}
}

// A peer that announces 60 MiB and sends 100 bytes costs the first chunk, not 60 MiB.
func TestReadMessageBoundedAllocation(t *testing.T) {
	r := bytes.NewReader(append(binary.LittleEndian.AppendUint32(nil, 60<<20), strings.Repeat("x", 100)...))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadMessage(r, 0, nil)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes for a message that never came", grew)
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add(Header{"topic": "/a", "md5sum": "*"}.Marshal()[4:])
	f.Add([]byte{})
	f.Add([]byte{5, 0, 0, 0, 'a', '=', 'b'})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			return
		}
		again, err := ParseHeader(h.Marshal()[4:])
		if err != nil || !maps.Equal(h, again) {
			t.Fatalf("round trip of %v: %v, %v", h, again, err)
		}
	})
}

func FuzzReadMessage(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 'a', 'b', 'c'})
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			msg, err := ReadMessage(r, 1<<20, nil)
			if err != nil {
				return
			}
			if len(msg) > 1<<20 {
				t.Fatalf("message of %d bytes over the cap", len(msg))
			}
		}
	})
}
