package camera

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fleetgate/fleetgate/internal/video"
)

// Tools are the programs of Debian's ffmpeg package that a camera runs.
type Tools struct {
	FFmpeg  string
	FFprobe string
}

// ErrNoFFmpeg is returned when ffmpeg is not installed.
var ErrNoFFmpeg = errors.New("ffmpeg is not installed (Debian: apt-get install ffmpeg)")

// LookupTools finds ffmpeg and ffprobe on PATH.
func LookupTools() (Tools, error) {
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		return Tools{}, ErrNoFFmpeg
	}
	probe, err := exec.LookPath("ffprobe")
	if err != nil {
		return Tools{}, ErrNoFFmpeg
	}
	return Tools{FFmpeg: ff, FFprobe: probe}, nil
}

// input is what ffmpeg opens in one attempt: a network stream (URL, credentials inside it),
// or a device.
type input struct {
	url    string // with credentials: it goes only into the private ffconcat pipe
	udp    bool
	device string
	// secrets are blanked from ffmpeg's messages.
	secrets []string
	// guard, when set, is the address policy the camera is under, and first the hop to the
	// camera it allowed: ffmpeg then reaches the camera through an rtspRelay only.
	guard *AddressPolicy
	first hop
	log   *slog.Logger
}

// relayed returns in as ffmpeg opens it through a relay of its own (nil when in is not
// under the policy); the caller closes the relay once ffmpeg has ended.
func (in input) relayed() (input, *rtspRelay, error) {
	if in.guard == nil {
		return in, nil, nil
	}
	r, err := startRelay(*in.guard, in.first, in.log)
	if err != nil {
		return input{}, nil, err
	}
	local, err := r.local(in.url)
	if err != nil {
		r.Close()
		return input{}, nil, err
	}
	in.url = local
	return in, r, nil
}

// ioTimeout bounds connecting and handshakes (ONVIF's HTTP, TLS).
const ioTimeout = 3 * time.Second

// rtspIOTimeout is ffmpeg's own RTSP socket timeout, a backstop only: the supervisor's start
// and stall timeouts, shorter, decide (an ffmpeg that gave up by itself at a stall would turn
// a hung camera into a failed one).
const rtspIOTimeout = 10 * time.Second

// networkProtocols are all ffmpeg may open for a network camera: the pipe carrying the
// ffconcat script, and RTSP with its transports. No file, no http, no other protocol that a
// crafted stream could point it at.
const networkProtocols = "pipe,rtsp,rtsps,rtp,srtp,tcp,udp,tls"

// relayedProtocols are all ffmpeg may open for a camera through the relay, which speaks TLS
// itself.
const relayedProtocols = "pipe,rtsp,rtp,tcp,udp"

// ffconcat is the script that hands ffmpeg a network camera's URL through a pipe (fd 3): the
// URL carries the credentials, so it must never appear on ffmpeg's command line, which every
// user of the host can read in /proc/PID/cmdline. The concat demuxer opens the one file of
// the script as its only segment, with the options given here (transport, timeouts, and a
// short probe: the codec is already known from ffprobe, and the default probe holds the
// first frame back by two seconds).
func (in input) ffconcat() ([]byte, error) {
	if strings.ContainsAny(in.url, "\r\n\x00") {
		return nil, errors.New("camera URL with a line break")
	}
	transport := "tcp"
	if in.udp {
		transport = "udp"
	}
	var b bytes.Buffer
	b.WriteString("ffconcat version 1.0\n")
	b.WriteString("file " + quoteConcat(in.url) + "\n")
	b.WriteString("option rtsp_transport " + transport + "\n")
	fmt.Fprintf(&b, "option timeout %d\n", rtspIOTimeout.Microseconds())
	b.WriteString("option probesize 32\noption analyzeduration 100000\noption fflags nobuffer\n")
	return b.Bytes(), nil
}

