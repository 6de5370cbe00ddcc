// Package rostest runs real ROS 1 processes for tests: a rosmaster on a free port and rospy
// scripts (Debian's ros-core and python3-rospy), stopped when the test ends.
package rostest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/xmlrpc"
)

// Python is the interpreter with rospy: Debian's, not one a version manager put first in PATH.
const Python = "/usr/bin/python3"

// Master is a rosmaster process.
type Master struct {
	t    testing.TB
	Port int
	URI  string
	home string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartMaster starts `rosmaster --core -p PORT` on a free port with ROS_IP=127.0.0.1 and waits
// until it answers. It is killed when the test ends.
func StartMaster(t testing.TB) *Master {
	t.Helper()
	m := &Master{t: t, Port: FreePort(t), home: t.TempDir()}
	m.URI = fmt.Sprintf("http://127.0.0.1:%d/", m.Port)
	m.Start()
	t.Cleanup(m.Kill)
	return m
}

// Env is the environment of a ROS process that uses this master.
func (m *Master) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROS_") { // rospy refuses an empty ROS_HOSTNAME, say
			env = append(env, kv)
		}
	}
	return append(env,
		"ROS_MASTER_URI="+m.URI,
		"ROS_IP=127.0.0.1",
		"ROS_HOME="+m.home,
		"ROS_LOG_DIR="+filepath.Join(m.home, "log"),
		"PYTHONUNBUFFERED=1",
	)
}

// Start starts the master (again, after Kill) and waits until it answers.
func (m *Master) Start() {
	m.t.Helper()
	cmd := exec.Command("rosmaster", "--core", "-p", strconv.Itoa(m.Port))
	cmd.Env = m.Env()
	log, err := os.Create(filepath.Join(m.home, fmt.Sprintf("rosmaster-%d.log", time.Now().UnixNano())))
	if err != nil {
		m.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		m.t.Fatalf("starting rosmaster (Debian ros-core): %v", err)
	}
	go func() { cmd.Wait(); log.Close() }()
	m.mu.Lock()
	m.cmd = cmd
	m.mu.Unlock()
	Eventually(m.t, 20*time.Second, "rosmaster answers on "+m.URI, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var c xmlrpc.Client
		_, err := c.Call(ctx, m.URI, "getPid", "/rostest")
		return err == nil
	})
}

// Kill kills the master with SIGKILL, as a crash would end it.
func (m *Master) Kill() {
	m.mu.Lock()
	cmd := m.cmd
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	// Wait until the port is free, so a restart can bind it.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", m.Port), 200*time.Millisecond)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(20 * time.Millisecond)
	}
}

// FreePort returns a TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Proc is a running rospy script. Its standard output is read line by line.
type Proc struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	err   strings.Builder
}

// Python starts script with args under /usr/bin/python3 against master and waits for the line
// "ready" on its standard output. It is killed when the test ends.
func (m *Master) Python(t testing.TB, script string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(Python, append([]string{"-c", script}, args...)...)
	cmd.Env = m.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Proc{cmd: cmd, lines: make(chan string, 4096)}
	cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.err.Len() < 64<<10 {
			p.err.Write(b)
		}
		return len(b), nil
	})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		io.Copy(io.Discard, stdout)
	}()
	if _, err := p.WaitLine(30*time.Second, func(l string) bool { return l == "ready" }); err != nil {
		t.Fatalf("rospy script did not get ready: %v\nstderr:\n%s", err, p.Stderr())
	}
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Stderr is what the script wrote to its standard error so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err.String()
}

// Lines is the script's standard output, line by line.
func (p *Proc) Lines() <-chan string { return p.lines }

// WaitLine returns the next line for which match is true, skipping others.
func (p *Proc) WaitLine(timeout time.Duration, match func(string) bool) (string, error) {
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return "", fmt.Errorf("the script ended")
			}
			if match(l) {
				return l, nil
			}
		case <-deadline:
			return "", fmt.Errorf("no matching line within %v", timeout)
		}
	}
}

// Kill ends the script and its children.
func (p *Proc) Kill() {
	if p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Eventually fails the test unless cond becomes true before timeout. It polls: tests wait on
// conditions, never on sleeps.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
