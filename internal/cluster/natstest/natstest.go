// Package natstest runs a throwaway NATS server for tests: Debian's nats-server with JetStream,
// its store in a temporary directory, listening on a free port of 127.0.0.1, stopped when the
// test ends. A test that needs it fails, never skips, when the binary is missing (the test
// command installs the nats-server package).
package natstest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// MaxPayload is the servers' max_payload: large enough for a camera frame, as a production
// configuration should be (the default 1 MiB is not).
const MaxPayload = 8 << 20

// Server is a running nats-server; Stop and Start take it down and up on the same port and
// store, as an outage and a recovery.
type Server struct {
	tb   testing.TB
	port int
	dir  string
	cmd  *exec.Cmd
	log  *os.File
}

// Start starts a server that stops when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	if _, err := exec.LookPath("nats-server"); err != nil {
		tb.Fatal("nats-server is not installed (Debian package nats-server; scripts/test.sh installs it)")
	}
	s := &Server{tb: tb, port: freePort(tb), dir: tb.TempDir()}
	conf := fmt.Sprintf("listen: 127.0.0.1:%d\nmax_payload: %d\njetstream {\n  store_dir: %q\n}\n", s.port, MaxPayload, filepath.Join(s.dir, "js"))
	if err := os.WriteFile(filepath.Join(s.dir, "nats.conf"), []byte(conf), 0o600); err != nil {
		tb.Fatal(err)
	}
	s.Restart()
	tb.Cleanup(s.Stop)
	return s
}

// URL is the server's client URL.
func (s *Server) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Restart starts the server again after Stop (its JetStream store kept) and waits until it
// takes connections.
func (s *Server) Restart() {
	s.tb.Helper()
	log, err := os.OpenFile(filepath.Join(s.dir, "nats.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.tb.Fatal(err)
	}
	s.log = log
	s.cmd = exec.Command("nats-server", "-c", filepath.Join(s.dir, "nats.conf"))
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(s.dir, "nats.log"))
			s.tb.Fatalf("nats-server did not start: %v\n%s", err, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (as a crash would).
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
	s.log.Close()
}

func freePort(tb testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
