package camera

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrame bounds one JPEG image read from ffmpeg: a 4K frame at high quality is a few
// MiB; anything larger is a corrupt stream, not a picture.
const DefaultMaxFrame = 8 << 20

// ErrFrameTooLarge is returned when an image grows past the reader's bound.
var ErrFrameTooLarge = errors.New("JPEG frame over the size limit")

// FrameReader splits a stream of concatenated JPEG images (ffmpeg's mjpeg output, MJPEG
// passed through or encoded) into whole images. It follows the JPEG marker structure rather
// than searching for the end marker: an embedded thumbnail (EXIF) has an end marker of its
// own, and entropy-coded data never contains a marker because 0xFF is stuffed there.
type FrameReader struct {
	r    *bufio.Reader
	max  int
	last int // size of the previous frame, to size the next one's buffer
}

// NewFrameReader reads images of at most maxFrame bytes (DefaultMaxFrame when 0) from r.
func NewFrameReader(r io.Reader, maxFrame int) *FrameReader {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	return &FrameReader{r: bufio.NewReaderSize(r, 64<<10), max: maxFrame}
}

// JPEG markers the reader treats specially.
const (
	markerSOI = 0xD8 // start of image
	markerEOI = 0xD9 // end of image
	markerSOS = 0xDA // start of scan: entropy-coded data follows its header
	markerTEM = 0x01
	markerRST = 0xD0 // RST0..RST7 stand alone inside entropy-coded data
)

// Next returns the next whole image, a new slice the caller owns. Bytes before an image's
// start marker are skipped (up to the size bound). io.EOF means the stream ended between
// images; io.ErrUnexpectedEOF that it ended inside one.
func (f *FrameReader) Next() ([]byte, error) {
	if err := f.findStart(); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, max(f.last+f.last/8, 16<<10))
	buf = append(buf, 0xFF, markerSOI)
	m, buf, err := f.marker(buf)
	for err == nil {
		switch {
		case m == markerEOI:
			f.last = len(buf)
			return buf, nil
		case m == markerSOI:
			return nil, fmt.Errorf("corrupt JPEG stream: a start marker inside an image")
		case m == markerTEM || m&0xF8 == markerRST:
			m, buf, err = f.marker(buf)
		case m == markerSOS:
			if buf, err = f.segment(buf); err == nil {
				m, buf, err = f.entropy(buf)
			}
		default:
			if buf, err = f.segment(buf); err == nil {
				m, buf, err = f.marker(buf)
			}
		}
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// findStart skips to just after the next start-of-image marker.
func (f *FrameReader) findStart() error {
	skipped := 0
	for {
		b, err := f.r.ReadByte()
		if err != nil {
			return err
		}
		if b != 0xFF {
			if skipped++; skipped > f.max {
				return fmt.Errorf("no JPEG image in %d bytes of camera output", skipped)
			}
			continue
		}
		next, err := f.r.Peek(1)
		if err != nil {
			return err
		}
		if next[0] == markerSOI {
			f.r.ReadByte()
			return nil
		}
	}
}

// marker reads the next marker (0xFF, fill bytes, the code) and appends it to buf.
func (f *FrameReader) marker(buf []byte) (byte, []byte, error) {
	b, err := f.r.ReadByte()
	if err != nil {
		return 0, buf, err
	}
	if b != 0xFF {
		return 0, buf, fmt.Errorf("corrupt JPEG stream: byte %#x where a marker belongs", b)
	}
	return f.code(append(buf, 0xFF))
}

// code reads a marker's code after its first 0xFF; fill bytes (more 0xFF) are kept, so an
// image leaves as it came.
func (f *FrameReader) code(buf []byte) (byte, []byte, error) {
	for {
		m, err := f.r.ReadByte()
		if err != nil {
			return 0, buf, err
		}
		buf = append(buf, m)
		if m != 0xFF {
			return m, buf, nil
		}
		if len(buf) > f.max {
			return 0, buf, ErrFrameTooLarge
		}
	}
}

// segment reads a marker segment's length and body.
func (f *FrameReader) segment(buf []byte) ([]byte, error) {
	var l [2]byte
	if _, err := io.ReadFull(f.r, l[:]); err != nil {
		return buf, err
	}
	n := int(l[0])<<8 | int(l[1])
	if n < 2 {
		return buf, fmt.Errorf("corrupt JPEG stream: segment length %d", n)
	}
	if len(buf)+n > f.max {
		return buf, ErrFrameTooLarge
	}
	buf = append(buf, l[:]...)
	start := len(buf)
	buf = append(buf, make([]byte, n-2)...)
	_, err := io.ReadFull(f.r, buf[start:])
	return buf, err
}

// entropy reads entropy-coded data up to the next marker that is not a stuffed 0xFF or a
// restart marker, and returns that marker.
func (f *FrameReader) entropy(buf []byte) (byte, []byte, error) {
	for {
		chunk, err := f.r.ReadSlice(0xFF)
		if len(buf)+len(chunk) > f.max {
			return 0, buf, ErrFrameTooLarge
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return 0, buf, err
		}
		next, err := f.r.Peek(1)
		if err != nil {
			return 0, buf, err
		}
		switch c := next[0]; {
		case c == 0x00 || c&0xF8 == markerRST:
			f.r.ReadByte()
			buf = append(buf, c)
		default:
			return f.code(buf)
		}
	}
}
