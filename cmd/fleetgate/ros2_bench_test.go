//go:build ros2

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/ros2/ros2test"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// stampOf reads the header stamp (field 1) of a catalog message without decoding the rest: a
// viewer of 20 must not spend the machine on copying clouds.
func stampOf(data []byte) *catalogpb.Time {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil
		}
		data = data[n:]
		if num == 1 && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(data)
			var h catalogpb.Header
			if proto.Unmarshal(v, &h) != nil {
				return nil
			}
			return h.Stamp
		}
		n = protowire.ConsumeFieldValue(num, typ, data)
		if n < 0 {
			return nil
		}
		data = data[n:]
	}
	return nil
}

// BenchmarkROS2Relay is the ROS 2 issue's benchmark, run by hand (not a timed test):
//
//	go test -tags ros2 -run '^$' -bench ROS2Relay -benchtime 1x ./cmd/fleetgate
//
// In its own network namespace, the Fast DDS peer publishes a 640x480 JPEG-sized image
// (50 kB, best effort) at 30 Hz, then a 300k-point cloud (4.8 MB, reliable) at 10 Hz; the
// agent binary relays it to 1 and then 20 W3 viewers in this process (clouds whole:
// withoutDownSampling=true); the peer's own Fast DDS subscriber (another process) reads the
// same topic as the baseline. It reports the rate each viewer gets, the latency (receive time
// minus the header's stamp; over W3 from the first viewer, gzipped clouds inflated) and at the
// peer's subscriber, and the agent's CPU.
func BenchmarkROS2Relay(b *testing.B) {
	if !ros2test.InNetnsB(b) {
		return
	}
	const window = 8 * time.Second
	peers := ros2test.Build(b)
	streams := []struct {
		name, topic, listen, query string
		peerArgs                   []string
	}{
		{"jpeg30Hz", "/camera/image/compressed", "image", "", []string{"--image-hz", "30", "--image-bytes", "50000", "--cloud-hz", "0"}},
		{"cloud300k10Hz", "/points", "cloud", "&withoutDownSampling=true", []string{"--image-hz", "0", "--cloud-hz", "10", "--cloud-points", "300000"}},
	}
	for k, st := range streams {
		domain := 40 + k
		common := append([]string{"--domain", strconv.Itoa(domain), "--scan-hz", "0", "--odom-hz", "1", "--battery-hz", "0"}, st.peerArgs...)
		ros2test.Start(b, peers.FastDDS, common...)
		direct := ros2test.Start(b, peers.FastDDS, append(common, "--listen", st.listen)...)

		agent := startROS2BenchAgent(b, domain)
		bearer := benchLogin(b, agent.url)
		robot := waitRobotB(b, agent.url, bearer, "bot")

		measureCPU := func() float64 {
			t0, c0 := time.Now(), cpuTicks(agent.pid)
			time.Sleep(window)
			return float64(cpuTicks(agent.pid)-c0) / 100 / time.Since(t0).Seconds() * 100
		}
		time.Sleep(2 * time.Second)
		idle := measureCPU()
		for _, viewers := range []int{1, 20} {
			b.Run(fmt.Sprintf("%s/viewers=%d", st.name, viewers), func(b *testing.B) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var w3 latencies
				var wg sync.WaitGroup
				counts := make([]int, viewers)
				var counting sync.Mutex
				start := make(chan struct{})
				for i := range viewers {
					c, _, err := websocket.Dial(ctx, wsURL(robot, ros2Query(st.topic, st.query)),
						&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
					if err != nil {
						b.Fatal(err)
					}
					c.SetReadLimit(64 << 20)
					wg.Go(func() {
						defer c.CloseNow()
						for {
							_, data, err := c.Read(ctx)
							if err != nil {
								if ctx.Err() == nil {
									b.Logf("viewer %d: %v", i, err)
								}
								return
							}
							select {
							case <-start:
							default:
								continue
							}
							var env streampb.MessageStream
							if proto.Unmarshal(data, &env) != nil {
								continue
							}
							counting.Lock()
							counts[i]++
							counting.Unlock()
							// Latency from the first viewer: inflating every viewer's gzipped
							// clouds would spend the test's cores, not the agent's.
							if i != 0 {
								continue
							}
							payload := env.Data
							if env.Compression == streampb.Compression_COMPRESSION_GZIP {
								z, err := gzip.NewReader(bytes.NewReader(payload))
								if err != nil {
									continue
								}
								if payload, err = io.ReadAll(z); err != nil {
									continue
								}
							}
							if s := stampOf(payload); s != nil {
								w3.add(s)
							}
						}
					})
				}
				time.Sleep(2 * time.Second)
				from := len(direct.Lines())
				close(start)
				cpu := measureCPU()
				var dl []time.Duration
				for _, l := range direct.Lines()[from:] {
					if v, ok := strings.CutPrefix(l, "latency "); ok {
						if s, err := strconv.ParseFloat(v, 64); err == nil {
							dl = append(dl, time.Duration(s*float64(time.Second)))
						}
					}
				}
				slices.Sort(dl)
				wl := w3.take()
				cancel()
				wg.Wait()
				rates := make([]float64, viewers)
				counting.Lock()
				for i, n := range counts {
					rates[i] = float64(n) / window.Seconds()
				}
				counting.Unlock()
				slices.Sort(rates)
				directRate := float64(len(dl)) / window.Seconds()
				added := quantile(wl, 0.5) - quantile(dl, 0.5)
				b.Logf("%s, %2d viewers: rate per viewer min %.1f median %.1f /s (peer's subscriber %.1f /s); latency W3 p50 %v p95 %v, peer's subscriber p50 %v p95 %v; agent CPU %.1f %% (idle %.1f %%)",
					st.name, viewers, rates[0], rates[len(rates)/2], directRate,
					quantile(wl, 0.5).Round(10*time.Microsecond), quantile(wl, 0.95).Round(10*time.Microsecond),
					quantile(dl, 0.5).Round(10*time.Microsecond), quantile(dl, 0.95).Round(10*time.Microsecond), cpu, idle)
				b.ReportMetric(rates[0], "fps_min")
				b.ReportMetric(rates[len(rates)/2], "fps_median")
				b.ReportMetric(directRate, "fps_peer_sub")
				b.ReportMetric(float64(quantile(wl, 0.5).Microseconds())/1000, "ms_p50_w3")
				b.ReportMetric(float64(quantile(dl, 0.5).Microseconds())/1000, "ms_p50_peer_sub")
				b.ReportMetric(float64(added.Microseconds())/1000, "ms_p50_added")
				b.ReportMetric(cpu, "cpu%_agent")
			})
		}
	}
}

