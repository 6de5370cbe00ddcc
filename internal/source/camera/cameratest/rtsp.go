// Package cameratest runs real camera peers for tests: GStreamer's RTSP server (package
// gstreamer) serving a moving test pattern in H.264 or MJPEG, and an ONVIF device
// responder. The test command installs the packages; a test that cannot
// start a peer fails with what is missing, never skips.
package cameratest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fleetgate/fleetgate/internal/source/camera/gstreamer"
)

// RTSPOptions configure a test RTSP server (gstreamer.Options).
type RTSPOptions = gstreamer.Options

// RTSPServer is a running test RTSP server.
type RTSPServer struct {
	*gstreamer.Server
}

// StartRTSP starts GStreamer's RTSP server and waits until it accepts connections; it is
// stopped when the test ends. A machine without it fails the test, saying what to install.
func StartRTSP(t testing.TB, opts RTSPOptions) *RTSPServer {
	t.Helper()
	opts.Dir = t.TempDir()
	s, err := gstreamer.Start(opts)
	if err != nil {
		t.Fatalf("the camera tests need GStreamer's RTSP server: %v", err)
	}
	t.Cleanup(s.Kill)
	return &RTSPServer{s}
}

// Restart starts the killed server again on the same port.
func (s *RTSPServer) Restart(t testing.TB) {
	t.Helper()
	if err := s.Server.Restart(); err != nil {
		t.Fatal(err)
	}
}

// Pause holds the server still (SIGSTOP): its sockets stay open and silent, as a hung
// camera's do. Resume continues it.
func (s *RTSPServer) Pause()  { s.Signal(syscall.SIGSTOP) }
func (s *RTSPServer) Resume() { s.Signal(syscall.SIGCONT) }

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