// quoteConcat quotes s for an ffconcat directive: single quotes, and a quote inside as '\”.
func quoteConcat(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// inputArgs are ffmpeg's (or ffprobe's) arguments that open in; the network URL is read
// from fd 3.
func (in input) inputArgs() []string {
	if in.device != "" {
		return []string{"-f", "v4l2", "-i", in.device}
	}
	protocols := networkProtocols
	if in.guard != nil {
		protocols = relayedProtocols
	}
	return []string{"-f", "concat", "-safe", "0", "-protocol_whitelist", protocols,
		"-probesize", "32", "-analyzeduration", "100000", "-fflags", "nobuffer", "-flags", "low_delay", "-i", "pipe:3"}
}

// command makes an ffmpeg or ffprobe command for in: its own process group (so that a stop
// reaches anything it started), killed with the agent where the system can, and the
// ffconcat script on fd 3 for a network input. Call the returned function with Start's
// error: it writes the script and closes the parent's ends of the pipe.
func (in input) command(ctx context.Context, program string, args []string) (*exec.Cmd, func(startErr error), error) {
	var cmd *exec.Cmd
	if ctx != nil {
		cmd = exec.CommandContext(ctx, program, args...)
	} else {
		cmd = exec.Command(program, args...)
	}
	cmd.SysProcAttr = procAttr()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"} // nothing of the agent's environment
	if ctx != nil {
		cmd.Cancel = func() error { return killGroup(cmd, syscall.SIGKILL) }
	}
	if in.device != "" {
		return cmd, func(error) {}, nil
	}
	script, err := in.ffconcat()
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.ExtraFiles = []*os.File{r}
	return cmd, func(startErr error) {
		r.Close()
		if startErr == nil {
			// The script is far below a pipe's buffer: this write never waits for ffmpeg.
			w.Write(script)
		}
		w.Close()
	}, nil
}

// killGroup signals the process group of a started command.
func killGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	return signalGroup(cmd.Process.Pid, sig)
}

// codecMJPEG is what ffprobe calls an MJPEG stream: passed through without re-encoding.
const codecMJPEG = "mjpeg"

// codecH264 is what ffprobe calls an H.264 stream: passed through to H.264 viewers.
const codecH264 = "h264"

// probe asks ffprobe for the codec of in's first video stream (through a relay of its own
// when in is under the address policy).
func probe(ctx context.Context, tools Tools, in input) (string, error) {
	in, relay, err := in.relayed()
	if err != nil {
		return "", err
	}
	if relay == nil {
		return runProbe(ctx, tools, in)
	}
	codec, err := runProbe(ctx, tools, in)
	relay.Close()
	if err != nil {
		return "", relay.failure(err)
	}
	return codec, nil
}

