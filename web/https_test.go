package web_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/fleetgate/fleetgate/server/servertest"
)

// The local gateway's one port answers HTTP and HTTPS (server/localtls.go). These tests run a
// real agent on 127.0.0.1 and reach it by both schemes; a "LAN name" is the Host header the
// browser sends (web/scheme.go says why that, not the connection's address).

// httpsBrowser is s's browser over HTTPS (the agent's self-signed certificate accepted).
func (s *panelServer) httpsBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: "https://" + strings.TrimPrefix(s.URL, "http://"), jar: jar,
		c: &http.Client{Jar: jar, Timeout: 10 * time.Second,
			Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// exchange sends one request to base+path as Host host with exactly these cookies (no jar,
// no redirects followed).
func exchange(t *testing.T, method, base, host, path string, header http.Header, body string) page {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if host != "" {
		req.Host = host
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(data)}
}

// TestCookiesAreSecureOverTLSRequestByRequest: on the port that answers both schemes, the
// session and flash cookies of an HTTPS request are Secure, under their __Host- names; those
// of a plain-HTTP request by localhost are neither.
func TestCookiesAreSecureOverTLSRequestByRequest(t *testing.T) {
	s := openPanel(t, servertest.Agent)
	cases := []struct {
		name    string
		browser *browser
		overTLS bool
	}{
		{"https", s.httpsBrowser(t), true},
		{"http by 127.0.0.1", s.browser(t), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prefix := ""
			if c.overTLS {
				prefix = "__Host-"
			}
			failed := c.browser.post("/login", url.Values{"token": {"fgt_" + strings.Repeat("x", 32)}})
			session := c.browser.post("/login", url.Values{"token": {servertest.AdminToken}})
			for what, p := range map[string]page{prefix + "fleetgate_flash=": failed, prefix + "fleetgate_session=": session} {
				ck := p.header.Get("Set-Cookie")
				if !strings.HasPrefix(ck, what) || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Lax") || !strings.Contains(ck, "Path=/") {
					t.Errorf("Set-Cookie %q, want %s... HttpOnly, SameSite=Lax, Path=/", ck, what)
				}
				if secure := strings.Contains(ck, "; Secure"); secure != c.overTLS {
					t.Errorf("Set-Cookie %q: Secure %v, want %v", ck, secure, c.overTLS)
				}
			}
		})
	}
}

// TestHTTPSSessionRefusedOverPlainHTTP: a session made over HTTPS opens nothing over plain
// HTTP, under its own cookie name or replayed under the plain one, and stays good over
// HTTPS; a session made over plain HTTP (http://localhost, the demo) works there.
func TestHTTPSSessionRefusedOverPlainHTTP(t *testing.T) {
	s := openPanel(t, servertest.Agent)
	secure := s.httpsBrowser(t)
	wantStatus(t, "login over HTTPS", secure.post("/login", url.Values{"token": {servertest.AdminToken}}), http.StatusSeeOther)
	token := secure.cookie("__Host-fleetgate_session")
	if token == "" {
		t.Fatal("no __Host-fleetgate_session cookie after a login over HTTPS")
	}
	for _, name := range []string{"__Host-fleetgate_session", "fleetgate_session"} {
		cookie := http.Header{"Cookie": {name + "=" + token}}
		wantRedirect(t, "a page over plain HTTP with the HTTPS session as "+name, exchange(t, "GET", s.URL, "", "/", cookie, ""), "/login")
		wantStatus(t, "the browser API over plain HTTP with the HTTPS session as "+name, exchange(t, "GET", s.URL, "", "/panel/api/robots", cookie, ""), http.StatusUnauthorized)
	}
	wantStatus(t, "the HTTPS session over HTTPS afterwards", secure.get("/"), http.StatusOK)

	// A form's result page made over HTTPS (it may show a secret) is not shown over plain HTTP.
	bad := url.Values{"token": {"fgt_" + strings.Repeat("x", 32)}}
	wantStatus(t, "a wrong token over HTTPS", secure.post("/login", bad), http.StatusSeeOther)
	wantBody(t, "its result over HTTPS", secure.get("/login"), `role="alert"`)
	wantStatus(t, "a wrong token over HTTPS again", secure.post("/login", bad), http.StatusSeeOther)
	flash := http.Header{"Cookie": {"fleetgate_flash=" + secure.cookie("__Host-fleetgate_flash")}}
	if p := exchange(t, "GET", s.URL, "", "/login", flash, ""); strings.Contains(p.body, `role="alert"`) {
		t.Error("a form's result made over HTTPS was shown over plain HTTP")
	}

	plain := s.browser(t)
	wantStatus(t, "login over plain HTTP by 127.0.0.1", plain.post("/login", url.Values{"token": {servertest.AdminToken}}), http.StatusSeeOther)
	wantStatus(t, "the plain session over plain HTTP", plain.get("/"), http.StatusOK)
}

