package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/views"
)

// Post/redirect/get: every form answers with a redirect (303) to a page, so reloading a
// result never repeats its action. What the result page must say (a notice, the mistake and
// the fields to correct, a secret shown once) waits for that page's GET in a flash: kept in
// this process's memory only (a secret never touches the disk nor a URL), named by a random
// id in a short-lived cookie, and taken by the first page that reads it.

const (
	flashCookie = "fleetgate_flash"
	flashTTL    = time.Minute // the redirect is followed at once; a flash not taken is dropped
	maxFlashes  = 10000       // bounded: a client posting forms without following redirects cannot grow it
)

// flash is what a form's result page shows once.
type flash struct {
	Notice string
	Error  string
	Secret *views.Secret
	Form   url.Values // the submitted fields, to correct after a mistake
	at     time.Time
	tls    bool // made over TLS: a plain-HTTP page never shows it (it may hold a secret)
}

type flashes struct {
	mu sync.Mutex
	m  map[string]flash
}

func (f *flashes) put(fl flash, now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	fl.at = now
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]flash{}
	}
	for k, v := range f.m {
		if now.Sub(v.at) > flashTTL || len(f.m) >= maxFlashes {
			delete(f.m, k)
		}
	}
	f.m[id] = fl
	return id
}

func (f *flashes) take(id string, now time.Time) (flash, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.m[id]
	delete(f.m, id)
	if !ok || now.Sub(fl.at) > flashTTL {
		return flash{}, false
	}
	return fl, true
}

// redirectFlash answers a form: 303 to the page at to, which shows fl once.
func (p *Panel) redirectFlash(c echo.Context, to string, fl flash) error {
	overTLS := p.overTLS(c.Request())
	fl.tls = overTLS
	id := p.flashes.put(fl, p.now())
	c.SetCookie(&http.Cookie{Name: cookieName(flashCookie, overTLS), Value: id, Path: "/", MaxAge: int(flashTTL.Seconds()),
		HttpOnly: true, Secure: overTLS, SameSite: http.SameSiteLaxMode})
	return c.Redirect(http.StatusSeeOther, to)
}

// takeFlash is the flash waiting for this page, if any (taken: a reload shows none).
func (p *Panel) takeFlash(c echo.Context) flash {
	overTLS := p.overTLS(c.Request())
	name := cookieName(flashCookie, overTLS)
	ck, err := c.Cookie(name)
	if err != nil || ck.Value == "" {
		return flash{}
	}
	c.SetCookie(&http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: overTLS, SameSite: http.SameSiteLaxMode})
	fl, _ := p.flashes.take(ck.Value, p.now())
	if fl.tls && !overTLS {
		return flash{}
	}
	return fl
}

// formPages answers a GET of a form's URL (a bookmark, a reload after the redirect was
// lost) with the page the form is on, never a 405.
func (p *Panel) formPages(e *echo.Echo, mw []echo.MiddlewareFunc) {
	to := func(path string) echo.HandlerFunc {
		return func(c echo.Context) error {
			target := path
			for _, name := range c.ParamNames() {
				target = replaceParam(target, name, c.Param(name))
			}
			return c.Redirect(http.StatusSeeOther, target)
		}
	}
	for from, page := range map[string]string{
		"/logout":                         "/",
		"/robots/:robotId/streams/upload": "/robots/:robotId/streams",
		"/robots/:robotId/recordings/:recordingId/stop": "/robots/:robotId/recordings",
		"/settings/tokens":                    "/settings",
		"/settings/tokens/:tokenId/revoke":    "/settings",
		"/admin/users":                        "/admin",
		"/admin/users/:userId/:action":        "/admin",
		"/admin/robots/:robotId/:action":      "/admin",
		"/admin/robots/remove-stale":          "/admin",
		"/admin/agents":                       "/admin",
		"/admin/agents/:agentId/revoke":       "/admin",
		"/admin/kiosk-tokens":                 "/admin",
		"/admin/kiosk-tokens/:tokenId/revoke": "/admin",
		"/admin/supervisors":                  "/admin",
		"/admin/supervisors/revoke":           "/admin",
	} {
		e.GET(from, to(page), mw...)
	}
}

func replaceParam(path, name, value string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if seg == ":"+name {
			segs[i] = url.PathEscape(value)
		}
	}
	return strings.Join(segs, "/")
}
