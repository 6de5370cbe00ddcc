package ros2test

import (
	"bufio"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Proc is a running peer whose output lines the test reads.
type Proc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	at    []time.Time   // when each line arrived
	more  chan struct{} // closed and replaced on each line
	done  chan struct{}
}

// Start runs a peer; it is stopped (SIGTERM, then SIGKILL) when the test ends.
func Start(t testing.TB, path string, args ...string) *Proc {
	t.Helper()
	p := &Proc{cmd: exec.Command(path, args...), more: make(chan struct{}), done: make(chan struct{})}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.cmd.Stdout
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.at = append(p.at, time.Now())
			close(p.more)
			p.more = make(chan struct{})
			p.mu.Unlock()
		}
		_ = p.cmd.Wait()
	}()
	t.Cleanup(p.Stop)
	p.Wait(t, "ready", 20*time.Second)
	return p
}

// Lines returns every line the peer printed so far.
func (p *Proc) Lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// At is when line i arrived (the peers flush each line as they print it).
func (p *Proc) At(i int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at[i]
}

// Count is how many lines start with prefix.
func (p *Proc) Count(prefix string) int {
	n := 0
	for _, l := range p.Lines() {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// WaitFrom waits for a line starting with prefix among the lines from index from on, and
// returns it and its index.
func (p *Proc) WaitFrom(t testing.TB, from int, prefix string, timeout time.Duration) (string, int) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		lines, more := p.lines, p.more
		p.mu.Unlock()
		for i := from; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], prefix) {
				return lines[i], i
			}
		}
		select {
		case <-more:
		case <-p.done:
			t.Fatalf("the peer ended without printing %q; it printed:\n%s", prefix, strings.Join(p.Lines(), "\n"))
		case <-deadline:
			t.Fatalf("no %q from the peer within %v; it printed:\n%s", prefix, timeout, strings.Join(p.Lines(), "\n"))
		}
	}
}

// Wait waits for a line starting with prefix.
func (p *Proc) Wait(t testing.TB, prefix string, timeout time.Duration) string {
	t.Helper()
	l, _ := p.WaitFrom(t, 0, prefix, timeout)
	return l
}

// Stop ends the peer as a robot is stopped (SIGTERM: its participant leaves the graph) and
// waits for it; after 5 s it is killed.
func (p *Proc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}
