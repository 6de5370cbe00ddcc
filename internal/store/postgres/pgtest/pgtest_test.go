package pgtest

import (
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