type ros2BenchAgent struct {
	url string
	pid int
}

// startROS2BenchAgent starts `fleetgate agent --ros2` for a benchmark.
func startROS2BenchAgent(b *testing.B, domain int) ros2BenchAgent {
	b.Helper()
	agent := exec.Command(binary, "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--ros2", "--ros2-domain", strconv.Itoa(domain), "--ros2-name", "bot")
	agent.Env = cleanEnv()
	stderr, _ := agent.StderrPipe()
	if err := agent.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listeningURL.FindStringSubmatch(sc.Text()); m != nil && strings.Contains(sc.Text(), "listening") {
				select {
				case urls <- m[1] + m[2]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return ros2BenchAgent{url: u, pid: agent.Process.Pid}
	case <-time.After(20 * time.Second):
		b.Fatal("agent not listening")
	}
	return ros2BenchAgent{}
}

func waitRobotB(b *testing.B, base, bearer, name string) string {
	b.Helper()
	var robot string
	rostest.Eventually(b, 30*time.Second, "the ROS 2 robot is online", func() bool {
		req, _ := http.NewRequest("GET", base+"/apigateway/v2/robots", nil)
		req.Header.Set("Authorization", "bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var list struct {
			RobotDataList []struct {
				BasicData struct{ ID, Name string }
				IsOnline  bool
			}
		}
		if decodeJSON(resp.Body, &list) != nil {
			return false
		}
		for _, r := range list.RobotDataList {
			if r.BasicData.Name == name && r.IsOnline {
				robot = base + "/apigateway/v2/robots/" + r.BasicData.ID
				return true
			}
		}
		return false
	})
	return robot
}
