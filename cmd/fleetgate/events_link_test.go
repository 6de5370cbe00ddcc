//go:build unix

package main

import (
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Event-log entries posted on a local gateway reach the cloud's log over the agent link, with
// the agent and the agent's fleet, also when the cloud was down as they were posted (kill -9),
// each exactly once.
func TestLinkForwardsTheEventLog(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "dock-7")
	agentDir := t.TempDir()
	agent := startLogged(t, "agent", nil, "agent", "--data", agentDir, "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", cloud.URL, "--agent-key", key)
	robot := localRobots(t, agent.URL, 1)[0]
	cloudBearer := login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "the agent's robot online on the cloud", func() bool { return robotsOnline(cloud.URL, cloudBearer, []string{robot}, true) })
	localBearer := login(t, agent.URL, testToken)

	post := func(msg string) {
		t.Helper()
		q := url.Values{"robotId": {robot}, "message": {msg}}
		if s := api(t, "POST", agent.URL+"/apigateway/v2/events/log?"+q.Encode(), localBearer, nil); s != 200 {
			t.Fatalf("post %q on the local gateway: %d", msg, s)
		}
	}
	cloudLog := func() string {
		stdout, stderr, code := runCLI(t, nil, "events", "list", "--data", cloudDir, "--robot", robot)
		if code != 0 {
			t.Fatalf("events list on the cloud: %d %s", code, stderr)
		}
		return stdout
	}

	post("forklift parked at dock 7")
	took := waitFor(t, 10*time.Second, "the entry in the cloud's log", func() bool { return strings.Contains(cloudLog(), "forklift parked at dock 7") })
	t.Logf("posted on the local gateway: in the cloud's log after %v", took.Round(time.Millisecond))
	line := lineWith(cloudLog(), "forklift parked at dock 7")
	agentID := agentIDOf(t, cloudDir, "dock-7")
	// TIME ROBOT FLEET AGENT AUTHOR MESSAGE: the agent's cloud fleet (not its "local-fleet"),
	// and the author as the agent's claim, never bare (an account of the agent's gateway).
	if f := strings.Fields(line); len(f) < 8 || !isUUID(f[2]) || f[3] != agentID || strings.Join(f[4:8], " ") != "admin@localhost via agent dock-7" {
		t.Errorf("the cloud's entry %q: want the agent's fleet id, agent %s and author admin@localhost via agent dock-7", line, agentID)
	}

	// The cloud dies; entries posted meanwhile wait on the agent's disk.
	cloud.signal(t, syscall.SIGKILL)
	post("dock 7 door jammed")
	post("dock 7 door fixed")
	cloud = startLogged(t, "cloud-restarted", nil, "serve", "--data", cloudDir, "--listen", strings.TrimPrefix(cloud.URL, "http://"), "--admin-token", testToken)
	took = waitFor(t, 30*time.Second, "the entries posted while the cloud was down", func() bool {
		log := cloudLog()
		return strings.Contains(log, "dock 7 door jammed") && strings.Contains(log, "dock 7 door fixed")
	})
	t.Logf("posted while the cloud was down: in its log %v after it restarted", took.Round(time.Millisecond))
	log := cloudLog()
	for _, msg := range []string{"forklift parked at dock 7", "dock 7 door jammed", "dock 7 door fixed"} {
		if n := strings.Count(log, `"`+msg+`"`); n != 1 {
			t.Errorf("%q is %d times in the cloud's log, want once:\n%s", msg, n, log)
		}
	}
	// Filters: by agent, and an agent that posted nothing.
	stdout, _, _ := runCLI(t, nil, "events", "list", "--data", cloudDir, "--agent", agentID)
	if strings.Count(stdout, "dock 7") != 3 {
		t.Errorf("events list --agent %s:\n%s", agentID, stdout)
	}
	if stdout, _, _ := runCLI(t, nil, "events", "list", "--data", cloudDir, "--agent", "no-such-agent"); strings.Contains(stdout, "dock 7") {
		t.Errorf("events list of another agent shows this one's:\n%s", stdout)
	}
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// agentIDOf reads an agent's id from fleetgate agents list.
func agentIDOf(t *testing.T, dataDir, name string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, nil, "agents", "list", "--data", dataDir)
	if code != 0 {
		t.Fatalf("agents list: %d %s", code, stderr)
	}
	for _, f := range strings.Fields(lineWith(stdout, name)) {
		if isUUID(f) {
			return f
		}
	}
	t.Fatalf("no id for agent %s in:\n%s", name, stdout)
	return ""
}

func isUUID(s string) bool { return len(s) == 36 && strings.Count(s, "-") == 4 }
