//go:build ros2

package dds_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
	"github.com/fleetgate/fleetgate/internal/source/ros2/ros2test"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The configuration the agent's flags make is one Cyclone DDS takes: an interface by name,
// unicast peers, extra XML.
func TestConfigAccepted(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	p, err := dds.Open(dds.Config{Domain: 3, Interface: "lo", Peers: []string{"127.0.0.1", "localhost:7410"},
		XML: `<Tracing><Verbosity>warning</Verbosity></Tracing>`})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	p, err = dds.Open(dds.Config{Domain: 3, Interface: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := dds.Open(dds.Config{Domain: 3, XML: `<NoSuchElement/>`}); err == nil {
		t.Error("Cyclone DDS took an unknown element")
	}
	if _, err := dds.Open(dds.Config{Domain: 300}); err == nil {
		t.Error("domain 300 opened")
	}
}

// The transport alone against each peer: discovery finds the peer's publications with their
// QoS, a reader that follows it gets samples that decode, and a Twist written reaches the peer.
func TestTransportWithPeers(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2test.Build(t)
	for _, peer := range []struct{ name, path string }{{"cyclone", peers.Cyclone}, {"fastdds", peers.FastDDS}} {
		t.Run(peer.name, func(t *testing.T) {
			found := make(chan dds.Endpoint, 100)
			p, err := dds.Open(dds.Config{Domain: 7, OnEvent: func(ev dds.Event) {
				if !ev.Gone {
					select {
					case found <- ev.Endpoint:
					default:
					}
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			proc := ros2test.Start(t, peer.path, "--domain", "7", "--image-hz", "0", "--cloud-hz", "0")
			want := map[string]dds.Endpoint{}
			deadline := time.After(15 * time.Second)
			for len(want) < 3 {
				select {
				case ep := <-found:
					if ep.Topic == "rt/scan" || ep.Topic == "rt/odom" || ep.Topic == "rt/cmd_vel" {
						want[ep.Topic] = ep
					}
				case <-deadline:
					t.Fatalf("discovered only %v", want)
				}
			}
			scan := want["rt/scan"]
			if scan.Type != "sensor_msgs::msg::dds_::LaserScan_" || !scan.Writer || scan.QoS.Reliable {
				t.Errorf("rt/scan: %+v (want a best-effort LaserScan writer)", scan)
			}
			if odom := want["rt/odom"]; !odom.QoS.Reliable || odom.Type != "nav_msgs::msg::dds_::Odometry_" {
				t.Errorf("rt/odom: %+v (want a reliable Odometry writer)", odom)
			}
			if cmd := want["rt/cmd_vel"]; cmd.Writer || cmd.Type != "geometry_msgs::msg::dds_::Twist_" {
				t.Errorf("rt/cmd_vel: %+v (want a Twist reader)", cmd)
			}

			var mu sync.Mutex
			var got []byte
			arrived := make(chan struct{}, 1)
			r, err := p.Reader("rt/scan", scan.Type, scan.QoS, func(b []byte) {
				mu.Lock()
				got = b
				mu.Unlock()
				select {
				case arrived <- struct{}{}:
				default:
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			select {
			case <-arrived:
			case <-time.After(10 * time.Second):
				t.Fatal("no scan")
			}
			mu.Lock()
			data := got
			mu.Unlock()
			c, _ := rosmsg.CDRCodecFor("sensor_msgs/LaserScan")
			m, err := c.Decode(data)
			if err != nil {
				t.Fatalf("decoding %d bytes: %v", len(data), err)
			}
			ls := m.(*catalogpb.LaserScan)
			if ls.Header.FrameId != "laser" || len(ls.Ranges) != 360 || ls.Ranges[100] != 2 || ls.RangeMax != 30 || ls.Intensities[5] != 5 {
				t.Errorf("scan %v", ls.Header)
			}

			w, err := p.Writer("rt/cmd_vel", "geometry_msgs::msg::dds_::Twist_", dds.QoS{Reliable: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			tc, _ := rosmsg.CDRCodecFor("geometry_msgs/Twist")
			b, _ := tc.Encode(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.25}, Angular: &catalogpb.Vector3{Z: -0.5}})
			for w.Matched() == 0 {
				time.Sleep(20 * time.Millisecond)
			}
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
			line := proc.Wait(t, "cmd_vel", 5*time.Second)
			if line != fmt.Sprintf("cmd_vel %g %g %g %g %g %g", 0.25, 0.0, 0.0, 0.0, 0.0, -0.5) {
				t.Errorf("peer got %q", strings.TrimSpace(line))
			}
		})
	}
}

// A sample over the cap is dropped by Cyclone as its first fragment arrives, never
// reassembled: Cyclone's MaxSampleSize is the agent's cap, so a peer cannot make the agent
// hold a sample of up to 2 GiB. Cyclone's warning reaches the agent's log; the raw sertype,
// which would refuse the sample only once it is whole, never sees it.
func TestOversizeSampleDroppedBeforeReassembly(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2test.Build(t)
	var logs logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	found := make(chan dds.Endpoint, 100)
	p, err := dds.Open(dds.Config{Domain: 9, MaxSample: 256 << 10, Logger: log, OnEvent: func(ev dds.Event) {
		if !ev.Gone && ev.Topic == "rt/camera/image/compressed" {
			found <- ev.Endpoint
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ros2test.Start(t, peers.Cyclone, "--domain", "9", "--image-hz", "10", "--image-bytes", fmt.Sprint(1<<20), "--image-reliable",
		"--cloud-hz", "0", "--scan-hz", "0", "--odom-hz", "0", "--battery-hz", "0")
	var image dds.Endpoint
	select {
	case image = <-found:
	case <-time.After(15 * time.Second):
		t.Fatal("the peer's camera was not discovered")
	}
	delivered := make(chan int, 10)
	r, err := p.Reader(image.Topic, image.Type, image.QoS, func(b []byte) {
		select {
		case delivered <- len(b):
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(logs.String(), "dropping oversize") {
		if time.Now().After(deadline) {
			t.Fatalf("Cyclone's warning of an oversize sample is not in the agent's log (sertype %d, qos %+v):\n%s", r.SertypeOversize(), image.QoS, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := r.SertypeOversize(); n != 0 {
		t.Errorf("%d samples of 1 MiB were reassembled before being refused; the cap is 256 KiB", n)
	}
	select {
	case n := <-delivered:
		t.Errorf("a sample of %d bytes was delivered past the cap", n)
	default:
	}
}
