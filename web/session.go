package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Session values. A session names its principal (user, and the API token of a token login)
// and when it began and was last used; the Caller is resolved again on every request, so a
// disabled user or a revoked token ends it at once.
const (
	keyUser    = "uid"
	keyToken   = "tid"
	keyCreated = "created" // Unix ms
	keySeen    = "seen"    // Unix ms, refreshed at most once a minute
	keyStamp   = "pw"      // the password's stamp at a password login (gateway.PasswordStamp)
	keyTLS     = "tls"     // made over TLS: never opened by a plain-HTTP request
)

// seenGranularity bounds session writes: the idle clock is refreshed at most this often,
// so a page polling every 2 s does not rewrite its session every 2 s.
const seenGranularity = time.Minute

const callerKey = "web.caller"

// Why a session ended, said on the login page it goes back to (toLogin). A token's
// revocation, a disabled account or a changed password: the core's words (SessionCaller).
var errOldSession = fleetgate.Errorf(fleetgate.EUnauthorized, "it began under an older version of fleetgate")

func errIdle(d time.Duration) error {
	return fleetgate.Errorf(fleetgate.EUnauthorized, "it was not used for %s", spell(d))
}

func errTooOld(d time.Duration) error {
	return fleetgate.Errorf(fleetgate.EUnauthorized, "a session lasts at most %s", spell(d))
}

// spell is a timeout in words: "30 minutes", "12 hours".
func spell(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d.Round(time.Minute)/time.Minute), "minute")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// loadSessions loads both sessions (a person's, a kiosk's) from this scheme's cookies and
// writes them back, with their cookies, just before the response header goes out.
//
// A session made over TLS never opens over plain HTTP. Its cookie is Secure under another
// name (scheme.go), so a browser does not send it there; but the store knows a session by its
// token alone, so a token lifted from that cookie and replayed under the plain name would
// open it: the flag the session keeps from its login is what refuses it. The refused session
// is left as it was, for the browser that holds it over HTTPS.
func (p *Panel) loadSessions(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		ctx := req.Context()
		overTLS := p.overTLS(req)
		for _, sm := range []*scs.SessionManager{p.users, p.kiosks} {
			var token string
			if ck, err := req.Cookie(cookieName(sm.Cookie.Name, overTLS)); err == nil {
				token = ck.Value
			}
			loaded, err := sm.Load(ctx, token)
			if err == nil && !overTLS && sm.GetBool(loaded, keyTLS) {
				p.log.Warn("a panel session made over HTTPS was presented over plain HTTP: refused", "remote", c.RealIP())
				loaded, err = sm.Load(ctx, "")
			}
			if err != nil {
				return fleetgate.Internal(err)
			}
			ctx = loaded
		}
		c.SetRequest(req.WithContext(ctx))
		c.Response().Header().Add("Vary", "Cookie")
		c.Response().Before(func() { p.saveSessions(c) })
		return next(c)
	}
}

func (p *Panel) saveSessions(c echo.Context) {
	ctx := c.Request().Context()
	w := c.Response().Writer
	overTLS := p.overTLS(c.Request())
	for _, sm := range []*scs.SessionManager{p.users, p.kiosks} {
		switch sm.Status(ctx) {
		case scs.Modified:
			token, expiry, err := sm.Commit(ctx)
			if err != nil {
				p.log.Error("saving a session failed", "err", err)
				continue
			}
			writeSessionCookie(w, sm, overTLS, token, expiry)
		case scs.Destroyed:
			writeSessionCookie(w, sm, overTLS, "", time.Time{})
		}
	}
	w.Header().Set("Cache-Control", "no-store")
}

// writeSessionCookie is scs's WriteSessionCookie with this request's cookie name and Secure
// flag: scs keeps one cookie setting per manager, and the local gateway's one port serves
// both schemes. An empty token deletes the cookie; a persistent session's (a kiosk's) lives
// until expiry, a person's until the browser closes.
func writeSessionCookie(w http.ResponseWriter, sm *scs.SessionManager, overTLS bool, token string, expiry time.Time) {
	ck := &http.Cookie{Name: cookieName(sm.Cookie.Name, overTLS), Value: token, Path: sm.Cookie.Path,
		HttpOnly: sm.Cookie.HttpOnly, SameSite: sm.Cookie.SameSite, Secure: overTLS}
	switch {
	case expiry.IsZero():
		ck.Expires, ck.MaxAge = time.Unix(1, 0), -1
	case sm.Cookie.Persist:
		ck.Expires, ck.MaxAge = time.Unix(expiry.Unix()+1, 0), int(time.Until(expiry).Seconds()+1)
	}
	http.SetCookie(w, ck)
}

