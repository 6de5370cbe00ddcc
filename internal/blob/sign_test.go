package blob

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// clock is a manual clock; tests move it, the signer reads it.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

var (
	testSecret  = bytes.Repeat([]byte{0x42}, SecretSize)
	otherSecret = bytes.Repeat([]byte{0x24}, SecretSize)
	t0          = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
)

const filePath = "/files/0b5e7c1e-54a8-4f3f-9d43-6f1e2b3c4d5e"

func TestSignFormat(t *testing.T) {
	s := NewSigner(testSecret, (&clock{t0}).Now)
	q := s.Sign("GET", filePath, time.Minute)
	enc := q.Encode()
	if !regexp.MustCompile(`^exp=[0-9]+&sig=[A-Za-z0-9_-]{43}$`).MatchString(enc) {
		t.Errorf("Sign().Encode() = %q; want exp=<digits>&sig=<43 base64url chars, no padding>", enc)
	}
	if want := strconv.FormatInt(t0.Add(time.Minute).Unix(), 10); q.Get("exp") != want {
		t.Errorf("exp = %s; want %s", q.Get("exp"), want)
	}
	if want := strconv.FormatInt(t0.Add(DefaultTTL).Unix(), 10); s.Sign("GET", filePath, 0).Get("exp") != want {
		t.Errorf("exp with ttl 0 = %s; want DefaultTTL later, %s", s.Sign("GET", filePath, 0).Get("exp"), want)
	}
	// The expiry rounds down: a URL is never valid for longer than asked.
	half := NewSigner(testSecret, (&clock{t0.Add(999 * time.Millisecond)}).Now)
	if want := strconv.FormatInt(t0.Add(time.Minute).Unix(), 10); half.Sign("GET", filePath, time.Minute).Get("exp") != want {
		t.Errorf("exp at t0+999ms = %s; want %s", half.Sign("GET", filePath, time.Minute).Get("exp"), want)
	}
}

func TestVerify(t *testing.T) {
	s := NewSigner(testSecret, (&clock{t0}).Now)
	signed := s.Sign("GET", filePath, DefaultTTL)
	exp, sig := signed.Get("exp"), signed.Get("sig")
	// flip changes one character of the signature, keeping it valid base64url.
	flip := func(sig string) string {
		b := []byte(sig)
		if b[10] == 'A' {
			b[10] = 'B'
		} else {
			b[10] = 'A'
		}
		return string(b)
	}
	expPlus1, _ := strconv.ParseInt(exp, 10, 64)
	expPlus1++

	tests := []struct {
		name   string
		method string
		path   string
		query  url.Values
		want   error
	}{
		{"as signed", "GET", filePath, signed, nil},
		{"HEAD verifies as GET", "HEAD", filePath, signed, nil},
		{"signed for HEAD, used with GET", "GET", filePath, s.Sign("HEAD", filePath, DefaultTTL), nil},
		{"other method", "POST", filePath, signed, ErrBadSignature},
		{"lower-case method", "get", filePath, signed, ErrBadSignature},
		{"other path", "GET", "/files/1b5e7c1e-54a8-4f3f-9d43-6f1e2b3c4d5e", signed, ErrBadSignature},
		{"path with a suffix", "GET", filePath + "/x", signed, ErrBadSignature},
		{"later exp", "GET", filePath, url.Values{"exp": {strconv.FormatInt(expPlus1, 10)}, "sig": {sig}}, ErrBadSignature},
		{"exp with a leading zero", "GET", filePath, url.Values{"exp": {"0" + exp}, "sig": {sig}}, ErrBadSignature},
		{"exp with a plus sign", "GET", filePath, url.Values{"exp": {"+" + exp}, "sig": {sig}}, ErrBadSignature},
		{"exp not a number", "GET", filePath, url.Values{"exp": {"soon"}, "sig": {sig}}, ErrBadSignature},
		{"tampered sig", "GET", filePath, url.Values{"exp": {exp}, "sig": {flip(sig)}}, ErrBadSignature},
		{"sig truncated", "GET", filePath, url.Values{"exp": {exp}, "sig": {sig[:42]}}, ErrBadSignature},
		{"sig padded", "GET", filePath, url.Values{"exp": {exp}, "sig": {sig + "="}}, ErrBadSignature},
		{"sig garbage base64", "GET", filePath, url.Values{"exp": {exp}, "sig": {"!!not/base64+at all"}}, ErrBadSignature},
		{"sig empty", "GET", filePath, url.Values{"exp": {exp}, "sig": {""}}, ErrBadSignature},
		{"sig missing", "GET", filePath, url.Values{"exp": {exp}}, ErrBadSignature},
		{"exp missing", "GET", filePath, url.Values{"sig": {sig}}, ErrBadSignature},
		{"no query", "GET", filePath, url.Values{}, ErrBadSignature},
		{"nil query", "GET", filePath, nil, ErrBadSignature},
		{"sig repeated", "GET", filePath, url.Values{"exp": {exp}, "sig": {sig, sig}}, ErrBadSignature},
		{"exp repeated", "GET", filePath, url.Values{"exp": {exp, exp}, "sig": {sig}}, ErrBadSignature},
		{"signed with another secret", "GET", filePath,
			NewSigner(otherSecret, (&clock{t0}).Now).Sign("GET", filePath, DefaultTTL), ErrBadSignature},
		{"extra parameters are ignored", "GET", filePath, url.Values{"exp": {exp}, "sig": {sig}, "x": {"1"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Verify(tt.method, tt.path, tt.query); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("Verify() = %v; want %v", err, tt.want)
			}
		})
	}
}

