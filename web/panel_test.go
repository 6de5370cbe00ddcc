package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
	"github.com/fleetgate/fleetgate/web"
)

// clock is the panel's injected clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// panelServer is a real server whose panel runs on an injected clock.
type panelServer struct {
	*servertest.Server
	clock *clock
}

func openPanel(t *testing.T, opts ...servertest.Option) *panelServer {
	t.Helper()
	clk := &clock{t: time.Now()}
	opts = append([]servertest.Option{func(c *server.Config) {
		c.Panel = &web.Config{Now: clk.Now, IdleTimeout: 30 * time.Minute, AbsoluteTimeout: 12 * time.Hour}
	}}, opts...)
	return &panelServer{Server: servertest.MustOpen(t, opts...), clock: clk}
}

// browser is a cookie-keeping client that does not follow redirects, so tests see them.
type browser struct {
	t    *testing.T
	base string
	jar  *cookiejar.Jar
	c    *http.Client
}

func (s *panelServer) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: s.URL, jar: jar, c: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, header http.Header) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet && method != http.MethodHead && header == nil {
		// What a browser sends with a form of our own page.
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(data)}
}

func (b *browser) get(path string) page { b.t.Helper(); return b.do("GET", path, nil, nil) }
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	return b.do("POST", path, form, nil)
}

// submit posts a form the way a browser does: the answer must be a redirect (post/redirect/
// get), which it follows; the page it lands on is returned, and a reload of that page must
// not show the form's result again (the flash is taken once).
func (b *browser) submit(path string, form url.Values) page {
	b.t.Helper()
	p := b.post(path, form)
	if p.status != http.StatusSeeOther {
		b.t.Fatalf("POST %s: status %d, want 303 (post/redirect/get)\n%s", path, p.status, p.body)
	}
	loc := p.header.Get("Location")
	landed := b.get(loc)
	landed.header.Set("X-Test-Redirected-From", path)
	landed.header.Set("X-Test-Location", loc)
	return landed
}

// cookie is the value of a cookie the browser holds for the server.
func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.base)
	for _, c := range b.jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func (b *browser) setCookie(name, value string) {
	u, _ := url.Parse(b.base)
	b.jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

func wantStatus(t *testing.T, what string, p page, status int) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, p.status, status, p.body)
	}
}

func wantRedirect(t *testing.T, what string, p page, prefix string) {
	t.Helper()
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), prefix) {
		t.Fatalf("%s: status %d location %q, want 303 to %s…", what, p.status, p.header.Get("Location"), prefix)
	}
}

// setAdminPassword gives the bootstrap admin a password through the core.
func (s *panelServer) setPassword(t *testing.T, email, pw string) {
	t.Helper()
	ctx := context.Background()
	u, err := s.Store.UserByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	c := &gateway.Caller{User: u, Token: fleetgate.APIToken{Scope: fleetgate.ScopeFull}}
	if err := s.Gateway().SetPassword(ctx, c, "", pw); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) loginPassword(email, pw string) page {
	b.t.Helper()
	return b.post("/login", url.Values{"email": {email}, "password": {pw}})
}

func TestPasswordLoginRenewsTheSessionAndLogoutEndsIt(t *testing.T) {
	s := openPanel(t)
	s.setPassword(t, gateway.BootstrapAdminEmail, "admin password")
	b := s.browser(t)

	wantRedirect(t, "anonymous /", b.get("/"), "/login?next=%2F")
	// A session token planted before login (fixation) must not be the one logged in.
	b.setCookie("fleetgate_session", "planted-by-someone-else")
	p := b.submit("/login", url.Values{"email": {"admin@localhost"}, "password": {"wrong password"}})
	wantStatus(t, "wrong password", p, http.StatusOK)
	if !strings.Contains(p.body, "wrong email or password") {
		t.Errorf("the login page does not say why:\n%s", p.body)
	}
	wantRedirect(t, "login", b.loginPassword("admin@localhost", "admin password"), "/")
	first := b.cookie("fleetgate_session")
	if first == "" || first == "planted-by-someone-else" {
		t.Fatalf("session cookie after login = %q: not renewed", first)
	}
	wantStatus(t, "robots page", b.get("/"), http.StatusOK)

	// Logging in again renews the token; the old one opens nothing.
	wantRedirect(t, "second login", b.loginPassword("admin@localhost", "admin password"), "/")
	second := b.cookie("fleetgate_session")
	if second == first {
		t.Fatal("the session token was not renewed at the second login")
	}
	old := s.browser(t)
	old.setCookie("fleetgate_session", first)
	wantRedirect(t, "the pre-login token", old.get("/"), "/login")

	wantRedirect(t, "logout", b.post("/logout", url.Values{}), "/login")
	replay := s.browser(t)
	replay.setCookie("fleetgate_session", second)
	wantRedirect(t, "the logged-out token", replay.get("/"), "/login")
}

