package blob

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const id2 = "6f1e2b3c-4d5e-4f3f-9d43-0b5e7c1e54a8"

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func mustStart(tb testing.TB, d *Dir, id, version string) *Upload {
	tb.Helper()
	u, err := d.StartUpload(id, version)
	if err != nil {
		tb.Fatalf("StartUpload(%s, %q): %v", id, version, err)
	}
	return u
}

// write sends the chunks in order, each at the offset the upload says.
func write(tb testing.TB, u *Upload, chunks ...string) {
	tb.Helper()
	for _, c := range chunks {
		if err := u.Write(u.Offset(), []byte(c)); err != nil {
			tb.Fatalf("Write(%q): %v", c, err)
		}
	}
}

func mustCommit(tb testing.TB, u *Upload, content string) {
	tb.Helper()
	if err := u.Commit(int64(len(content)), sum(content)); err != nil {
		tb.Fatalf("Commit: %v", err)
	}
}

func TestUploadInOneGo(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
	}{
		{"empty file", nil},
		{"one chunk", []string{"hello, robot\n"}},
		{"many chunks, an empty one among them", []string{"a", "", strings.Repeat("b", 100_000), "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, root := mustOpenDir(t)
			content := strings.Join(tt.chunks, "")
			u := mustStart(t, d, id1, "v1")
			if u.Offset() != 0 {
				t.Errorf("Offset of a new upload = %d, want 0", u.Offset())
			}
			write(t, u, tt.chunks...)
			if u.Offset() != int64(len(content)) {
				t.Errorf("Offset = %d, want %d", u.Offset(), len(content))
			}
			if d.Has(id1) {
				t.Error("Has before Commit = true")
			}
			mustCommit(t, u, content)
			if !d.Has(id1) {
				t.Error("Has after Commit = false")
			}
			if got := readAll(t, d, id1); got != content {
				t.Errorf("Open read %d bytes, want the %d uploaded", len(got), len(content))
			}
			if got := entries(t, root); !slices.Equal(got, []string{partialDir, id1}) {
				t.Errorf("root holds %v, want [%s %s]", got, partialDir, id1)
			}
			if got := entries(t, filepath.Join(root, partialDir)); len(got) != 0 {
				t.Errorf("partials left after Commit: %v", got)
			}
		})
	}
}

func TestUploadResumesAfterClose(t *testing.T) {
	d, _ := mustOpenDir(t)
	u := mustStart(t, d, id1, "size=11 mtime=1")
	write(t, u, "hello ")
	if err := u.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d.Has(id1) {
		t.Error("Has after Close = true: a partial is not a file")
	}

	// The id in another case is the same resource.
	u = mustStart(t, d, strings.ToUpper(id1), "size=11 mtime=1")
	if u.Offset() != 6 {
		t.Fatalf("Offset on resume = %d, want 6", u.Offset())
	}
	write(t, u, "wor")
	u.Close()
	u = mustStart(t, d, id1, "size=11 mtime=1")
	write(t, u, "ld")
	mustCommit(t, u, "hello world")
	if got := readAll(t, d, id1); got != "hello world" {
		t.Errorf("Open = %q, want %q", got, "hello world")
	}

	// Committed: the next upload of the same version starts from 0, a new file.
	u = mustStart(t, d, id1, "size=11 mtime=1")
	defer u.Close()
	if u.Offset() != 0 {
		t.Errorf("Offset after a Commit = %d, want 0", u.Offset())
	}
}

func TestUploadVersionChangeRestarts(t *testing.T) {
	d, root := mustOpenDir(t)
	u := mustStart(t, d, id1, "v1")
	write(t, u, "old half")
	u.Close()

	u = mustStart(t, d, id1, "v2")
	if u.Offset() != 0 {
		t.Fatalf("Offset for another version = %d, want 0", u.Offset())
	}
	write(t, u, "new")
	u.Close()
	version, err := os.ReadFile(filepath.Join(root, partialDir, id1+".version"))
	if err != nil || string(version) != "v2" {
		t.Errorf("version file = %q, %v; want v2", version, err)
	}

	// Going back to v1 does not find v1's data either.
	u = mustStart(t, d, id1, "v1")
	if u.Offset() != 0 {
		t.Fatalf("Offset back on v1 = %d, want 0", u.Offset())
	}
	write(t, u, "fresh")
	mustCommit(t, u, "fresh")
	if got := readAll(t, d, id1); got != "fresh" {
		t.Errorf("Open = %q, want fresh", got)
	}
}

