package camera

import (
	"context"
	"encoding/xml"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/logtest"
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
	found, err := Discover(ctx, DefaultMaxDiscovered)
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

// TestWSDiscoveryCappedAcrossAnswers: a host on the link answers one probe with 20
// datagrams of 10 devices each. Discovery lists the limit, not 200: the cap holds across
// answers, not per answer.
func TestWSDiscoveryCappedAcrossAnswers(t *testing.T) {
	if !inOwnNetwork(t, "ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo") {
		return
	}
	floodDiscovery(t, 20, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	const limit = 64
	found, err := Discover(ctx, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != limit {
		t.Fatalf("discovery listed %d devices from 200 answers, want the limit %d", len(found), limit)
	}
	t.Logf("listed %d of 200 devices answered", len(found))
}

// floodDiscovery answers every probe with answers datagrams of perAnswer devices each, all
// distinct, as a hostile host on the link could.
func floodDiscovery(t *testing.T, answers, perAnswer int) {
	t.Helper()
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenMulticastUDP("udp4", lo, &net.UDPAddr{IP: net.ParseIP(discoveryGroup), Port: discoveryPort})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		conn.Close()
		wg.Wait()
	})
	wg.Go(func() {
		buf := make([]byte, maxProbeMatch)
		for {
			n, from, err := conn.ReadFromUDP(buf)
			if err != nil {
				return
			}
			var probe struct {
				MessageID string `xml:"Header>MessageID"`
			}
			if xml.Unmarshal(buf[:n], &probe) != nil || probe.MessageID == "" {
				continue
			}
			for a := range answers {
				var matches strings.Builder
				for m := range perAnswer {
					fmt.Fprintf(&matches, `<d:ProbeMatch><a:EndpointReference><a:Address>urn:uuid:00000000-0000-4000-8000-%012d</a:Address></a:EndpointReference>`+
						`<d:XAddrs>http://10.1.%d.%d/onvif/device_service</d:XAddrs></d:ProbeMatch>`, a*perAnswer+m, a, m+1)
				}
				answer := `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" ` +
					`xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery">` +
					`<s:Header><a:RelatesTo>` + probe.MessageID + `</a:RelatesTo></s:Header><s:Body><d:ProbeMatches>` + matches.String() +
					`</d:ProbeMatches></s:Body></s:Envelope>`
				conn.WriteToUDP([]byte(answer), from)
			}
		}
	})
}

// Discovered ONVIF devices are under the policy of cameras opened by address: a device
// that answers with a loopback or link-local address is not listed; one whose name leads to
// loopback is listed, and refused when it opens, before any connection (the device there
// sees no request); and at most MaxDiscovered are listed, however many answered.
func TestDiscoveredDevicesUnderThePolicy(t *testing.T) {
	local := cameratest.StartONVIF(t, "rtsp://127.0.0.1:8554/test", "", "")
	port := local.URL[strings.LastIndex(local.URL, ":")+1:]
	port = port[:strings.Index(port, "/")]
	dns := startTestDNS(t, map[string][]string{"onvif.test.": {"127.0.0.1"}})
	logs := &logtest.Buffer{}
	h := NewHost(HostConfig{
		Info:   fleetgate.Info{ID: "00000000-0000-4000-8000-000000000001", Name: "agent-host"},
		Camera: Config{Tools: Tools{FFmpeg: "/nonexistent/ffmpeg", FFprobe: "/nonexistent/ffprobe"}, Linger: -1},
		Policy: &AddressPolicy{Resolver: dns},
		Log:    slog.New(slog.NewTextHandler(logs, nil)),
	})
	defer h.Close()
	found := []Device{
		{Endpoint: "urn:uuid:1", XAddr: local.URL},
		{Endpoint: "urn:uuid:2", XAddr: "http://169.254.169.254/onvif/device_service"},
		{Endpoint: "urn:uuid:3", XAddr: "http://[::1]:" + port + "/onvif/device_service"},
		{Endpoint: "urn:uuid:4", XAddr: "http://onvif.test:" + port + "/onvif/device_service"},
	}
	for i := range 100 {
		found = append(found, Device{Endpoint: fmt.Sprintf("urn:uuid:lan-%d", i), XAddr: fmt.Sprintf("http://10.2.0.%d/onvif/device_service", i+1)})
	}
	h.setDiscovered(found)
	streams, err := h.Streams(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]fleetgate.Stream{}
	for _, s := range streams {
		listed[s.SourceURL] = s
	}
	for _, refused := range found[:3] {
		if _, ok := listed[refused.XAddr]; ok {
			t.Errorf("%s is listed", refused.XAddr)
		}
	}
	if len(streams) != DefaultMaxDiscovered {
		t.Fatalf("%d devices listed of 101 allowed, want %d", len(streams), DefaultMaxDiscovered)
	}
	if !strings.Contains(logs.String(), "ONVIF device not listed") || !strings.Contains(logs.String(), "over the limit") {
		t.Fatalf("the log does not say what was left out: %s", logs)
	}
	named, ok := listed[found[3].XAddr]
	if !ok {
		t.Fatalf("the device by name is not listed: %v", streams)
	}
	sub, err := h.Subscribe(context.Background(), named.Key(), fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	select {
	case <-sub.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the device whose name leads to loopback did not fail")
	}
	if got := fleetgate.ErrorMessage(sub.Err()); !strings.HasSuffix(got, wordsRefusedAddress) {
		t.Fatalf("its viewer was told %q, want %q", got, wordsRefusedAddress)
	}
	if r := local.Requests(); len(r) != 0 {
		t.Fatalf("the device on loopback got %v", r)
	}
}
