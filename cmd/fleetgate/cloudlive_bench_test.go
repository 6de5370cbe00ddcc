//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
)

// BenchmarkCloudLive measures the cloud's live view against the local gateway's, in one run,
// with the gateways in processes of their own: fleetgate serve and fleetgate agent --sim 1
// --ros1 (a rospy node subscribing /cmd_vel stands for a robot's driver and timestamps each
// command it receives). It reports
//   - camera frame latency (publish at the simulator to receive at the client), p50 and p99,
//     for a local and a cloud viewer of the same stream at the same time, and the difference;
//   - the agent's CPU while one viewer watches the camera locally, and while one watches it
//     through the cloud;
//   - teleop input-to-robot latency p50/p99 (the client's send to rospy's receive), locally
//     and through the cloud.
//
// Run it with -benchtime 1x (it is one experiment, not a loop): see docs/cloud-live.md.
func BenchmarkCloudLive(b *testing.B) {
	window := 10 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_BENCH_DURATION")); err == nil && d > 0 {
		window = d
	}
	m := rostest.StartMaster(b)
	driver := m.Python(b, rosDriver)
	received := make(chan [2]float64, 1024)
	go func() {
		for line := range driver.Lines() {
			var at, mark float64
			if _, err := fmt.Sscanf(line, "%f %f", &at, &mark); err == nil && mark > 0 {
				received <- [2]float64{at, mark}
			}
		}
	}()
	cloudDir := b.TempDir()
	cloud := startLogged(b, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(b, cloudDir, "bench")
	agent := startLogged(b, "agent", append(m.Env(), "FLEETGATE_AGENT_KEY="+key, "ROS_IP=127.0.0.1"),
		"agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--ros1", m.URI, "--ros1-name", "rosbot", "--cloud", cloud.URL)
	cloudBearer, localBearer := login(b, cloud.URL, testToken), login(b, agent.URL, testToken)
	var robots []string
	waitFor(b, 15*time.Second, "the simulated and the ROS robot on the agent", func() bool {
		var list struct {
			RobotDataList []struct {
				BasicData struct{ ID string }
				IsOnline  bool
			}
		}
		getJSON(agent.URL+"/apigateway/v2/robots", localBearer, &list)
		robots = robots[:0]
		for _, r := range list.RobotDataList {
			if r.IsOnline {
				robots = append(robots, r.BasicData.ID)
			}
		}
		return len(robots) == 2
	})
	waitFor(b, 15*time.Second, "the robots online on the cloud", func() bool { return robotsOnline(cloud.URL, cloudBearer, robots, true) })
	sim, ros := robots[0], robots[1]
	if twistRobotOrEmpty(b, agent.URL, localBearer, sim) == "" {
		sim, ros = ros, sim
	}
	camera := "componentName=camera&streamName=image&source=1"
	b.ResetTimer()

	// Latency: both viewers at once, so both see the same frames under the same load.
	var local, viaCloud []time.Duration
	var wg sync.WaitGroup
	for _, v := range []struct {
		base, bearer string
		into         *[]time.Duration
	}{{agent.URL, localBearer, &local}, {cloud.URL, cloudBearer, &viaCloud}} {
		wg.Go(func() { *v.into = frameLatencies(b, v.base, v.bearer, sim, camera, window) })
	}
	wg.Wait()
	lp50, lp99, cp50, cp99 := percentile(local, 50), percentile(local, 99), percentile(viaCloud, 50), percentile(viaCloud, 99)
	b.Logf("camera latency, %d local and %d cloud frames: local p50 %v p99 %v; cloud p50 %v p99 %v; added p99 %v",
		len(local), len(viaCloud), lp50, lp99, cp50, cp99, cp99-lp99)
	b.ReportMetric(ms(lp99), "local-p99-ms")
	b.ReportMetric(ms(cp99), "cloud-p99-ms")
	b.ReportMetric(ms(cp99-lp99), "added-p99-ms")

	// Agent CPU, one viewer at a time.
	pid := agent.cmd.Process.Pid
	for _, v := range []struct{ name, base, bearer string }{{"local", agent.URL, localBearer}, {"cloud", cloud.URL, cloudBearer}} {
		time.Sleep(4 * time.Second) // the other viewer's stream given up at the agent (linger)
		before := cpuTime(b, pid)
		start := time.Now()
		frameLatencies(b, v.base, v.bearer, sim, camera, window)
		cpu := (cpuTime(b, pid) - before).Seconds() / time.Since(start).Seconds() * 100
		b.Logf("agent CPU with one %s camera viewer: %.1f %% of a core", v.name, cpu)
		b.ReportMetric(cpu, "agent-cpu-%-"+v.name)
	}

	// Teleop input to the robot's driver.
	for _, v := range []struct{ name, base, bearer string }{{"local", agent.URL, localBearer}, {"cloud", cloud.URL, cloudBearer}} {
		lat := teleopLatencies(b, v.base, v.bearer, ros, received, 100)
		b.Logf("teleop input to robot, %s: %d commands, p50 %v p99 %v", v.name, len(lat), percentile(lat, 50), percentile(lat, 99))
		b.ReportMetric(ms(percentile(lat, 99)), "teleop-p99-ms-"+v.name)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func twistRobotOrEmpty(b *testing.B, base, bearer, id string) string {
	var list struct {
		RobotStreams []struct{ StreamName, StreamType string }
	}
	api(b, "GET", base+"/apigateway/v2/robots/"+id+"/streams", bearer, &list)
	for _, s := range list.RobotStreams {
		if s.StreamName == "cmd_vel" {
			return id
		}
	}
	return ""
}

// frameLatencies watches a stream for d and returns each frame's latency: its receive time
// less the publish time the envelope carries (one machine, one clock).
func frameLatencies(b *testing.B, base, bearer, robot, query string, d time.Duration) []time.Duration {
	conn := dialW3(b, base, bearer, robot, query)
	defer conn.CloseNow()
	var out []time.Duration
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		env := readEnvelope(b, conn)
		pt := env.GetPublishTime()
		out = append(out, time.Since(time.Unix(int64(pt.GetSec()), int64(pt.GetNanosec()))))
	}
	return out
}

// cpuTime is the user and system CPU time of process pid so far.
func cpuTime(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data)[strings.LastIndexByte(string(data), ')')+2:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // clock ticks (USER_HZ = 100)
}

// teleopLatencies sends n Twists at 10 Hz on W3 to the ROS robot, each marked by its
// angular.x, and returns for each the time from the send to the driver's receipt.
func teleopLatencies(b *testing.B, base, bearer, robot string, received <-chan [2]float64, n int) []time.Duration {
	ctx := context.Background()
	var conn *websocket.Conn
	waitFor(b, 10*time.Second, "the ROS robot's /cmd_vel as an input stream", func() bool {
		c, _, err := websocket.Dial(ctx, w3URL(base, robot, "componentName=&streamName=/cmd_vel&source=2&direction=input&format=json"),
			&websocket.DialOptions{HTTPHeader: map[string][]string{"Authorization": {"bearer " + bearer}}})
		conn = c
		return err == nil
	})
	defer conn.Close(websocket.StatusNormalClosure, "")
	go drain(conn)
	sent := map[int]time.Time{}
	for i := 1; i <= n; i++ {
		sent[i] = time.Now()
		send(b, conn, fmt.Sprintf(`{"angular":{"x":%g}}`, float64(i)/10000))
		time.Sleep(100 * time.Millisecond)
	}
	var out []time.Duration
	timeout := time.After(3 * time.Second)
	for len(out) < n {
		select {
		case r := <-received:
			i := int(r[1]*10000 + 0.5)
			if t, ok := sent[i]; ok {
				out = append(out, time.Unix(0, int64(r[0]*1e9)).Sub(t))
				delete(sent, i)
			}
		case <-timeout:
			b.Logf("%d of %d commands reached the driver", len(out), n)
			return out
		}
	}
	return out
}

// rosDriver subscribes /cmd_vel and prints each command's receive time and angular.x.
const rosDriver = `
import sys, time, rospy
from geometry_msgs.msg import Twist
rospy.init_node("bench_driver", anonymous=True, disable_signals=True)
def got(m):
    sys.stdout.write("%.6f %.6f\n" % (time.time(), m.angular.x))
    sys.stdout.flush()
rospy.Subscriber("/cmd_vel", Twist, got, queue_size=100, tcp_nodelay=True)
time.sleep(0.5)
print("ready", flush=True)
rospy.spin()
`
