// Package gstreamer runs GStreamer's RTSP server (Debian's python3-gi and
// gir1.2-gst-rtsp-server-1.0) serving a moving test pattern in H.264 or MJPEG, its capture
// time burned into each picture on request (Options.ClockStrip): the camera of fleetgate demo,
// and the real peer of the camera tests and benchmarks.
package gstreamer

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

//go:embed rtsp_server.py
var script []byte

// Python is the interpreter with GStreamer's bindings: Debian's, not a virtualenv's.
const Python = "/usr/bin/python3"

// Packages are the Debian packages the server needs.
const Packages = "python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly"

// Options configure a server.
type Options struct {
	Codec         string // "h264" (default) or "mjpeg"
	Width, Height int    // default 320x240
	FPS           int    // default 15
	// User and Password, when set, are required of clients (RTSP basic authentication).
	User, Password string
	// Port to listen on (127.0.0.1); 0: a free one.
	Port int
	// Pattern is videotestsrc's: "ball" (default: a ball on black, small frames), "smpte"
	// (colour bars), "snow" (noise, which no codec compresses).
	Pattern string
	// Bitrate is the H.264 encoder's, in kbit/s; 0: x264enc's default (2048).
	Bitrate int
	// ClockStrip burns each picture's capture time (this machine's wall clock) into its
	// bottom sixteenth before the encoder, as package clockstrip lays it out and reads it:
	// the glass-to-glass age of an RTSP camera, as --sim-clock-strip gives a simulated one's.
	ClockStrip bool
	// Dir is where the server's script is written; "": a new temporary directory.
	Dir string
}

// Available says whether GStreamer's RTSP server can run here, and what to install if not.
func Available(ctx context.Context) error {
	check := `import gi; gi.require_version("GstRtspServer", "1.0"); gi.require_version("Gst", "1.0"); ` +
		`from gi.repository import Gst, GstRtspServer; Gst.init(None); ` +
		`assert all(Gst.ElementFactory.find(e) for e in ("videotestsrc", "x264enc", "jpegenc", "rtph264pay", "rtpjpegpay"))`
	if err := exec.CommandContext(ctx, Python, "-c", check).Run(); err != nil {
		return fmt.Errorf("GStreamer's RTSP server is not installed (Debian: apt-get install %s)", Packages)
	}
	return nil
}

// Server is a running GStreamer RTSP server.
type Server struct {
	opts   Options
	script string
	tmp    string // a directory of its own, removed by Close

	mu    sync.Mutex
	cmd   *exec.Cmd
	stdin io.WriteCloser
	port  int
}

// Start starts a server and waits until it accepts connections. It stops with Kill, or by
// itself when this process dies (its standard input closes).
func Start(opts Options) (*Server, error) {
	if opts.Codec == "" {
		opts.Codec = "h264"
	}
	if opts.Width == 0 {
		opts.Width, opts.Height = 320, 240
	}
	if opts.FPS == 0 {
		opts.FPS = 15
	}
	if opts.Pattern == "" {
		opts.Pattern = "ball"
	}
	dir, tmp := opts.Dir, ""
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "fleetgate-rtsp-"); err != nil {
			return nil, err
		}
		tmp = dir
	}
	path := filepath.Join(dir, "rtsp_server.py")
	s := &Server{opts: opts, script: path, port: opts.Port, tmp: tmp}
	if err := os.WriteFile(path, script, 0o600); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.start(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close kills the server and removes what Start wrote.
func (s *Server) Close() {
	s.Kill()
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// Port is the port the server listens on.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// URL is the stream's address, without credentials.
func (s *Server) URL() string { return fmt.Sprintf("rtsp://127.0.0.1:%d/test", s.Port()) }

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(Python); err != nil {
		return fmt.Errorf("%s is missing (Debian: apt-get install %s)", Python, Packages)
	}
	args := []string{s.script, "--codec", s.opts.Codec, "--width", strconv.Itoa(s.opts.Width),
		"--height", strconv.Itoa(s.opts.Height), "--fps", strconv.Itoa(s.opts.FPS), "--port", strconv.Itoa(s.port), "--pattern", s.opts.Pattern}
	if s.opts.User != "" {
		args = append(args, "--user", s.opts.User, "--password", s.opts.Password)
	}
	if s.opts.Bitrate > 0 {
		args = append(args, "--bitrate", strconv.Itoa(s.opts.Bitrate))
	}
	if s.opts.ClockStrip {
		args = append(args, "--clock-strip")
	}
	cmd := exec.Command(Python, args...)
	cmd.Env = append(os.Environ(), "GST_DEBUG=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the RTSP server: %w", err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		io.Copy(io.Discard, stdout)
	}()
	fail := func(err error) error {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	select {
	case line := <-ready:
		port, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
		n, err := strconv.Atoi(port)
		if !ok || err != nil {
			return fail(fmt.Errorf("the RTSP server did not start (install %s): %s", Packages, stderr))
		}
		s.port = n
	case <-time.After(20 * time.Second):
		return fail(errors.New("the RTSP server did not start within 20 s"))
	}
	s.cmd, s.stdin = cmd, stdin
	return nil
}

// Kill ends the server at once (SIGKILL), as a crashed camera or a pulled cable does.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGCONT) // a paused server must still die
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.stdin.Close()
	s.cmd = nil
}

// Restart starts a killed server again on the same port, trying for up to 10 s (the port
// may linger a moment).
func (s *Server) Restart() error {
	s.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.start()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Signal sends sig to the server (SIGSTOP holds it still, as a hung camera; SIGCONT resumes).
func (s *Server) Signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		s.cmd.Process.Signal(sig)
	}
}

// PID is the server's process id, 0 when it is not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// tail keeps the start of the server's error output, for the reason it did not start.
type tail struct {
	mu sync.Mutex
	b  strings.Builder
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.b.Len() < 16<<10 {
		t.b.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