func TestCookieAttributes(t *testing.T) {
	s := openPanel(t)
	b := s.browser(t)
	p := b.post("/login", url.Values{"token": {servertest.AdminToken}})
	wantRedirect(t, "token login of the admin without a password", p, "/password")
	ck := p.header.Get("Set-Cookie")
	for _, want := range []string{"fleetgate_session=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(ck, want) {
			t.Errorf("Set-Cookie %q lacks %s", ck, want)
		}
	}
	if strings.Contains(ck, "Secure") || strings.Contains(ck, "Max-Age") {
		t.Errorf("Set-Cookie %q: a plain-HTTP session cookie is neither Secure nor persistent", ck)
	}
	if strings.Contains(p.header.Get("Location"), "fgt_") {
		t.Error("the token is in the redirect")
	}
	// The first login sets the admin's password.
	wantBody(t, "set password", b.submit("/password", url.Values{"new": {"a new password"}}), "Your password is set")
	wantRedirect(t, "password login", s.browser(t).loginPassword("admin@localhost", "a new password"), "/")
}

func TestKioskTokenLogin(t *testing.T) {
	s := openPanel(t)
	_, fleet := s.DefaultOrg()
	admin, _ := s.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	secret, tok := s.AddToken(admin.ID, fleetgate.ScopeRead, fleet.ID)
	b := s.browser(t)

	wantRedirect(t, "anonymous kiosk", b.get("/kiosk/"+fleet.ID), "/login?next=%2Fkiosk%2F")
	p := b.post("/login", url.Values{"token": {secret}, "next": {"/kiosk/" + fleet.ID}})
	wantRedirect(t, "kiosk login", p, "/kiosk/"+fleet.ID)
	ck := p.header.Get("Set-Cookie")
	if !strings.Contains(ck, "fleetgate_kiosk=") || !strings.Contains(ck, "Max-Age=") {
		t.Errorf("kiosk cookie %q: want a persistent fleetgate_kiosk cookie", ck)
	}
	k := b.get("/kiosk/" + fleet.ID)
	wantStatus(t, "kiosk page", k, http.StatusOK)
	for _, want := range []string{`data-widget="kpi-wall"`, `data-fleet-id="` + fleet.ID + `"`, `class="kiosk"`} {
		if !strings.Contains(k.body, want) {
			t.Errorf("kiosk page lacks %s", want)
		}
	}
	if strings.Contains(k.body, "Log out") || strings.Contains(k.body, `href="/settings"`) {
		t.Error("the kiosk page has navigation")
	}
	// A kiosk session is not a person's: the panel's pages stay closed to it.
	wantRedirect(t, "kiosk opens /", b.get("/"), "/login")
	other := s.AddFleet(fleet.OrgID, "other")
	wantStatus(t, "another fleet's wall", b.get("/kiosk/"+other.ID), http.StatusNotFound)
	// No idle timeout: two days later it still shows.
	s.clock.Advance(48 * time.Hour)
	wantStatus(t, "kiosk after two days", b.get("/kiosk/"+fleet.ID), http.StatusOK)
	// It lives as long as its token.
	if err := s.Store.RevokeAPIToken(context.Background(), tok.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	wantRedirect(t, "kiosk after revocation", b.get("/kiosk/"+fleet.ID), "/login")
}

func TestLoginRateLimit(t *testing.T) {
	s := openPanel(t)
	b := s.browser(t)
	bad := "fgt_" + strings.Repeat("x", 32)
	for i := range 10 {
		wantRedirect(t, "failure "+string(rune('0'+i)), b.post("/login", url.Values{"token": {bad}}), "/login")
	}
	p := b.post("/login", url.Values{"token": {bad}})
	wantStatus(t, "11th login", p, http.StatusTooManyRequests)
	if p.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// A valid token is checked before the limit: it logs in from the same address.
	if p := b.post("/login", url.Values{"token": {servertest.AdminToken}}); p.status != http.StatusSeeOther {
		t.Errorf("a valid token from the throttled address: %d, want 303", p.status)
	}
}

func TestCrossOriginUnsafeMethodsRefused(t *testing.T) {
	s := openPanel(t)
	b := s.browser(t)
	cases := []struct {
		name   string
		header http.Header
		status int
	}{
		{"cross-site fetch metadata", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"foreign Origin", http.Header{"Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"same-origin fetch metadata", http.Header{"Sec-Fetch-Site": {"same-origin"}}, http.StatusSeeOther},
		{"no browser headers", nil, http.StatusSeeOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b.t = t
			p := b.do("POST", "/login", url.Values{"token": {servertest.AdminToken}}, tc.header)
			wantStatus(t, "POST /login", p, tc.status)
		})
	}
	b.t = t
	wantRedirect(t, "login", b.post("/login", url.Values{"token": {servertest.AdminToken}}), "/")
	for _, path := range []string{"/logout", "/settings/tokens", "/panel/ws-token", "/panel/api/events/log?robotId=x&message=y"} {
		p := b.do("POST", path, url.Values{"name": {"x"}}, http.Header{"Sec-Fetch-Site": {"cross-site"}})
		wantStatus(t, "cross-site POST "+path, p, http.StatusForbidden)
	}
	// Without Origin and Sec-Fetch-Site, a request acting for the session falls back on
	// Referer: another host's, or none, is refused; this host's passes.
	host := strings.TrimPrefix(b.base, "http://")
	for _, c := range []struct {
		name    string
		referer string
		status  int
	}{
		{"no browser headers at all", "", http.StatusForbidden},
		{"another site's Referer", "http://evil.example/page", http.StatusForbidden},
		{"a look-alike host", "http://" + host + ".evil.example/", http.StatusForbidden},
		{"this site's Referer", b.base + "/settings", http.StatusSeeOther}, // to the new token's page
	} {
		header := http.Header{}
		if c.referer != "" {
			header.Set("Referer", c.referer)
		}
		p := b.do("POST", "/settings/tokens", url.Values{"name": {"referer " + c.name}}, header)
		wantStatus(t, "POST with "+c.name, p, c.status)
	}
	// A cross-site GET (a link) is fine: it changes nothing.
	wantStatus(t, "cross-site GET", b.do("GET", "/settings", nil, http.Header{"Sec-Fetch-Site": {"cross-site"}}), http.StatusOK)
}

var (
	nonceInCSP  = regexp.MustCompile(`script-src 'self' 'nonce-([A-Za-z0-9_-]+)'`)
	scriptTag   = regexp.MustCompile(`<script[^>]*>`)
	nonceInTags = regexp.MustCompile(`nonce="([^"]+)"`)
)

func TestCSPNonceAndSecurityHeaders(t *testing.T) {
	s := openPanel(t, func(c *server.Config) { c.KioskFrameAncestors = "https://wall.example" })
	b := s.browser(t)
	wantRedirect(t, "login", b.post("/login", url.Values{"token": {servertest.AdminToken}}), "/")
	_, fleet := s.DefaultOrg()
	seen := map[string]bool{}
	for _, path := range []string{"/login", "/", "/settings", "/admin", "/kiosk/" + fleet.ID} {
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		csp := p.header.Get("Content-Security-Policy")
		m := nonceInCSP.FindStringSubmatch(csp)
		if m == nil {
			t.Fatalf("%s: CSP %q has no script nonce", path, csp)
		}
		if seen[m[1]] {
			t.Errorf("%s: nonce %s reused across requests", path, m[1])
		}
		seen[m[1]] = true
		tags := scriptTag.FindAllString(p.body, -1)
		if len(tags) == 0 {
			t.Errorf("%s: no script tag", path)
		}
		for _, tag := range tags {
			if n := nonceInTags.FindStringSubmatch(tag); n == nil || n[1] != m[1] {
				t.Errorf("%s: script tag %s does not carry the CSP nonce %s", path, tag, m[1])
			}
		}
		for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "Cache-Control": "no-store"} {
			if got := p.header.Get(h); got != want {
				t.Errorf("%s: %s = %q, want %q", path, h, got, want)
			}
		}
		for _, d := range []string{"object-src 'none'", "base-uri 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, d) {
				t.Errorf("%s: CSP lacks %s", path, d)
			}
		}
		kiosk := strings.HasPrefix(path, "/kiosk/")
		switch {
		case kiosk && (!strings.Contains(csp, "frame-ancestors https://wall.example") || p.header.Get("X-Frame-Options") != ""):
			t.Errorf("kiosk page: CSP %q, X-Frame-Options %q: want framing by https://wall.example only", csp, p.header.Get("X-Frame-Options"))
		case !kiosk && (!strings.Contains(csp, "frame-ancestors 'none'") || p.header.Get("X-Frame-Options") != "DENY"):
			t.Errorf("%s: CSP %q, X-Frame-Options %q: want no framing", path, csp, p.header.Get("X-Frame-Options"))
		}
	}
	api := b.get("/panel/api/robots")
	wantStatus(t, "panel api", api, http.StatusOK)
	if api.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(api.header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("panel API headers %v", api.header)
	}
}

