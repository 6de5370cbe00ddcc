package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestAgentLinkRefusals: the cloud answers a refused agent before the upgrade as the API
// answers any caller — a problem document with the status and code — and throttles key
// guessing per address; a good key gets its link.
func TestAgentLinkRefusals(t *testing.T) {
	cloud := servertest.MustOpen(t)
	ctx := context.Background()
	key, err := server.DemoAgentKey(ctx, cloud.Gateway(), filepath.Join(t.TempDir(), "agent-key"), "dock")
	if err != nil {
		t.Fatal(err)
	}
	upgrade := func(key string) http.Header {
		h := http.Header{
			"Connection": {"Upgrade"}, "Upgrade": {"websocket"},
			"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="},
		}
		if key != "" {
			h.Set(link.KeyHeader, key)
		}
		return h
	}
	refused := func(name string, header http.Header, status int, code string) servertest.Response {
		t.Helper()
		resp := cloud.DoRaw(http.MethodGet, link.Path, header, nil)
		var p struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
			Detail string `json:"detail"`
		}
		json.Unmarshal(resp.Body, &p)
		if resp.Status != status || resp.Header.Get("Content-Type") != "application/problem+json" || p.Status != status || p.Code != code {
			t.Errorf("%s: %d %s %s; want %d problem+json with code %q", name, resp.Status, resp.Header.Get("Content-Type"), resp.Body, status, code)
		}
		return resp
	}

	refused("not an upgrade", http.Header{link.KeyHeader: {key}}, http.StatusBadRequest, "invalid")

	// The good key links: hello, welcome.
	dialCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(dialCtx, cloud.URL+link.Path, &websocket.DialOptions{HTTPHeader: http.Header{link.KeyHeader: {key}}})
	if err != nil {
		t.Fatalf("linking with a good key: %v", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(link.MaxFrame)
	if err := link.WriteFrame(conn, &linkpb.Frame{Body: &linkpb.Frame_Hello{Hello: &linkpb.Hello{ProtocolVersion: link.ProtocolVersion}}}, time.Second); err != nil {
		t.Fatal(err)
	}
	if f, err := link.ReadFrame(conn); err != nil || f.GetWelcome().GetAgentId() == "" {
		t.Fatalf("answer to hello: %v, %v; want a welcome", f, err)
	}

	refused("no key", upgrade(""), http.StatusUnauthorized, "unauthorized")
	const wrong = "fga_WrongKeyWrongKeyWrongKey0123"
	refused("wrong key", upgrade(wrong), http.StatusUnauthorized, "unauthorized")
	// Guessing is throttled per address: within the window's 10 failures the answer to a
	// wrong key turns to 429 with Retry-After; a good key is checked first and links.
	var limited servertest.Response
	for i := 0; i < 10 && limited.Status != http.StatusTooManyRequests; i++ {
		limited = cloud.DoRaw(http.MethodGet, link.Path, upgrade(wrong), nil)
	}
	if limited.Status != http.StatusTooManyRequests {
		t.Fatalf("after 12 wrong keys: %d %s; want 429", limited.Status, limited.Body)
	}
	if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s <= 0 || s > 60 {
		t.Errorf("Retry-After %q, want 1..60 seconds", limited.Header.Get("Retry-After"))
	}
	if resp := cloud.DoRaw(http.MethodGet, link.Path, upgrade(key), nil); resp.Status != http.StatusSwitchingProtocols {
		t.Errorf("good key from the throttled address: %d %s; want 101", resp.Status, resp.Body)
	}
	if logs := cloud.Logs(); strings.Contains(logs, wrong) || strings.Contains(logs, key) {
		t.Error("an agent key reached the log")
	}
}
