package gateway_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/internal/gateway"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func TestValidAPITokenFormat(t *testing.T) {
	const body = "0123456789abcdefghijABCDEFGHIJkl" // 32 base62 characters
	tests := []struct {
		name  string
		token string
		want  bool
	}{
		{"valid", "fgt_" + body, true},
		{"empty", "", false},
		{"prefix only", "fgt_", false},
		{"31 characters", "fgt_" + body[:31], false},
		{"33 characters", "fgt_" + body + "x", false},
		{"agent key prefix", "fga_" + body, false},
		{"bearer prefix", "fgb_" + body, false},
		{"upper-case prefix", "FGT_" + body, false},
		{"no prefix", body, false},
		{"underscore in body", "fgt_" + body[:31] + "_", false},
		{"dash in body", "fgt_" + body[:31] + "-", false},
		{"non-ASCII letter", "fgt_" + body[:31] + "é", false},
		{"trailing newline", "fgt_" + body + "\n", false},
		{"leading space", " fgt_" + body, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gateway.ValidAPITokenFormat(tt.token); got != tt.want {
				t.Errorf("ValidAPITokenFormat(%q) = %v, want %v", tt.token, got, tt.want)
			}
		})
	}
}

func TestNewAPIToken(t *testing.T) {
	const n = 1000
	seen := make(map[string]bool, n)
	counts := map[rune]int{}
	for range n {
		tok := gateway.NewAPIToken()
		if !strings.HasPrefix(tok, gateway.APITokenPrefix) || len(tok) != len("fgt_")+32 {
			t.Fatalf("NewAPIToken() = %q, want fgt_ + 32 characters", tok)
		}
		body := strings.TrimPrefix(tok, gateway.APITokenPrefix)
		for _, c := range body {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("NewAPIToken() = %q has %q, not base62", tok, c)
			}
			counts[c]++
		}
		if !gateway.ValidAPITokenFormat(tok) {
			t.Fatalf("NewAPIToken() = %q is not ValidAPITokenFormat", tok)
		}
		if seen[tok] {
			t.Fatalf("NewAPIToken() repeated %q", tok)
		}
		seen[tok] = true
	}
	// 32000 draws over 62 symbols: about 516 each. A biased or truncated alphabet shows
	// up as a missing or a far too rare symbol.
	for _, c := range base62 {
		if counts[c] < 300 {
			t.Errorf("character %q drawn %d times in %d tokens; want about 516", c, counts[c], n)
		}
	}
}

func TestNewSecret(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		n      int
	}{
		{"agent key", gateway.AgentKeyPrefix, 40},
		{"no prefix", "", 10},
		{"longer than one random buffer", "x_", 200},
		{"empty", "p_", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := gateway.NewSecret(tt.prefix, tt.n)
			if !strings.HasPrefix(s, tt.prefix) || len(s) != len(tt.prefix)+tt.n {
				t.Fatalf("NewSecret(%q, %d) = %q", tt.prefix, tt.n, s)
			}
			if strings.Trim(s[len(tt.prefix):], base62) != "" {
				t.Errorf("NewSecret(%q, %d) = %q is not base62 after the prefix", tt.prefix, tt.n, s)
			}
		})
	}
}

func TestHashSecret(t *testing.T) {
	h := gateway.HashSecret("fgt_x")
	if len(h) != 64 {
		t.Fatalf("HashSecret = %q, want 64 hex digits", h)
	}
	if _, err := hex.DecodeString(h); err != nil {
		t.Errorf("HashSecret = %q is not hex: %v", h, err)
	}
	if h != gateway.HashSecret("fgt_x") {
		t.Error("HashSecret is not deterministic")
	}
	if h == gateway.HashSecret("fgt_y") {
		t.Error("two secrets hash alike")
	}
	// SHA-256 of the empty string, so the stored form stays what it was.
	if got := gateway.HashSecret(""); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("HashSecret(\"\") = %s, not SHA-256", got)
	}
}

func TestParseAuthorization(t *testing.T) {
	tests := []struct {
		name   string
		header string
		token  string
		ok     bool
	}{
		{"bearer", "Bearer abc", "abc", true},
		{"lower case", "bearer abc", "abc", true},
		{"upper case", "BEARER abc", "abc", true},
		{"mixed case", "bEaReR abc", "abc", true},
		{"spaces around", "  Bearer abc  ", "abc", true},
		{"several spaces between", "Bearer    abc", "abc", true},
		{"empty", "", "", false},
		{"only spaces", "   ", "", false},
		{"scheme only", "Bearer", "", false},
		{"scheme and space", "Bearer ", "", false},
		{"scheme and spaces", "Bearer    ", "", false},
		{"basic", "Basic dXNlcjpwYXNz", "", false},
		{"token scheme", "Token abc", "", false},
		{"bearer glued", "Bearerabc", "", false},
		{"no scheme", "abc", "", false},
		{"token with a space", "Bearer abc def", "", false},
		{"token with a tab", "Bearer abc\tdef", "", false},
		{"tab after scheme", "Bearer\tabc", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token, ok := gateway.ParseAuthorization(tt.header)
			if token != tt.token || ok != tt.ok {
				t.Errorf("ParseAuthorization(%q) = %q, %v; want %q, %v", tt.header, token, ok, tt.token, tt.ok)
			}
		})
	}
}
