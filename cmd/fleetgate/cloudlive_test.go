//go:build unix

package main

// The cloud live view, run with real processes: fleetgate serve and fleetgate agent --sim 2
// linked through a TCP proxy of the test's own, which counts the bytes the agent sends and can
// throttle them. W3 on the cloud: camera frames at the source rate, one copy on the link for 20
// viewers, fresh frames on a 1 MB/s uplink with heartbeats and REST answers flowing; teleop from
// the cloud governed by the agent (409 both ways, the deadman, kill -9 of the cloud or the
// agent). Figures are logged with t.Logf (go test -v).

import (
	"bytes"
	"context"
	"encoding/json"
	"image/jpeg"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

func TestCloudLive(t *testing.T) {
	cloudDir := t.TempDir()
	// The cloud runs without ffmpeg: it relays the agent's H.264, which the agent's ffmpeg
	// encodes, and offers it by the agent's word (a cloud host needs no video tools).
	cloud := startLogged(t, "cloud", []string{"PATH=" + t.TempDir()}, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	proxy := startProxy(t, strings.TrimPrefix(cloud.URL, "http://"))
	key := addAgent(t, cloudDir, "live")
	agentArgs := []string{"agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "2", "--cloud", "http://" + proxy.addr()}
	agent := startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + key}, agentArgs...)
	robots := localRobots(t, agent.URL, 2)
	bearer := login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "the agent's robots online on the cloud", func() bool {
		return robotsOnline(cloud.URL, bearer, robots, true)
	})
	twist := twistRobot(t, agent.URL, robots)
	camera := "componentName=camera&streamName=image&source=1"

	t.Run("camera frames over the cloud's W3 at the source rate, decodable", func(t *testing.T) {
		// A cloud and a local viewer at once: the same frames under the same load.
		conn := dialW3(t, cloud.URL, bearer, twist, camera)
		defer conn.CloseNow()
		local := dialW3(t, agent.URL, login(t, agent.URL, testToken), twist, camera)
		defer local.CloseNow()
		var localFrames atomic.Int64
		go func() {
			for {
				if _, _, err := local.Read(context.Background()); err != nil {
					return
				}
				localFrames.Add(1)
			}
		}()
		readEnvelope(t, conn)
		start, fromLocal := time.Now(), localFrames.Load()
		for range 30 {
			env := readEnvelope(t, conn)
			var img catalogpb.CompressedImage
			if err := proto.Unmarshal(env.GetData(), &img); err != nil {
				t.Fatal(err)
			}
			if _, err := jpeg.Decode(bytes.NewReader(img.GetData())); err != nil {
				t.Fatalf("frame is not a JPEG: %v", err)
			}
		}
		took := time.Since(start).Seconds()
		fps, localFPS := 30/took, float64(localFrames.Load()-fromLocal)/took
		t.Logf("camera: %.1f fps through the cloud, %.1f fps on the local gateway over the same %.1f s", fps, localFPS, took)
		if fps < localFPS*0.8 {
			t.Errorf("%.1f fps through the cloud, %.1f locally: want the source rate", fps, localFPS)
		}
	})

	t.Run("H.264 through the cloud: the agent's access units, decodable, its sequence kept", func(t *testing.T) {
		var listed struct {
			RobotStreams []struct {
				ComponentName, StreamName string
				Codecs                    []string
			}
		}
		if code := getJSON(cloud.URL+"/apigateway/v2/robots/"+twist+"/streams", bearer, &listed); code != 200 {
			t.Fatalf("endpoint 6 on the cloud: %d", code)
		}
		codecs := "not listed"
		for _, s := range listed.RobotStreams {
			if s.ComponentName == "camera" && s.StreamName == "image" {
				codecs = strings.Join(s.Codecs, ",")
			}
		}
		if codecs != "jpeg,h264" {
			t.Errorf("the cloud (no ffmpeg) lists the agent's camera in %q, want the agent's jpeg,h264", codecs)
		}
		h264ThroughCloud(t, cloud.URL, agent.URL, bearer, login(t, agent.URL, testToken), twist, camera)
	})

	t.Run("20 cloud viewers cost one copy on the link", func(t *testing.T) {
		one := proxy.bytesWhile(t, 3*time.Second, func(ctx context.Context) { watch(ctx, t, cloud.URL, bearer, twist, camera, 1) })
		twenty := proxy.bytesWhile(t, 3*time.Second, func(ctx context.Context) { watch(ctx, t, cloud.URL, bearer, twist, camera, 20) })
		ratio := float64(twenty) / float64(one)
		t.Logf("agent to cloud in 3 s of camera: %d bytes for 1 viewer, %d for 20 (ratio %.2f)", one, twenty, ratio)
		if ratio > 1.1 {
			t.Errorf("20 viewers cost %.2fx the bytes of one on the link; want at most 1.1x", ratio)
		}
	})

	t.Run("teleop from the cloud moves the robot; the deadman stops it", func(t *testing.T) {
		conn := dialW3(t, cloud.URL, bearer, twist, "componentName=base&streamName=cmd_vel&direction=input&format=json")
		defer conn.CloseNow()
		go drain(conn)
		took := turnUntilDeadman(t, conn, agent.URL, twist, 3*time.Second)
		t.Logf("deadman through the cloud: robot still %v after the last command", took.Round(time.Millisecond))
	})

	t.Run("one controller across the cloud and the local gateway: 409 both ways", func(t *testing.T) {
		input := "componentName=base&streamName=cmd_vel&direction=input&format=json"
		local := login(t, agent.URL, testToken)
		cloudCtl := dialW3(t, cloud.URL, bearer, twist, input)
		go drain(cloudCtl)
		if status, body := refusedW3(t, agent.URL, local, twist, input); status != 409 || !strings.Contains(body, "admin@localhost") {
			t.Errorf("local upgrade while the cloud drives: %d %s; want 409 naming the owner", status, body)
		}
		cloudCtl.Close(websocket.StatusNormalClosure, "")
		waitFor(t, 5*time.Second, "the stream free again", func() bool { return controlsHeld(t, cloud.URL, bearer, twist) == 0 })
		localCtl := dialW3(t, agent.URL, local, twist, input)
		go drain(localCtl)
		if status, body := refusedW3(t, cloud.URL, bearer, twist, input); status != 409 || !strings.Contains(body, "admin@localhost") {
			t.Errorf("cloud upgrade while a local operator drives: %d %s; want 409 naming the owner", status, body)
		}
		if n := controlsHeld(t, cloud.URL, bearer, twist); n != 1 {
			t.Errorf("the cloud's /controls lists %d holders, want the local one", n)
		}
		localCtl.Close(websocket.StatusNormalClosure, "")
		waitFor(t, 5*time.Second, "the stream free again", func() bool { return controlsHeld(t, agent.URL, local, twist) == 0 })
	})

	t.Run("a 1 MB/s uplink: heartbeats and REST answers flow, frames stay fresh", func(t *testing.T) {
		proxy.throttle(1 << 20)
		defer proxy.throttle(0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Enough to fill the uplink: both robots' whole point clouds and cameras.
		for _, r := range robots {
			go watch(ctx, t, cloud.URL, bearer, r, "componentName=depth&streamName=points&source=1&withoutDownSampling=true", 2)
			go watch(ctx, t, cloud.URL, bearer, r, camera, 1)
		}
		conn := dialW3(t, cloud.URL, bearer, twist, camera)
		defer conn.CloseNow()
		var ages, reads []time.Duration
		end := time.Now().Add(8 * time.Second)
		nextRead := time.Now()
		for time.Now().Before(end) {
			env := readEnvelope(t, conn)
			pt := env.GetPublishTime()
			ages = append(ages, time.Since(time.Unix(int64(pt.GetSec()), int64(pt.GetNanosec()))))
			if time.Now().After(nextRead) {
				start := time.Now()
				status := getJSON(cloud.URL+"/apigateway/v2/robots/"+twist+"/stream?componentName=base&streamName=pose&source=1&streamType=Platform.Messages.geometry_msgs.PoseStamped", bearer, nil)
				reads = append(reads, time.Since(start))
				if status != 200 {
					t.Errorf("a REST read through the throttled link: %d", status)
				}
				nextRead = time.Now().Add(500 * time.Millisecond)
			}
		}
		sent := proxy.sent.Load()
		p50, p99 := percentile(ages, 50), percentile(ages, 99)
		t.Logf("1 MB/s uplink: %d camera frames, age p50 %v p99 %v; REST reads p50 %v max %v; %d bytes sent so far",
			len(ages), p50.Round(time.Millisecond), p99.Round(time.Millisecond), percentile(reads, 50).Round(time.Millisecond), slices.Max(reads).Round(time.Millisecond), sent)
		// What this guards against is frames queueing behind a slow uplink (seconds, before
		// latest wins), not a speed: 1 MB/s carries a frame in 30 ms, so a p99 over 1.5 s is a
		// queue whatever else the machine is doing (on a shared machine p99 moved between
		// 250 and 970 ms from run to run; make bench-uplink has the figures).
		if p99 > 1500*time.Millisecond {
			t.Errorf("camera frame age p99 %v on a 1 MB/s uplink: frames queue; want at most 1.5 s", p99)
		}
		if !robotsOnline(cloud.URL, bearer, robots, true) {
			t.Error("the robots went offline on a throttled uplink: heartbeats starved")
		}
	})

	t.Run("the map, published once when the agent started, reaches viewers joining late", func(t *testing.T) {
		// After the throttled uplink's subtest, not before: its frame ages are measured on a
		// link that carried nothing else of late. Two cloud viewers at once (the second joins the cloud's copy of the stream, which
		// holds the map already) and one on the agent: each gets the map as its first frame,
		// its publish time saying how old it is.
		for _, v := range []struct{ where, base, bearer string }{
			{"the cloud", cloud.URL, bearer}, {"the cloud, a second viewer", cloud.URL, bearer}, {"the agent", agent.URL, login(t, agent.URL, testToken)},
		} {
			conn := dialW3(t, v.base, v.bearer, twist, "componentName=map&streamName=map&source=1")
			defer conn.CloseNow()
			env := readEnvelope(t, conn)
			published := time.Unix(int64(env.GetPublishTime().GetSec()), int64(env.GetPublishTime().GetNanosec()))
			if env.GetDataType() != "Platform.Messages.nav_msgs.OccupancyGrid" {
				t.Errorf("%s: the first frame is a %s", v.where, env.GetDataType())
			}
			// The premise: a sample this old is never handed to a new viewer of a periodic stream.
			if age := time.Since(published); age <= time.Second {
				t.Fatalf("%s: the map is only %v old; the test needs it older than the freshness window", v.where, age)
			}
		}
	})

	t.Run("kill -9 of the agent: cloud viewers get 1001 within the heartbeat bound", func(t *testing.T) {
		conn := dialW3(t, cloud.URL, bearer, twist, camera)
		defer conn.CloseNow()
		readEnvelope(t, conn)
		agent.signal(t, syscall.SIGKILL)
		killed := time.Now()
		code := closeCodeOf(conn)
		t.Logf("kill -9 of the agent: the cloud viewer's socket closed %d after %v", code, time.Since(killed).Round(time.Millisecond))
		if code != websocket.StatusGoingAway || time.Since(killed) > offlineWithin {
			t.Errorf("close %d after %v; want 1001 within %v", code, time.Since(killed), offlineWithin)
		}
	})

	agent = startLogged(t, "agent-restarted", []string{"FLEETGATE_AGENT_KEY=" + key}, agentArgs...)
	waitFor(t, 15*time.Second, "the robots online again", func() bool { return robotsOnline(cloud.URL, bearer, robots, true) })

	t.Run("kill -9 of the cloud while a cloud operator drives: the agent zeroes the robot", func(t *testing.T) {
		conn := dialW3(t, cloud.URL, bearer, twist, "componentName=base&streamName=cmd_vel&direction=input&format=json")
		go drain(conn)
		local := login(t, agent.URL, testToken)
		stop := make(chan struct{})
		var driving sync.WaitGroup
		driving.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				conn.Write(context.Background(), websocket.MessageText, []byte(`{"angular":{"z":1}}`))
			}
		})
		waitFor(t, 5*time.Second, "the robot turning on the cloud's commands", func() bool { return odom(t, agent.URL, local, twist).w > 0.9 })
		cloud.signal(t, syscall.SIGKILL)
		took := waitFor(t, 3*time.Second, "the robot stopped after the cloud died", func() bool {
			return math.Abs(odom(t, agent.URL, local, twist).w) < 0.01
		})
		close(stop)
		driving.Wait()
		t.Logf("kill -9 of the cloud while driving: the robot stood still %v after the signal (zero published, then the robot's braking)", took.Round(time.Millisecond))
		if took > 700*time.Millisecond {
			t.Errorf("stopped %v after the cloud died; want within 700 ms", took)
		}
	})
}

