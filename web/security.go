package web

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/fleetgate/fleetgate"
	"github.com/labstack/echo/v4"
)

// pageHeaders sets the browser defaults of an HTML page: a CSP whose only scripts are ours
// and carry this request's nonce, no sniffing, no referrer outside the site, no framing
// (kiosk pages may be framed by the one origin --kiosk-frame-ancestors names), and no
// caching (pages show secrets once, and must not come back with the back button after a
// logout).
func (p *Panel) pageHeaders(kiosk bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			nonce := newNonce()
			h := c.Response().Header()
			frame := "'none'"
			if kiosk && p.frameKiosk != "" {
				frame = p.frameKiosk
			} else {
				h.Set("X-Frame-Options", "DENY") // for browsers without frame-ancestors
			}
			host := c.Request().Host
			h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'nonce-"+nonce+"'; "+
				"style-src 'self'; img-src 'self' data: blob:; "+
				// 'self' covers same-origin WebSockets in CSP 3; older browsers need them named.
				"connect-src 'self' ws://"+host+" wss://"+host+"; "+
				"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors "+frame)
			setCommonHeaders(h)
			req := c.Request()
			c.SetRequest(req.WithContext(templ.WithNonce(req.Context(), nonce)))
			return next(c)
		}
	}
}

// apiHeaders are the browser API's: JSON that no browser should render, frame or cache.
func (p *Panel) apiHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		setCommonHeaders(h)
		return next(c)
	}
}

func setCommonHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// crossOrigin refuses unsafe methods (POST, ...) sent by another site's page, by the
// browser's Sec-Fetch-Site or Origin headers (net/http.CrossOriginProtection): the session
// cookie rides along on such requests, so they must never act. A request with neither header
// that carries one of our session cookies falls back on Referer (which our pages send to
// their own origin, Referrer-Policy: same-origin): it must name this host, and a request with
// none of the three cannot be told from a forged one and is refused too. Requests without a
// session cookie are not acting for anybody (a script's POST /login).
func (p *Panel) crossOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if err := p.cop.Check(req); err != nil {
			return fleetgate.Errorf(fleetgate.EForbidden, "cross-origin request refused")
		}
		if !safeMethod(req.Method) && req.Header.Get("Origin") == "" && req.Header.Get("Sec-Fetch-Site") == "" && p.hasSessionCookie(req) {
			ref, err := url.Parse(req.Header.Get("Referer"))
			if err != nil || ref.Host == "" || !strings.EqualFold(ref.Host, req.Host) {
				return fleetgate.Errorf(fleetgate.EForbidden, "cross-origin request refused: a request acting for a session must come from one of its pages (Origin, Sec-Fetch-Site or Referer)")
			}
		}
		return next(c)
	}
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// hasSessionCookie reports whether req carries a user or kiosk session cookie, of either
// scheme.
func (p *Panel) hasSessionCookie(req *http.Request) bool {
	for _, name := range []string{p.users.Cookie.Name, p.kiosks.Cookie.Name} {
		for _, overTLS := range []bool{false, true} {
			if _, err := req.Cookie(cookieName(name, overTLS)); err == nil {
				return true
			}
		}
	}
	return false
}

func newNonce() string {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
