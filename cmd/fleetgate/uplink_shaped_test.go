//go:build linux

package main

// A robot site behind a real, slow uplink: fleetgate agent --sim 1 in a network namespace of
// its own, fleetgate serve in another, and between them the user-space shaped link of
// internal/netshape (this kernel has no sch_netem). The test's clients make their sockets in
// the cloud's namespace (netshape.Link.Dialer) and watch and drive sim-1 through the cloud,
// as an operator does, while the agent's log grows with local requests.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/clockstrip"
	"github.com/fleetgate/fleetgate/internal/netshape"
	"github.com/fleetgate/fleetgate/internal/video/videotest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// uplinkProfile is a site's uplink, both directions alike (the delay is one way: the round
// trip is twice it).
type uplinkProfile struct {
	name    string
	rate    int64 // bits a second; 0: unshaped
	oneWay  time.Duration
	loss    float64
	profile netshape.Profile
}

func newUplinkProfile(name string, rate int64, rtt time.Duration, loss float64) uplinkProfile {
	return uplinkProfile{name: name, rate: rate, oneWay: rtt / 2, loss: loss,
		profile: netshape.Profile{Rate: rate, Delay: rtt / 2, Loss: loss}}
}

// shapedSite is a cloud and an agent with one simulated robot, on either side of a link.
type shapedSite struct {
	link         *netshape.Link
	cloud, agent *loggedProcess
	cloudURL     string       // inside the cloud's namespace
	cloudDir     string       // the cloud's data directory (its archive: archived)
	agentURL     string       // inside the site's namespace
	cloudHTTP    *http.Client // sockets in the cloud's namespace
	siteHTTP     *http.Client // sockets in the site's namespace
	bearer       string       // the cloud's
	localBearer  string
	robot        string            // sim-1
	robots       map[string]string // online on the cloud: name to id
}

// startShapedSite starts the two processes across a link of profile p; agentArgs are added
// to the agent's.
func startShapedSite(t testing.TB, p netshape.Profile, agentArgs ...string) *shapedSite {
	t.Helper()
	return startShapedSiteWith(t, p, nil, agentArgs...)
}

// startShapedSiteWith is startShapedSite with prepare run on the link before the processes
// start (a peer the agent needs in the site's namespace).
func startShapedSiteWith(t testing.TB, p netshape.Profile, prepare func(*netshape.Link), agentArgs ...string) *shapedSite {
	t.Helper()
	if err := netshape.Available(); err != nil {
		t.Skipf("NOT POSSIBLE HERE: %v (the test command runs as root, where it runs)", err)
	}
	l, err := netshape.Open(netshape.Config{Up: p, Down: p, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs last: the processes in the namespaces are stopped first.
	t.Cleanup(func() { l.Close() })
	if prepare != nil {
		prepare(l)
	}
	s := &shapedSite{link: l}
	s.cloudHTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: l.Dialer(l.Cloud)}}
	s.siteHTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: l.Dialer(l.Site)}}
	cloudDir := t.TempDir()
	listen := net.JoinHostPort(l.CloudAddr.String(), "18080")
	s.cloud = startLoggedIn(t, l, l.Cloud, "cloud", nil, "serve", "--data", cloudDir, "--listen", listen, "--admin-token", testToken,
		"--metrics-listen", net.JoinHostPort(l.CloudAddr.String(), "19090"))
	s.cloudURL, s.cloudDir = s.cloud.URL, cloudDir
	key := addAgent(t, cloudDir, "site")
	// The agent's log is 2 MB already, as a site's is after some days: its upload is the bulk
	// transfer that starved everything else (issue 31).
	agentDir := t.TempDir()
	line := []byte(`time=2026-11-27T12:00:00.000Z level=INFO msg=request method=GET route=/apigateway/v2/robots status=200 user=ops@site` + "\n")
	if err := os.WriteFile(filepath.Join(agentDir, "fleetgate.log"), bytes.Repeat(line, 2_000_000/len(line)), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"agent", "--data", agentDir, "--listen", "127.0.0.1:19992", "--admin-token", testToken,
		"--sim", "1", "--cloud", "http://" + listen, "--agent-key", key}, agentArgs...)
	s.agent = startLoggedIn(t, l, l.Site, "agent", nil, args...)
	s.agentURL = s.agent.URL
	s.bearer = s.login(t, s.cloudHTTP, s.cloudURL)
	s.localBearer = s.login(t, s.siteHTTP, s.agentURL)
	s.waitRobots(t, 1)
	s.robot = s.robots["sim-1"]
	return s
}

