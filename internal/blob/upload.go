package blob

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

var (
	// ErrOutOfOrder is returned by Upload.Write for data that does not start where the data
	// received so far ends (a repeated or skipped chunk).
	ErrOutOfOrder = errors.New("blob: upload data out of order")
	// ErrCorrupt is returned by Upload.Commit when the data received does not have the size
	// and SHA-256 announced; the partial file is gone and the upload starts again at 0.
	ErrCorrupt = errors.New("blob: upload does not match its size and SHA-256")
	// ErrUploadBusy is returned by StartUpload while another upload of the resource is open.
	ErrUploadBusy = errors.New("blob: an upload of this resource is already in progress")
)

// partialDir holds the files being uploaded. Its name is no UUID, so it never collides with a
// resource file, and Open never reads from it.
const partialDir = ".partial"

// Upload receives one resource file in order, possibly over several connections: Close keeps
// what arrived, and a later StartUpload of the same version carries on from Offset. Nothing is
// visible to Open until Commit has checked the whole file. It is safe for concurrent use,
// though the data must still arrive in order.
type Upload struct {
	d     *Dir
	id    string // lower case: the key of d.uploads
	final string // the file Open reads
	data  string // the partial file
	vers  string // the version of the partial file

	mu  sync.Mutex
	f   *os.File  // nil once committed or closed
	sum hash.Hash // of the bytes [0, off) of the partial file
	off int64
}

// StartUpload opens the partial file of resource id for version (opaque, e.g. size and time
// of the source file). A partial of another version is discarded and the upload starts at 0.
// Only one upload of an id may be open at a time in this Dir: another StartUpload gets
// ErrUploadBusy until it is committed or closed. On resume the partial file is read once to
// rebuild its hash.
func (d *Dir) StartUpload(id, version string) (*Upload, error) {
	return d.startUpload(id, version, false)
}

// StartGrowth is StartUpload for a file that only grows (a log): a new version begins with the
// bytes of the committed file of id, when there is one, instead of with nothing, so that only
// the appended bytes travel. The sender checks that prefix against Sum before it sends the rest;
// a version that did not grow from it fails Commit (ErrCorrupt), and the caller then starts
// the next upload with StartUpload (Discard drops the seeded partial at once).
func (d *Dir) StartGrowth(id, version string) (*Upload, error) {
	return d.startUpload(id, version, true)
}

func (d *Dir) startUpload(id, version string, grow bool) (*Upload, error) {
	final, err := d.path(id)
	if err != nil {
		return nil, err
	}
	if version == "" {
		// An empty version would match any partial file: resuming would be a guess.
		return nil, errors.New("blob: upload version is required")
	}
	id = strings.ToLower(id)
	if !d.lockUpload(id) {
		return nil, fmt.Errorf("%w: %s", ErrUploadBusy, id)
	}
	dir := filepath.Join(d.root, partialDir)
	u := &Upload{
		d:     d,
		id:    id,
		final: final,
		data:  filepath.Join(dir, id),
		vers:  filepath.Join(dir, id+".version"),
		sum:   sha256.New(),
	}
	if err := u.open(dir, version, grow); err != nil {
		d.unlockUpload(id)
		return nil, err
	}
	return u, nil
}

func (u *Upload) open(dir, version string, grow bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	old, err := os.ReadFile(u.vers)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("blob: %w", err)
	}
	if err != nil || string(old) != version {
		// The data goes before the new version is written: a crash in between leaves an
		// empty or missing partial, never old data under the new version.
		if err := os.Remove(u.data); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("blob: %w", err)
		}
		if grow {
			if err := u.seed(); err != nil {
				return err
			}
		}
		if err := writeAtomic(u.vers, func(f *os.File) error {
			_, err := f.WriteString(version)
			return err
		}); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(u.data, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	n, err := io.Copy(u.sum, f)
	if err != nil {
		f.Close()
		return fmt.Errorf("blob: read partial %s: %w", u.id, err)
	}
	u.f, u.off = f, n
	return nil
}

// seed copies the committed file, if any, into the partial file (a growth's prefix). A crash
// during the copy leaves a partial without its version: the next upload starts at 0.
func (u *Upload) seed() error {
	src, err := os.Open(u.final)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer src.Close()
	return writeAtomic(u.data, func(f *os.File) error {
		_, err := io.Copy(f, src)
		return err
	})
}

// Sum is the SHA-256 (hex) of the bytes received so far, [0, Offset()).
func (u *Upload) Sum() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return hex.EncodeToString(u.sum.Sum(nil))
}

// Discard ends the upload and drops what it holds: the next upload of the id starts at 0.
func (u *Upload) Discard() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.f == nil {
		return
	}
	defer u.finish()
	u.f.Close()
	os.Remove(u.data)
	os.Remove(u.vers)
}

// Offset is the number of bytes received so far: where the next Write starts.
func (u *Upload) Offset() int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.off
}

// Write appends p, which must start at offset == Offset(); ErrOutOfOrder otherwise, and
// nothing is written. On a failed write, Offset counts the bytes that did reach the file, so
// the sender can carry on from there.
func (u *Upload) Write(offset int64, p []byte) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.f == nil {
		return fmt.Errorf("blob: upload of %s: %w", u.id, os.ErrClosed)
	}
	if offset != u.off {
		return fmt.Errorf("%w: data at %d, expected at %d", ErrOutOfOrder, offset, u.off)
	}
	n, err := u.f.WriteAt(p, u.off)
	u.sum.Write(p[:n])
	u.off += int64(n)
	if err != nil {
		return fmt.Errorf("blob: write partial %s: %w", u.id, err)
	}
	return nil
}

