package main

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/logtest"
)

var (
	demoPanelLine = regexp.MustCompile(`panel: open (http://\S+) and log in with the admin API token`)
	demoTokenLine = regexp.MustCompile(`admin API token \(both\): (fgt_\S+)`)
)

// TestDemoSaysWhereToLogIn: the README's first steps. The demo prints where the panel is
// and the token; that page answers, and the token logs in there.
func TestDemoSaysWhereToLogIn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &logtest.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- runDemo(ctx, []string{"--data", t.TempDir(), "--listen", "127.0.0.1:0", "--agent-listen", "127.0.0.1:0", "--sim", "0"}, out)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the demo did not stop within 30 s")
		}
	})
	waitFor(t, 30*time.Second, "the demo's panel line", func() bool { return demoPanelLine.MatchString(out.String()) })
	panel := demoPanelLine.FindStringSubmatch(out.String())[1]
	m := demoTokenLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the demo printed no token:\n%s", out)
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(panel + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/login: %d", panel, resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, panel+"/login", strings.NewReader(url.Values{"token": {m[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin") // a form of the login page itself
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("logging in with the printed token: %d to %q, want 303 into the panel", resp.StatusCode, resp.Header.Get("Location"))
	}
}
