//go:build unix

package main

// The reliability suite: long runs against the real binary, kept as commands (make
// durability, make deadman, make soak; docs/reliability.md has the figures of a run). They are
// benchmarks so that `go test` does not run them; run each with -benchtime 1x.

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	_ "modernc.org/sqlite"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// BenchmarkDurability: FLEETGATE_CYCLES (default 200) kill -9 cycles of fleetgate serve while
// four clients post event-log entries: after each kill, every entry acknowledged with a 2xx
// is in the database and PRAGMA integrity_check says ok.
func BenchmarkDurability(b *testing.B) {
	cycles := envInt("FLEETGATE_CYCLES", 200)
	dir := b.TempDir()
	var acked []string
	var lost, checks int
	posted, refused := 0, 0
	start := time.Now()
	for cycle := range cycles {
		cloud := startLogged(b, fmt.Sprintf("serve-%d", cycle), nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
		bearer := login(b, cloud.URL, testToken)
		robot := ensureRobot(b, dir, cloud.URL, bearer)
		var mu sync.Mutex
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for c := range 4 {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					msg := fmt.Sprintf("cycle %d client %d entry %d", cycle, c, i)
					u := cloud.URL + "/apigateway/v2/events/log?robotId=" + robot + "&message=" + url.QueryEscape(msg)
					req, _ := http.NewRequestWithContext(ctx, "POST", u, nil)
					req.Header.Set("Authorization", "bearer "+bearer)
					resp, err := quickClient.Do(req)
					mu.Lock()
					posted++
					if err == nil && resp.StatusCode/100 == 2 {
						acked = append(acked, msg)
					} else {
						refused++
					}
					mu.Unlock()
					if err == nil {
						resp.Body.Close()
					}
				}
			})
		}
		time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
		cloud.signal(b, syscall.SIGKILL)
		cancel()
		wg.Wait()
		stored, ok := storedEvents(b, filepath.Join(dir, "fleetgate.db"))
		checks++
		if !ok {
			b.Fatalf("cycle %d: PRAGMA integrity_check is not ok", cycle)
		}
		for _, m := range acked {
			if !stored[m] {
				lost++
				b.Errorf("cycle %d: acknowledged entry %q is missing", cycle, m)
			}
		}
	}
	b.Logf("%d kill -9 cycles in %v: %d entries posted, %d acknowledged, %d not (cut off by the kill), %d acknowledged entries lost; integrity_check ok %d times",
		cycles, time.Since(start).Round(time.Second), posted, len(acked), refused, lost, checks)
	b.ReportMetric(float64(lost), "lost")
	b.ReportMetric(float64(len(acked)), "acknowledged")
}

// ensureRobot returns the id of the robot the durability run posts events for, made once.
func ensureRobot(b *testing.B, dir, base, bearer string) string {
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	api(b, "GET", base+"/apigateway/v2/robots", bearer, &list)
	if len(list.RobotDataList) > 0 {
		return list.RobotDataList[0].BasicData.ID
	}
	out, _, code := runCLI(b, nil, "robots", "add", "--data", dir, "--name", "durable")
	if code != 0 {
		b.Fatalf("robots add: %d %s", code, out)
	}
	return strings.TrimSpace(out)
}

// storedEvents reads the event messages of a database file and its integrity check.
func storedEvents(b *testing.B, path string) (map[string]bool, bool) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil {
		b.Fatal(err)
	}
	rows, err := db.Query(`SELECT message FROM events`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var m string
		rows.Scan(&m)
		out[m] = true
	}
	return out, integrity == "ok"
}

