package pgtest

import (
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal ends only the goroutine, keeping the message.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestMissingBinariesFail: without Debian's postgresql the tests fail and say what to
// install; they never skip.
func TestMissingBinariesFail(t *testing.T) {
	saved := binGlob
	binGlob = t.TempDir() + "/*/bin"
	defer func() { binGlob = saved }()
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(r)
	}()
	<-done
	if !strings.Contains(r.msg, "no PostgreSQL server binaries") || !strings.Contains(r.msg, "apt-get install -y postgresql") {
		t.Errorf("Start without binaries: Fatal %q, want a message naming the package to install", r.msg)
	}
	if r.Skipped() {
		t.Error("Start skipped the test")
	}
}

// TestKilledServerKeepsItsCommits: kill -9 of a crash-safe server's postmaster ends it and
// its backends (Restart then starts at once), and a commit it acknowledged is there after.
func TestKilledServerKeepsItsCommits(t *testing.T) {
	s := StartCrashSafe(t)
	db, err := sql.Open("pgx", s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE acked (n int); INSERT INTO acked VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	s.Kill(t)
	if err := db.Ping(); err == nil {
		t.Fatal("the server answers after kill -9")
	}
	s.Restart(t)
	var n int
	if err := db.QueryRow(`SELECT n FROM acked`).Scan(&n); err != nil || n != 42 {
		t.Fatalf("after the restart: %d, %v; want the acknowledged 42", n, err)
	}
}
