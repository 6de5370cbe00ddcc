// Package blob keeps resource files on disk and signs the short-lived URLs that let a browser
// or curl download one without a token.
package blob

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// DefaultTTL is how long a signed URL stays valid unless the caller says otherwise.
const DefaultTTL = 5 * time.Minute

// SecretSize is the length in bytes of a signing secret.
const SecretSize = 32

var (
	// ErrExpired is returned by Verify for a genuine URL whose expiry has passed.
	ErrExpired = errors.New("blob: signed URL expired")
	// ErrBadSignature is returned by Verify when exp or sig is missing, malformed or wrong.
	ErrBadSignature = errors.New("blob: bad URL signature")
)

// sigEncoding is strict so that one signature has exactly one spelling.
var sigEncoding = base64.RawURLEncoding.Strict()

// Signer signs and verifies download URLs: HMAC-SHA256 over method, path and expiry with a
// server secret. A signed URL is reusable until it expires. It is safe for concurrent use.
type Signer struct {
	secret []byte
	now    func() time.Time
}

// NewSigner returns a Signer with secret (at least SecretSize bytes; shorter panics, as a
// programming error) and clock now (time.Now when nil).
func NewSigner(secret []byte, now func() time.Time) *Signer {
	if len(secret) < SecretSize {
		panic(fmt.Sprintf("blob: signing secret of %d bytes, want at least %d", len(secret), SecretSize))
	}
	if now == nil {
		now = time.Now
	}
	return &Signer{secret: append([]byte(nil), secret...), now: now}
}

// LoadOrCreateSigner reads the signing secret from path, or creates it when the file does not
// exist. The file holds the 32-byte secret as 64 hex digits, optionally followed by one newline,
// so an operator can inspect or rotate it with a text editor. A new file is made with
// crypto/rand, mode 0600, written to a temporary file and renamed into place, so a crash never
// leaves a half-written secret. A file of any other size or format is an error: replacing it
// would silently invalidate every URL already handed out, and it may be a misconfigured path.
func LoadOrCreateSigner(path string) (*Signer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		secret := make([]byte, SecretSize)
		rand.Read(secret) // never fails (crypto/rand panics rather than return weak bytes)
		if err := writeSecret(path, secret); err != nil {
			return nil, err
		}
		return NewSigner(secret, nil), nil
	}
	if err != nil {
		return nil, fmt.Errorf("blob: read signing secret: %w", err)
	}
	secret, err := parseSecret(b)
	if err != nil {
		return nil, fmt.Errorf("blob: signing secret %s: %w", path, err)
	}
	return NewSigner(secret, nil), nil
}

// NewSecretHex makes a fresh signing secret, as the 64 hex digits a secret file holds.
func NewSecretHex() string {
	secret := make([]byte, SecretSize)
	rand.Read(secret) // never fails (crypto/rand panics rather than return weak bytes)
	return hex.EncodeToString(secret)
}

// SignerFromHex is a Signer over a secret written as 64 hex digits (a shared store's).
func SignerFromHex(s string) (*Signer, error) {
	secret, err := parseSecret([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("blob: signing secret: %w", err)
	}
	return NewSigner(secret, nil), nil
}

func parseSecret(b []byte) ([]byte, error) {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if len(b) != 2*SecretSize {
		return nil, fmt.Errorf("want %d hex digits and an optional newline, got %d bytes", 2*SecretSize, len(b))
	}
	secret := make([]byte, SecretSize)
	if _, err := hex.Decode(secret, b); err != nil {
		return nil, fmt.Errorf("not hex: %w", err)
	}
	return secret, nil
}

func writeSecret(path string, secret []byte) error {
	return writeAtomic(path, func(f *os.File) error {
		_, err := f.WriteString(hex.EncodeToString(secret) + "\n")
		return err
	})
}

// writeAtomic writes a file beside path through write, fsyncs it and renames it to path, so
// path holds either nothing or the whole content. The file is mode 0600 (os.CreateTemp's).
// On error the temporary file is removed.
func writeAtomic(path string, write func(*os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("blob: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("blob: sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("blob: close %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: once the rename is done the new
// file is in place and visible, and undoing it because the directory could not be synced
// (some filesystems and systems do not support that) would be worse than a weaker guarantee.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// Sign returns the query to append to path, "exp=<unix seconds>&sig=<base64url, no padding>",
// valid for ttl (DefaultTTL when ttl <= 0). The expiry is rounded down to the second. path is
// the URL path as the server will see it in r.URL.Path. Signing HEAD is signing GET.
func (s *Signer) Sign(method, path string, ttl time.Duration) url.Values {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	exp := strconv.FormatInt(s.now().Add(ttl).Unix(), 10)
	return url.Values{
		"exp": {exp},
		"sig": {sigEncoding.EncodeToString(s.mac(method, path, exp))},
	}
}

// Verify checks the exp and sig of query for method and path. It returns ErrBadSignature when
// either is missing, repeated, malformed or does not match, and ErrExpired for a genuine
// signature from the second exp on: a URL is valid while now < exp, so at exactly exp it has
// expired. The signature is checked first, so ErrExpired says nothing about forged URLs.
// Verify treats HEAD like GET, so a URL signed for GET also answers curl -I.
func (s *Signer) Verify(method, path string, query url.Values) error {
	exps, sigs := query["exp"], query["sig"]
	if len(exps) != 1 || len(sigs) != 1 {
		return ErrBadSignature
	}
	exp, err := strconv.ParseInt(exps[0], 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	// The MAC covers exp as written, so another spelling of the same second ("+5", "05") fails.
	sig, err := sigEncoding.DecodeString(sigs[0])
	if err != nil || !hmac.Equal(sig, s.mac(method, path, exps[0])) {
		return ErrBadSignature
	}
	if !s.now().Before(time.Unix(exp, 0)) {
		return ErrExpired
	}
	return nil
}

// mac is the HMAC of method, path and exp. Each part is length-prefixed, so no choice of parts
// produces the input of another (a newline in a path cannot shift bytes into exp), and the
// input names its purpose and version so the secret's MACs mean nothing elsewhere.
func (s *Signer) mac(method, path, exp string) []byte {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	m := hmac.New(sha256.New, s.secret)
	fmt.Fprintf(m, "fleetgate-blob-url-v1\n%d:%s\n%d:%s\n%d:%s", len(method), method, len(path), path, len(exp), exp)
	return m.Sum(nil)
}
