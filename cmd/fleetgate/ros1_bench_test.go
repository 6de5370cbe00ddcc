package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/source/ros1/rosnode"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// rosCamera publishes 640x480 JPEG frames at 30 Hz (30 distinct frames made beforehand, so the
// publisher's own CPU does not limit the rate), stamped when published.
const rosCamera = `
import rospy, io, random
from PIL import Image, ImageDraw
from sensor_msgs.msg import CompressedImage
rospy.init_node('camera')
frames = []
rnd = random.Random(1)
for i in range(30):
    img = Image.new('RGB', (640, 480), (rnd.randrange(256), 80, 120))
    d = ImageDraw.Draw(img)
    for _ in range(300):
        x, y = rnd.randrange(640), rnd.randrange(480)
        d.rectangle([x, y, x + rnd.randrange(5, 60), y + rnd.randrange(5, 60)], fill=(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)))
    out = io.BytesIO(); img.save(out, format='JPEG', quality=85); frames.append(out.getvalue())
pub = rospy.Publisher('/camera/image/compressed', CompressedImage, queue_size=1)
print('ready', flush=True)
print('jpeg', sum(len(f) for f in frames) // len(frames), flush=True)
r = rospy.Rate(30)
i = 0
while not rospy.is_shutdown():
    m = CompressedImage()
    m.header.frame_id, m.format, m.data = 'camera', 'jpeg', frames[i % 30]
    m.header.stamp = rospy.Time.now()
    pub.publish(m)
    i += 1
    r.sleep()
`

// latencies collects frame latencies (receive time minus the header stamp).
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(stamp *catalogpb.Time) {
	d := time.Since(time.Unix(int64(stamp.GetSec()), int64(stamp.GetNanosec())))
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) take() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.d
	l.d = nil
	slices.Sort(d)
	return d
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[int(q*float64(len(d)-1))]
}