func TestUploadCommitMismatch(t *testing.T) {
	tests := []struct {
		name string
		size int64
		sha  string
	}{
		{"wrong SHA-256", 9, sum("new data!")[:63] + "0"},
		{"size short of the data", 8, sum("new data")},
		{"size beyond the data", 20, sum("new data!")},
		{"SHA-256 not hex", 9, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, root := mustOpenDir(t)
			if _, _, err := d.Put(id1, strings.NewReader("committed earlier")); err != nil {
				t.Fatal(err)
			}
			u := mustStart(t, d, id1, "v1")
			write(t, u, "new ", "data!")
			if err := u.Commit(tt.size, tt.sha); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Commit = %v, want ErrCorrupt", err)
			}
			if got := readAll(t, d, id1); got != "committed earlier" {
				t.Errorf("the earlier file reads %q, want it untouched", got)
			}
			if got := entries(t, filepath.Join(root, partialDir)); len(got) != 0 {
				t.Errorf("partials left after a refused Commit: %v", got)
			}
			if err := u.Write(9, []byte("x")); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Write after a refused Commit = %v, want os.ErrClosed", err)
			}
			u = mustStart(t, d, id1, "v1")
			defer u.Close()
			if u.Offset() != 0 {
				t.Errorf("Offset after a refused Commit = %d, want 0 (start again)", u.Offset())
			}
		})
	}
}

func TestUploadSHA256InUpperCase(t *testing.T) {
	d, _ := mustOpenDir(t)
	u := mustStart(t, d, id1, "v1")
	write(t, u, "abc")
	if err := u.Commit(3, strings.ToUpper(sum("abc"))); err != nil {
		t.Fatalf("Commit with an upper-case digest: %v", err)
	}
}

func TestUploadOutOfOrder(t *testing.T) {
	d, _ := mustOpenDir(t)
	u := mustStart(t, d, id1, "v1")
	defer u.Close()
	steps := []struct {
		name    string
		offset  int64
		data    string
		wantErr error
		wantOff int64
	}{
		{"gap at the start", 3, "def", ErrOutOfOrder, 0},
		{"negative", -1, "x", ErrOutOfOrder, 0},
		{"first chunk", 0, "abc", nil, 3},
		{"the same chunk again", 0, "abc", ErrOutOfOrder, 3},
		{"overlapping", 2, "cd", ErrOutOfOrder, 3},
		{"gap", 4, "ef", ErrOutOfOrder, 3},
		{"next chunk", 3, "def", nil, 6},
	}
	for _, s := range steps {
		err := u.Write(s.offset, []byte(s.data))
		if !errors.Is(err, s.wantErr) || (s.wantErr == nil && err != nil) {
			t.Errorf("%s: Write(%d, %q) = %v, want %v", s.name, s.offset, s.data, err, s.wantErr)
		}
		if u.Offset() != s.wantOff {
			t.Errorf("%s: Offset = %d, want %d", s.name, u.Offset(), s.wantOff)
		}
	}
	mustCommit(t, u, "abcdef")
	if got := readAll(t, d, id1); got != "abcdef" {
		t.Errorf("Open = %q, want abcdef: refused writes must leave no trace", got)
	}
}