// TestPanelPagesByLANNameGoToHTTPS: a panel page asked over plain HTTP by a LAN name or
// address is sent (308) to the same page over HTTPS on the same host and port; by localhost
// it is served; the API, sockets' routes, health, the OpenAPI document and forms stay on
// plain HTTP; over HTTPS, and on a cloud (no HTTPS on its port), nothing moves.
func TestPanelPagesByLANNameGoToHTTPS(t *testing.T) {
	agent := openPanel(t, servertest.Agent)
	cloud := openPanel(t)
	port := agent.URL[strings.LastIndex(agent.URL, ":")+1:]
	bearer := agent.Login(servertest.AdminToken)
	https := "https://" + strings.TrimPrefix(agent.URL, "http://")
	lan := "robot.lan:" + port
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	upgrade := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}
	cases := []struct {
		name, method, base, host, path string
		header                         http.Header
		body                           string
		status                         int
		location                       string
	}{
		{"login page by a LAN name", "GET", agent.URL, lan, "/login", nil, "", 308, "https://" + lan + "/login"},
		{"HEAD of a page", "HEAD", agent.URL, lan, "/login", nil, "", 308, "https://" + lan + "/login"},
		{"a page with a query by a LAN address", "GET", agent.URL, "192.168.1.20:" + port, "/robots/x/streams?component=base", nil, "", 308, "https://192.168.1.20:" + port + "/robots/x/streams?component=base"},
		{"by an IPv6 LAN address", "GET", agent.URL, "[fd00::5]:" + port, "/", nil, "", 308, "https://[fd00::5]:" + port + "/"},
		{"by a name without a port (HTTP's 80)", "GET", agent.URL, "robot.lan", "/fleet", nil, "", 308, "https://robot.lan:80/fleet"},
		{"a kiosk wall", "GET", agent.URL, lan, "/kiosk/local-fleet", nil, "", 308, "https://" + lan + "/kiosk/local-fleet"},
		{"by localhost", "GET", agent.URL, "localhost:" + port, "/login", nil, "", 200, ""},
		{"by 127.0.0.1", "GET", agent.URL, "127.0.0.1:" + port, "/login", nil, "", 200, ""},
		{"by ::1", "GET", agent.URL, "[::1]:" + port, "/login", nil, "", 200, ""},
		{"by a .localhost name", "GET", agent.URL, "fleet.localhost:" + port, "/login", nil, "", 200, ""},
		{"a form posted by a LAN name", "POST", agent.URL, lan, "/login", form, "token=" + servertest.AdminToken, 303, "/password"},
		{"health by a LAN name", "GET", agent.URL, lan, "/healthz", nil, "", 200, ""},
		{"OpenAPI by a LAN name", "GET", agent.URL, lan, "/openapi.json", nil, "", 200, ""},
		{"the API by a LAN name", "GET", agent.URL, lan, "/apigateway/v2/robots", http.Header{"Authorization": {"bearer " + bearer}}, "", 200, ""},
		{"the API without a token by a LAN name", "GET", agent.URL, lan, "/apigateway/v2/robots", nil, "", 401, ""},
		{"the W2 upgrade by a LAN name", "GET", agent.URL, lan, "/apigateway/v2/fleets/local-fleet/custom-kpis", upgrade, "", 401, ""},
		{"the browser API by a LAN name", "GET", agent.URL, lan, "/panel/api/robots", nil, "", 401, ""},
		{"a signed download by a LAN name", "GET", agent.URL, lan, "/files/nothing?exp=1&sig=x", nil, "", 403, ""},
		{"over HTTPS by a LAN name", "GET", https, lan, "/login", nil, "", 200, ""},
		{"a cloud without TLS by a LAN name", "GET", cloud.URL, "fleet.lan:8080", "/login", nil, "", 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := exchange(t, c.method, c.base, c.host, c.path, c.header, c.body)
			if p.status != c.status || p.header.Get("Location") != c.location {
				t.Errorf("%s %s as %s: %d to %q, want %d to %q", c.method, c.path, c.host, p.status, p.header.Get("Location"), c.status, c.location)
			}
		})
	}
}

// TestSessionFromBeforeSchemesLogsInAgain: a person's session stored before sessions knew
// the scheme they were made by (perhaps over HTTPS, under a cookie that was not Secure) opens
// nothing: its browser logs in again.
func TestSessionFromBeforeSchemesLogsInAgain(t *testing.T) {
	s := openPanel(t, servertest.Agent)
	b := s.browser(t)
	wantStatus(t, "login", b.post("/login", url.Values{"token": {servertest.AdminToken}}), http.StatusSeeOther)
	wantStatus(t, "the session", b.get("/"), http.StatusOK)
	ctx := context.Background()
	token := b.cookie("fleetgate_session")
	store := s.Store.Sessions(nil)
	data, found, err := store.FindCtx(ctx, token)
	if err != nil || !found {
		t.Fatalf("the stored session: %v %v", found, err)
	}
	deadline, values, err := scs.GobCodec{}.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	delete(values, "tls") // web/session.go's keyTLS
	if data, err = (scs.GobCodec{}).Encode(deadline, values); err != nil {
		t.Fatal(err)
	}
	if err := store.CommitCtx(ctx, token, data, deadline); err != nil {
		t.Fatal(err)
	}
	wantRedirect(t, "the same session without its scheme", b.get("/"), "/login")
}