// cpuTicks is the user and system time of a process, in clock ticks (1/100 s).
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// BenchmarkROS1Camera is the ROS 1 issue's benchmark, run by hand (it is not a timed test):
//
//	go test -run '^$' -bench ROS1Camera -benchtime 1x ./cmd/fleetgate
//
// A rospy publisher sends 640x480 JPEG at 30 Hz; the agent binary relays it to 1 and then 20
// W3 viewers in this process; a Go TCPROS subscriber reads the same topic directly as the
// baseline. It reports the rate each viewer gets, the latency (receive time minus the
// header's stamp) over W3 and direct, their ratio, and the agent's CPU per viewer above its
// idle CPU.
func BenchmarkROS1Camera(b *testing.B) {
	const window = 10 * time.Second
	m := rostest.StartMaster(b)
	camera := m.Python(b, rosCamera)
	if l, err := camera.WaitLine(5*time.Second, func(l string) bool { return strings.HasPrefix(l, "jpeg ") }); err == nil {
		b.Logf("rospy camera: 640x480 JPEG of %s bytes on average, 30 Hz", strings.TrimPrefix(l, "jpeg "))
	}

	// The agent, in its own process.
	agent := exec.Command(binary, "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken, "--ros1", m.URI)
	agent.Env = append(cleanEnv(), "ROS_IP=127.0.0.1", "ROS_HOSTNAME=")
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
	var base string
	select {
	case base = <-urls:
	case <-time.After(20 * time.Second):
		b.Fatal("agent not listening")
	}
	bearer := benchLogin(b, base)
	var robot string
	rostest.Eventually(b, 20*time.Second, "the robot is online", func() bool {
		req, _ := http.NewRequest("GET", base+"/apigateway/v2/robots", nil)
		req.Header.Set("Authorization", "bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var list struct {
			RobotDataList []struct {
				BasicData struct{ ID string }
				IsOnline  bool
			}
		}
		if decodeJSON(resp.Body, &list) != nil || len(list.RobotDataList) != 1 || !list.RobotDataList[0].IsOnline {
			return false
		}
		robot = base + "/apigateway/v2/robots/" + list.RobotDataList[0].BasicData.ID
		return true
	})

	// The baseline: a Go TCPROS subscriber straight to the rospy publisher.
	node, err := rosnode.Start(rosnode.Config{Name: "/bench_direct", MasterURI: m.URI, Host: "127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	defer node.Close()
	codec, _ := rosmsg.CodecFor("sensor_msgs/CompressedImage")
	var direct latencies
	_, err = node.Subscribe(context.Background(), rosnode.SubscribeOptions{
		Topic: "/camera/image/compressed", Type: codec.Spec.Type, MD5: codec.Spec.MD5,
		OnMessage: func(msg []byte, _ rosnode.Connection) {
			if m, err := codec.Decode(msg); err == nil {
				direct.add(m.(*catalogpb.CompressedImage).Header.GetStamp())
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}

	measureCPU := func() float64 {
		t0, c0 := time.Now(), cpuTicks(agent.Process.Pid)
		time.Sleep(window)
		return float64(cpuTicks(agent.Process.Pid)-c0) / 100 / time.Since(t0).Seconds() * 100
	}
	time.Sleep(2 * time.Second) // the agent settles
	idle := measureCPU()
	direct.take()
	b.Logf("agent idle (robot online, nobody reading): %.1f %% CPU", idle)

	for _, viewers := range []int{1, 20} {
		ctx, cancel := context.WithCancel(context.Background())
		var w3 latencies
		var wg sync.WaitGroup
		counts := make([]int, viewers)
		var counting sync.Mutex
		start := make(chan struct{})
		for i := range viewers {
			c, _, err := websocket.Dial(ctx, wsURL(robot, "streamName=/camera/image/compressed&source=2"),
				&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
			if err != nil {
				b.Fatal(err)
			}
			c.SetReadLimit(16 << 20)
			wg.Go(func() {
				defer c.CloseNow()
				counted := false
				for {
					_, data, err := c.Read(ctx)
					if err != nil {
						return
					}
					select {
					case <-start:
						counted = true
					default:
					}
					if !counted {
						continue
					}
					var env streampb.MessageStream
					var img catalogpb.CompressedImage
					if proto.Unmarshal(data, &env) == nil && proto.Unmarshal(env.Data, &img) == nil {
						w3.add(img.Header.GetStamp())
						counting.Lock()
						counts[i]++
						counting.Unlock()
					}
				}
			})
		}
		time.Sleep(2 * time.Second) // warm up: subscriptions made, first frames through
		direct.take()
		close(start)
		cpu := measureCPU()
		dl, wl := direct.take(), w3.take()
		cancel()
		wg.Wait()
		counting.Lock()
		rates := make([]float64, viewers)
		for i, n := range counts {
			rates[i] = float64(n) / window.Seconds()
		}
		counting.Unlock()
		slices.Sort(rates)
		directRate := float64(len(dl)) / window.Seconds()
		ratio := float64(quantile(wl, 0.5)) / float64(quantile(dl, 0.5))
		perViewer := (cpu - idle) / float64(viewers)
		b.Logf("%2d viewers: rate per viewer min %.1f median %.1f /s (direct %.1f /s); latency W3 p50 %v p95 %v, direct p50 %v p95 %v, ratio p50 %.2f; agent CPU %.1f %% (%.2f %% per viewer above idle)",
			viewers, rates[0], rates[len(rates)/2], directRate,
			quantile(wl, 0.5).Round(10*time.Microsecond), quantile(wl, 0.95).Round(10*time.Microsecond),
			quantile(dl, 0.5).Round(10*time.Microsecond), quantile(dl, 0.95).Round(10*time.Microsecond), ratio, cpu, perViewer)
		b.ReportMetric(rates[0], fmt.Sprintf("fps_min_%dv", viewers))
		b.ReportMetric(ratio, fmt.Sprintf("latency_ratio_%dv", viewers))
		b.ReportMetric(perViewer, fmt.Sprintf("cpu%%_per_viewer_%dv", viewers))
	}
}

func benchLogin(b *testing.B, base string) string {
	resp, err := http.Post(base+"/apigateway/v2/auth/login", "application/json", strings.NewReader(`{"userToken":"`+testToken+`"}`))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := decodeJSON(resp.Body, &out); err != nil {
		b.Fatal(err)
	}
	return strings.TrimPrefix(out.Token, "bearer ")
}

func decodeJSON(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