// TestUploadCrash stops an upload the way a killed process does, without Close, and goes on
// in a new Dir on the same root, as the restarted process would.
func TestUploadCrash(t *testing.T) {
	d, root := mustOpenDir(t)
	if _, _, err := d.Put(id1, strings.NewReader("version one")); err != nil {
		t.Fatal(err)
	}
	reader, err := d.Open(id1) // a download in progress during the upload and its commit
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	crashed := mustStart(t, d, id1, "v2")
	write(t, crashed, "version ")
	// Not closed: the process died here.

	d2, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, d2, id1); got != "version one" {
		t.Fatalf("after the crash Open = %q, want the committed file whole", got)
	}
	u := mustStart(t, d2, id1, "v2")
	if u.Offset() != 8 {
		t.Fatalf("Offset after the crash = %d, want 8", u.Offset())
	}
	write(t, u, "two, longer")
	mustCommit(t, u, "version two, longer")
	if got := readAll(t, d2, id1); got != "version two, longer" {
		t.Errorf("Open after Commit = %q", got)
	}
	if got := entries(t, root); !slices.Equal(got, []string{partialDir, id1}) {
		t.Errorf("root holds %v, want only %s beside the partial directory: no temporary files", got, id1)
	}
	if old, err := io.ReadAll(reader); err != nil || string(old) != "version one" {
		t.Errorf("the reader opened before the commit read %q, %v; want the old file whole", old, err)
	}
}