// waitRobots waits until n robots are online on the cloud, sim-1 among them.
func (s *shapedSite) waitRobots(t testing.TB, n int) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("%d robots online on the cloud, across the shaped link", n), func() bool {
		var list struct {
			RobotDataList []struct {
				BasicData struct{ ID, Name string }
				IsOnline  bool
			}
		}
		if s.getJSON(s.cloudHTTP, s.cloudURL+"/apigateway/v2/robots", s.bearer, &list) != 200 {
			return false
		}
		s.robots = map[string]string{}
		for _, r := range list.RobotDataList {
			if r.IsOnline {
				s.robots[r.BasicData.Name] = r.BasicData.ID
			}
		}
		return len(s.robots) >= n && s.robots["sim-1"] != ""
	})
}

func (s *shapedSite) login(t testing.TB, c *http.Client, base string) string {
	t.Helper()
	var out struct{ Token string }
	var status int
	waitFor(t, 20*time.Second, "a login at "+base, func() bool {
		resp, err := c.Post(base+"/apigateway/v2/auth/login", "application/json", strings.NewReader(`{"userToken":"`+testToken+`"}`))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		status = resp.StatusCode
		return status == 200 && json.NewDecoder(resp.Body).Decode(&out) == nil
	})
	bearer, ok := strings.CutPrefix(out.Token, "bearer ")
	if !ok {
		t.Fatalf("login at %s: %d %q", base, status, out.Token)
	}
	return bearer
}

func (s *shapedSite) getJSON(c *http.Client, url, bearer string, out any) int {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "bearer "+bearer)
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == 200 {
		if json.NewDecoder(resp.Body).Decode(out) != nil {
			return 0
		}
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	return resp.StatusCode
}

// dialCloudW3 opens a W3 socket on the cloud for robot.
func (s *shapedSite) dialCloudW3(ctx context.Context, robot, query string) (*websocket.Conn, error) {
	conn, resp, err := websocket.Dial(ctx, w3URL(s.cloudURL, robot, query), &websocket.DialOptions{
		HTTPClient: s.cloudHTTP, HTTPHeader: http.Header{"Authorization": {"bearer " + s.bearer}}})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("%d: %w", resp.StatusCode, err)
		}
		return nil, err
	}
	conn.SetReadLimit(64 << 20)
	return conn, nil
}

// startLoggedIn is startLogged with the process in namespace ns of l.
func startLoggedIn(t testing.TB, l *netshape.Link, ns, name string, env []string, args ...string) *loggedProcess {
	t.Helper()
	return startLoggedCmd(t, name, l.Command(ns, binary, args...), env)
}

// uplinkFigures is what one run through a profile saw.
type uplinkFigures struct {
	frames       int             // pictures, all cameras together
	cameras      int             // cameras watched
	fps          float64         // pictures a second per camera
	minFPS       float64         // the slowest camera's
	first, last  time.Duration   // the first and the last picture, from the viewer's dial
	skipped      uint64          // pictures the viewer never got: the gaps in sequence
	gaps         int             // how many gaps they were in
	age          []time.Duration // camera: receive less publish
	glass        []time.Duration // camera: receive less the capture time burned into the picture (--sim-clock-strip)
	glassUnread  int             // pictures whose burned time did not read
	react        []time.Duration // a command's send to the first odometry showing it, at the operator
	opens        []time.Duration // a teleop socket's open through the cloud
	openFailures []string
	viewerClose  string // how a viewer ended, when it did before the run's end
	upBytes      int64  // the uplink's bytes (site to cloud) during the run
	cameraBytes  int64  // the camera messages' bytes the viewers received, all cameras together
	took         time.Duration
}