// BenchmarkDeadman: FLEETGATE_TRIALS (default 100) real-time trials of each fault that must
// stop a driven robot, against fleetgate agent --ros1 with a rospy driver on /cmd_vel that
// timestamps every command it receives: the time from the fault (the last command for a
// silent client) to the zero command's arrival at the robot's driver, p50, p99 and max.
func BenchmarkDeadman(b *testing.B) {
	trials := envInt("FLEETGATE_TRIALS", 100)
	m := rostest.StartMaster(b)
	received := driverMarks(b, m)
	dir := b.TempDir()
	agent := startLogged(b, "agent", append(m.Env(), "ROS_IP=127.0.0.1"), "agent", "--data", dir, "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "0", "--ros1", m.URI, "--ros1-name", "rosbot")
	bearer := login(b, agent.URL, testToken)
	var robot string
	waitFor(b, 15*time.Second, "the ROS robot online", func() bool {
		var list struct {
			RobotDataList []struct {
				BasicData struct{ ID string }
				IsOnline  bool
			}
		}
		getJSON(agent.URL+"/apigateway/v2/robots", bearer, &list)
		for _, r := range list.RobotDataList {
			if r.IsOnline {
				robot = r.BasicData.ID
			}
		}
		return robot != ""
	})
	input := "componentName=&streamName=/cmd_vel&source=2&direction=input&format=json"
	mark := 0
	faults := []struct {
		name string
		// cause faults the session after its command and returns when the fault happened.
		cause func(conn *websocket.Conn, tcp *net.TCPConn, apiToken string) time.Time
	}{
		{"silent client (deadman)", func(*websocket.Conn, *net.TCPConn, string) time.Time { return time.Time{} }},
		{"clean close", func(conn *websocket.Conn, _ *net.TCPConn, _ string) time.Time {
			t := time.Now()
			conn.Close(websocket.StatusNormalClosure, "")
			return t
		}},
		{"TCP reset", func(_ *websocket.Conn, tcp *net.TCPConn, _ string) time.Time {
			tcp.SetLinger(0) // close sends RST
			t := time.Now()
			tcp.Close()
			return t
		}},
		{"token revoked", func(conn *websocket.Conn, _ *net.TCPConn, apiToken string) time.Time {
			// The operator keeps driving (every 100 ms, within the deadman), so the zero
			// can only be the revocation's: the socket's token check runs every second.
			go func() {
				for conn.Write(context.Background(), websocket.MessageText, []byte(`{"angular":{"x":0.00001}}`)) == nil {
					time.Sleep(100 * time.Millisecond)
				}
			}()
			time.Sleep(time.Duration(rand.IntN(1000)) * time.Millisecond) // anywhere in the check's period
			return revokeToken(b, filepath.Join(dir, "fleetgate.db"), apiToken)
		}},
	}
	for _, f := range faults {
		var lat []time.Duration
		for range trials {
			apiToken := createToken(b, dir)
			tokBearer := login(b, agent.URL, apiToken)
			mark++
			conn, tcp, sent := driveOnce(b, w3URL(agent.URL, robot, input), tokBearer, received, mark)
			at := f.cause(conn, tcp, apiToken)
			if at.IsZero() {
				at = sent
			}
			zero := waitMark(b, received, 0)
			lat = append(lat, zero.Sub(at))
			conn.CloseNow()
			time.Sleep(50 * time.Millisecond) // the close's own zero, drained next round
		}
		reportFaultToZero(b, f.name, strings.ReplaceAll(strings.Fields(f.name)[0]+"-"+strings.Fields(f.name)[1], "(", ""), lat)
	}
}

// driveOnce opens an input socket at url (its TCP connection kept, for faults that reset it),
// sends one command marked mark and returns once the driver has it.
func driveOnce(b *testing.B, url, bearer string, received chan [2]float64, mark int) (*websocket.Conn, *net.TCPConn, time.Time) {
	var tcp *net.TCPConn
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			tcp = c.(*net.TCPConn)
		}
		return c, err
	}}}
	// A robot whose link was just cut comes back within a few seconds: its socket is refused
	// (503) until then, and the operator tries again.
	var conn *websocket.Conn
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		c, resp, err := websocket.Dial(context.Background(), url,
			&websocket.DialOptions{HTTPClient: client, HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
		if err == nil {
			conn = c
			break
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			b.Fatalf("dial %s: %v", url, err)
		}
	}
	go drain(conn)
	drainChan(received)
	sent := time.Now()
	send(b, conn, fmt.Sprintf(`{"angular":{"x":%g}}`, float64(mark)/10000))
	waitMark(b, received, float64(mark)/10000)
	return conn, tcp, sent
}

// reportFaultToZero logs and reports the fault-to-zero times of one fault.
func reportFaultToZero(b *testing.B, what, metric string, lat []time.Duration) {
	b.Logf("%s: %d trials, fault to zero at the robot p50 %v p99 %v max %v", what, len(lat),
		percentile(lat, 50).Round(100*time.Microsecond), percentile(lat, 99).Round(100*time.Microsecond), slices.Max(lat).Round(100*time.Microsecond))
	b.ReportMetric(ms(percentile(lat, 99)), metric+"-p99-ms")
}

// driverMarks starts the ROS driver on /cmd_vel (rosDriver) and returns what it receives: the
// time of arrival and the mark (angular.x) of every command.
func driverMarks(b *testing.B, m *rostest.Master) chan [2]float64 {
	driver := m.Python(b, rosDriver)
	received := make(chan [2]float64, 4096)
	go func() {
		for line := range driver.Lines() {
			var at, mark float64
			if _, err := fmt.Sscanf(line, "%f %f", &at, &mark); err == nil {
				received <- [2]float64{at, mark}
			}
		}
	}()
	return received
}

func drainChan(c chan [2]float64) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// waitMark waits for the driver to receive the command marked mark (0: a zero) and returns
// when it did.
func waitMark(b *testing.B, c chan [2]float64, mark float64) time.Time {
	timeout := time.After(5 * time.Second)
	for {
		select {
		case r := <-c:
			if math.Abs(r[1]-mark) < 1e-9 {
				return time.Unix(0, int64(r[0]*1e9))
			}
		case <-timeout:
			b.Fatalf("the driver did not receive the command marked %g", mark)
		}
	}
}

var tokenLine = regexp.MustCompile(`fgt_[A-Za-z0-9]{32}`)

func createToken(b *testing.B, dir string) string {
	out, errOut, code := runCLI(b, nil, "token", "create", "--data", dir, "--user", gateway.BootstrapAdminEmail, "--name", "trial")
	tok := tokenLine.FindString(out)
	if code != 0 || tok == "" {
		b.Fatalf("token create: %d %s %s", code, out, errOut)
	}
	return tok
}