// Commit checks that the data received is the whole file, size bytes with SHA-256 sha256hex
// (hex in either case), and moves it into the place Open reads, replacing an earlier file of
// the resource: fsync, then rename, so a reader sees the old file or the new one, whole. On a
// mismatch Commit returns ErrCorrupt and removes the partial file, leaving an earlier file
// untouched. The upload is over either way.
func (u *Upload) Commit(size int64, sha256hex string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.f == nil {
		return fmt.Errorf("blob: upload of %s: %w", u.id, os.ErrClosed)
	}
	defer u.finish()
	got := hex.EncodeToString(u.sum.Sum(nil))
	if u.off != size || !strings.EqualFold(got, sha256hex) {
		u.f.Close()
		// The version goes last: without it, leftover data is never resumed.
		os.Remove(u.data)
		os.Remove(u.vers)
		return fmt.Errorf("%w: received %d bytes with SHA-256 %s, announced %d bytes with %s", ErrCorrupt, u.off, got, size, sha256hex)
	}
	if err := u.f.Sync(); err != nil {
		u.f.Close()
		return fmt.Errorf("blob: sync partial %s: %w", u.id, err)
	}
	if err := u.f.Close(); err != nil {
		return fmt.Errorf("blob: close partial %s: %w", u.id, err)
	}
	if err := os.Rename(u.data, u.final); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	syncDir(u.d.root)
	// A crash before this leaves a version without data: the next upload starts at 0.
	os.Remove(u.vers)
	return nil
}

// Close stops the upload without committing. What arrived stays, synced, for a later
// StartUpload of the same version. Close after Commit or Close does nothing.
func (u *Upload) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.f == nil {
		return nil
	}
	defer u.finish()
	err := u.f.Sync()
	if cerr := u.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("blob: close partial %s: %w", u.id, err)
	}
	return nil
}

// finish ends the upload and lets the next upload of the id start. u.mu is held and u.f was
// not nil, so it runs once.
func (u *Upload) finish() {
	u.f = nil
	u.d.unlockUpload(u.id)
}

// Has reports whether a committed file of id is there to be opened.
func (d *Dir) Has(id string) bool {
	path, err := d.path(id)
	if err != nil {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func (d *Dir) lockUpload(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, busy := d.uploads[id]; busy {
		return false
	}
	if d.uploads == nil {
		d.uploads = make(map[string]struct{})
	}
	d.uploads[id] = struct{}{}
	return true
}

func (d *Dir) unlockUpload(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.uploads, id)
}

// PruneLeftovers removes what no one will finish: the partial uploads not written to since
// cutoff and not open now (of a resource its agent deleted, or of a version it replaced, which
// StartUpload discards only when the same id comes again), and the temporary files of writes
// cut off by a crash. It returns how many files it removed; committed files are never touched.
func (d *Dir) PruneLeftovers(cutoff time.Time) (int, error) {
	removed := 0
	// Temporary files of Put, in the root, are named ".<id>.tmp-*".
	n, err := removeOld(d.root, cutoff, func(name string) bool { return strings.Contains(name, ".tmp-") })
	removed += n
	if err != nil {
		return removed, err
	}
	dir := filepath.Join(d.root, partialDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return removed, nil
	}
	if err != nil {
		return removed, fmt.Errorf("blob: %w", err)
	}
	// A partial upload is its data, its version and their temporary files: all named after
	// the id, all go together, and only when none of them is newer than cutoff.
	files := map[string][]string{}
	newest := map[string]time.Time{}
	for _, e := range entries {
		id := leftoverID(e.Name())
		info, err := e.Info()
		if id == "" || err != nil || !info.Mode().IsRegular() {
			continue
		}
		files[id] = append(files[id], filepath.Join(dir, e.Name()))
		if info.ModTime().After(newest[id]) {
			newest[id] = info.ModTime()
		}
	}
	for id, paths := range files {
		if !newest[id].Before(cutoff) || !d.lockUpload(id) {
			continue // recent, or open now
		}
		for _, p := range paths {
			if err := os.Remove(p); err == nil {
				removed++
			} else if !errors.Is(err, os.ErrNotExist) {
				d.unlockUpload(id)
				return removed, fmt.Errorf("blob: %w", err)
			}
		}
		d.unlockUpload(id)
	}
	return removed, nil
}

// removeOld removes the regular files in dir that match and were not modified since cutoff.
func removeOld(dir string, cutoff time.Time, match func(name string) bool) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("blob: %w", err)
	}
	removed := 0
	for _, e := range entries {
		if !match(e.Name()) || leftoverID(e.Name()) == "" {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err == nil {
			removed++
		} else if !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("blob: %w", err)
		}
	}
	return removed, nil
}

// leftoverID is the resource id a file of an upload or a write is named after ("<id>",
// "<id>.version", ".<id>.tmp-…", ".<id>.version.tmp-…"), lower case; "" for any other name.
func leftoverID(name string) string {
	name = strings.TrimPrefix(name, ".")
	if len(name) < 36 || !isUUID(name[:36]) {
		return ""
	}
	return strings.ToLower(name[:36])
}
