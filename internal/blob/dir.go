package blob

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrInvalidID is returned for a resource id that is not a UUID.
var ErrInvalidID = errors.New("blob: resource id is not a UUID")

// Dir stores resource files under root, one file per resource id (a UUID), written atomically.
// It is safe for concurrent use; two Puts of one id leave one of the two contents, whole.
type Dir struct {
	root string

	mu      sync.Mutex
	uploads map[string]struct{} // ids with an open Upload
}

// OpenDir opens the store at root, creating it with mode 0700 when missing.
func OpenDir(root string) (*Dir, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return &Dir{root: root}, nil
}

// Put copies r into the file of id, replacing any earlier one, and returns its size and hex
// SHA-256. The data goes to a temporary file that is fsynced and then renamed, so readers see
// the old file or the new one, never a part. On any error nothing is left behind and an
// earlier file of id is untouched.
func (d *Dir) Put(id string, r io.Reader) (size int64, sha256hex string, err error) {
	path, err := d.path(id)
	if err != nil {
		return 0, "", err
	}
	h := sha256.New()
	var n int64
	err = writeAtomic(path, func(f *os.File) (err error) {
		n, err = io.Copy(io.MultiWriter(f, h), r)
		return err
	})
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Open opens the file of id for reading. An absent file gives an error for which
// errors.Is(err, os.ErrNotExist) holds; an id that is not a UUID gives ErrInvalidID.
func (d *Dir) Open(id string) (*os.File, error) {
	path, err := d.path(id)
	if err != nil {
		return nil, err
	}
	return os.Open(path)
}

// Remove deletes the file of id. Like Open, an absent file is an os.ErrNotExist error, which a
// caller cleaning up may ignore.
func (d *Dir) Remove(id string) error {
	path, err := d.path(id)
	if err != nil {
		return err
	}
	return os.Remove(path)
}

// path is the file of id. Only a UUID gets a name, so no id can reach outside root; it is
// lower-cased so that one resource has one file whatever the case of its id.
func (d *Dir) path(id string) (string, error) {
	if !isUUID(id) {
		return "", fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	return filepath.Join(d.root, strings.ToLower(id)), nil
}

// isUUID reports whether s is a UUID in its canonical 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
