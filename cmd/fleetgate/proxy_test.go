package main

import (
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLoginLimitsPerClientBehindHAProxy runs fleetgate serve behind Debian's haproxy with the
// shipped configuration (scripts/cluster/haproxy.cfg: option forwardfor) and --trusted-proxy
// naming haproxy's address, as scripts/cluster-demo.sh does. Clients on two loopback
// addresses reach it only through haproxy: 11 wrong passwords from one do not refuse the
// owner's right password from the other ("nobody can lock an owner out"), and the log
// names each client, not the balancer.
func TestLoginLimitsPerClientBehindHAProxy(t *testing.T) {
	serve := startLogged(t, "serve", nil, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--trusted-proxy", "127.0.0.1")
	front := startHAProxy(t, []*loggedProcess{serve})
	const owner, guesser = "127.0.0.3", "127.0.0.2"
	const password = "the owner's long password"

	setup := browserFrom(t, front, owner)
	if s := setup.post("/login", url.Values{"token": {testToken}}); s != http.StatusSeeOther {
		t.Fatalf("token login: %d", s)
	}
	if s := setup.post("/password", url.Values{"new": {password}}); s != http.StatusSeeOther {
		t.Fatalf("setting the password: %d", s)
	}

	g := browserFrom(t, front, guesser)
	var last int
	for range 11 {
		last = g.post("/login", url.Values{"email": {"admin@localhost"}, "password": {"a wrong guess"}})
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("11th wrong password from %s: %d, want 429 (the limits hold the guesser)", guesser, last)
	}

	o := browserFrom(t, front, owner)
	req, _ := http.NewRequest("POST", front+"/login", strings.NewReader(url.Values{"email": {"admin@localhost"}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := o.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the owner's right password from %s after %s's guesses: %d to %q, want 303 to /",
			owner, guesser, resp.StatusCode, resp.Header.Get("Location"))
	}
	logs := serve.logs()
	for _, addr := range []string{owner, guesser} {
		if !strings.Contains(logs, "remote="+addr+"\n") {
			t.Errorf("the request log never names client %s", addr)
		}
	}
}

// browserFrom is a panel client whose connections leave from the local address from (any
// 127.x.y.z is this machine's on Linux), as a second machine's browser would.
func browserFrom(t *testing.T, base, from string) *browser {
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	return &browser{t: t, base: base, c: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		Transport:     &http.Transport{DialContext: dialer.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}
