package server_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestForwardedForFromAnUntrustedPeerIsIgnored: a client that writes its own X-Forwarded-For
// (a new address for every guess) is still counted, and logged, at its real address unless
// it is a proxy the operator named; from a named proxy, the header is believed.
func TestForwardedForFromAnUntrustedPeerIsIgnored(t *testing.T) {
	cases := []struct {
		name     string
		trusted  []netip.Prefix
		believed bool
	}{
		{"no proxy trusted (the default)", nil, false},
		{"the proxies are elsewhere", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, false},
		{"the peer is the proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := servertest.MustOpen(t, func(cfg *server.Config) { cfg.TrustedProxies = c.trusted })
			wrong := `{"userToken":"fgt_` + strings.Repeat("x", 32) + `"}`
			var last int
			for i := range 11 {
				h := http.Header{"Content-Type": {"application/json"}, "X-Forwarded-For": {fmt.Sprintf("203.0.113.%d", i+1)}}
				last = s.DoRaw("POST", "/apigateway/v2/auth/login", h, strings.NewReader(wrong)).Status
			}
			logged := strings.Contains(s.Logs(), "remote=203.0.113.11")
			if c.believed {
				if last != http.StatusUnauthorized || !logged {
					t.Errorf("11th wrong login from 11 addresses a trusted proxy named: %d (want 401), logged at the named address: %v", last, logged)
				}
				return
			}
			if last != http.StatusTooManyRequests {
				t.Errorf("11th wrong login from one peer with 11 forged X-Forwarded-For: %d, want 429", last)
			}
			if logged {
				t.Error("the request log shows the forged address")
			}
		})
	}
}
