package fleetgate_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// maxTrackedSize is the largest file the repository tracks outside bigFiles. A clone carries
// every version of every file for ever: a build output committed once (a 30 MB binary
// that then lacked half of the flags the README used) weighs on every clone after it, and
// misleads whoever runs it.
const maxTrackedSize = 2 << 20

// bigFiles are the tracked files allowed over maxTrackedSize, each with why it must be
// tracked. None is today: the largest are the bundle's point-cloud chunk (about 0.6 MB) and
// the generated link.pb.go (about 0.15 MB).
var bigFiles = map[string]string{}

// TestNoLargeFileIsTracked: every file git tracks is at most 2 MiB, or named in bigFiles
// with its reason; build outputs are ignored, never committed.
func TestNoLargeFileIsTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "--cached", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v): nothing to check", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files: not this repository's root?", len(files))
	}
	seen := map[string]bool{}
	for _, name := range files {
		fi, err := os.Lstat(name)
		if err != nil {
			continue // deleted in the working tree, not yet committed
		}
		if bigFiles[name] != "" {
			seen[name] = true
			continue
		}
		if fi.Size() > maxTrackedSize {
			t.Errorf("%s is tracked and %.1f MiB (over %d MiB): untrack it (git rm --cached) and ignore it if it is a build output, or name it in bigFiles with the reason it must be tracked",
				name, float64(fi.Size())/(1<<20), maxTrackedSize>>20)
		}
	}
	for name := range bigFiles {
		if !seen[name] {
			t.Errorf("bigFiles names %s, which is not tracked: remove it from the list", name)
		}
	}
}

// TestBuildOutputsAreIgnored: what make and go build write at the root is ignored, so that
// it cannot be committed by a git add -A.
func TestBuildOutputsAreIgnored(t *testing.T) {
	outputs := []string{"fleetgate", "bin/fleetgate", "dist/fleetgate_amd64.deb", "fleetgate-data/fleetgate.db"}
	cmd := exec.Command("git", append([]string{"check-ignore", "--no-index", "--verbose", "--non-matching"}, outputs...)...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil && stdout.Len() == 0 {
		t.Skipf("not a git checkout (git check-ignore: %v): nothing to check", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		// --non-matching prints "::\tpath" for a path no rule ignores.
		if rule, path, ok := strings.Cut(line, "\t"); ok && rule == "::" {
			t.Errorf("%s is not ignored: add it to .gitignore (a build output)", path)
		}
	}
	if got := strings.Count(stdout.String(), "\n"); got != len(outputs) {
		t.Fatalf("git check-ignore answered %d lines for %d paths:\n%s", got, len(outputs), stdout.String())
	}
}
