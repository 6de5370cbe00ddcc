package video

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestIsKeyframe(t *testing.T) {
	sps := []byte{0, 0, 0, 1, 0x67, 0x42}
	pps := []byte{0, 0, 0, 1, 0x68, 0xce}
	idr := []byte{0, 0, 1, 0x65, 0x88}
	p := []byte{0, 0, 0, 1, 0x41, 0x9a}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		au   []byte
		want bool
	}{{join(sps, pps, idr), true}, {join(idr), false}, {join(sps, pps, p), false}, {join(p), false}, {nil, false}} {
		if got := IsKeyframe(tc.au); got != tc.want {
			t.Errorf("IsKeyframe(NAL types %v) = %v", NALTypes(tc.au), got)
		}
	}
}

// TestPartReader splits mpjpeg parts as ffmpeg writes them, whatever the packets hold.
func TestPartReader(t *testing.T) {
	var stream bytes.Buffer
	packets := [][]byte{{0, 0, 0, 1, 0x67}, bytes.Repeat([]byte("\r\n--ffmpeg\r\n"), 50), {}}
	for _, p := range packets {
		fmt.Fprintf(&stream, "--ffmpeg\r\nContent-type: image/jpeg\r\nContent-length: %d\r\n\r\n", len(p))
		stream.Write(p)
		stream.WriteString("\r\n")
	}
	r := newPartReader(bytes.NewReader(stream.Bytes()))
	for i, want := range packets {
		got, err := r.Next()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("packet %d: %q, %v", i, got, err)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last packet: %v, want EOF", err)
	}
	cut := stream.Bytes()[:stream.Len()-10]
	r = newPartReader(bytes.NewReader(cut))
	r.Next()
	r.Next()
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a cut packet: %v, want ErrUnexpectedEOF", err)
	}
	bad := newPartReader(bytes.NewReader([]byte("--ffmpeg\r\nContent-length: 99999999999\r\n\r\n")))
	if _, err := bad.Next(); err == nil {
		t.Fatal("a packet over the bound was read")
	}
}