func TestSessionTimeouts(t *testing.T) {
	s := openPanel(t)
	s.setPassword(t, gateway.BootstrapAdminEmail, "admin password")

	// Idle: 30 min without a request ends the session; a request before keeps it.
	b := s.browser(t)
	wantRedirect(t, "login", b.loginPassword("admin@localhost", "admin password"), "/")
	s.clock.Advance(29 * time.Minute)
	wantStatus(t, "after 29 idle minutes", b.get("/"), http.StatusOK)
	s.clock.Advance(29 * time.Minute)
	wantStatus(t, "29 minutes after the last request", b.get("/"), http.StatusOK)
	s.clock.Advance(30 * time.Minute)
	wantRedirect(t, "after 30 idle minutes", b.get("/"), "/login")
	wantRedirect(t, "and stays ended", b.get("/"), "/login")

	// Absolute: 12 h after login, however busy. (scs stamps the stored expiry from the wall
	// clock: the panel's clock starts from it again.)
	s.clock.Set(time.Now())
	b = s.browser(t)
	wantRedirect(t, "login", b.loginPassword("admin@localhost", "admin password"), "/")
	for i := 0; i < 12*3-1; i++ {
		s.clock.Advance(20 * time.Minute)
		wantStatus(t, fmt.Sprint("busy session, step ", i), b.get("/settings"), http.StatusOK)
	}
	s.clock.Advance(20 * time.Minute)
	wantRedirect(t, "12 h after login", b.get("/settings"), "/login")
}

