package uplink

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLinkURL: the cloud URL a user types becomes the link endpoint; anything that would put
// a secret in a URL, or is not a URL, is refused with a reason.
func TestLinkURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://cloud:8080":          "ws://cloud:8080/agentlink/v1/connect",
		"https://fleet.example.com/": "wss://fleet.example.com/agentlink/v1/connect",
		"wss://h/prefix":             "wss://h/prefix/agentlink/v1/connect",
	} {
		if got, err := linkURL(in); err != nil || got != want {
			t.Errorf("linkURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "cloud:8080", "ftp://h", "http://user:pw@h", "http://h/?key=x", "http://"} {
		if got, err := linkURL(bad); err == nil {
			t.Errorf("linkURL(%q) = %q, want an error", bad, got)
		}
	}
}

// TestCloudURLList: --cloud takes the replicas' URLs separated by commas, each checked like
// one; a bad one among them is refused with its reason.
func TestCloudURLList(t *testing.T) {
	a, err := New(Config{CloudURL: "http://r1:8080, https://r2.example.com", Key: "fga_x", Core: &fakeCore{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ws://r1:8080/agentlink/v1/connect", "wss://r2.example.com/agentlink/v1/connect"}
	if len(a.urls) != 2 || a.urls[0] != want[0] || a.urls[1] != want[1] {
		t.Errorf("urls = %v, want %v", a.urls, want)
	}
	if _, err := New(Config{CloudURL: "http://r1:8080,http://user:pw@r2", Key: "fga_x", Core: &fakeCore{}}); err == nil || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("a list with a URL holding credentials: %v, want refused", err)
	}
}

// TestRefusedWait: a refused key waits long (the cloud's failure limit is per address), a
// rate limit waits what the cloud asks, anything else the caller's backoff.
func TestRefusedWait(t *testing.T) {
	resp := func(status int, retry string) *http.Response {
		h := http.Header{}
		if retry != "" {
			h.Set("Retry-After", retry)
		}
		return &http.Response{StatusCode: status, Header: h, Request: &http.Request{URL: &url.URL{Scheme: "ws", Host: "h"}}}
	}
	for _, c := range []struct {
		resp *http.Response
		want time.Duration
	}{
		{nil, 0},
		{resp(http.StatusUnauthorized, ""), authBackoff},
		{resp(http.StatusTooManyRequests, "7"), 7 * time.Second},
		{resp(http.StatusTooManyRequests, "soon"), authBackoff},
		{resp(http.StatusBadGateway, ""), 0},
	} {
		if got := refusedWait(c.resp); got != c.want {
			t.Errorf("refusedWait(%v) = %s, want %s", c.resp, got, c.want)
		}
	}
	if err := dialError(resp(http.StatusUnauthorized, ""), nil); !strings.Contains(err.Error(), "refused the agent key") {
		t.Errorf("401 explained as %v", err)
	}
}

// TestNewChecksConfig: a missing key or core, or a bad URL, fails at start, not on the first dial.
func TestNewChecksConfig(t *testing.T) {
	if _, err := New(Config{CloudURL: "http://h", Key: "", Core: &fakeCore{}}); err == nil {
		t.Error("no key accepted")
	}
	if _, err := New(Config{CloudURL: "h:1", Key: "fga_x", Core: &fakeCore{}}); err == nil {
		t.Error("a URL without scheme accepted")
	}
	if _, err := New(Config{CloudURL: "http://h", Key: "fga_x"}); err == nil {
		t.Error("no core accepted")
	}
}
