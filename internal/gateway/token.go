package gateway

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Token prefixes say what a secret is when it turns up in a config file or a leak scanner.
const (
	APITokenPrefix = "fgt_"
	AgentKeyPrefix = "fga_"
)

var apiTokenPattern = regexp.MustCompile(`^fgt_[0-9A-Za-z]{32}$`)

// ValidAPITokenFormat reports whether s is shaped like an API token: fgt_ + 32 base62 chars.
func ValidAPITokenFormat(s string) bool { return apiTokenPattern.MatchString(s) }

// NewSecret returns prefix + n random base62 characters, drawn without modulo bias.
func NewSecret(prefix string, n int) string {
	var b strings.Builder
	b.Grow(len(prefix) + n)
	b.WriteString(prefix)
	buf := make([]byte, 64)
	for b.Len() < len(prefix)+n {
		if _, err := rand.Read(buf); err != nil {
			panic("crypto/rand failed: " + err.Error()) // never happens on Linux
		}
		for _, c := range buf {
			// 248 = 4*62: rejecting the top values keeps every character equally likely.
			if c < 248 && b.Len() < len(prefix)+n {
				b.WriteByte(base62[c%62])
			}
		}
	}
	return b.String()
}

// NewAPIToken returns a fresh API token.
func NewAPIToken() string { return NewSecret(APITokenPrefix, 32) }

// HashSecret is how every secret (token, key) is stored: hex SHA-256. The secrets are 190
// random bits, so a slow password hash buys nothing here.
func HashSecret(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ParseAuthorization extracts the token from an "authorization: bearer <token>" value; the
// scheme is matched in any case. ok is false for any other shape.
func ParseAuthorization(header string) (token string, ok bool) {
	scheme, rest, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.ContainsAny(rest, " \t") {
		return "", false
	}
	return rest, true
}