func TestCookiesAreSecureBehindTLS(t *testing.T) {
	s := openPanel(t, func(c *server.Config) { c.PublicURL = "https://fleet.example" })
	p := s.browser(t).post("/login", url.Values{"token": {servertest.AdminToken}})
	wantRedirect(t, "login", p, "/")
	if ck := p.header.Get("Set-Cookie"); !strings.Contains(ck, "; Secure") {
		t.Errorf("Set-Cookie %q behind https lacks Secure", ck)
	}
}

func TestFragmentWithoutSessionIs401(t *testing.T) {
	s := openPanel(t)
	if p := s.browser(t).get("/fragments/robots"); p.status != http.StatusUnauthorized {
		t.Errorf("fragment without a session: %d, want 401", p.status)
	}
}

// TestPasswordChangeEndsTheOtherSessions: changing the password keeps the session it was
// changed in (under a new token) and ends every other session begun with the old one.
func TestPasswordChangeEndsTheOtherSessions(t *testing.T) {
	s := openPanel(t)
	s.setPassword(t, gateway.BootstrapAdminEmail, "admin password")
	here, elsewhere := s.browser(t), s.browser(t)
	wantRedirect(t, "login here", here.loginPassword("admin@localhost", "admin password"), "/")
	wantRedirect(t, "login elsewhere", elsewhere.loginPassword("admin@localhost", "admin password"), "/")
	before := here.cookie("fleetgate_session")
	wantBody(t, "password change", here.submit("/password", url.Values{"current": {"admin password"}, "new": {"a new password"}}), "Your password is set")
	if after := here.cookie("fleetgate_session"); after == before || after == "" {
		t.Errorf("the session token was not renewed with the password")
	}
	wantStatus(t, "the session that changed the password", here.get("/"), http.StatusOK)
	wantRedirect(t, "a session begun with the old password", elsewhere.get("/"), "/login")
	wantRedirect(t, "login with the new password", elsewhere.loginPassword("admin@localhost", "a new password"), "/")
}

// follow is the page a redirect leads to, fetched as the browser would.
func (b *browser) follow(what string, p page) page {
	b.t.Helper()
	if p.status != http.StatusSeeOther {
		b.t.Fatalf("%s: status %d, want a redirect (303)\n%s", what, p.status, p.body)
	}
	return b.get(p.header.Get("Location"))
}