// startSession makes a new session token for a fresh login (the old one, possibly planted
// by someone else, dies: no session fixation) and records its principal, and whether it was
// made over TLS (then it never opens over plain HTTP: loadSessions).
func (p *Panel) startSession(ctx context.Context, sm *scs.SessionManager, c *gateway.Caller, overTLS bool) error {
	if err := sm.RenewToken(ctx); err != nil {
		return fleetgate.Internal(err)
	}
	now := p.now().UnixMilli()
	if c.Token.ID == "" {
		stamp, err := p.accounts.PasswordStamp(ctx, c.User.ID)
		if err != nil {
			return err
		}
		sm.Put(ctx, keyStamp, stamp)
	}
	sm.Put(ctx, keyUser, c.User.ID)
	sm.Put(ctx, keyToken, c.Token.ID)
	sm.Put(ctx, keyCreated, now)
	sm.Put(ctx, keySeen, now)
	sm.Put(ctx, keyTLS, overTLS)
	return nil
}

// userCaller resolves the person's session, enforcing its timeouts; nil when there is none.
func (p *Panel) userCaller(ctx context.Context) (*gateway.Caller, error) {
	sm := p.users
	uid := sm.GetString(ctx, keyUser)
	if uid == "" {
		return nil, nil
	}
	now := p.now()
	created := time.UnixMilli(sm.GetInt64(ctx, keyCreated))
	seen := time.UnixMilli(sm.GetInt64(ctx, keySeen))
	if now.Sub(created) >= p.absolute {
		return nil, p.destroy(ctx, sm, errTooOld(p.absolute))
	}
	if now.Sub(seen) >= p.idle {
		return nil, p.destroy(ctx, sm, errIdle(p.idle))
	}
	tokenID, stamp := sm.GetString(ctx, keyToken), sm.GetString(ctx, keyStamp)
	if tokenID == "" && stamp == "" {
		return nil, p.destroy(ctx, sm, errOldSession) // a password session from before stamps
	}
	if !sm.Exists(ctx, keyTLS) {
		// From before sessions knew their scheme: made over HTTPS perhaps, under a cookie that
		// was not Secure. Log in again. (Kiosk sessions are spared: walls run unattended.)
		return nil, p.destroy(ctx, sm, errOldSession)
	}
	c, err := p.accounts.SessionCaller(ctx, uid, tokenID, stamp)
	if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
		return nil, p.destroy(ctx, sm, err)
	} else if err != nil {
		return nil, err
	}
	if now.Sub(seen) >= seenGranularity {
		sm.Put(ctx, keySeen, now.UnixMilli())
	}
	return c, nil
}

// kioskCaller resolves the kiosk session: no idle timeout, as long as its token lives.
func (p *Panel) kioskCaller(ctx context.Context) (*gateway.Caller, error) {
	sm := p.kiosks
	uid := sm.GetString(ctx, keyUser)
	if uid == "" {
		return nil, nil
	}
	c, err := p.accounts.SessionCaller(ctx, uid, sm.GetString(ctx, keyToken), "")
	if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
		return nil, p.destroy(ctx, sm, err)
	}
	return c, err
}

// destroy ends a session; why (an EUnauthorized) is what the login page will say.
func (p *Panel) destroy(ctx context.Context, sm *scs.SessionManager, why error) error {
	if err := sm.Destroy(ctx); err != nil {
		return fleetgate.Internal(err)
	}
	return why
}

// sessionHash is the stored hash of the session the caller came from (the person's, as
// requireAPICaller prefers it, else the kiosk's), for socket tokens.
func (p *Panel) sessionHash(ctx context.Context) string {
	sm := p.users
	if sm.GetString(ctx, keyUser) == "" {
		sm = p.kiosks
	}
	if t := sm.Token(ctx); t != "" {
		return gateway.HashSecret(t)
	}
	return ""
}