// twistRobot is the robot of ids whose input is a Twist (it turns in place: no wall stops it).
func twistRobot(t testing.TB, base string, ids []string) string {
	t.Helper()
	bearer := login(t, base, testToken)
	for _, id := range ids {
		var list struct {
			RobotStreams []struct{ StreamName, StreamType string }
		}
		api(t, "GET", base+"/apigateway/v2/robots/"+id+"/streams", bearer, &list)
		for _, s := range list.RobotStreams {
			if s.StreamName == "cmd_vel" && strings.HasSuffix(s.StreamType, ".Twist") {
				return id
			}
		}
	}
	t.Fatal("no robot takes a Twist")
	return ""
}

func w3URL(base, robot, query string) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/apigateway/v2/robots/" + robot + "/streams/connect?" + query
}

func dialW3(t testing.TB, base, bearer, robot, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, w3URL(base, robot, query), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("W3 %s %s: %d %v", base, query, status, err)
	}
	conn.SetReadLimit(64 << 20)
	return conn
}

// refusedW3 is a W3 upgrade expected to be refused: its status and body.
func refusedW3(t *testing.T, base, bearer, robot, query string) (int, string) {
	t.Helper()
	conn, resp, err := websocket.Dial(context.Background(), w3URL(base, robot, query), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
	if err == nil {
		conn.CloseNow()
		return 101, ""
	}
	if resp == nil {
		t.Fatalf("W3 %s: %v", base, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func readEnvelope(t testing.TB, conn *websocket.Conn) *streampb.MessageStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, data, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	var env streampb.MessageStream
	if err := proto.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	return &env
}

func send(t testing.TB, conn *websocket.Conn, msg string) {
	t.Helper()
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatalf("sending a command: %v", err)
	}
}

// drain reads an input socket (its pings and close) until it ends.
func drain(conn *websocket.Conn) {
	for {
		if _, _, err := conn.Read(context.Background()); err != nil {
			return
		}
	}
}

// watch runs n viewers of a stream until ctx ends.
func watch(ctx context.Context, t *testing.T, base, bearer, robot, query string, n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			conn, _, err := websocket.Dial(ctx, w3URL(base, robot, query), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
			if err != nil {
				return
			}
			defer conn.CloseNow()
			conn.SetReadLimit(64 << 20)
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
}

func closeCodeOf(conn *websocket.Conn) websocket.StatusCode {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, _, err := conn.Read(ctx)
		if err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

type twistState struct{ w float64 }

// odom is the robot's turn rate from its odometry on the gateway at base.
func odom(t testing.TB, base, bearer, robot string) twistState {
	t.Helper()
	var read struct{ RobotStream string }
	if s := getJSON(base+"/apigateway/v2/robots/"+robot+"/stream?componentName=base&streamName=odom&source=1&streamType=Platform.Messages.nav_msgs.Odometry", bearer, &read); s != 200 {
		return twistState{w: math.NaN()}
	}
	var o struct {
		Twist struct {
			Twist struct{ Angular struct{ Z float64 } }
		}
	}
	if err := json.Unmarshal([]byte(read.RobotStream), &o); err != nil {
		t.Fatal(err)
	}
	return twistState{w: o.Twist.Twist.Angular.Z}
}

func controlsHeld(t *testing.T, base, bearer, robot string) int {
	var c struct{ Controls []struct{ Owner string } }
	if s := getJSON(base+"/apigateway/v2/robots/"+robot+"/controls", bearer, &c); s != 200 {
		return -1
	}
	return len(c.Controls)
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// linkProxy stands between the agent and the cloud: it counts the bytes the agent sends and,
// when told, throttles them to a rate shared by all of the agent's connections (as one uplink).
type linkProxy struct {
	ln   net.Listener
	sent atomic.Int64
	rate atomic.Int64 // bytes per second; 0: no throttle

	mu     sync.Mutex
	tokens float64
	at     time.Time
	conns  map[net.Conn]struct{} // both ends of every connection through it
}

func startProxy(t testing.TB, target string) *linkProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &linkProxy{ln: ln, at: time.Now(), conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c, target)
		}
	}()
	return p
}

func (p *linkProxy) addr() string { return p.ln.Addr().String() }

func (p *linkProxy) serve(c net.Conn, target string) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	p.mu.Lock()
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		delete(p.conns, up)
		p.mu.Unlock()
	}()
	go func() { io.Copy(c, up); c.Close() }()
	buf := make([]byte, 16<<10) // small reads: the proxy itself must not hold much
	for {
		n, err := c.Read(buf)
		if n > 0 {
			p.wait(n)
			p.sent.Add(int64(n))
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// wait holds n bytes until the shared rate allows them.
func (p *linkProxy) wait(n int) {
	rate := float64(p.rate.Load())
	if rate == 0 {
		return
	}
	p.mu.Lock()
	now := time.Now()
	p.tokens = min(rate/10, p.tokens+now.Sub(p.at).Seconds()*rate) // a 100 ms burst at most
	p.at = now
	p.tokens -= float64(n)
	wait := time.Duration(-p.tokens / rate * float64(time.Second))
	p.mu.Unlock()
	if wait > 0 {
		time.Sleep(wait)
	}
}

// cut closes every connection through the proxy, both ends: the agent's link and live
// connection end as a broken network ends them (the agent reconnects).
func (p *linkProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *linkProxy) throttle(bytesPerSecond int64) {
	p.mu.Lock()
	p.tokens, p.at = 0, time.Now()
	p.mu.Unlock()
	p.rate.Store(bytesPerSecond)
}

// bytesWhile is what the agent sent during d while watchers (started by f, which returns when
// its context ends) had been watching for a second already.
func (p *linkProxy) bytesWhile(t *testing.T, d time.Duration, f func(ctx context.Context)) int64 {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f(ctx) }()
	time.Sleep(time.Second)
	before := p.sent.Load()
	time.Sleep(d)
	n := p.sent.Load() - before
	cancel()
	<-done
	if n <= 0 {
		t.Fatal("nothing went through the proxy")
	}
	return n
}

// turnUntilDeadman drives robot (hosted by the agent at agentURL) through conn, an input W3
// socket of its cmd_vel, until it turns (within turnWithin), then stops sending: the agent's
// deadman must stop it, and not before 450 ms. It returns how long the robot took to stand
// still after the last command.
func turnUntilDeadman(t *testing.T, conn *websocket.Conn, agentURL, robot string, turnWithin time.Duration) time.Duration {
	t.Helper()
	local := login(t, agentURL, testToken)
	deadline := time.Now().Add(turnWithin)
	for odom(t, agentURL, local, robot).w < 0.5 {
		if time.Now().After(deadline) {
			t.Fatal("the robot did not turn on the commands")
		}
		send(t, conn, `{"angular":{"z":1}}`)
		time.Sleep(100 * time.Millisecond)
	}
	send(t, conn, `{"angular":{"z":1}}`)
	last := time.Now()
	took := waitFor(t, 3*time.Second, "the robot stopped by the agent's deadman", func() bool {
		return math.Abs(odom(t, agentURL, local, robot).w) < 0.01
	})
	if since := time.Since(last); since < 450*time.Millisecond {
		t.Errorf("stopped %v after the last command: the deadman fired early", since)
	}
	return took
}