// measure watches sim-1's camera (JPEG) and odometry through the cloud for d while an operator
// drives it through the cloud (every 2 s taking control and turning the other way, to see the
// robot react), and the agent's log grows with local requests.
func (s *shapedSite) measure(t testing.TB, d time.Duration) uplinkFigures {
	t.Helper()
	return s.measureCodec(t, d, "")
}

// cameraView is a camera a viewer watches through the cloud: its robot's id, its W3 query and
// the codec asked ("" or "jpeg": the contract's CompressedImage; "h264": CompressedVideo, one
// access unit a picture); strip: the camera burns its capture time into its pictures (a
// simulated robot's with --sim-clock-strip).
type cameraView struct {
	robot, query, codec string
	strip               bool
}

// simCamera is a simulated robot's camera.
const simCamera = "componentName=camera&streamName=image&source=1"

// measureCodec is measure with the camera viewer asking W3 for codec.
func (s *shapedSite) measureCodec(t testing.TB, d time.Duration, codec string) uplinkFigures {
	t.Helper()
	return s.measureCameras(t, d, []cameraView{{robot: s.robot, query: simCamera, codec: codec}})
}

// received is a picture as a viewer got it, read after the run (decoding is not the
// viewer's work here, and it would take the cores the processes measured need).
type received struct {
	at   time.Time
	data []byte // JPEG, or an H.264 access unit
}

