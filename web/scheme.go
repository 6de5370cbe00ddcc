package web

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// The local gateway answers HTTP and HTTPS on its one port (server/localtls.go), so one
// panel, one process and even one browser see both schemes. What came over TLS stays on TLS:
// its cookies are Secure and carry the __Host- prefix (a plain-HTTP answer can neither set
// nor overwrite them), a session made over HTTPS opens nothing over plain HTTP (session.go),
// and a browser that reaches a page over plain HTTP by a name other than this machine's own
// is sent to HTTPS (toHTTPS). http://localhost stays as it is: browsers count it as a secure
// context, and its traffic never crosses the network.

// overTLS reports whether the browser's request travelled encrypted: it came over TLS, or
// TLS ends at a proxy in front of the gateway (an https --public-url).
func (p *Panel) overTLS(r *http.Request) bool { return p.tlsInFront || r.TLS != nil }

// cookieName is a cookie's name for a request by this scheme. Over TLS it is the __Host-
// one: browsers keep it only when Secure, for this host and path /, and never let a plain-
// HTTP answer set it. The two names also let one browser hold a session for each scheme of
// the same host (https://localhost:19992 and http://localhost:19992).
func cookieName(name string, overTLS bool) string {
	if overTLS {
		return "__Host-" + name
	}
	return name
}

// toHTTPS answers a GET (or HEAD) of a panel page asked over plain HTTP by a LAN address or
// name with 308 to the same page over HTTPS, on the same host and port. "By a LAN address"
// is judged by the Host header, the name in the browser's address bar: it is what the
// browser keys its cookies and its secure-context decision on, and it stays true where the
// connection's local address does not (a port published by Docker arrives on a bridge
// address even for http://localhost; a proxy on the robot forwards a LAN browser's request
// from loopback). Only pages move: the API, the sockets, /files, /healthz and /openapi.json
// stay on both schemes for scripts and robots, and a form's POST is not repeated (its body
// has crossed in clear already; a page that posts it is itself redirected first).
func (p *Panel) toHTTPS(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !p.httpsOnSamePort || p.overTLS(req) || req.Method != http.MethodGet {
			return next(c)
		}
		target, ok := httpsURL(req.Host, req.URL)
		if !ok {
			return next(c)
		}
		return c.Redirect(http.StatusPermanentRedirect, target)
	}
}

// httpsURL is u on https://host, at the port the browser used (from host, or HTTP's default
// 80: the port answers both schemes); false when host is this machine's own (localhost,
// *.localhost, a loopback address) or not a browser's.
func httpsURL(host string, u *url.URL) (string, bool) {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, "80"
	}
	name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"), ".")
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || name == "" || loopbackName(name) {
		return "", false
	}
	target := url.URL{Scheme: "https", Host: net.JoinHostPort(name, port), Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	return target.String(), true
}

// loopbackName: browsers count this name as this machine itself, a secure context over
// plain HTTP (localhost, *.localhost, 127.0.0.0/8, ::1).
func loopbackName(name string) bool {
	name = strings.ToLower(name)
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	addr, err := netip.ParseAddr(name)
	return err == nil && addr.Unmap().IsLoopback()
}
