package server

import (
	"net/http"
	"net/netip"
	"testing"
)

// TestClientAddress: X-Forwarded-For names the client only when the TCP peer is a proxy the
// operator named; the client is the right-most address that is not itself such a proxy.
// Loopback and private peers are not proxies unless named (echo trusts them by default).
func TestClientAddress(t *testing.T) {
	prefixes := func(ss ...string) []netip.Prefix {
		var out []netip.Prefix
		for _, s := range ss {
			out = append(out, netip.MustParsePrefix(s))
		}
		return out
	}
	cases := []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		xff     []string
		want    string
	}{
		{"no proxy trusted: a forged header is ignored", nil, "127.0.0.1:5000", []string{"203.0.113.9"}, "127.0.0.1"},
		{"the peer is not one of the proxies: ignored", prefixes("10.0.0.0/8"), "127.0.0.1:5000", []string{"203.0.113.9"}, "127.0.0.1"},
		{"a private peer is no proxy unless named", prefixes("10.0.0.0/8"), "192.168.1.5:5000", []string{"203.0.113.9"}, "192.168.1.5"},
		{"the proxy names the client", prefixes("127.0.0.1/32"), "127.0.0.1:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"what the client wrote before the proxy is not believed", prefixes("127.0.0.1/32"), "127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.9"}, "203.0.113.9"},
		{"a forged header line before the proxy's", prefixes("127.0.0.1/32"), "127.0.0.1:5000", []string{"198.51.100.1", "203.0.113.9"}, "203.0.113.9"},
		{"two proxies in a row", prefixes("127.0.0.1/32", "10.0.0.0/8"), "127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.9, 10.1.2.3"}, "203.0.113.9"},
		{"a proxy without the header", prefixes("127.0.0.1/32"), "127.0.0.1:5000", nil, "127.0.0.1"},
		{"an unreadable entry: the peer", prefixes("127.0.0.1/32"), "127.0.0.1:5000", []string{"203.0.113.9, not-an-address"}, "127.0.0.1"},
		{"IPv6", prefixes("::1/128"), "[::1]:5000", []string{"2001:db8::5"}, "2001:db8::5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := http.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			r.Header["X-Forwarded-For"] = c.xff
			if got := clientAddress(c.trusted)(r); got != c.want {
				t.Errorf("client address %q, want %q", got, c.want)
			}
		})
	}
}
