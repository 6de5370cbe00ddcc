// Package cameratest runs real camera peers for tests: GStreamer's RTSP server (Debian's
// python3-gi and gir1.2-gst-rtsp-server-1.0) serving a moving test pattern in H.264 or MJPEG,
// and an ONVIF device responder. The test command installs the packages; a test that cannot
// start a peer fails with what is missing, never skips.
package cameratest

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

//go:embed testdata/rtsp_server.py
var rtspServerScript []byte

// Python is the interpreter with GStreamer's bindings: Debian's, not a virtualenv's.
const Python = "/usr/bin/python3"

// Packages are the Debian packages the RTSP server needs.
const Packages = "python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly"

// RTSPOptions configure a test RTSP server.
type RTSPOptions struct {
	Codec         string // "h264" (default) or "mjpeg"
	Width, Height int    // default 320x240
	FPS           int    // default 15
	// User and Password, when set, are required of clients (RTSP basic authentication).
	User, Password string
	// Port is the port to listen on; 0: a free one.
	Port int
}

// RTSPServer is a running GStreamer RTSP server.
type RTSPServer struct {
	opts   RTSPOptions
	script string

	mu    sync.Mutex
	cmd   *exec.Cmd
	stdin io.WriteCloser
	Port  int
}

// StartRTSP starts a server and waits until it accepts connections; it is stopped when the
// test ends.
func StartRTSP(t testing.TB, opts RTSPOptions) *RTSPServer {
	t.Helper()
	if opts.Codec == "" {
		opts.Codec = "h264"
	}
	if opts.Width == 0 {
		opts.Width, opts.Height = 320, 240
	}
	if opts.FPS == 0 {
		opts.FPS = 15
	}
	script := filepath.Join(t.TempDir(), "rtsp_server.py")
	if err := os.WriteFile(script, rtspServerScript, 0o600); err != nil {
		t.Fatal(err)
	}
	s := &RTSPServer{opts: opts, script: script, Port: opts.Port}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	return s
}

// URL is the stream's address, without credentials.
func (s *RTSPServer) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("rtsp://127.0.0.1:%d/test", s.Port)
}

func (s *RTSPServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(Python); err != nil {
		return fmt.Errorf("the camera tests need %s with GStreamer's RTSP server (Debian: apt-get install %s)", Python, Packages)
	}
	args := []string{s.script, "--codec", s.opts.Codec, "--width", strconv.Itoa(s.opts.Width),
		"--height", strconv.Itoa(s.opts.Height), "--fps", strconv.Itoa(s.opts.FPS), "--port", strconv.Itoa(s.Port)}
	if s.opts.User != "" {
		args = append(args, "--user", s.opts.User, "--password", s.opts.Password)
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
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the RTSP server: %w", err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-ready:
		port, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
		n, err := strconv.Atoi(port)
		if !ok || err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return fmt.Errorf("the RTSP server did not start (%q; install %s): %s", line, Packages, cmd.Stderr.(*lockedWriter).String())
		}
		s.Port = n
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("the RTSP server did not start within 20 s")
	}
	s.cmd, s.stdin = cmd, stdin
	return nil
}

// Kill ends the server at once (SIGKILL), as a crashed camera or a pulled cable does.
func (s *RTSPServer) Kill() {
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

// Restart starts the server again on the same port.
func (s *RTSPServer) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.start()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // the port may linger a moment after the kill
	}
}

// Pause stops the server's process (SIGSTOP): its sockets stay open and silent, as a hung
// camera's do. Resume continues it.
func (s *RTSPServer) Pause()  { s.signal(syscall.SIGSTOP) }
func (s *RTSPServer) Resume() { s.signal(syscall.SIGCONT) }

func (s *RTSPServer) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		s.cmd.Process.Signal(sig)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 64<<10 {
		return len(p), nil
	}
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// Children lists the processes named name (as /proc/PID/comm says) whose parent is this
// process: how tests count the ffmpeg processes the agent runs.
func Children(name string) []int {
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after its last ')'.
		s := string(stat)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 || s[open+1:close] != name {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == self {
			pids = append(pids, pid)
		}
	}
	return pids
}
