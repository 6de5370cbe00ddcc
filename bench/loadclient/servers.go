package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Server kinds.
const (
	fleetgate = "fleetgate"
	foxglove  = "foxglove"
	// fleetgateFoxglove is fleetgate's bench gateway read on its Foxglove route
	// (/apigateway/v2/robots/{robotId}/foxglove) with Foxglove's protocol, rather than W3.
	fleetgateFoxglove = "fleetgate-foxglove"
)

// serverProc is a server under test in a process of its own, which the load client starts,
// measures from outside (/proc) and stops. Both kinds answer a "gc" line on their standard
// input by collecting garbage and printing a line, and exit when it closes.
type serverProc struct {
	kind  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
	hello struct {
		URL, Token, Robot, Fleet string
		PID                      int
	}
}

type serverConfig struct {
	gatewayBin, node, foxgloveScript string
	frame                            int
	rate                             float64
	cloudRate                        float64 // fleetgate's point clouds per second (json)
}

func startServer(kind string, cfg serverConfig) (*serverProc, error) {
	rate := strconv.FormatFloat(cfg.rate, 'f', -1, 64)
	frame := strconv.Itoa(cfg.frame)
	var cmd *exec.Cmd
	switch kind {
	case fleetgate, fleetgateFoxglove:
		cmd = exec.Command(cfg.gatewayBin, "-frame", frame, "-rate", rate,
			"-cloud-rate", strconv.FormatFloat(cfg.cloudRate, 'f', -1, 64))
		if dir := os.Getenv("FLEETGATE_BENCH_PROFILE"); dir != "" {
			if cfg.rate == 0 { // idle: a heap profile of every allocation
				cmd.Args = append(cmd.Args, "-memprofilerate", "1")
			} else {
				profiles++
				cmd.Args = append(cmd.Args, "-cpuprofile", filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", profiles)))
			}
		}
	case foxglove:
		cmd = exec.Command(cfg.node, "--expose-gc", cfg.foxgloveScript, "--frame", frame, "--rate", rate)
	default:
		return nil, fmt.Errorf("unknown server %q", kind)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serverProc{kind: kind, cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	if !s.out.Scan() {
		s.stop()
		return nil, fmt.Errorf("%s server: no hello line", kind)
	}
	if err := json.Unmarshal(s.out.Bytes(), &s.hello); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s server hello %q: %v", kind, s.out.Text(), err)
	}
	return s, nil
}

func (s *serverProc) wsURL() string {
	return "ws" + strings.TrimPrefix(s.hello.URL, "http")
}

// gc has the server collect garbage and hand freed memory back, so that RSS shows what is
// live; it returns the server's answer (fleetgate's: goroutines and heap figures).
func (s *serverProc) gc() string {
	fmt.Fprintln(s.stdin, "gc")
	if !s.out.Scan() {
		return ""
	}
	return s.out.Text()
}

// profile has fleetgate's bench server write heap and goroutine profiles into dir.
func (s *serverProc) profile(dir string) {
	fmt.Fprintln(s.stdin, "profile "+dir)
	s.out.Scan()
}

// rss is the server's resident memory in bytes.
func (s *serverProc) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// profiles counts the CPU profiles asked for (FLEETGATE_BENCH_PROFILE), to name them.
var profiles int

// clockTick is the kernel's USER_HZ, 100 on Linux everywhere that matters.
const clockTick = 100

// cpu is the CPU time the server has used, all threads, user and system.
func (s *serverProc) cpu() time.Duration { return procCPU(s.cmd.Process.Pid) }

func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; fields count from after its closing parenthesis.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	f := strings.Fields(rest)
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTick
}

func (s *serverProc) stop() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// loadAverage is /proc/loadavg's first three fields.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