// measureCameras watches cams through the cloud for d while the operator drives sim-1 and the
// log grows (measure). A picture's age is the cloud's clock less its envelope's publish time,
// the agent's capture time on either path (agent and cloud share this machine's clock); where
// the camera burns its capture time into the picture (--sim-clock-strip), its glass age is the
// time it was received less the time read from the decoded picture.
func (s *shapedSite) measureCameras(t testing.TB, d time.Duration, cams []cameraView) uplinkFigures {
	t.Helper()
	f := uplinkFigures{cameras: len(cams)}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	upBefore, _ := s.link.Stats()
	var wg sync.WaitGroup
	var mu sync.Mutex

	// The agent's log grows: a local request every 50 ms, as a site's own tools make.
	wg.Go(func() {
		for ctx.Err() == nil {
			s.getJSON(s.siteHTTP, s.agentURL+"/apigateway/v2/robots", s.localBearer, nil)
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	})

	// The camera viewers.
	start := time.Now()
	pictures := make([][]received, len(cams))
	counts := make([]int, len(cams))
	for i, cam := range cams {
		query, pictureType := cam.query, ""
		if cam.codec != "" {
			query += "&codec=" + cam.codec
		}
		if cam.codec == "h264" {
			pictureType = "Platform.Messages.foxglove_msgs.CompressedVideo"
		}
		camera, err := s.dialCloudW3(ctx, cam.robot, query)
		if err != nil {
			t.Fatalf("the cloud camera viewer of %s: %v", query, err)
		}
		defer camera.CloseNow()
		wg.Go(func() {
			var lastSeq uint64
			for {
				_, data, err := camera.Read(ctx)
				if err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						f.viewerClose = fmt.Sprintf("camera viewer ended %d %v", websocket.CloseStatus(err), err)
						mu.Unlock()
					}
					return
				}
				now := time.Now()
				var env streampb.MessageStream
				if proto.Unmarshal(data, &env) != nil || (pictureType != "" && env.GetDataType() != pictureType) {
					continue
				}
				pt := env.GetPublishTime()
				mu.Lock()
				if f.frames == 0 {
					f.first = now.Sub(start)
				}
				if seq := env.GetSequence(); counts[i] > 0 && seq > lastSeq+1 {
					f.skipped += seq - lastSeq - 1
					f.gaps++
				}
				lastSeq = env.GetSequence()
				f.last = now.Sub(start)
				f.frames++
				f.cameraBytes += int64(len(data))
				counts[i]++
				f.age = append(f.age, now.Sub(time.Unix(int64(pt.GetSec()), int64(pt.GetNanosec()))))
				pictures[i] = append(pictures[i], received{now, env.GetData()})
				mu.Unlock()
			}
		})
	}

	// The operator: drives through the cloud and watches the odometry through the cloud.
	odomConn, err := s.dialCloudW3(ctx, s.robot, "componentName=base&streamName=odom&source=1")
	if err != nil {
		t.Fatalf("the cloud odometry viewer: %v", err)
	}
	defer odomConn.CloseNow()
	var turning atomic.Int64 // the sign the operator last asked for (+1, -1), 0 before
	var asked atomic.Int64   // when, in UnixNano
	var lastW atomic.Uint64  // the newest odometry's angular speed (math.Float64bits)
	var atAsk atomic.Uint64  // the angular speed shown when the operator asked
	wg.Go(func() {
		var seen int64
		for {
			_, data, err := odomConn.Read(ctx)
			if err != nil {
				return
			}
			var env streampb.MessageStream
			var o catalogpb.Odometry
			if proto.Unmarshal(data, &env) != nil || proto.Unmarshal(env.GetData(), &o) != nil {
				continue
			}
			w := o.GetTwist().GetTwist().GetAngular().GetZ()
			lastW.Store(math.Float64bits(w))
			want := turning.Load()
			// The first odometry that shows the robot turning towards the new command, by
			// more than noise, from what was shown when the operator asked.
			if want != 0 && want != seen && (w-math.Float64frombits(atAsk.Load()))*float64(want) > 0.05 {
				seen = want
				mu.Lock()
				f.react = append(f.react, time.Since(time.Unix(0, asked.Load())))
				mu.Unlock()
			}
		}
	})
	// Each 2 s the operator takes control through the cloud (the open is timed), turns the
	// other way for the rest of the 2 s, a command every 100 ms, and lets go.
	wg.Go(func() {
		sign := int64(1)
		for ctx.Err() == nil {
			openStart := time.Now()
			octx, ocancel := context.WithTimeout(ctx, 5*time.Second)
			driver, resp, err := websocket.Dial(octx, w3URL(s.cloudURL, s.robot, "componentName=base&streamName=cmd_vel&direction=input&format=json"),
				&websocket.DialOptions{HTTPClient: s.cloudHTTP, HTTPHeader: http.Header{"Authorization": {"bearer " + s.bearer}}})
			ocancel()
			took := time.Since(openStart)
			if err != nil {
				if ctx.Err() == nil {
					status := 0
					if resp != nil {
						status = resp.StatusCode
					}
					mu.Lock()
					f.openFailures = append(f.openFailures, fmt.Sprintf("%d after %v: %v", status, took.Round(time.Millisecond), err))
					mu.Unlock()
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				continue
			}
			mu.Lock()
			f.opens = append(f.opens, took)
			mu.Unlock()
			go driver.CloseRead(ctx) // its pings answered
			sign = -sign
			atAsk.Store(lastW.Load())
			asked.Store(time.Now().UnixNano())
			turning.Store(sign)
			msg := []byte(fmt.Sprintf(`{"angular":{"z":%d}}`, sign))
			for end := openStart.Add(2 * time.Second); time.Now().Before(end) && ctx.Err() == nil; {
				if driver.Write(ctx, websocket.MessageText, msg) != nil {
					break
				}
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
			driver.Close(websocket.StatusNormalClosure, "")
		}
	})
	<-ctx.Done()
	wg.Wait()
	upAfter, _ := s.link.Stats()
	f.took = time.Since(start)
	f.fps = float64(f.frames) / float64(len(cams)) / f.took.Seconds()
	f.minFPS = f.fps
	for _, n := range counts {
		f.minFPS = min(f.minFPS, float64(n)/f.took.Seconds())
	}
	f.upBytes = upAfter.Bytes - upBefore.Bytes
	for i, cam := range cams {
		if cam.strip {
			f.glass, f.glassUnread = glassAges(t, cam.codec, pictures[i], f.glass, f.glassUnread)
		}
	}
	return f
}

// glassAges appends the glass age of each picture whose capture time reads from the decoded
// picture, and counts those that do not read.
func glassAges(t testing.TB, codec string, pics []received, ages []time.Duration, unread int) ([]time.Duration, int) {
	if len(pics) == 0 {
		return ages, unread
	}
	var decoded []image.Image
	if codec == "h264" {
		units := make([][]byte, len(pics))
		for i, p := range pics {
			var v catalogpb.CompressedVideo
			if proto.Unmarshal(p.data, &v) != nil {
				return ages, unread
			}
			units[i] = v.GetData()
		}
		for _, g := range videotest.DecodeGray(t, units) {
			decoded = append(decoded, g)
		}
		if len(decoded) != len(pics) {
			t.Logf("glass ages: %d pictures decoded of %d access units: not paired", len(decoded), len(pics))
			return ages, unread + len(pics)
		}
	}
	for i, p := range pics {
		img := func() image.Image {
			if codec == "h264" {
				return decoded[i]
			}
			var c catalogpb.CompressedImage
			if proto.Unmarshal(p.data, &c) != nil {
				return nil
			}
			img, err := jpeg.Decode(bytes.NewReader(c.GetData()))
			if err != nil {
				return nil
			}
			return img
		}()
		if img == nil {
			unread++
			continue
		}
		burned, ok := clockstrip.Read(img, p.at)
		if !ok {
			unread++
			continue
		}
		ages = append(ages, p.at.Sub(burned))
	}
	return ages, unread
}

// steadyFPS is the rate from the first picture to the last: fps less the wait for the first
// (an H.264 viewer waits for ffmpeg to start and give its first keyframe).
func (f uplinkFigures) steadyFPS() float64 {
	if f.frames < 2 {
		return 0
	}
	return float64(f.frames-1) / float64(max(f.cameras, 1)) / (f.last - f.first).Seconds()
}

func (f uplinkFigures) String() string {
	return fmt.Sprintf("%d camera(s), %.1f fps each (slowest %.1f; %.1f after the first picture, at %v; %d skipped in %d gaps), picture age p50 %v p99 %v, glass age p50 %v p99 %v (%d unread); operator sees the robot react p50 %v p99 %v (%d); teleop opens p50 %v p99 %v (%d, %d failed); camera %.0f kB/s each; uplink %.2f Mbit/s",
		f.cameras, f.fps, f.minFPS, f.steadyFPS(), f.first.Round(time.Millisecond), f.skipped, f.gaps, percentile(f.age, 50).Round(time.Millisecond), percentile(f.age, 99).Round(time.Millisecond),
		percentile(f.glass, 50).Round(time.Millisecond), percentile(f.glass, 99).Round(time.Millisecond), f.glassUnread,
		percentile(f.react, 50).Round(time.Millisecond), percentile(f.react, 99).Round(time.Millisecond), len(f.react),
		percentile(f.opens, 50).Round(time.Millisecond), percentile(f.opens, 99).Round(time.Millisecond), len(f.opens), len(f.openFailures),
		f.cameraKBps(), f.upMbps())
}

// cameraKBps is the rate of the camera messages the viewers received, in kB a second per
// camera: the pictures' share of the uplink.
func (f uplinkFigures) cameraKBps() float64 {
	return float64(f.cameraBytes) / 1e3 / float64(max(f.cameras, 1)) / max(f.took.Seconds(), 1e-3)
}

// upMbps is the uplink's mean rate during the run, everything the site sent.
func (f uplinkFigures) upMbps() float64 {
	return float64(f.upBytes) * 8 / 1e6 / max(f.took.Seconds(), 1e-3)
}

var uploadedLog = regexp.MustCompile(`msg="resource uploaded".* name=fleetgate.log size=\d+ sent=\d+ took=\S+`)

// TestShapedUplinkKeepsTeleopAndFeedback: on a 2 Mbit/s, 100 ms, 1% loss uplink with a viewer
// of the camera and the agent's 2 MB log growing, every teleop open through the cloud is answered,
// the operator sees the robot react to the commands, no viewer is closed, and the log reaches
// the cloud, and after it a recording made on the agent while the log uploads. (The figures are make
// bench-uplink's; this asserts what must hold, not speed.)
func TestShapedUplinkKeepsTeleopAndFeedback(t *testing.T) {
	p := newUplinkProfile("2Mbit-100ms-1%", 2_000_000, 100*time.Millisecond, 0.01)
	s := startShapedSite(t, p.profile)
	f := s.measure(t, 20*time.Second)
	t.Logf("%s: %v", p.name, f)
	// Then a user at the site records 3 s of the camera and the odometry (small: the camera is
	// recorded as H.264) while the log's first upload, 2 MB, still fills the bulk lane (35 s at
	// this rate beside the JPEG viewer); the recording is archived after it. Made after the
	// window, not in it: its encoder's start is a burst of CPU on this 2-core machine, and
	// the operator's figures with a recording uploading are make bench-uplink's (a CI run
	// with it in the window saw 2 of 8 opens fail).
	recording := s.startRecordingOnSite(t, []string{"camera/image", "base/odom"}, 0, 3*time.Second)
	// At 1% loss a segment's retransmission can outlast the cloud's 1 s for an open (503):
	// one in ten may; before the lanes, nine in ten failed behind the log's upload.
	if len(f.openFailures) > 1 {
		t.Errorf("teleop opens through the cloud failed: %v", f.openFailures)
	}
	if len(f.opens) < 5 {
		t.Errorf("%d teleop opens answered in 20 s, want one every 2 s", len(f.opens))
	}
	if f.viewerClose != "" {
		t.Errorf("%s", f.viewerClose)
	}
	if f.frames == 0 {
		t.Error("no camera frame reached the cloud viewer")
	}
	// Ten turns in 20 s; the governor slows the robot on a late picture, so a turn may
	// not show before the next: half is what proves commands take effect.
	if len(f.react) < 5 {
		t.Errorf("the operator saw the robot react to %d of ~10 turns", len(f.react))
	}
	// The log, grown by the requests, reaches the cloud's archive (in the bulk lane, which
	// the camera leaves a chunk a second at least).
	took := waitFor(t, 90*time.Second, "the agent's log archived on the cloud", func() bool {
		return uploadedLog.MatchString(s.cloud.logs())
	})
	t.Logf("the agent's log archived on the cloud %v after the run: %s", took.Round(time.Second), uploadedLog.FindString(s.cloud.logs()))
	took = waitFor(t, 60*time.Second, "the recording archived on the cloud", func() bool {
		_, whole := s.archived(recording)
		return whole
	})
	t.Logf("the recording archived on the cloud %v after the log", took.Round(time.Second))
	// The log grew while its upload ran, and the agent listed it again every 10 s: once
	// archived it is not sent whole again (its growth goes a minute later, appended bytes
	// only), and the recording came next, not after a second copy of the log.
	var whole []string
	for _, line := range uploadedLines.FindAllString(s.cloud.logs(), -1) {
		if m := uploadedSizes.FindStringSubmatch(line); m != nil && m[1] == "fleetgate.log" && m[2] == m[3] {
			whole = append(whole, line)
		}
	}
	if len(whole) != 1 {
		t.Errorf("the log was sent whole %d times, want once:\n%s", len(whole), strings.Join(whole, "\n"))
	}
	logs := s.agent.logs()
	if !strings.Contains(logs, `using=bbr`) {
		t.Errorf("the agent did not say its link uses BBR:\n%s", lastLines(logs, 20))
	}
}

// uplinkBenchRuns are the window and the profiles of issue 31 a shaped-uplink benchmark runs:
// FLEETGATE_BENCH_DURATION sets the window (default: window), FLEETGATE_BENCH_PROFILES keeps
// the profiles whose names it contains (e.g. "unshaped,2Mbit").
func uplinkBenchRuns(window time.Duration) (time.Duration, []uplinkProfile) {
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_BENCH_DURATION")); err == nil && d > 0 {
		window = d
	}
	var profiles []uplinkProfile
	only := os.Getenv("FLEETGATE_BENCH_PROFILES")
	for _, p := range []uplinkProfile{
		newUplinkProfile("unshaped", 0, 0, 0),
		newUplinkProfile("5Mbit-60ms-0.5%", 5_000_000, 60*time.Millisecond, 0.005),
		newUplinkProfile("2Mbit-100ms-1%", 2_000_000, 100*time.Millisecond, 0.01),
		newUplinkProfile("1Mbit-150ms-2%", 1_000_000, 150*time.Millisecond, 0.02),
	} {
		if only == "" || slices.ContainsFunc(strings.Split(only, ","), func(part string) bool { return strings.Contains(p.name, part) }) {
			profiles = append(profiles, p)
		}
	}
	return window, profiles
}

