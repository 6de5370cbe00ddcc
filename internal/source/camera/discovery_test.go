package camera

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
)

// netnsChild marks the copy of this test binary that runs inside the test's own network
// namespace.
const netnsChild = "FLEETGATE_CAMERA_NETNS_CHILD"

// TestWSDiscoveryInOwnNetworkNamespace probes for ONVIF devices and finds the test
// responder. Multicast must never reach the host's networks, so the probe and the responder
// run in a network namespace made for the test (unshare -n) whose only interface is its own
// loopback, with multicast on and routed there: the test binary runs itself again inside it.
func TestWSDiscoveryInOwnNetworkNamespace(t *testing.T) {
	if os.Getenv(netnsChild) == "1" {
		discoverInNamespace(t)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("the discovery test needs unshare (Debian: util-linux)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("the discovery test needs ip (Debian: iproute2)")
	}
	args := []string{"--net"}
	if os.Getuid() != 0 {
		args = append(args, "--map-root-user") // a user namespace gives the rights to set up its network
	}
	setup := `ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && exec "$0" "$@"`
	args = append(args, "--", "sh", "-c", setup, os.Args[0], "-test.run=^TestWSDiscoveryInOwnNetworkNamespace$", "-test.v", "-test.count=1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, unshare, args...)
	cmd.Env = append(os.Environ(), netnsChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestWSDiscoveryInOwnNetworkNamespace") {
		t.Fatalf("the probe inside the test's network namespace failed (%v):\n%s", err, out)
	}
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(line, "discovery_test.go") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func discoverInNamespace(t *testing.T) {
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(ifaces) != 1 || ifaces[0].Flags&net.FlagLoopback == 0 {
		t.Fatalf("not in a namespace of the test's own: interfaces %v", ifaces)
	}
	dev := cameratest.StartONVIF(t, "rtsp://127.0.0.1:8554/test", "admin", "cam-secret")
	dev.ServeDiscovery(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	found, err := Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].XAddr != dev.URL || found[0].Name != dev.Name {
		t.Fatalf("found %+v, want the device at %s named %q", found, dev.URL, dev.Name)
	}
	// What discovery found is usable as it is: the device gives its stream.
	uri, err := (&ONVIF{URL: found[0].XAddr, Username: "admin", Password: "cam-secret"}).StreamURI(context.Background())
	if err != nil || uri != dev.StreamURI {
		t.Fatalf("stream of the discovered device: %q, %v", uri, err)
	}
	t.Logf("discovered %s (%q) at %s, stream %s", found[0].Endpoint, found[0].Name, found[0].XAddr, uri)
}