// revokeToken revokes an API token in the database file (as the admin page does) and returns
// when the revocation was committed.
func revokeToken(b *testing.B, path, apiToken string) time.Time {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	res, err := db.Exec(`UPDATE api_tokens SET revoked_at = ? WHERE hash = ?`, now.UnixMilli(), gateway.HashSecret(apiToken))
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		b.Fatalf("revoking the token: %v (%d rows)", err, n)
	}
	return time.Now()
}

// BenchmarkSoak: FLEETGATE_SOAK_DURATION (default 10m) of 20 camera viewers, 50 KPI sockets,
// a controller driving at 10 Hz and REST reads every 100 ms against fleetgate agent --sim 2;
// the agent's RSS and goroutines sampled every 10 s, their slopes per minute reported.
func BenchmarkSoak(b *testing.B) {
	d := envDuration("FLEETGATE_SOAK_DURATION", 10*time.Minute)
	metricsPort := freePort(b)
	agent := startLogged(b, "agent", nil, "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "2", "--metrics-listen", "127.0.0.1:"+strconv.Itoa(metricsPort))
	robots := localRobots(b, agent.URL, 2)
	bearer := login(b, agent.URL, testToken)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var frames, kpiFrames, commands, reads, failures atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			for ctx.Err() == nil {
				conn, _, err := websocket.Dial(ctx, w3URL(agent.URL, robots[i%2], "componentName=camera&streamName=image&source=1"),
					&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
				if err != nil {
					failures.Add(1)
					time.Sleep(time.Second)
					continue
				}
				conn.SetReadLimit(16 << 20)
				for {
					if _, _, err := conn.Read(ctx); err != nil {
						break
					}
					frames.Add(1)
				}
				conn.CloseNow()
			}
		})
	}
	for range 50 {
		wg.Go(func() {
			conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(agent.URL, "http")+"/apigateway/v2/fleets/local-fleet/custom-kpis",
				&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
			if err != nil {
				failures.Add(1)
				return
			}
			defer conn.CloseNow()
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					return
				}
				kpiFrames.Add(1)
			}
		})
	}
	wg.Go(func() {
		twist := twistRobot(b, agent.URL, robots)
		conn, _, err := websocket.Dial(ctx, w3URL(agent.URL, twist, "componentName=base&streamName=cmd_vel&direction=input&format=json"),
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
		if err != nil {
			failures.Add(1)
			return
		}
		defer conn.CloseNow()
		go drain(conn)
		for i := 0; ctx.Err() == nil; i++ {
			if conn.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"angular":{"z":%g}}`, math.Sin(float64(i)/20)))) != nil {
				return
			}
			commands.Add(1)
			time.Sleep(100 * time.Millisecond)
		}
	})
	wg.Go(func() {
		for ctx.Err() == nil {
			if getJSON(agent.URL+"/apigateway/v2/robots/"+robots[0]+"/stream?componentName=base&streamName=pose&source=1&streamType=Platform.Messages.geometry_msgs.PoseStamped", bearer, nil) == 200 {
				reads.Add(1)
			} else {
				failures.Add(1)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	var ts, rss, gor []float64
	start := time.Now()
	tick := time.NewTicker(10 * time.Second)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			ts = append(ts, time.Since(start).Minutes())
			rss = append(rss, float64(rssKiB(b, agent.cmd.Process.Pid))/1024)
			gor = append(gor, goroutines(b, metricsPort))
			b.Logf("%5.1f min: RSS %.1f MiB, %0.f goroutines, %d camera frames, %d KPI frames, %d commands, %d REST reads, %d failures",
				ts[len(ts)-1], rss[len(rss)-1], gor[len(gor)-1], frames.Load(), kpiFrames.Load(), commands.Load(), reads.Load(), failures.Load())
		}
	}
	tick.Stop()
	wg.Wait()
	// The first minute warms up (caches, pools): slopes are of what comes after.
	from := 0
	for from < len(ts) && ts[from] < 1 {
		from++
	}
	if len(ts)-from < 3 {
		from = 0
	}
	rssSlope, gorSlope := slope(ts[from:], rss[from:]), slope(ts[from:], gor[from:])
	b.Logf("soak of %v: RSS %.1f to %.1f MiB, slope %+.3f MiB/min; goroutines %.0f to %.0f, slope %+.2f/min; %d failures",
		d, rss[0], rss[len(rss)-1], rssSlope, gor[0], gor[len(gor)-1], gorSlope, failures.Load())
	b.ReportMetric(rssSlope, "rss-MiB/min")
	b.ReportMetric(gorSlope, "goroutines/min")
	b.ReportMetric(float64(failures.Load()), "failures")
}

func freePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func rssKiB(b *testing.B, pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

func goroutines(b *testing.B, port int) float64 {
	resp, err := quickClient.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n
		}
	}
	return math.NaN()
}

// slope is the least-squares slope of y over x.
func slope(x, y []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx, sy, sxx, sxy = sx+x[i], sy+y[i], sxx+x[i]*x[i], sxy+x[i]*y[i]
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