// BenchmarkUplink runs the profiles of issue 31 with the link's lanes and BBR, and with
// neither (the link as it was: --link-lanes=false --link-congestion cubic), in one run, the
// viewer asking for JPEG, and with the lanes and BBR again with the viewer asking for H.264:
// fps, picture age, the operator's view of the robot reacting, teleop opens and the uplink's
// bytes, with the log growing. The lanes' runs are each followed by one with a recording
// uploading through the window too (recordingUpload), so the two alternate. make
// bench-uplink; figures in docs/performance.md.
func BenchmarkUplink(b *testing.B) {
	window, profiles := uplinkBenchRuns(20 * time.Second)
	var report bytes.Buffer
	fmt.Fprintf(&report, "| uplink | link | fps (after the first picture; first at) | picture age p50 / p99 | operator sees the robot react p50 / p99 | teleop opens p50 / p99 (failed) | uplink Mbit/s | archived in the window |\n|---|---|---|---|---|---|---|---|\n")
	{
		for _, p := range profiles {
			for _, v := range []struct {
				name      string
				args      []string
				codec     string
				recording bool
			}{
				{"before", []string{"--link-lanes=false", "--link-congestion", "cubic"}, "", false},
				{"lanes+bbr", nil, "", false},
				{"lanes+bbr, +recording", nil, "", true},
				{"lanes+bbr, h264", nil, "h264", false},
				{"lanes+bbr, h264, +recording", nil, "h264", true},
			} {
				b.Run(p.name+"/"+v.name, func(b *testing.B) {
					s := startShapedSite(b, p.profile, v.args...)
					var upload *recordingUpload
					if v.recording {
						upload = s.startRecordingUpload(b, window)
					}
					archivedBefore := s.archivedAll()
					f := s.measureCodec(b, window, v.codec)
					bulk := fmt.Sprintf("%d kB", (s.archivedAll()-archivedBefore)/1000)
					if upload != nil {
						bulk += ", of which the recording's " + upload.window(b, s)
					}
					b.Logf("%s, %s: %v; archived in the window: %s", p.name, v.name, f, bulk)
					if v.codec == "h264" {
						// Where the pictures went at the agent: its encoder's rung steps and skips.
						waitFor(b, 10*time.Second, "the agent's account of the H.264 stream", func() bool {
							return strings.Contains(s.agent.logs(), "H.264 stream to the cloud ended")
						})
						for _, line := range strings.Split(s.agent.logs(), "\n") {
							if strings.Contains(line, "H.264 stream") {
								b.Log(line)
							}
						}
					}
					for _, line := range uploadedLines.FindAllString(s.cloud.logs(), -1) {
						b.Log(line)
					}
					fmt.Fprintf(&report, "| %s | %s | %.1f (%.1f; %v) | %v / %v | %v / %v | %v / %v (%d) | %.2f | %s |\n", p.name, v.name, f.fps, f.steadyFPS(), f.first.Round(time.Millisecond),
						percentile(f.age, 50).Round(time.Millisecond), percentile(f.age, 99).Round(time.Millisecond),
						percentile(f.react, 50).Round(time.Millisecond), percentile(f.react, 99).Round(time.Millisecond),
						percentile(f.opens, 50).Round(time.Millisecond), percentile(f.opens, 99).Round(time.Millisecond), len(f.openFailures),
						f.upMbps(), bulk)
					b.ReportMetric(ms(percentile(f.age, 99)), "age-p99-ms")
					b.ReportMetric(ms(percentile(f.react, 99)), "react-p99-ms")
					b.ReportMetric(ms(percentile(f.opens, 99)), "open-p99-ms")
					b.ReportMetric(f.fps, "fps")
				})
			}
		}
	}
	b.Logf("\n%s", report.String())
	if out := os.Getenv("FLEETGATE_BENCH_REPORT"); out != "" {
		os.WriteFile(filepath.Clean(out), report.Bytes(), 0o644)
	}
}
