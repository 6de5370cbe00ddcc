// Package pgtest runs a throwaway PostgreSQL server for tests: Debian's postgresql
// binaries, a cluster in a temporary directory, listening on a free port of 127.0.0.1 and
// on a unix socket in that directory, stopped and removed when the test ends. A test that
// needs it fails, never skips, when the binaries are missing.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// binGlob is where Debian's postgresql package puts initdb, pg_ctl and postgres.
var binGlob = "/usr/lib/postgresql/*/bin"

// Server is a running test cluster; its superuser is "fleetgate", trusted without a password.
type Server struct {
	port  int
	data  string
	admin *sql.DB
	next  atomic.Int64
	// ctl runs pg_ctl with its arguments, as the server's user.
	ctl func(args ...string) ([]byte, error)
	log string // the server's log file
}

// Start starts a server that stops when tb ends. It commits without waiting for its WAL
// (synchronous_commit off): fast, but a crash of the server loses its last commits.
func Start(tb testing.TB) *Server { return start(tb, "off") }

// StartCrashSafe starts a server whose commits survive a kill -9 of the server (a commit
// returns once its WAL is written: synchronous_commit on, PostgreSQL's default), for tests
// that crash it and count what was acknowledged. Its files are still not synced to the disk:
// the machine itself does not crash in a test.
func StartCrashSafe(tb testing.TB) *Server { return start(tb, "on") }

func start(tb testing.TB, synchronousCommit string) *Server {
	tb.Helper()
	bin := binDir(tb)
	dir, err := os.MkdirTemp("", "fleetgate-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	data, sockets, logFile := filepath.Join(dir, "data"), filepath.Join(dir, "sock"), filepath.Join(dir, "postgres.log")
	if err := os.Mkdir(sockets, 0o700); err != nil {
		tb.Fatal(err)
	}
	run := asUser(tb, dir, sockets)
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-U", "fleetgate", "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		tb.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	port := freePort(tb)
	// fsync off: a test cluster needs no durability, and its tests run several times faster.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=%s -c full_page_writes=off", port, sockets, synchronousCommit)
	ctl := func(args ...string) ([]byte, error) {
		return run(filepath.Join(bin, "pg_ctl"), append(args, "-D", data)...).CombinedOutput()
	}
	if out, err := ctl("start", "-w", "-t", "60", "-l", logFile, "-o", opts); err != nil {
		log, _ := os.ReadFile(logFile)
		tb.Fatalf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	s := &Server{port: port, data: data, log: logFile}
	s.ctl = func(args ...string) ([]byte, error) {
		if args[0] == "start" {
			args = append(args, "-l", logFile, "-o", opts)
		}
		return ctl(args...)
	}
	tb.Cleanup(func() {
		if out, err := ctl("status"); err != nil {
			return // stopped by the test (Stop), not started again
		} else if out, err = ctl("stop", "-w", "-m", "immediate"); err != nil {
			tb.Errorf("pgtest: pg_ctl stop: %v\n%s", err, out)
		}
	})
	s.admin, err = sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.admin.Close() })
	return s
}

// Stop stops the server at once (as a crash would), its data kept for Restart.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	if out, err := s.ctl("stop", "-w", "-m", "immediate"); err != nil {
		tb.Fatalf("pgtest: pg_ctl stop: %v\n%s", err, out)
	}
}

// Kill sends SIGKILL to the server's postmaster, as kill -9 of an operator or the OOM killer
// does, and waits until it and the backends it leaves behind (they notice its death and
// exit) are gone: Restart then finds no shared memory still in use.
func (s *Server) Kill(tb testing.TB) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		tb.Fatalf("pgtest: the postmaster's pid: %v", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		tb.Fatalf("pgtest: postmaster.pid: %q", line)
	}
	children := childrenOf(pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		tb.Fatalf("pgtest: kill -9 %d: %v", pid, err)
	}
	for _, p := range append(children, pid) {
		for deadline := time.Now().Add(30 * time.Second); alive(p); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				tb.Fatalf("pgtest: process %d still there 30 s after kill -9 of the postmaster", p)
			}
		}
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var found []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its ")".
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			found = append(found, child)
		}
	}
	return found
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z")
}

// Restart starts the server again after Stop or Kill, on the same port and data. A start
// that fails is tried again for a few seconds (a CI run once saw the first start after a
// kill -9 end at once; the server's log says why, and is shown if it never starts).
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	var out []byte
	var err error
	for attempt, deadline := 1, time.Now().Add(15*time.Second); ; attempt++ {
		if out, err = s.ctl("start", "-w", "-t", "60"); err == nil {
			if attempt > 1 {
				tb.Logf("pgtest: the server started at attempt %d", attempt)
			}
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	log, _ := os.ReadFile(s.log)
	tb.Fatalf("pgtest: pg_ctl start: %v\n%s\nthe server's log:\n%s", err, out, log)
}

// URL is the address of database name on the server.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("postgres://fleetgate@127.0.0.1:%d/%s?sslmode=disable", s.port, name)
}

// NewDatabase creates an empty database and returns its URL.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("test_%d", s.next.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		tb.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	return s.URL(name)
}

func binDir(tb testing.TB) string {
	dirs, _ := filepath.Glob(binGlob)
	// The newest version sorts last among equal-length names; compare numerically.
	slices.SortFunc(dirs, func(a, b string) int { return version(a) - version(b) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	tb.Fatalf("pgtest: no PostgreSQL server binaries (initdb, pg_ctl) under %s: install Debian's postgresql package (apt-get install -y postgresql; scripts/test.sh does)", binGlob)
	return ""
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// asUser returns how to run a server command: as ourselves, or, as root (initdb refuses
// root), as the postgres user of Debian's package, else nobody, who is given dirs.
func asUser(tb testing.TB, dirs ...string) func(name string, args ...string) *exec.Cmd {
	if os.Geteuid() != 0 {
		return exec.Command
	}
	var u *user.User
	for _, name := range []string{"postgres", "nobody"} {
		if found, err := user.Lookup(name); err == nil {
			u = found
			break
		}
	}
	if u == nil {
		tb.Fatal("pgtest: running as root and neither a postgres nor a nobody user exists to run the server as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, dir := range dirs {
		if err := os.Chown(dir, uid, gid); err != nil {
			tb.Fatal(err)
		}
	}
	return func(name string, args ...string) *exec.Cmd {
		return exec.Command("runuser", append([]string{"-u", u.Username, "--", name}, args...)...)
	}
}

func freePort(tb testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