// A session that ends under the browser goes to the login page, which says why: the token
// it was opened with was revoked, the idle timeout. A bare visit to the login page says nothing.
func TestEndedSessionSaysWhyOnTheLoginPage(t *testing.T) {
	s := openPanel(t)
	ctx := context.Background()
	admin, _ := s.Store.UserByEmail(ctx, gateway.BootstrapAdminEmail)
	secret, tok := s.AddToken(admin.ID, fleetgate.ScopeFull, "")
	b := s.browser(t)
	wantRedirect(t, "token login", b.post("/login", url.Values{"token": {secret}}), "/")
	wantStatus(t, "a page while the token lives", b.get("/settings"), http.StatusOK)
	if err := s.Store.RevokeAPIToken(ctx, tok.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	ended := b.get("/settings")
	wantRedirect(t, "a page after the revocation", ended, "/login?next=%2Fsettings")
	login := b.follow("a page after the revocation", ended)
	wantStatus(t, "login page", login, http.StatusOK)
	wantBody(t, "login page after the revocation", login, "Your session ended: the API token of this session was revoked. Log in again.")
	if again := b.get("/login"); strings.Contains(again.body, "Your session ended") {
		t.Error("the login page says the session ended once more on a reload")
	}

	s.setPassword(t, gateway.BootstrapAdminEmail, "admin password")
	b = s.browser(t)
	wantRedirect(t, "password login", b.loginPassword("admin@localhost", "admin password"), "/")
	s.clock.Advance(31 * time.Minute)
	wantBody(t, "login page after the idle timeout", b.follow("idle", b.get("/")), "Your session ended: it was not used for 30 minutes.")

	// The panel's API says it in its 401.
	b = s.browser(t)
	secret, tok = s.AddToken(admin.ID, fleetgate.ScopeFull, "")
	wantRedirect(t, "token login", b.post("/login", url.Values{"token": {secret}}), "/")
	if err := s.Store.RevokeAPIToken(ctx, tok.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	api := b.get(web.APIPrefix + "/robots")
	wantStatus(t, "panel API after the revocation", api, http.StatusUnauthorized)
	wantBody(t, "panel API after the revocation", api, "the API token of this session was revoked")

	if fresh := s.browser(t).get("/login"); strings.Contains(fresh.body, "Your session ended") {
		t.Error("a first visit to the login page says a session ended")
	}
}

// An unknown address is the panel's: it answers the panel's 404 page, in HTML. Under the
// API's prefixes (and the agent link's, the files') it stays a problem+json 404.
func TestUnknownAddressIsThePanels404Page(t *testing.T) {
	s := openPanel(t)
	b := s.browser(t)
	wantRedirect(t, "login", b.post("/login", url.Values{"token": {servertest.AdminToken}}), "/")
	for _, anon := range []bool{false, true} {
		who := b
		if anon {
			who = s.browser(t)
		}
		for _, path := range []string{"/no-such-page", "/robots/some-robot/no-such-tab", "/panel/no-such", "/admin/x/y/z", "/static-no"} {
			p := who.get(path)
			wantStatus(t, path, p, http.StatusNotFound)
			if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("GET %s (anonymous %v): Content-Type %q, want the panel's HTML page", path, anon, ct)
			}
			wantBody(t, path, p, "<h1>Not Found</h1>", "there is no page at this address", `href="/"`)
			if p.header.Get("Content-Security-Policy") == "" {
				t.Errorf("GET %s: the 404 page has no Content-Security-Policy", path)
			}
		}
		for _, path := range []string{"/apigateway/v2/no-such-route", "/apigateway/no-such", "/apigateway", web.APIPrefix + "/no-such", web.APIPrefix,
			"/agentlink/v1/no-such", "/files", "/healthz/x"} {
			p := who.get(path)
			if p.status != http.StatusNotFound || p.header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("GET %s (anonymous %v): %d %q, want 404 application/problem+json\n%s", path, anon, p.status, p.header.Get("Content-Type"), p.body)
			}
		}
	}
	head := b.do("HEAD", "/no-such-page", nil, nil)
	if head.status != http.StatusNotFound || !strings.HasPrefix(head.header.Get("Content-Type"), "text/html") || head.body != "" {
		t.Errorf("HEAD /no-such-page: %d %q %d bytes", head.status, head.header.Get("Content-Type"), len(head.body))
	}
	// A known page asked with another method is still a 405, not a 404.
	if p := b.post("/fleet", nil); p.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /fleet: %d, want 405", p.status)
	}
}
