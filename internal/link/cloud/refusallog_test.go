package cloud

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRefusalLogRate: a link's refusals write 10 lines at once, then one every 10 s, each
// counting the ones held back before it; the end of the link counts the rest.
func TestRefusalLogRate(t *testing.T) {
	var logs bytes.Buffer
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l := newRefusalLog(slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return now })
	lines := func() int { return strings.Count(logs.String(), "push refused") }
	for range 15 {
		l.warn("push refused")
	}
	if n := lines(); n != 10 {
		t.Fatalf("%d lines for 15 refusals at one instant, want 10", n)
	}
	now = now.Add(9999 * time.Millisecond)
	l.warn("push refused")
	if n := lines(); n != 10 {
		t.Fatalf("%d lines a moment before 10 s passed, want 10", n)
	}
	now = now.Add(time.Millisecond)
	l.warn("push refused")
	if n := lines(); n != 11 || !strings.Contains(logs.String(), "and_held_back=6") {
		t.Fatalf("%d lines once 10 s passed, want 11 counting the 6 held back:\n%s", n, logs.String())
	}
	l.warn("push refused")
	l.flush()
	if !strings.Contains(logs.String(), "refusals not logged one by one") || !strings.HasSuffix(strings.TrimSpace(logs.String()), "refusals=1") {
		t.Errorf("the end of the link does not count the one held back:\n%s", logs.String())
	}
}