// TestVerifyAmbiguousParts: a newline cannot move bytes between method, path and expiry.
func TestVerifyAmbiguousParts(t *testing.T) {
	s := NewSigner(testSecret, (&clock{t0}).Now)
	q := s.Sign("GET", "/files/a\n1", DefaultTTL)
	if err := s.Verify("GET\n/files/a", "1", q); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Verify() with the newline moved from path to method = %v; want ErrBadSignature", err)
	}
}

func TestVerifyExpiry(t *testing.T) {
	c := &clock{t0}
	s := NewSigner(testSecret, c.Now)
	q := s.Sign("GET", filePath, DefaultTTL)
	forged := url.Values{"exp": q["exp"], "sig": {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}

	tests := []struct {
		name  string
		at    time.Time
		query url.Values
		want  error
	}{
		{"at signing", t0, q, nil},
		{"reused a minute later", t0.Add(time.Minute), q, nil},
		{"last instant before exp", t0.Add(DefaultTTL - time.Nanosecond), q, nil},
		{"exactly at exp: expired", t0.Add(DefaultTTL), q, ErrExpired},
		{"an hour later", t0.Add(time.Hour), q, ErrExpired},
		// The signature is checked before the expiry, so a forgery never learns "expired".
		{"forged and past exp", t0.Add(time.Hour), forged, ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = tt.at
			if err := s.Verify("GET", filePath, tt.query); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("Verify() at %v = %v; want %v", tt.at.Sub(t0), err, tt.want)
			}
		})
	}
}

func TestNewSignerRejectsShortSecret(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSigner with a 16-byte secret did not panic")
		}
	}()
	NewSigner(make([]byte, 16), nil)
}

func TestLoadOrCreateSigner(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signing.key")

	first, err := LoadOrCreateSigner(path)
	if err != nil {
		t.Fatalf("LoadOrCreateSigner() creating: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("secret file not created: %v", err)
	}
	if mode := fi.Mode(); mode != 0o600 {
		t.Errorf("secret file mode = %v; want -rw-------", mode)
	}
	b, _ := os.ReadFile(path)
	if !regexp.MustCompile(`^[0-9a-f]{64}\n$`).Match(b) {
		t.Errorf("secret file = %q; want 64 hex digits and a newline", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries; want only the secret (no temporary file left)", len(entries))
	}

	again, err := LoadOrCreateSigner(path)
	if err != nil {
		t.Fatalf("LoadOrCreateSigner() reloading: %v", err)
	}
	if err := again.Verify("GET", filePath, first.Sign("GET", filePath, DefaultTTL)); err != nil {
		t.Errorf("URL signed before the reload: Verify() = %v; want nil (same secret)", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Error("reloading changed the secret file")
	}

	other, err := LoadOrCreateSigner(filepath.Join(dir, "other.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Verify("GET", filePath, first.Sign("GET", filePath, DefaultTTL)); !errors.Is(err, ErrBadSignature) {
		t.Errorf("another new secret verified the URL: %v; want ErrBadSignature (random secrets)", err)
	}
}

func TestLoadOrCreateSignerAcceptsWithoutNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "signing.key")
	if err := os.WriteFile(path, []byte("42424242424242424242424242424242424242424242424242424242424242AB"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadOrCreateSigner(path)
	if err != nil {
		t.Fatalf("LoadOrCreateSigner() = %v; want upper-case hex without newline accepted", err)
	}
	want := append(bytes.Repeat([]byte{0x42}, SecretSize-1), 0xAB)
	if err := NewSigner(want, nil).Verify("GET", filePath, s.Sign("GET", filePath, DefaultTTL)); err != nil {
		t.Errorf("secret read wrongly: %v", err)
	}
}

func TestLoadOrCreateSignerRejectsCorruptFile(t *testing.T) {
	hex64 := string(bytes.Repeat([]byte("ab"), SecretSize))
	tests := []struct {
		name    string
		content []byte
	}{
		{"empty", nil},
		{"just a newline", []byte("\n")},
		{"raw 32 bytes", testSecret},
		{"short hex", []byte(hex64[:62] + "\n")},
		{"long hex", []byte(hex64 + "ab\n")},
		{"not hex", []byte(string(bytes.Repeat([]byte("zz"), SecretSize)) + "\n")},
		{"two newlines", []byte(hex64 + "\n\n")},
		{"leading space", []byte(" " + hex64[1:] + "\n")},
		{"windows newline", []byte(hex64 + "\r\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "signing.key")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			if s, err := LoadOrCreateSigner(path); err == nil {
				t.Errorf("LoadOrCreateSigner() = %v, nil; want an error", s)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, tt.content) {
				t.Errorf("corrupt file was replaced: now %q", b)
			}
		})
	}
}

func TestLoadOrCreateSignerMissingDirectory(t *testing.T) {
	if _, err := LoadOrCreateSigner(filepath.Join(t.TempDir(), "absent", "signing.key")); err == nil {
		t.Error("LoadOrCreateSigner() in a missing directory = nil error")
	}
}
