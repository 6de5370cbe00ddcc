package camera

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// netnsChild marks the copy of this test binary that runs inside a test's own network
// namespace.
const netnsChild = "FLEETGATE_CAMERA_NETNS_CHILD"

// inOwnNetwork runs the calling test (a top-level one) again inside a network namespace made
// for it (unshare --net), after setup, a shell command run there with the rights to set up
// its network: its only interface is its own loopback, so nothing the test sends (multicast,
// connections to test addresses) reaches the host's networks. It returns true in the copy
// inside, which runs the test's body; outside it fails the test with the inside's output
// unless the inside passed, logs the inside's lines, and returns false.
func inOwnNetwork(t *testing.T, setup string) bool {
	t.Helper()
	if os.Getenv(netnsChild) == "1" {
		return true
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("the test needs unshare (Debian: util-linux)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("the test needs ip (Debian: iproute2)")
	}
	args := []string{"--net"}
	if os.Getuid() != 0 {
		args = append(args, "--map-root-user") // a user namespace gives the rights to set up its network
	}
	name := t.Name()
	args = append(args, "--", "sh", "-c", "ip link set lo up && "+setup+` && exec "$0" "$@"`, os.Args[0],
		"-test.run=^"+name+"$", "-test.v", "-test.count=1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, unshare, args...)
	cmd.Env = append(os.Environ(), netnsChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s inside the test's network namespace failed (%v):\n%s", name, err, out)
	}
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(line, "_test.go:") {
			t.Log(strings.TrimSpace(line))
		}
	}
	return false
}
