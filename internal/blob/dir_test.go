package blob

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const id1 = "0b5e7c1e-54a8-4f3f-9d43-6f1e2b3c4d5e"

// mustOpenDir opens a Dir in a fresh directory.
func mustOpenDir(tb testing.TB) (*Dir, string) {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "resources")
	d, err := OpenDir(root)
	if err != nil {
		tb.Fatalf("OpenDir: %v", err)
	}
	return d, root
}

func readAll(tb testing.TB, d *Dir, id string) string {
	tb.Helper()
	f, err := d.Open(id)
	if err != nil {
		tb.Fatalf("Open(%q): %v", id, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func entries(tb testing.TB, root string) []string {
	tb.Helper()
	es, err := os.ReadDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestOpenDirCreatesPrivateRoot(t *testing.T) {
	_, root := mustOpenDir(t)
	fi, err := os.Stat(root)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("root mode = %v; want drwx------", fi.Mode())
	}
	if _, err := OpenDir(root); err != nil {
		t.Errorf("OpenDir on an existing root: %v", err)
	}
}

func TestDirPutOpenRemove(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"empty", ""},
		{"text", "hello, robot\n"},
		{"larger than a copy buffer", strings.Repeat("0123456789abcdef", 10_000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, root := mustOpenDir(t)
			size, sum, err := d.Put(id1, strings.NewReader(tt.content))
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			wantSum := sha256.Sum256([]byte(tt.content))
			if size != int64(len(tt.content)) || sum != hex.EncodeToString(wantSum[:]) {
				t.Errorf("Put() = %d, %s; want %d, %x", size, sum, len(tt.content), wantSum)
			}
			if got := readAll(t, d, id1); got != tt.content {
				t.Errorf("Open() read %d bytes; want the %d put", len(got), len(tt.content))
			}
			if got := entries(t, root); len(got) != 1 || got[0] != id1 {
				t.Errorf("root holds %v; want only %s", got, id1)
			}
			if fi, _ := os.Stat(filepath.Join(root, id1)); fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode = %v; want -rw-------", fi.Mode())
			}

			if err := d.Remove(id1); err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if _, err := d.Open(id1); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Open() after Remove = %v; want os.ErrNotExist", err)
			}
			if err := d.Remove(id1); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Remove() twice = %v; want os.ErrNotExist", err)
			}
		})
	}
}

func TestDirPutReplaces(t *testing.T) {
	d, root := mustOpenDir(t)
	if _, _, err := d.Put(id1, strings.NewReader("first")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Put(id1, strings.NewReader("second")); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, d, id1); got != "second" {
		t.Errorf("Open() = %q; want %q", got, "second")
	}
	if got := entries(t, root); len(got) != 1 {
		t.Errorf("root holds %v; want one file", got)
	}
}

func TestDirIDCaseIsOneFile(t *testing.T) {
	d, _ := mustOpenDir(t)
	if _, _, err := d.Put(strings.ToUpper(id1), strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, d, id1); got != "x" {
		t.Errorf("Open(lower case) after Put(upper case) = %q; want %q", got, "x")
	}
}

func TestDirRejectsBadIDs(t *testing.T) {
	for _, id := range []string{
		"",
		"../x",
		"a/b",
		".",
		"..",
		"/etc/passwd",
		"../" + id1[3:],
		id1[:35] + "/",
		id1 + "/..",
		"0b5e7c1e-54a8-4f3f-9d43-6f1e2b3c4d5g", // not hex
		"0b5e7c1e54a84f3f9d436f1e2b3c4d5e",     // no dashes
		"{0b5e7c1e-54a8-4f3f-9d43-6f1e2b3c4d5e}",
		"0b5e7c1e-54a8-4f3f-9d43-6f1e2b3c4d5",
		"0b5e7c1e_54a8-4f3f-9d43-6f1e2b3c4d5e",
	} {
		t.Run(id, func(t *testing.T) {
			d, root := mustOpenDir(t)
			if _, _, err := d.Put(id, strings.NewReader("x")); !errors.Is(err, ErrInvalidID) {
				t.Errorf("Put(%q) = %v; want ErrInvalidID", id, err)
			}
			if f, err := d.Open(id); !errors.Is(err, ErrInvalidID) {
				if f != nil {
					f.Close()
				}
				t.Errorf("Open(%q) = %v; want ErrInvalidID", id, err)
			}
			if err := d.Remove(id); !errors.Is(err, ErrInvalidID) {
				t.Errorf("Remove(%q) = %v; want ErrInvalidID", id, err)
			}
			if got := entries(t, root); len(got) != 0 {
				t.Errorf("root holds %v after rejected ids; want nothing", got)
			}
			if got := entries(t, filepath.Dir(root)); len(got) != 1 {
				t.Errorf("root's parent holds %v; want only the root", got)
			}
		})
	}
}

// failingReader yields n bytes and then fails, as a dropped upload does.
type failingReader struct{ n int }

var errDropped = errors.New("connection dropped")

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errDropped
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

func TestDirPutFailingReaderLeavesNothing(t *testing.T) {
	tests := []struct {
		name     string
		existing string // put before the failing Put; "" for none
	}{
		{"new id", ""},
		{"existing file kept", "earlier content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, root := mustOpenDir(t)
			if tt.existing != "" {
				if _, _, err := d.Put(id1, strings.NewReader(tt.existing)); err != nil {
					t.Fatal(err)
				}
			}
			size, sum, err := d.Put(id1, &failingReader{n: 100_000})
			if !errors.Is(err, errDropped) {
				t.Fatalf("Put() error = %v; want the reader's error", err)
			}
			if size != 0 || sum != "" {
				t.Errorf("Put() = %d, %q on error; want 0, \"\"", size, sum)
			}
			got := entries(t, root)
			if tt.existing == "" {
				if len(got) != 0 {
					t.Errorf("root holds %v; want nothing", got)
				}
				if _, err := d.Open(id1); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Open() = %v; want os.ErrNotExist", err)
				}
				return
			}
			if len(got) != 1 {
				t.Errorf("root holds %v; want only the earlier file", got)
			}
			if content := readAll(t, d, id1); content != tt.existing {
				t.Errorf("Open() = %q; want the earlier %q", content, tt.existing)
			}
		})
	}
}

func TestDirPutIntoRemovedRoot(t *testing.T) {
	d, root := mustOpenDir(t)
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Put(id1, bytes.NewReader([]byte("x"))); err == nil {
		t.Error("Put() into a removed root = nil error")
	}
}
