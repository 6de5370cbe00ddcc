// Package tcpros is the wire of ROS 1 topics: the connection header (length-prefixed
// key=value fields) both ends exchange first, then length-prefixed messages. Every length a
// peer announces is checked against a cap before anything is allocated, and a large message
// is read in growing steps, so a peer that announces 60 MiB and sends nothing costs little.
package tcpros

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Caps on what a peer may announce.
const (
	// MaxMessage is the largest message accepted: a 4K RGB image is 25 MiB, a dense point
	// cloud of a million points 32 MiB.
	MaxMessage = 64 << 20
	// MaxHeader bounds a connection header; its largest field is the full message definition.
	MaxHeader = 1 << 20
	// firstChunk is what reading a message allocates before its bytes arrive.
	firstChunk = 64 << 10
)

var (
	// ErrTooLarge is wrapped when a peer announces a length over the cap.
	ErrTooLarge = errors.New("announced length over the cap")
	// ErrMalformed is wrapped when a connection header cannot be parsed.
	ErrMalformed = errors.New("malformed connection header")
)

// Header is a connection header: callerid, topic, md5sum, type, message_definition,
// tcp_nodelay, latching, error, ...
type Header map[string]string

// Marshal encodes h with its length prefix, fields in a stable order.
func (h Header) Marshal() []byte {
	keys := slices.Sorted(maps.Keys(h))
	size := 0
	for _, k := range keys {
		size += 4 + len(k) + 1 + len(h[k])
	}
	b := make([]byte, 4, 4+size)
	binary.LittleEndian.PutUint32(b, uint32(size))
	for _, k := range keys {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(k)+1+len(h[k])))
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, h[k]...)
	}
	return b
}

// ParseHeader decodes the fields of a header (without its length prefix). A field without
// '=' or running past the end is an error; a repeated key keeps its last value.
func ParseHeader(b []byte) (Header, error) {
	h := Header{}
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: %d stray bytes at the end", ErrMalformed, len(b))
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(n) > uint64(len(b)) {
			return nil, fmt.Errorf("%w: field of %d bytes with %d left", ErrMalformed, n, len(b))
		}
		field := string(b[:n])
		b = b[n:]
		k, v, ok := strings.Cut(field, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: field %q is not key=value", ErrMalformed, truncate(field))
		}
		h[k] = v
	}
	return h, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// WriteHeader writes h to w.
func WriteHeader(w io.Writer, h Header) error {
	_, err := w.Write(h.Marshal())
	return err
}

// ReadHeader reads one connection header.
func ReadHeader(r io.Reader) (Header, error) {
	b, err := readFrame(r, MaxHeader, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the connection header: %w", err)
	}
	return ParseHeader(b)
}

// ReadMessage reads one length-prefixed message of at most max bytes (MaxMessage when 0 or
// larger). buf, if it has the capacity, is reused for the bytes; the result may alias it.
func ReadMessage(r io.Reader, max int, buf []byte) ([]byte, error) {
	if max <= 0 || max > MaxMessage {
		max = MaxMessage
	}
	return readFrame(r, max, buf)
}

// WriteMessage writes msg with its length prefix in one write.
func WriteMessage(w io.Writer, msg []byte) error {
	_, err := w.Write(AppendFrame(make([]byte, 0, 4+len(msg)), msg))
	return err
}

// AppendFrame appends msg with its length prefix to b.
func AppendFrame(b, msg []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg)))
	return append(b, msg...)
}

// readFrame reads a 4-byte little-endian length and that many bytes, growing the buffer as
// the bytes arrive instead of trusting the length.
func readFrame(r io.Reader, max int, buf []byte) ([]byte, error) {
	var lenb [4]byte
	if _, err := io.ReadFull(r, lenb[:]); err != nil {
		return nil, err
	}
	n := uint64(binary.LittleEndian.Uint32(lenb[:]))
	if n > uint64(max) {
		return nil, fmt.Errorf("%w: %d bytes announced, at most %d accepted", ErrTooLarge, n, max)
	}
	size := int(n)
	if cap(buf) >= size {
		buf = buf[:size]
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, unexpected(err)
		}
		return buf, nil
	}
	buf = make([]byte, 0, min(size, firstChunk))
	for len(buf) < size {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(size, 2*cap(buf))-len(buf))
		}
		end := min(size, cap(buf))
		if _, err := io.ReadFull(r, buf[len(buf):end]); err != nil {
			return nil, unexpected(err)
		}
		buf = buf[:end]
	}
	return buf, nil
}

// unexpected turns a clean EOF inside a frame into io.ErrUnexpectedEOF: the peer died
// mid-message.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