// requireUser lets a person with a session through; anyone else goes to the login page.
func (p *Panel) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		caller, err := p.userCaller(c.Request().Context())
		if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
			return p.toLogin(c, err) // the session just ended: the login page says why
		} else if err != nil {
			return p.fail(c, err)
		}
		if caller == nil {
			return p.toLogin(c, nil)
		}
		if mustChangePassword(caller) && c.Path() != "/password" {
			// An admin made this password: it is replaced before anything else.
			return c.Redirect(http.StatusSeeOther, "/password")
		}
		c.Set(callerKey, caller)
		return next(c)
	}
}

// mustChangePassword: a person logged in with a password an admin generated.
func mustChangePassword(c *gateway.Caller) bool {
	return c.User.MustChangePassword && c.CanAct()
}

// requireKioskOrUser lets a kiosk session through, or a person (an admin previewing a wall).
func (p *Panel) requireKioskOrUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		caller, err := eitherCaller(c.Request().Context(), p.kioskCaller, p.userCaller)
		if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
			return p.toLogin(c, err)
		} else if err != nil {
			return p.fail(c, err)
		}
		if caller == nil {
			return p.toLogin(c, nil)
		}
		c.Set(callerKey, caller)
		return next(c)
	}
}

// requireAPICaller is requireKioskOrUser for the browser API: 401 problem+json, no redirect.
func (p *Panel) requireAPICaller(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		caller, err := eitherCaller(c.Request().Context(), p.userCaller, p.kioskCaller)
		if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
			return fleetgate.Errorf(fleetgate.EUnauthorized, "your panel session ended: %s; log in at /login", fleetgate.ErrorMessage(err))
		} else if err != nil {
			return err
		}
		if caller == nil {
			return fleetgate.Errorf(fleetgate.EUnauthorized, "no panel session: log in at /login")
		}
		if mustChangePassword(caller) {
			return fleetgate.Errorf(fleetgate.EForbidden, "your password was made by an admin: change it at /password first")
		}
		c.Set(callerKey, caller)
		return next(c)
	}
}

// eitherCaller is the session's caller as first finds it, else as second does. When neither
// finds one: nil and nil, or an EUnauthorized saying why a session of this browser just
// ended (first's reason before second's). Other errors are the store's.
func eitherCaller(ctx context.Context, first, second func(context.Context) (*gateway.Caller, error)) (*gateway.Caller, error) {
	caller, err := first(ctx)
	if caller != nil || (err != nil && fleetgate.ErrorCode(err) != fleetgate.EUnauthorized) {
		return caller, err
	}
	ended := err
	caller, err = second(ctx)
	if caller == nil && ended != nil && (err == nil || fleetgate.ErrorCode(err) == fleetgate.EUnauthorized) {
		err = ended
	}
	return caller, err
}

// Caller is the session's caller that the middleware stored, nil when there is none. The
// API mirror puts it where its bearer middleware would.
func Caller(c echo.Context) *gateway.Caller {
	caller, _ := c.Get(callerKey).(*gateway.Caller)
	return caller
}

// toLogin sends a browser without a session to the login page, to come back here (a GET)
// or to the start page afterwards; when a session just ended (ended: why, an
// EUnauthorized), the login page says why. A fragment refreshing in place gets a bare 401
// instead: its script cannot follow a login form.
func (p *Panel) toLogin(c echo.Context, ended error) error {
	req := c.Request()
	if strings.HasSuffix(req.URL.Path, "/fragment") || strings.HasPrefix(req.URL.Path, "/fragments/") {
		return c.NoContent(http.StatusUnauthorized)
	}
	next := "/"
	if req.Method == http.MethodGet {
		next = req.URL.RequestURI()
	}
	to := "/login?next=" + url.QueryEscape(next)
	if ended == nil {
		return c.Redirect(http.StatusSeeOther, to)
	}
	return p.redirectFlash(c, to, flash{Notice: "Your session ended: " + fleetgate.ErrorMessage(ended) + ". Log in again."})
}

// localPath keeps a post-login destination on this site: "/x" yes, "//evil" or "http://" no.
// Browsers drop tabs and newlines from a URL and read a backslash as a slash, so "/\t/evil"
// would be "//evil": control characters and backslashes anywhere refuse it, and what is left
// must parse as a path with no scheme or host.
func localPath(s string) string {
	if s == "" || s[0] != '/' || strings.HasPrefix(s, "//") || strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == '\\'
	}) {
		return "/"
	}
	if u, err := url.Parse(s); err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return s
}
