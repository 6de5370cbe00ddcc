package cloud

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/fleetgate/fleetgate/internal/blob"
)

// memoryFiles is a SharedFiles in memory, counting its reads.
type memoryFiles struct {
	mu    sync.Mutex
	files map[string][]byte
	gets  int
}

func (m *memoryFiles) Put(_ context.Context, id string, r io.Reader, size int64, _ string) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if int64(len(data)) != size {
		return errors.New("short")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[id] = data
	return nil
}

func (m *memoryFiles) Get(_ context.Context, id string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gets++
	data, ok := m.files[id]
	if !ok {
		return nil, os.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (m *memoryFiles) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, id)
	return nil
}

// TestSharedArchive: a file one replica's archive published is opened by another replica's
// from the shared files, once (then from its own directory), with ranges; a file in neither is
// not found.
func TestSharedArchive(t *testing.T) {
	shared := &memoryFiles{files: map[string][]byte{}}
	const id = "0b9a3c6e-2f61-4d1e-9d0a-5b7f3c2e1a90"
	content := bytes.Repeat([]byte("recording "), 1000)

	dirA, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := NewArchive(dirA)
	a.Share(shared)
	if _, _, err := dirA.Put(id, bytes.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	if err := a.publish(context.Background(), id, int64(len(content)), ""); err != nil {
		t.Fatal(err)
	}

	dirB, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := NewArchive(dirB)
	b.Share(shared)
	for range 2 {
		f, err := b.Open(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(int64(len(content))-10, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		tail, _ := io.ReadAll(f)
		f.Close()
		if string(tail) != "recording " {
			t.Errorf("the last 10 bytes read on the other replica: %q", tail)
		}
	}
	if shared.gets != 1 {
		t.Errorf("the shared files were read %d times for two opens, want once", shared.gets)
	}
	if _, err := b.Open("7d1e5c3a-0000-4000-8000-000000000000"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file in neither archive: %v, want not exist", err)
	}

	// Retention removes the copy of the replica that deletes it and the shared one: a third
	// replica finds it nowhere.
	if err := a.Remove(id); err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(id); err != nil {
		t.Errorf("removing a removed copy: %v", err)
	}
	dirC, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := NewArchive(dirC)
	c.Share(shared)
	if _, err := c.Open(id); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a removed file on another replica: %v, want not exist", err)
	}
}
