package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// TestClusterOfThreeReplicas runs the cloud as a user runs it at scale: three serve replicas
// on a real PostgreSQL and nats-server, Debian's haproxy in front, one agent through haproxy
// and one with the replicas' URLs as a list. Every replica answers for every robot; kill -9
// of the replica holding an agent brings its robots back through another within 10 s; NATS
// down gives clear 503s for robots held elsewhere and recovers by itself.
func TestClusterOfThreeReplicas(t *testing.T) {
	pg := pgtest.Start(t)
	db := pg.NewDatabase(t)
	nats := natstest.Start(t)
	replicas := startReplicas(t, 3, db, nats.URL())
	front := startHAProxy(t, replicas)

	key1 := addAgentTo(t, db, "a1")
	key2 := addAgentTo(t, db, "a2")
	a1 := startLogged(t, "a1", nil, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", front, "--agent-key", key1)
	urls := []string{}
	for _, r := range replicas {
		urls = append(urls, r.URL)
	}
	a2 := startLogged(t, "a2", nil, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "1", "--cloud", strings.Join(urls, ","), "--agent-key", key2)
	robot1 := localRobots(t, a1.URL, 1)[0]
	robot2 := localRobots(t, a2.URL, 1)[0]
	both := []string{robot1, robot2}

	// One login, through haproxy: the bearer is in the shared store, good on every replica.
	bearer := login(t, front, testToken)
	took := waitFor(t, 15*time.Second, "both robots online on every replica", func() bool {
		for _, r := range replicas {
			if !robotsOnline(r.URL, bearer, both, true) {
				return false
			}
		}
		return true
	})
	t.Logf("both robots online on all three replicas %s after the agents started", took.Round(time.Millisecond))
	for _, r := range replicas {
		if logs := r.logs(); !strings.Contains(logs, `credentials="user fleetgate"`) || strings.Contains(logs, nats.Password) {
			t.Errorf("%s should join the bus as user fleetgate and never log the password:\n%s", r.name, lastLines(logs, 40))
		}
	}

	// A stream read of each robot on each replica: two of the three forward it over NATS.
	readBattery := func(base, robot string) int {
		var read struct{ RobotStream string }
		return api(t, "GET", base+"/apigateway/v2/robots/"+robot+"/stream?componentName=base&streamName=battery&source=1&streamType=Platform.Messages.sensor_msgs.BatteryState", bearer, &read)
	}
	for _, r := range replicas {
		for _, robot := range both {
			if s := readBattery(r.URL, robot); s != 200 {
				t.Errorf("battery of %s read on %s: %d", robot, r.name, s)
			}
		}
	}

	// Login limits count together: ten wrong tokens spread over the three replicas use up the
	// address's ten, and the next is refused (429) on every replica; a right token still works.
	t.Run("login failures count across replicas", func(t *testing.T) {
		badLogin := func(base string) int {
			resp, err := http.Post(base+"/apigateway/v2/auth/login", "application/json",
				strings.NewReader(`{"userToken":"fgt_0000000000000000000000000000wrong"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		for i := range 10 {
			if s := badLogin(replicas[i%3].URL); s != 401 {
				t.Fatalf("wrong token %d on %s: %d, want 401", i+1, replicas[i%3].name, s)
			}
			time.Sleep(20 * time.Millisecond) // NATS carries each failure in well under this
		}
		for _, r := range replicas {
			if s := badLogin(r.URL); s != 429 {
				t.Errorf("the 11th wrong token, on %s: %d, want 429", r.name, s)
			}
		}
		login(t, replicas[2].URL, testToken) // a valid token is never refused
	})

	// A token revoked on one replica closes its sockets on another within a second.
	t.Run("a token revoked on one replica closes its sockets on the others", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, nil, "token", "create", "--db", db, "--user", "admin@localhost", "--name", "revoke-me")
		secret := strings.TrimSpace(stdout)
		if code != 0 {
			t.Fatalf("token create: %d %s", code, stderr)
		}
		viewer := replicas[1]
		conn := dialW3(t, viewer.URL, login(t, viewer.URL, secret), robot1, "componentName=camera&streamName=image&source=1")
		defer conn.CloseNow()
		readEnvelope(t, conn)
		closed := make(chan time.Time, 1)
		go func() {
			for {
				if _, _, err := conn.Read(context.Background()); err != nil {
					closed <- time.Now()
					return
				}
			}
		}()
		admin := panelBrowser(t, replicas[0].URL)
		admin.post("/login", url.Values{"token": {testToken}})
		page := admin.get("/settings")
		m := regexp.MustCompile(`revoke-me</td>[\s\S]*?/settings/tokens/([0-9a-f-]{36})/revoke`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the settings page on %s lists no revoke-me token", replicas[0].name)
		}
		revoked := time.Now()
		if status := admin.post("/settings/tokens/"+m[1]+"/revoke", nil); status != http.StatusSeeOther {
			t.Fatalf("revoking on %s: %d", replicas[0].name, status)
		}
		select {
		case at := <-closed:
			took := at.Sub(revoked)
			t.Logf("token revoked on %s: its W3 socket on %s closed %s later", replicas[0].name, viewer.name, took.Round(time.Millisecond))
			if took > time.Second {
				t.Errorf("socket closed %s after the revocation elsewhere, want 1 s at most", took)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the socket of a revoked token stayed open")
		}
	})

	// W1 on every replica: the fleet's frames carry both robots' KPIs, whichever replica holds
	// their agents (the KPI values travel in the announcements).
	t.Run("KPI frames of the whole fleet on every replica", func(t *testing.T) {
		fleetID := fleetWithRobots(t, replicas[0].URL, bearer, 2)
		for _, r := range replicas {
			receiveSimKPIs(t, kpiSocketURL(r.URL, fleetID), http.Header{"Authorization": {"bearer " + bearer}}, both)
		}
	})

	// On a replica that does not hold a1: its camera over W3 (relayed from the holder) and
	// teleoperation (control taken at the agent through the holder; its deadman stops it).
	holder := holderOf(t, replicas, "a1")
	other := replicas[0]
	if other == holder {
		other = replicas[1]
	}
	t.Run("live view and teleop through a replica that does not hold the agent", func(t *testing.T) {
		robot := twistRobot(t, a1.URL, []string{robot1})
		cam := dialW3(t, other.URL, bearer, robot, "componentName=camera&streamName=image&source=1")
		defer cam.CloseNow()
		readEnvelope(t, cam)
		start := time.Now()
		for range 20 {
			env := readEnvelope(t, cam)
			var img catalogpb.CompressedImage
			if err := proto.Unmarshal(env.GetData(), &img); err != nil {
				t.Fatal(err)
			}
			if _, err := jpeg.Decode(bytes.NewReader(img.GetData())); err != nil {
				t.Fatalf("frame is not a JPEG: %v", err)
			}
		}
		t.Logf("camera through %s (held by %s): %.1f fps", other.name, holder.name, 20/time.Since(start).Seconds())

		ctl := dialW3(t, other.URL, bearer, robot, "componentName=base&streamName=cmd_vel&direction=input&format=json")
		defer ctl.CloseNow()
		go drain(ctl)
		took := turnUntilDeadman(t, ctl, a1.URL, robot, 5*time.Second)
		t.Logf("teleop through %s: robot still %s after the last command (deadman at the agent)", other.name, took.Round(time.Millisecond))
	})

	// A recording started on a replica that does not hold a1: its file reaches the holder's
	// archive and the replicas' shared files; every replica serves the download.
	status, body := postJSON(t, other.URL+"/apigateway/v2/robots/"+robot1+"/recordings", bearer, `{"streams":["base/pose"],"durationSeconds":1}`)
	if status != 201 {
		t.Fatalf("recording started on %s: %d %s", other.name, status, body)
	}
	var rec struct{ ID string }
	json.Unmarshal([]byte(body), &rec)
	download := func(base string) (int, int) {
		var link struct{ URL string }
		if s := getJSON(base+"/apigateway/v2/robots/"+robot1+"/resource/"+rec.ID+"/download", bearer, &link); s != 200 {
			return s, 0
		}
		resp, err := quickClient.Get(link.URL)
		if err != nil {
			return 0, 0
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, len(data)
	}
	size := 0
	waitFor(t, 30*time.Second, "the recording downloadable from every replica", func() bool {
		for _, r := range replicas {
			s, n := download(r.URL)
			if s != 200 || n == 0 || size != 0 && n != size {
				return false
			}
			size = n
		}
		return true
	})
	t.Logf("the recording (%d bytes) downloads from every replica", size)

	// kill -9 of the replica holding a1: haproxy sends a1 to another, within 10 s.
	t.Logf("a1 is linked to %s; killing it", holder.name)
	killed := time.Now()
	holder.signal(t, syscall.SIGKILL)
	var alive []*loggedProcess
	for _, r := range replicas {
		if r != holder {
			alive = append(alive, r)
		}
	}
	took = waitFor(t, 10*time.Second, "a1's robot online again on the surviving replicas", func() bool {
		for _, r := range alive {
			if !robotsOnline(r.URL, bearer, both, true) || readBattery(r.URL, robot1) != 200 {
				return false
			}
		}
		return true
	})
	t.Logf("a1's robot back online on both survivors %s after kill -9 of %s", time.Since(killed).Round(time.Millisecond), holder.name)
	if next := holderOf(t, alive, "a1"); next == holder {
		t.Error("a1 is not linked to a surviving replica")
	}
	if took > 10*time.Second {
		t.Errorf("back after %s, want 10 s at most", took)
	}
	for _, r := range alive {
		if s, n := download(r.URL); s != 200 || n != size {
			t.Errorf("download from %s after %s was killed: %d, %d bytes; want 200, %d", r.name, holder.name, s, n, size)
		}
	}

	// NATS down: a robot held by the other survivor answers 503 with a reason, at once; the
	// replicas keep running, and serve it again when NATS is back.
	nats.Stop()
	elsewhere, held := alive[0], robot2
	if holderOf(t, alive, "a2") == elsewhere {
		held = robot1
		if holderOf(t, alive, "a1") == elsewhere {
			elsewhere = alive[1] // both agents on alive[0]: ask alive[1] about either
			held = robot2
		}
	}
	status = 0
	waitFor(t, 5*time.Second, "a 503 for a robot held elsewhere while NATS is down", func() bool {
		status = readBattery(elsewhere.URL, held)
		return status == 503 || status == 404
	})
	if status != 503 && status != 404 {
		t.Errorf("read with NATS down: %d", status)
	}
	t.Logf("with NATS down, a read of a robot held by the other survivor answers %d", status)
	for _, r := range alive {
		if !r.running() {
			t.Fatalf("%s exited with NATS down", r.name)
		}
	}
	nats.Restart()
	took = waitFor(t, 15*time.Second, "both robots online and readable everywhere after NATS returned", func() bool {
		for _, r := range alive {
			if !robotsOnline(r.URL, bearer, both, true) || readBattery(r.URL, robot1) != 200 || readBattery(r.URL, robot2) != 200 {
				return false
			}
		}
		return true
	})
	t.Logf("recovered %s after NATS returned", took.Round(time.Millisecond))

	// PostgreSQL down: the API answers 503 with a reason (never a 500, never a crash); the
	// replicas and the agents' links go on, and all answers again when it returns.
	pg.Stop(t)
	for _, r := range alive {
		var problem struct{ Status int }
		req, _ := http.NewRequest("GET", r.URL+"/apigateway/v2/robots", nil)
		req.Header.Set("Authorization", "bearer "+bearer)
		resp, err := quickClient.Do(req)
		if err != nil {
			t.Fatalf("%s with PostgreSQL down: %v", r.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		json.Unmarshal(body, &problem)
		t.Logf("%s with PostgreSQL down: %d %s", r.name, resp.StatusCode, strings.TrimSpace(string(body)))
		if resp.StatusCode != 503 || problem.Status != 503 {
			t.Errorf("%s with PostgreSQL down: %d, want a 503 problem", r.name, resp.StatusCode)
		}
	}
	time.Sleep(2 * time.Second) // the replicas' presence and heartbeats go on meanwhile
	for _, r := range alive {
		if !r.running() {
			t.Fatalf("%s exited with PostgreSQL down", r.name)
		}
	}
	pg.Restart(t)
	took = waitFor(t, 15*time.Second, "both robots online and readable everywhere after PostgreSQL returned", func() bool {
		for _, r := range alive {
			if !robotsOnline(r.URL, bearer, both, true) || readBattery(r.URL, robot1) != 200 || readBattery(r.URL, robot2) != 200 {
				return false
			}
		}
		return true
	})
	t.Logf("recovered %s after PostgreSQL returned", took.Round(time.Millisecond))
}

// startReplicas starts replicas r1 to rN of one cloud on database db and NATS server
// natsURL, one after the other (the first bootstraps the store); firstFlags go to r1 only.
// A user and password in natsURL are given as an operator gives them: --nats-user, and the
// password in the environment, where ps does not show it.
func startReplicas(tb testing.TB, n int, db, natsURL string, firstFlags ...string) []*loggedProcess {
	tb.Helper()
	var replicas []*loggedProcess
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("r%d", i)
		args, env := replicaArgs(tb, name, db, natsURL)
		if i == 1 {
			args = append(args, firstFlags...)
		}
		replicas = append(replicas, startLogged(tb, name, env, args...))
	}
	return replicas
}

// replicaArgs are the arguments and environment of replica name of a cloud on database db
// and NATS server natsURL (its credentials as startReplicas gives them).
func replicaArgs(tb testing.TB, name, db, natsURL string) (args, env []string) {
	var credentials []string
	if u, err := url.Parse(natsURL); err == nil && u.User != nil {
		if password, ok := u.User.Password(); ok {
			env = []string{"FLEETGATE_NATS_PASSWORD=" + password}
			credentials = []string{"--nats-user", u.User.Username()}
			u.User = nil
			natsURL = u.String()
		}
	}
	return append([]string{"serve", "--db", db, "--nats", natsURL, "--replica", name,
		"--data", tb.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken}, credentials...), env
}

// holderOf is the replica whose log says agent name linked last (and not since closed).
func holderOf(t *testing.T, replicas []*loggedProcess, agent string) *loggedProcess {
	t.Helper()
	var found *loggedProcess
	for _, r := range replicas {
		if holds(r, agent) {
			found = r
		}
	}
	if found == nil {
		t.Fatalf("no replica holds agent %s", agent)
	}
	return found
}

// addAgentTo adds an agent in the PostgreSQL store and returns its key.
func addAgentTo(t testing.TB, db, name string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, nil, "agents", "add", "--db", db, "--name", name)
	m := agentKeyLine.FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("agents add %s: %d %q %q", name, code, stdout, stderr)
	}
	return m[1]
}

// startHAProxy runs Debian's haproxy in front of the replicas, configured as
// scripts/cluster-demo.sh does, and returns its URL. Agents are spread by their key (one
// agent's link and live connection reach the same replica), browsers kept on one replica by a
// cookie; a replica failing its /healthz check is out within a second.
func startHAProxy(t *testing.T, replicas []*loggedProcess) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy is not installed (Debian package haproxy; scripts/test.sh installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	var backends strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&backends, "  server %s %s check inter 300ms fall 2 rise 1 cookie %s\n", r.name, strings.TrimPrefix(r.URL, "http://"), r.name)
	}
	// The configuration scripts/cluster-demo.sh runs, and the README shows.
	template, err := os.ReadFile("../../scripts/cluster/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(template), "hdr("+link.KeyHeader+")") {
		t.Fatalf("scripts/cluster/haproxy.cfg does not balance on %s", link.KeyHeader)
	}
	conf := strings.NewReplacer("@LISTEN@", addr, "@SERVERS@", backends.String()).Replace(string(template))
	cfgPath := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfgPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "haproxy.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", cfgPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logFile.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("haproxy log:\n%s", lastLines(string(b), 30))
		}
	})
	url := "http://" + addr
	waitFor(t, 10*time.Second, "haproxy answering /healthz", func() bool {
		return getJSON(url+"/healthz", "", nil) == 200
	})
	return url
}

// browser is a panel client with its cookies, as a browser's forms send them.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func panelBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, c: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) post(path string, form url.Values) int {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin") // what a browser sends with a form of the page
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (b *browser) get(path string) string {
	b.t.Helper()
	resp, err := b.c.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return string(body)
}

// fleetWithRobots is the id of the fleet (as bearer sees the fleets on base) that has n robots.
func fleetWithRobots(tb testing.TB, base, bearer string, n int) string {
	tb.Helper()
	var fleets struct {
		Fleets []struct {
			ID         string
			RobotCount int
		}
	}
	if s := api(tb, "GET", base+"/apigateway/v2/fleets", bearer, &fleets); s != 200 {
		tb.Fatalf("fleets: %d", s)
	}
	for _, f := range fleets.Fleets {
		if f.RobotCount == n {
			return f.ID
		}
	}
	tb.Fatalf("no fleet with %d robots: %+v", n, fleets)
	return ""
}
