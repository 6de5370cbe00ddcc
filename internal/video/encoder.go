package video

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ErrNoFFmpeg is returned when ffmpeg is not installed.
var ErrNoFFmpeg = errors.New("ffmpeg is not installed (Debian: apt-get install ffmpeg)")

// Settings are what an encoder makes of its pictures; the zero value takes the defaults.
type Settings struct {
	Bitrate int     // bits per second; 0: DefaultBitrate
	MaxRate float64 // frames per second at most (pictures skipped before ffmpeg); 0: every picture
	Width   int     // pixels at most; 0: as the pictures come
}

// DefaultBitrate is an encoder's bitrate when nothing asks for less: a 640x480 picture at
// 15 fps looks clean at it, a fifth of the same stream as JPEG.
const DefaultBitrate = 600_000

// KeyframeInterval is the time between keyframes: a viewer that falls behind, or one that
// joins, waits at most this long for a picture it can decode, and a new one gets the frames
// since the last keyframe at once (the topic's cache).
const KeyframeInterval = time.Second

// encoderArgs make ffmpeg read JPEG pictures from stdin and write H.264 to stdout (EncodeArgs).
// The pictures come as multipart parts with their length (Write), not as raw JPEG: the raw
// demuxer knows a picture has ended only when the next one starts, which held every picture
// back by one more picture interval (137 against 70 ms at 15 fps, BenchmarkEncoderDelay).
// No -fflags nobuffer: with it ffmpeg 5.1 discarded the picture it reads to probe its input,
// and every access unit after it took the header of the picture before its own (headers are
// matched to access units in order): each picture labelled one interval old, which the burned
// clock shows (TestSimCameraH264KeepsEachPicturesTime) and BenchmarkEncoderDelay, pairing the
// same way, read as ffmpeg holding each picture back (1.12 intervals; 0.13 without,
// TestEncoderHoldsNoPictureBack).
func encoderArgs(s Settings) []string {
	return append([]string{"-hide_banner", "-nostdin", "-nostats", "-loglevel", "error",
		"-f", "mpjpeg", "-use_wallclock_as_timestamps", "1", "-probesize", "32", "-analyzeduration", "0",
		"-flags", "low_delay", "-i", "pipe:0"}, EncodeArgs(s)...)
}

// EncodeArgs are ffmpeg's output arguments that encode its first video stream as H.264 to
// stdout, each access unit a part of its own (PartReader): libx264 for the lowest delay (no
// lookahead, no B-frames, one slice per picture), the constrained baseline profile that
// every browser decodes, SPS and PPS in front of every keyframe, a keyframe every
// KeyframeInterval, the pictures' own times (no frame dropped or repeated to make a rate).
func EncodeArgs(s Settings) []string {
	bitrate := s.Bitrate
	if bitrate <= 0 {
		bitrate = DefaultBitrate
	}
	// Even sizes: 4:2:0 needs them.
	scale := "scale=trunc(iw/2)*2:trunc(ih/2)*2"
	if s.Width > 0 {
		scale = "scale='min(" + strconv.Itoa(s.Width) + ",iw)':-2"
	}
	// MaxRate is not ffmpeg's to keep (its fps filter repeats pictures to make a rate, and
	// the pictures' headers are matched to access units in order): the feeder skips pictures.
	return []string{"-map", "0:v:0", "-an", "-sn", "-dn", "-vf", scale, "-fps_mode", "passthrough",
		"-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-profile:v", "baseline",
		"-pix_fmt", "yuv420p", "-bf", "0", "-threads", "1",
		"-force_key_frames", fmt.Sprintf("expr:gte(t,n_forced*%g)", KeyframeInterval.Seconds()), "-g", "300",
		"-b:v", strconv.Itoa(bitrate), "-maxrate", strconv.Itoa(bitrate), "-bufsize", strconv.Itoa(bitrate / 2),
		"-x264-params", "repeat-headers=1",
		"-f", "mpjpeg", "-flush_packets", "1", "pipe:1"}
}

// PassThroughArgs are ffmpeg's output arguments that copy an H.264 stream to stdout as it
// came (no decode, no encode), in Annex B with SPS and PPS in front of every keyframe (a
// camera may send them once, in its session description), each access unit a part of its
// own (PartReader).
func PassThroughArgs() []string {
	return []string{"-map", "0:v:0", "-an", "-sn", "-dn", "-c:v", "copy",
		"-bsf:v", "h264_mp4toannexb,dump_extra=freq=keyframe",
		"-f", "mpjpeg", "-flush_packets", "1", "pipe:1"}
}

// encoder is one ffmpeg process turning JPEG pictures into H.264 access units.
type encoder struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	started bool // the first part's boundary is written (Write: one feeder)
	out     *PartReader
	errs    *tail
	done    chan struct{} // closed once the process is reaped
	once    sync.Once
	err     error // why it ended, set before done closes
}

// startEncoder starts ffmpeg (program) with settings s.
func startEncoder(program string, s Settings) (*encoder, error) {
	cmd := exec.Command(program, encoderArgs(s)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	e := &encoder{cmd: cmd, stdin: stdin, out: NewPartReader(stdout), errs: &tail{}, done: make(chan struct{})}
	cmd.Stderr = e.errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting ffmpeg: %w", err)
	}
	return e, nil
}

// Write hands ffmpeg one JPEG picture, as a part with its length, the boundary after it so
// that ffmpeg needs nothing more to take it.
func (e *encoder) Write(jpeg []byte) error {
	head := fmt.Sprintf("Content-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", len(jpeg))
	if !e.started {
		head = "--ffmpeg\r\n" + head
		e.started = true
	}
	if _, err := io.WriteString(e.stdin, head); err != nil {
		return err
	}
	if _, err := e.stdin.Write(jpeg); err != nil {
		return err
	}
	_, err := io.WriteString(e.stdin, "\r\n--ffmpeg\r\n")
	return err
}

// Next is the next access unit; its error is why the encoder ended.
func (e *encoder) Next() ([]byte, error) {
	au, err := e.out.Next()
	if err != nil {
		e.reap(err)
		return nil, e.err
	}
	return au, nil
}

// reap kills what is left of the process and waits for it, once.
func (e *encoder) reap(readErr error) {
	e.once.Do(func() {
		e.stdin.Close()
		syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
		waitErr := e.cmd.Wait()
		if errors.Is(readErr, io.EOF) || errors.Is(readErr, io.ErrUnexpectedEOF) || errors.Is(readErr, errStopped) {
			e.err = errors.New(e.errs.reason(waitErr))
		} else {
			e.err = fmt.Errorf("unreadable encoder output: %v", readErr)
		}
		close(e.done)
	})
}

var errStopped = errors.New("stopped")

// Stop ends ffmpeg and returns once it is reaped. The reader's Next then fails.
func (e *encoder) Stop() {
	e.stdin.Close()
	syscall.Kill(-e.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(time.Second):
		e.reap(errStopped)
	}
}

// PID is ffmpeg's process id.
func (e *encoder) PID() int { return e.cmd.Process.Pid }

// tail keeps the end of ffmpeg's messages, for the reason an encoder failed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4<<10 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-4<<10:]...)
	}
	return len(p), nil
}

func (t *tail) reason(exitErr error) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	if last := bytes.TrimSpace(lines[len(lines)-1]); len(last) > 0 {
		return "H.264 encoder: " + string(last[:min(len(last), 100)])
	}
	if exitErr != nil {
		return "H.264 encoder: ffmpeg " + exitErr.Error()
	}
	return "H.264 encoder ended"
}
