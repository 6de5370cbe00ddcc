// Package videotest decodes H.264 for tests, with Debian's ffmpeg and ffprobe: a real decoder
// reading what a viewer received, the same way in every test that checks a stream.
package videotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// NeedFFmpeg skips t where ffmpeg is not installed (the test command installs it).
func NeedFFmpeg(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
}

// WriteStream writes access units (Annex B) one after the other to a raw H.264 file in a
// temporary directory of t, as ffmpeg reads it, and returns its path.
func WriteStream(t testing.TB, units [][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stream.h264")
	if err := os.WriteFile(path, bytes.Join(units, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Stream is what ffprobe found in a raw H.264 file.
type Stream struct {
	Frames        int // pictures decoded
	Width, Height int
	Profile       string // "Constrained Baseline", "High", ...
}

func (s Stream) String() string {
	return fmt.Sprintf("%d pictures of %dx%d (%s)", s.Frames, s.Width, s.Height, s.Profile)
}

// Probe decodes the raw H.264 file at path with ffprobe, counting its pictures, and fails t
// unless ffmpeg's decoder reads the whole of it without an error.
func Probe(t testing.TB, path string) Stream {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-f", "h264", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height,profile", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var r struct {
		Streams []struct {
			Frames  string `json:"nb_read_frames"`
			Width   int    `json:"width"`
			Height  int    `json:"height"`
			Profile string `json:"profile"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) != 1 {
		t.Fatalf("ffprobe said %s (%v)", out, err)
	}
	if msgs, err := exec.Command("ffmpeg", "-v", "error", "-f", "h264", "-i", path, "-f", "null", "-").CombinedOutput(); err != nil || len(msgs) > 0 {
		t.Fatalf("ffmpeg does not decode the stream cleanly: %v %s", err, msgs)
	}
	frames, _ := strconv.Atoi(r.Streams[0].Frames)
	return Stream{Frames: frames, Width: r.Streams[0].Width, Height: r.Streams[0].Height, Profile: r.Streams[0].Profile}
}

// ProbeUnits is Probe of the access units written one after the other.
func ProbeUnits(t testing.TB, units [][]byte) Stream {
	t.Helper()
	return Probe(t, WriteStream(t, units))
}

// DecodeGray decodes the access units with ffmpeg into their pictures' luma, one gray image
// a picture, in order.
func DecodeGray(t testing.TB, units [][]byte) []*image.Gray {
	t.Helper()
	s := ProbeUnits(t, units)
	cmd := exec.Command("ffmpeg", "-v", "error", "-f", "h264", "-i", "pipe:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")
	cmd.Stdin = bytes.NewReader(bytes.Join(units, nil))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffmpeg decoding to gray: %v", err)
	}
	size := s.Width * s.Height
	var pics []*image.Gray
	for r := bytes.NewReader(out); ; {
		pix := make([]byte, size)
		if _, err := io.ReadFull(r, pix); err != nil {
			break
		}
		pics = append(pics, &image.Gray{Pix: pix, Stride: s.Width, Rect: image.Rect(0, 0, s.Width, s.Height)})
	}
	return pics
}