// TestUploadTornPartial resumes a partial file that a crash left with bytes the sender never
// had acknowledged (or that were garbled): Commit finds out, and the committed file stays.
func TestUploadTornPartial(t *testing.T) {
	d, root := mustOpenDir(t)
	if _, _, err := d.Put(id1, strings.NewReader("committed")); err != nil {
		t.Fatal(err)
	}
	u := mustStart(t, d, id1, "v1")
	write(t, u, "good")
	u.Close()
	f, err := os.OpenFile(filepath.Join(root, partialDir, id1), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\x00\x00\x00")
	f.Close()

	u = mustStart(t, d, id1, "v1")
	if u.Offset() != 7 {
		t.Fatalf("Offset = %d, want 7 (what is on disk)", u.Offset())
	}
	write(t, u, "!")
	if err := u.Commit(5, sum("good!")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Commit = %v, want ErrCorrupt", err)
	}
	if got := readAll(t, d, id1); got != "committed" {
		t.Errorf("Open = %q, want the committed file", got)
	}
}

func TestUploadOneAtATimePerID(t *testing.T) {
	d, _ := mustOpenDir(t)
	u := mustStart(t, d, id1, "v1")
	if _, err := d.StartUpload(strings.ToUpper(id1), "v1"); !errors.Is(err, ErrUploadBusy) {
		t.Errorf("second StartUpload = %v, want ErrUploadBusy", err)
	}
	if _, err := d.StartUpload(id1, "v2"); !errors.Is(err, ErrUploadBusy) {
		t.Errorf("StartUpload of another version = %v, want ErrUploadBusy (it would discard the open one's data)", err)
	}
	other := mustStart(t, d, id2, "v1") // another id is independent
	write(t, other, "other")
	mustCommit(t, other, "other")

	write(t, u, "abc")
	u.Close()
	u = mustStart(t, d, id1, "v1") // free again after Close
	write(t, u, "def")
	mustCommit(t, u, "abcdef")
	u = mustStart(t, d, id1, "v1") // and after Commit
	u.Close()
}

func TestUploadConcurrentStart(t *testing.T) {
	d, _ := mustOpenDir(t)
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []*Upload
		busy    int
	)
	for i := range n {
		wg.Go(func() {
			u, err := d.StartUpload(id1, "v1")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				winners = append(winners, u)
			case errors.Is(err, ErrUploadBusy):
				busy++
			default:
				t.Errorf("StartUpload %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if len(winners) != 1 || busy != n-1 {
		t.Fatalf("%d uploads started, %d busy; want 1 and %d", len(winners), busy, n-1)
	}
	// Concurrent writers on the one upload: each chunk lands whole at most once.
	u := winners[0]
	for range n {
		wg.Go(func() {
			for {
				off := u.Offset()
				if off >= 4*n {
					return
				}
				u.Write(off, []byte("abcd"))
			}
		})
	}
	wg.Wait()
	mustCommit(t, u, strings.Repeat("abcd", n))
}

func TestUploadAfterTheEnd(t *testing.T) {
	d, _ := mustOpenDir(t)
	u := mustStart(t, d, id1, "v1")
	write(t, u, "x")
	mustCommit(t, u, "x")
	if err := u.Write(1, []byte("y")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Commit = %v, want os.ErrClosed", err)
	}
	if err := u.Commit(1, sum("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Commit twice = %v, want os.ErrClosed", err)
	}
	if err := u.Close(); err != nil {
		t.Errorf("Close after Commit = %v, want nil", err)
	}

	u = mustStart(t, d, id1, "v1")
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if err := u.Close(); err != nil {
		t.Errorf("Close twice = %v, want nil", err)
	}
	if err := u.Write(0, []byte("y")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close = %v, want os.ErrClosed", err)
	}
	// A stale handle must not release the id for a newer upload.
	newer := mustStart(t, d, id1, "v1")
	defer newer.Close()
	u.Close()
	if _, err := d.StartUpload(id1, "v1"); !errors.Is(err, ErrUploadBusy) {
		t.Errorf("StartUpload while the newer upload is open = %v, want ErrUploadBusy", err)
	}
}

func TestUploadModes(t *testing.T) {
	d, root := mustOpenDir(t)
	u := mustStart(t, d, id1, "v1")
	write(t, u, "secret telemetry")
	u.Close()
	for _, tt := range []struct {
		path string
		mode os.FileMode
	}{
		{filepath.Join(root, partialDir), 0o700 | os.ModeDir},
		{filepath.Join(root, partialDir, id1), 0o600},
		{filepath.Join(root, partialDir, id1+".version"), 0o600},
	} {
		fi, err := os.Stat(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != tt.mode {
			t.Errorf("%s: mode %v, want %v", tt.path, fi.Mode(), tt.mode)
		}
	}
	u = mustStart(t, d, id1, "v1")
	mustCommit(t, u, "secret telemetry")
	if fi, err := os.Stat(filepath.Join(root, id1)); err != nil || fi.Mode() != 0o600 {
		t.Errorf("committed file: %v, %v; want -rw-------", fi.Mode(), err)
	}
}

func TestUploadRejectsBadIDs(t *testing.T) {
	for _, id := range []string{"", "../x", partialDir, "..", id1 + "/..", "0b5e7c1e54a84f3f9d436f1e2b3c4d5e"} {
		t.Run(id, func(t *testing.T) {
			d, root := mustOpenDir(t)
			if _, err := d.StartUpload(id, "v1"); !errors.Is(err, ErrInvalidID) {
				t.Errorf("StartUpload(%q) = %v, want ErrInvalidID", id, err)
			}
			if d.Has(id) {
				t.Errorf("Has(%q) = true", id)
			}
			if got := entries(t, root); len(got) != 0 {
				t.Errorf("root holds %v after a rejected id, want nothing", got)
			}
		})
	}
}

func TestUploadNeedsAVersion(t *testing.T) {
	d, _ := mustOpenDir(t)
	if _, err := d.StartUpload(id1, ""); err == nil {
		t.Fatal("StartUpload without a version succeeded")
	}
	u := mustStart(t, d, id1, "v1") // the refusal left the id free
	u.Close()
}

func TestHas(t *testing.T) {
	d, root := mustOpenDir(t)
	if d.Has(id1) {
		t.Error("Has on an empty Dir = true")
	}
	if _, _, err := d.Put(id1, strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if !d.Has(id1) || !d.Has(strings.ToUpper(id1)) {
		t.Error("Has after Put = false")
	}
	if err := os.Mkdir(filepath.Join(root, id2), 0o700); err != nil {
		t.Fatal(err)
	}
	if d.Has(id2) {
		t.Error("Has of a directory = true")
	}
}

// TestPruneLeftovers: partial uploads and crashed writes untouched since the cutoff go;
// recent ones, an open upload however old, committed files and foreign files stay.
func TestPruneLeftovers(t *testing.T) {
	d, _ := mustOpenDir(t)
	const (
		stale  = "0a1e2b3c-4d5e-4f3f-9d43-0b5e7c1e54a8"
		open   = "0b1e2b3c-4d5e-4f3f-9d43-0b5e7c1e54a8"
		recent = "0c1e2b3c-4d5e-4f3f-9d43-0b5e7c1e54a8"
		done   = "0d1e2b3c-4d5e-4f3f-9d43-0b5e7c1e54a8"
	)
	for _, id := range []string{stale, open, recent} {
		u := mustStart(t, d, id, "v1")
		write(t, u, "part")
		if id != open {
			u.Close()
		} else {
			defer u.Close()
		}
	}
	u := mustStart(t, d, done, "v1")
	write(t, u, "whole")
	if err := u.Commit(5, sum("whole")); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(d.root, partialDir)
	crashed := filepath.Join(d.root, "."+done+".tmp-123")
	foreign := filepath.Join(partial, "notes.txt")
	for _, p := range []string{crashed, foreign, filepath.Join(partial, "."+stale+".version.tmp-9")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	old := now.Add(-8 * 24 * time.Hour)
	entries, _ := os.ReadDir(partial)
	for _, e := range entries {
		if !strings.HasPrefix(strings.TrimPrefix(e.Name(), "."), recent) {
			os.Chtimes(filepath.Join(partial, e.Name()), old, old)
		}
	}
	os.Chtimes(crashed, old, old)
	os.Chtimes(filepath.Join(d.root, done), old, old)

	n, err := d.PruneLeftovers(now.Add(-7 * 24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 { // the stale upload's data, version and version temp file; the crashed write
		t.Errorf("removed %d files, want 4", n)
	}
	gone := []string{filepath.Join(partial, stale), filepath.Join(partial, stale+".version"), crashed}
	kept := []string{filepath.Join(partial, open), filepath.Join(partial, recent), filepath.Join(partial, recent+".version"),
		filepath.Join(d.root, done), foreign}
	for _, p := range gone {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want it kept", p, err)
		}
	}
	// The pruned id uploads afresh.
	u = mustStart(t, d, stale, "v1")
	defer u.Close()
	if u.Offset() != 0 {
		t.Errorf("upload after pruning resumes at %d, want 0", u.Offset())
	}
}

// A file that grew starts from the committed copy: only the new bytes are written, Sum is the
// prefix's hash the sender checks, and a version that did not grow from it fails Commit.
func TestUploadGrowthStartsFromTheCommittedCopy(t *testing.T) {
	d, _ := mustOpenDir(t)
	u, err := d.StartGrowth(id1, "v1") // nothing committed yet: from 0
	if err != nil || u.Offset() != 0 {
		t.Fatalf("StartGrowth of a new file: offset %d, %v", u.Offset(), err)
	}
	write(t, u, "line 1\n")
	mustCommit(t, u, "line 1\n")

	u, err = d.StartGrowth(id1, "v2")
	if err != nil {
		t.Fatal(err)
	}
	if u.Offset() != 7 || u.Sum() != sum("line 1\n") {
		t.Fatalf("growth starts at %d with sum %s, want 7 and the copy's", u.Offset(), u.Sum())
	}
	write(t, u, "line 2\n")
	mustCommit(t, u, "line 1\nline 2\n")
	if got := readAll(t, d, id1); got != "line 1\nline 2\n" {
		t.Fatalf("Open = %q", got)
	}

	// Rewritten from its start: the sender finds the prefix differs and the upload is
	// discarded, or (an older sender) Commit finds the whole differs.
	u, _ = d.StartGrowth(id1, "v3")
	u.Discard()
	if u, _ = d.StartUpload(id1, "v3"); u.Offset() != 0 {
		t.Fatalf("after Discard the next upload starts at %d, want 0", u.Offset())
	}
	u.Close()
	u, _ = d.StartGrowth(id1, "v4")
	write(t, u, "line 3\n")
	if err := u.Commit(21, sum("rotated\nline 3\nmore\n")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Commit of a version that did not grow from the copy: %v, want ErrCorrupt", err)
	}
	if got := readAll(t, d, id1); got != "line 1\nline 2\n" {
		t.Fatalf("the committed copy changed: %q", got)
	}
}
