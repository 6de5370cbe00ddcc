package video

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// partReader splits ffmpeg's mpjpeg output, which frames each packet as a multipart part
// with its length ("--ffmpeg", headers with Content-length, a blank line, the packet): the
// muxer writes any codec's packets so, and its framing is what a raw H.264 stream lacks (an
// access unit's end is known there only when the next one starts, a frame late).
type partReader struct {
	r   *bufio.Reader
	max int
}

// maxAccessUnit bounds one access unit: a 4K keyframe at a high bitrate is a few MiB.
const maxAccessUnit = 8 << 20

func newPartReader(r io.Reader) *partReader {
	return &partReader{r: bufio.NewReaderSize(r, 64<<10), max: maxAccessUnit}
}

// Next returns the next packet, a new slice. io.EOF: the stream ended between packets.
func (p *partReader) Next() ([]byte, error) {
	size := -1
	started := false // a line other than the blank one between parts was read
	for lines := 0; ; lines++ {
		line, err := p.r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && !started && len(line) == 0 {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if lines > 16 {
			return nil, errors.New("corrupt encoder output: no packet in its part headers")
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if size < 0 {
				continue // the blank line after a packet, before the next boundary
			}
			break
		}
		started = true
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n < 0 || n > p.max {
				return nil, fmt.Errorf("corrupt encoder output: packet length %q", value)
			}
			size = n
		}
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(p.r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}
