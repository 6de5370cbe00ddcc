package camera

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
)

// TestWSDiscoveryInOwnNetworkNamespace probes for ONVIF devices and finds the test
// responder. Multicast must never reach the host's networks, so the probe and the responder
// run in a network namespace made for the test whose only interface is its own loopback,
// with multicast on and routed there.
func TestWSDiscoveryInOwnNetworkNamespace(t *testing.T) {
	if inOwnNetwork(t, "ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo") {
		discoverInNamespace(t)
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