func runProbe(ctx context.Context, tools Tools, in input) (string, error) {
	args := append([]string{"-hide_banner", "-loglevel", "error", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name", "-of", "json"}, in.inputArgs()...)
	cmd, started, err := in.command(ctx, tools.FFprobe, args)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	errs := &tail{}
	cmd.Stdout, cmd.Stderr = &limitedBuffer{b: &out, max: 64 << 10}, errs
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	started(err)
	if err != nil {
		return "", fmt.Errorf("starting ffprobe: %w", err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		return "", timeoutError("the camera did not answer in time")
	}
	if err != nil {
		return "", errors.New(errs.reason(err, in.secrets))
	}
	var result struct {
		Streams []struct {
			CodecName string `json:"codec_name"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out.Bytes(), &result); err != nil {
		return "", fmt.Errorf("reading ffprobe's answer: %w", err)
	}
	if len(result.Streams) == 0 || result.Streams[0].CodecName == "" {
		return "", failed(wordsUnreadable, errors.New("the camera offers no video stream"))
	}
	return result.Streams[0].CodecName, nil
}

// outputArgs make ffmpeg write JPEG images, one after another, to its stdout: MJPEG passes
// through as it came, anything else is decoded and encoded once here.
func outputArgs(codec string) []string {
	args := []string{"-map", "0:v:0", "-an", "-sn", "-dn", "-fps_mode", "passthrough"}
	if codec == codecMJPEG {
		args = append(args, "-c:v", "copy")
	} else {
		args = append(args, "-c:v", "mjpeg", "-pix_fmt", "yuvj420p", "-q:v", "5")
	}
	return append(args, "-f", "mjpeg", "pipe:1")
}

// Frame is one JPEG image (or, of a camera's H.264 stream, one access unit) and the time it
// left ffmpeg.
type Frame struct {
	JPEG []byte
	At   time.Time
}

// videoArgs make ffmpeg write the camera's H.264 access units to its stdout: an H.264 camera
// passes through as it came, any other is encoded once here.
func videoArgs(codec string) []string {
	if codec == codecH264 {
		return video.PassThroughArgs()
	}
	return video.EncodeArgs(video.Settings{})
}

// frameSplitter is how ffmpeg's output is cut into frames: JPEG images or access units.
type frameSplitter interface {
	Next() ([]byte, error)
}

// producer is a running source of frames: ffmpeg, or a test's stand-in.
type producer interface {
	// Frames delivers the images; it is closed when the producer has ended (process reaped).
	Frames() <-chan Frame
	// Err says why it ended, once Frames is closed.
	Err() error
	// Stop ends the producer and returns once it has ended.
	Stop()
}

// ffmpegProcess is one ffmpeg run: it reads the images from ffmpeg's stdout and reaps the
// process when the output ends, so that no zombie is left whatever ffmpeg does.
type ffmpegProcess struct {
	cmd    *exec.Cmd
	frames chan Frame
	stop   chan struct{}
	once   sync.Once
	errs   *tail
	in     input
	relay  *rtspRelay // the camera's relay, closed once ffmpeg is reaped; nil when none
	err    error      // set before frames closes
}

// startFFmpeg starts ffmpeg reading in (through a relay of its own when in is under the
// address policy).
// With h264, it writes H.264 access units instead of JPEG images (videoArgs).
func startFFmpeg(tools Tools, in input, codec string, maxFrame int, h264 bool) (*ffmpegProcess, error) {
	in, relay, err := in.relayed()
	if err != nil {
		return nil, err
	}
	p, err := runFFmpeg(tools, in, codec, maxFrame, relay, h264)
	if err != nil && relay != nil {
		relay.Close()
	}
	return p, err
}

func runFFmpeg(tools Tools, in input, codec string, maxFrame int, relay *rtspRelay, h264 bool) (*ffmpegProcess, error) {
	args := append([]string{"-hide_banner", "-nostdin", "-nostats", "-loglevel", "error"}, in.inputArgs()...)
	if h264 {
		args = append(args, videoArgs(codec)...)
	} else {
		args = append(args, outputArgs(codec)...)
	}
	cmd, started, err := in.command(nil, tools.FFmpeg, args)
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		started(err)
		return nil, err
	}
	p := &ffmpegProcess{cmd: cmd, frames: make(chan Frame, 1), stop: make(chan struct{}), errs: &tail{}, in: in, relay: relay}
	cmd.Stderr = p.errs
	err = cmd.Start()
	started(err)
	if err != nil {
		return nil, fmt.Errorf("starting ffmpeg: %w", err)
	}
	var frames frameSplitter = NewFrameReader(stdout, maxFrame)
	if h264 {
		frames = video.NewPartReader(stdout)
	}
	go p.read(frames)
	return p, nil
}

func (p *ffmpegProcess) read(frames frameSplitter) {
	defer close(p.frames)
	var readErr error
	for {
		jpeg, err := frames.Next()
		if err != nil {
			readErr = err
			break
		}
		select {
		case p.frames <- Frame{JPEG: jpeg, At: time.Now()}:
		case <-p.stop:
		}
	}
	// A stream that cannot be split is as dead as one that ended: stop ffmpeg either way,
	// then reap it.
	killGroup(p.cmd, syscall.SIGKILL)
	waitErr := p.cmd.Wait()
	if p.relay != nil {
		p.relay.Close()
	}
	select {
	case <-p.stop:
		p.err = errors.New("stopped")
	default:
		if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, io.ErrUnexpectedEOF) {
			p.err = fmt.Errorf("unreadable camera output: %v", readErr)
		} else {
			p.err = errors.New(p.errs.reason(waitErr, p.in.secrets))
		}
		if p.relay != nil {
			p.err = p.relay.failure(p.err)
		}
	}
}

func (p *ffmpegProcess) Frames() <-chan Frame { return p.frames }
func (p *ffmpegProcess) Err() error           { return p.err }

// PID is ffmpeg's process id.
func (p *ffmpegProcess) PID() int { return p.cmd.Process.Pid }

// Stop asks ffmpeg to finish (SIGTERM to its group), kills it after a second, and returns
// once it is reaped.
func (p *ffmpegProcess) Stop() {
	p.once.Do(func() { close(p.stop) })
	killGroup(p.cmd, syscall.SIGTERM)
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case _, ok := <-p.frames:
			if !ok {
				return
			}
		case <-t.C:
			killGroup(p.cmd, syscall.SIGKILL)
		}
	}
}

// tail keeps the end of ffmpeg's messages, for the reason an attempt failed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// maxReason bounds a reason: it ends up in a WebSocket close frame (123 bytes at most).
const maxReason = 100

// reason is the last line ffmpeg wrote, credentials blanked, else how it exited.
func (t *tail) reason(exitErr error, secrets []string) string {
	t.mu.Lock()
	text := string(t.buf)
	t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(redact(text, secrets...)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	last = strings.TrimPrefix(last, "pipe:3: ")
	if last == "" {
		if exitErr == nil {
			return "the camera stream ended"
		}
		return "ffmpeg " + exitErr.Error()
	}
	if len(last) > maxReason {
		last = last[:maxReason]
	}
	return last
}

// limitedBuffer keeps at most max bytes.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
