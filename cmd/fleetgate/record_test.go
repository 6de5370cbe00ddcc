package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
)

var startedLine = regexp.MustCompile(`^recording ([0-9a-f-]{36}) started on sim-1 \(/camera/image,/lidar/scan,/base/pose\)`)

// TestRecordCommandsAndKill9: fleetgate record against a running agent, as an operator runs
// it; the agent killed with SIGKILL mid-recording finalises the file at its next start,
// and @mcap/core reads it with every message of its complete chunks.
func TestRecordCommandsAndKill9(t *testing.T) {
	dir := t.TempDir()
	agentArgs := []string{"agent", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1", "--recordings-quota", "256MiB"}
	p := start(t, nil, agentArgs...)
	env := []string{"FLEETGATE_URL=" + p.URL, "FLEETGATE_TOKEN=" + testToken}

	if _, stderr, code := runCLI(t, env, "record", "start", "--streams", "base/pose"); code != 2 || !strings.Contains(stderr, "--robot") {
		t.Fatalf("record start without --robot: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, env, "record", "start", "--robot", "sim-1", "--streams", "base/cmd_vel"); code != 1 || !strings.Contains(stderr, "input stream") {
		t.Fatalf("recording an input stream: exit %d, %s", code, stderr)
	}
	out, stderr, code := runCLI(t, env, "record", "start", "--robot", "sim-1", "--streams", "camera/image,lidar/scan,base/pose")
	m := startedLine.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("record start: exit %d, %q %s", code, out, stderr)
	}
	id := m[1]
	if out, _, _ := runCLI(t, env, "record", "list", "--robot", "sim-1"); !strings.Contains(out, id) || !strings.Contains(out, "Recording") {
		t.Fatalf("record list while recording:\n%s", out)
	}
	path := filepath.Join(dir, "recordings", id+".mcap")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 64<<10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording's file did not grow")
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.cmd.Process.Kill() // SIGKILL: no shutdown, no summary
	p.wait(t, 10*time.Second)
	crashed := filepath.Join(t.TempDir(), "crashed.mcap")
	data, _ := os.ReadFile(path)
	os.WriteFile(crashed, data, 0o600)
	streamed := mcaptest.Stream(t, crashed)
	if streamed.Messages == 0 || streamed.Done {
		t.Fatalf("the killed agent's file, read front to back: %+v", streamed)
	}

	p = start(t, nil, agentArgs...)
	env = []string{"FLEETGATE_URL=" + p.URL, "FLEETGATE_TOKEN=" + testToken}
	out, _, _ = runCLI(t, env, "record", "list", "--robot", "sim-1")
	if !strings.Contains(out, id) || !strings.Contains(out, "Stopped") || !strings.Contains(out, "Interrupted") {
		t.Fatalf("record list after the restart:\n%s", out)
	}
	report := mcaptest.Indexed(t, path)
	if int(report.Statistics.MessageCount) != streamed.Messages || report.Topic("/camera/image") == nil || report.Topic("/base/pose") == nil {
		t.Fatalf("@mcap/core reads %d messages from the finalised file, the streaming reader %d before", report.Statistics.MessageCount, streamed.Messages)
	}

	// A recording stopped by the command, which finds the one running itself.
	out, _, code = runCLI(t, env, "record", "start", "--robot", "sim-1", "--streams", "base/pose", "--max-rate", "5")
	if code != 0 {
		t.Fatalf("second record start: exit %d %s", code, out)
	}
	time.Sleep(500 * time.Millisecond)
	out, stderr, code = runCLI(t, env, "record", "stop", "--robot", "sim-1")
	if code != 0 || !strings.Contains(out, "stopped after 00:00:0") {
		t.Fatalf("record stop: exit %d, %q %s", code, out, stderr)
	}
	if _, stderr, code := runCLI(t, env, "record", "stop", "--robot", "sim-1"); code != 1 || !strings.Contains(stderr, "no running recording") {
		t.Fatalf("record stop with nothing running: exit %d, %s", code, stderr)
	}
}
