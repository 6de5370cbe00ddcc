package server

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// clientAddress is how the gateway tells who a request comes from: the address the login
// limits count, the request log and the agent-link log show (DESIGN section 8). By default
// it is the TCP peer, and X-Forwarded-For is ignored: anyone can write that header, and
// believing it would let a guesser pick a fresh address for every wrong password. Behind a
// proxy (--trusted-proxy), every client has the proxy's address, so 10 wrong logins a minute
// from anyone would block every password login: there the header is believed, but only when
// the peer is one of the proxies, and only as far as the proxies wrote it. The address taken
// is the right-most one in the chain that is not itself a trusted proxy: entries to its left
// were written by the client or by proxies nobody vouches for.
func clientAddress(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	// echo trusts loopback, link-local and private addresses unless told not to: only the
	// prefixes the operator named are proxies.
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		p = p.Masked()
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
