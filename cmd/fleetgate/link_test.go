//go:build unix

package main

// The agent link issue's "Tests and figures", run with real processes: fleetgate serve, a
// few fleetgate agent --cloud, kill -9 and restarts, a revoked and a wrong agent key. Every
// process writes its output to a file under t.TempDir() (shown on failure) and is killed at
// cleanup. The figures (offline detection, reconnect after a cloud restart) are logged with
// t.Logf; run with -v to see them.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Bounds the issue sets.
const (
	offlineWithin   = 15 * time.Second // kill -9 (or a silent drop) of an agent: its robots offline
	reconnectWithin = 10 * time.Second // after a cloud restart is ready: every agent back online
)

func TestLinkAgentsThroughKillsAndRestarts(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key1 := addAgent(t, cloudDir, "a1")
	key2 := addAgent(t, cloudDir, "a2")

	// a1 takes its key as a flag, a2 from the environment.
	a1Dir, a2Dir := t.TempDir(), t.TempDir()
	a1Args := []string{"agent", "--data", a1Dir, "--listen", "127.0.0.1:0", "--admin-token", testToken,
		"--sim", "2", "--cloud", cloud.URL, "--agent-key", key1}
	a1 := startLogged(t, "a1", nil, a1Args...)
	a2 := startLogged(t, "a2", []string{"FLEETGATE_AGENT_KEY=" + key2}, "agent", "--data", a2Dir,
		"--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1", "--cloud", cloud.URL)

	a1Robots := localRobots(t, a1.URL, 2)
	a2Robots := localRobots(t, a2.URL, 1)
	all := append(append([]string{}, a1Robots...), a2Robots...)
	bearer := login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "every agent's robots online on the cloud", func() bool {
		return robotsOnline(cloud.URL, bearer, all, true)
	})

	t.Run("a cloud stream read answers what the local gateway does", func(t *testing.T) {
		robot := a1Robots[0]
		localBearer := login(t, a1.URL, testToken)
		want := string((&catalogpb.BatteryState{}).ProtoReflect().Descriptor().FullName())
		var serials []string
		for _, gw := range []struct{ name, url, bearer string }{{"local", a1.URL, localBearer}, {"cloud", cloud.URL, bearer}} {
			v2 := gw.url + "/apigateway/v2/robots/" + robot
			var streams struct {
				RobotStreams []struct{ ComponentName, StreamName, StreamType string }
			}
			if s := api(t, "GET", v2+"/streams", gw.bearer, &streams); s != 200 {
				t.Fatalf("%s streams: %d", gw.name, s)
			}
			typ := ""
			for _, s := range streams.RobotStreams {
				if s.ComponentName == "base" && s.StreamName == "battery" {
					typ = s.StreamType
				}
			}
			if typ != want {
				t.Errorf("%s lists base/battery as %q, want %q", gw.name, typ, want)
			}
			var read struct{ RobotStream string }
			if s := api(t, "GET", v2+"/stream?componentName=base&streamName=battery&source=1&streamType="+want, gw.bearer, &read); s != 200 {
				t.Fatalf("%s read of base/battery: %d", gw.name, s)
			}
			var battery catalogpb.BatteryState // strict: a field of another type fails
			if err := protojson.Unmarshal([]byte(read.RobotStream), &battery); err != nil || battery.GetSerialNumber() == "" {
				t.Fatalf("%s read of base/battery is not a BatteryState with a serial number: %v\n%s", gw.name, err, read.RobotStream)
			}
			serials = append(serials, battery.GetSerialNumber())
		}
		if serials[0] != serials[1] {
			t.Errorf("serial numbers: local %q, cloud %q; want the same robot's", serials[0], serials[1])
		}
	})

	// kill -9 of an agent: the kernel closes its socket, so the cloud hears of it at once.
	killed := time.Now()
	a1.signal(t, syscall.SIGKILL)
	took := waitFor(t, offlineWithin, "a1's robots offline on the cloud after kill -9", func() bool {
		return robotsOnline(cloud.URL, bearer, a1Robots, false)
	})
	t.Logf("kill -9 of an agent: its robots offline on the cloud %v after the signal", took.Round(time.Millisecond))
	for _, id := range a1Robots {
		var d struct{ LastTimeSeen time.Time }
		if s := api(t, "GET", cloud.URL+"/apigateway/v2/robots/"+id, bearer, &d); s != 200 {
			t.Fatalf("robot %s: %d", id, s)
		}
		if d.LastTimeSeen.IsZero() || d.LastTimeSeen.After(time.Now()) || killed.Sub(d.LastTimeSeen) > time.Minute {
			t.Errorf("robot %s: lastTimeSeen %v after its agent died at %v; want kept, shortly before", id, d.LastTimeSeen, killed)
		}
	}
	if !robotsOnline(cloud.URL, bearer, a2Robots, true) {
		t.Fatalf("a2's robot went offline with a1")
	}

	a1 = startLogged(t, "a1-restarted", nil, a1Args...)
	took = waitFor(t, 15*time.Second, "a1's robots online again after its restart", func() bool {
		return robotsOnline(cloud.URL, bearer, a1Robots, true)
	})
	t.Logf("restarted agent: robots online on the cloud %v after it listened", took.Round(time.Millisecond))

	// A silent drop: a stopped process keeps its socket open and sends nothing, so only the
	// missed heartbeats tell. The agent pushes KPIs every second, so the cloud heard from it
	// less than a second before the stop.
	a2.signal(t, syscall.SIGSTOP)
	took = waitFor(t, offlineWithin+time.Second, "a2's robot offline after a silent drop", func() bool {
		return robotsOnline(cloud.URL, bearer, a2Robots, false)
	})
	t.Logf("silent drop (SIGSTOP) of an agent: its robot offline on the cloud %v after the stop", took.Round(time.Millisecond))
	// The cloud decides within 15 s of the last frame, which came before the stop; the
	// polling that observes it adds up to a few hundred milliseconds on a loaded machine.
	if took > offlineWithin+500*time.Millisecond {
		t.Errorf("silent drop noticed after %v, want within %v", took, offlineWithin)
	}
	if took < 10*time.Second {
		t.Errorf("silent drop noticed after %v: sooner than 3 missed heartbeats allow", took)
	}
	a2.signal(t, syscall.SIGCONT)
	took = waitFor(t, 15*time.Second, "a2's robot online again after it resumed", func() bool {
		return robotsOnline(cloud.URL, bearer, a2Robots, true)
	})
	t.Logf("resumed agent: robot online on the cloud %v after SIGCONT", took.Round(time.Millisecond))

	// kill -9 of the cloud, then the same data and port again: at once, and after the agents'
	// backoff has grown to its cap (5 s), the worst case for the 10 s bound.
	cloudArgs := []string{"serve", "--data", cloudDir, "--listen", strings.TrimPrefix(cloud.URL, "http://"), "--admin-token", testToken}
	for i, backedOff := range []bool{false, true} {
		logged := []int{len(a1.logs()), len(a2.logs())}
		cloud.signal(t, syscall.SIGKILL)
		if backedOff {
			waitFor(t, 15*time.Second, "both agents waiting 2.5 s or more between attempts", func() bool {
				return longestRetry(a1.logs()[logged[0]:]) >= 2500*time.Millisecond &&
					longestRetry(a2.logs()[logged[1]:]) >= 2500*time.Millisecond
			})
		}
		cloud = startLogged(t, fmt.Sprintf("cloud-restart-%d", i+1), nil, cloudArgs...)
		waitFor(t, 10*time.Second, "the restarted cloud answering /healthz 200", func() bool {
			return status(cloud.URL+"/healthz", "") == 200
		})
		bearer = login(t, cloud.URL, testToken) // nothing asks that the old bearer survive
		took = waitFor(t, reconnectWithin, "every agent back online after the cloud restart", func() bool {
			return robotsOnline(cloud.URL, bearer, all, true)
		})
		t.Logf("cloud kill -9 and restart (agents backed off to the cap: %v): every agent back online %v after /healthz answered 200",
			backedOff, took.Round(time.Millisecond))
	}

	// Revoking a2 on the running cloud's data directory: the cloud rechecks keys every second.
	if out, errOut, code := runCLI(t, nil, "agents", "revoke", "--data", cloudDir, "--name", "a2"); code != 0 {
		t.Fatalf("agents revoke: %d %q %q", code, out, errOut)
	}
	took = waitFor(t, 5*time.Second, "the revoked agent's robot offline", func() bool {
		return robotsOnline(cloud.URL, bearer, a2Robots, false)
	})
	t.Logf("revoked agent: its robot offline on the cloud %v after agents revoke returned", took.Round(time.Millisecond))
	waitFor(t, 5*time.Second, "a2 told why its link closed", func() bool {
		return strings.Contains(a2.logs(), "agent key revoked")
	})
	if !robotsOnline(cloud.URL, bearer, a1Robots, true) {
		t.Errorf("revoking a2 took a1's robots offline")
	}
	// The revoked agent keeps serving its local gateway.
	if !a2.running() || status(a2.URL+"/healthz", "") != 200 {
		t.Errorf("the revoked agent stopped serving its local gateway")
	}
	if !robotsOnline(a2.URL, login(t, a2.URL, testToken), a2Robots, true) {
		t.Errorf("the revoked agent's robot is offline on its local gateway")
	}
}

func TestLinkWrongAgentKey(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	addAgent(t, cloudDir, "a1") // a real agent exists; its key is not the one given
	wrong := "fga_" + strings.Repeat("x", 40)
	agent := startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + wrong}, "agent", "--data", t.TempDir(),
		"--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1", "--cloud", cloud.URL)
	robots := localRobots(t, agent.URL, 1)

	waitFor(t, 15*time.Second, "the agent told that the cloud refused its key", func() bool {
		return strings.Contains(agent.logs(), "refused the agent key (401)")
	})
	if !agent.running() || status(agent.URL+"/healthz", "") != 200 {
		t.Fatalf("an agent with a wrong key stopped serving its local gateway")
	}
	if !robotsOnline(agent.URL, login(t, agent.URL, testToken), robots, true) {
		t.Errorf("an agent with a wrong key: its robot is not online on its local gateway")
	}
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	if s := api(t, "GET", cloud.URL+"/apigateway/v2/robots", login(t, cloud.URL, testToken), &list); s != 200 || len(list.RobotDataList) != 0 {
		t.Errorf("the cloud lists robots of an agent it refused: %d %+v", s, list)
	}

	// Refused before the upgrade: 401 with the API's problem document, and after 10 failures
	// from one address in a minute 429 with Retry-After, whatever the key.
	dial := func(key string) *http.Response {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(cloud.URL, "http")+link.Path,
			&websocket.DialOptions{HTTPHeader: http.Header{link.KeyHeader: {key}}})
		if err == nil {
			conn.CloseNow()
			t.Fatalf("the cloud upgraded a link with key %q", key)
		}
		if resp == nil {
			t.Fatalf("dialing the link: %v", err)
		}
		return resp
	}
	resp := dial(wrong)
	if resp.StatusCode != 401 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("wrong key: %d %q, want 401 application/problem+json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for i := 0; i < 10 && resp.StatusCode == 401; i++ {
		resp = dial(wrong)
	}
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("repeated wrong keys: %d, Retry-After %q; want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestLinkSecondAgentWithTheSameKey(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "shared")
	bearer := login(t, cloud.URL, testToken)
	startAgent := func(name string) (*loggedProcess, []string) {
		p := startLogged(t, name, []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", t.TempDir(),
			"--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1", "--cloud", cloud.URL)
		robots := localRobots(t, p.URL, 1)
		waitFor(t, 15*time.Second, name+"'s robot online on the cloud", func() bool {
			return robotsOnline(cloud.URL, bearer, robots, true)
		})
		return p, robots
	}
	older, olderRobots := startAgent("older")
	newer, newerRobots := startAgent("newer")

	// The newer wins; the older is told why and stops trying, instead of taking the link back.
	waitFor(t, 5*time.Second, "the older agent told it was replaced and stopping", func() bool {
		logs := older.logs()
		return strings.Contains(logs, "replaced by a newer connection of this agent") && strings.Contains(logs, "stops linking")
	})
	waitFor(t, 5*time.Second, "the newer agent's robot online and the older's offline", func() bool {
		return robotsOnline(cloud.URL, bearer, olderRobots, false) && robotsOnline(cloud.URL, bearer, newerRobots, true)
	})
	if strings.Contains(newer.logs(), "replaced by a newer connection") {
		t.Errorf("the newer agent was replaced too")
	}
	if !older.running() || status(older.URL+"/healthz", "") != 200 {
		t.Errorf("the replaced agent stopped serving its local gateway")
	}
}

func TestLinkDemoAgents(t *testing.T) {
	cloud := startLogged(t, "cloud", nil, "serve", "--demo", "2", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken)
	bearer := login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "two demo robots online", func() bool {
		var list struct {
			RobotDataList []struct{ IsOnline bool }
		}
		if getJSON(cloud.URL+"/apigateway/v2/robots", bearer, &list) != 200 || len(list.RobotDataList) != 2 {
			return false
		}
		return list.RobotDataList[0].IsOnline && list.RobotDataList[1].IsOnline
	})
}

// loggedProcess is a fleetgate process whose stdout and stderr go to one file.
type loggedProcess struct {
	name string
	cmd  *exec.Cmd
	log  string
	URL  string
	done chan struct{} // closed when the process has exited
}

// startLogged runs fleetgate in the background and waits for its "listening" line. The
// process is killed at cleanup; when the test failed, the end of its log is printed.
func startLogged(t testing.TB, name string, env []string, args ...string) *loggedProcess {
	t.Helper()
	return startLoggedCmd(t, name, exec.Command(binary, args...), env)
}

// startLoggedCmd is startLogged running cmd (fleetgate, or a command that runs it).
func startLoggedCmd(t testing.TB, name string, cmd *exec.Cmd, env []string) *loggedProcess {
	t.Helper()
	args := cmd.Args
	p := &loggedProcess{name: name, cmd: cmd, log: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Env = append(cleanEnv(), env...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	err = p.cmd.Start()
	f.Close() // the child has its own descriptor
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s (%s) log, last lines:\n%s", name, p.log, lastLines(p.logs(), 40))
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(p.logs(), "\n") {
			if m := listeningURL.FindStringSubmatch(line); m != nil && strings.Contains(line, "listening") {
				p.URL = m[1] + m[2]
				return p
			}
		}
		if !p.running() {
			t.Fatalf("fleetgate %v (%s) exited before listening: %v", args, name, p.cmd.ProcessState)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("fleetgate %v (%s) not listening within 20 s", args, name)
	return nil
}

func (p *loggedProcess) logs() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

func (p *loggedProcess) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal sends sig; for SIGKILL it also waits for the process to be gone.
func (p *loggedProcess) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, p.name, err)
	}
	if sig != syscall.SIGKILL {
		return
	}
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still running 5 s after SIGKILL", p.name)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitFor polls cond until it holds and returns how long that took; past within the test
// fails.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(25 * time.Millisecond)
	}
	return time.Since(start)
}

var retryWait = regexp.MustCompile(`cloud link down; retrying.* in=(\S+)`)

// longestRetry is the longest wait between connection attempts an agent logged in logs.
func longestRetry(logs string) time.Duration {
	var longest time.Duration
	for _, m := range retryWait.FindAllStringSubmatch(logs, -1) {
		if d, err := time.ParseDuration(m[1]); err == nil {
			longest = max(longest, d)
		}
	}
	return longest
}

var agentKeyLine = regexp.MustCompile(`(?m)^agent key \(shown once\): (fga_\S+)$`)

// addAgent provisions an agent on a cloud data directory and returns its key.
func addAgent(t testing.TB, dataDir, name string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, nil, "agents", "add", "--data", dataDir, "--name", name)
	m := agentKeyLine.FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("agents add %s: %d %q %q", name, code, stdout, stderr)
	}
	return m[1]
}

// localRobots returns the ids of the n robots an agent's local gateway lists.
func localRobots(t testing.TB, base string, n int) []string {
	t.Helper()
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	if s := api(t, "GET", base+"/apigateway/v2/robots", login(t, base, testToken), &list); s != 200 || len(list.RobotDataList) != n {
		t.Fatalf("local robots at %s: %d %+v, want %d", base, s, list, n)
	}
	ids := make([]string, n)
	for i, r := range list.RobotDataList {
		ids[i] = r.BasicData.ID
	}
	return ids
}

// robotsOnline reports whether every robot of ids is listed on the gateway at base with
// isOnline == online. A failed request (a gateway restarting) is false.
func robotsOnline(base, bearer string, ids []string, online bool) bool {
	var list struct {
		RobotDataList []struct {
			BasicData struct{ ID string }
			IsOnline  bool
		}
	}
	if getJSON(base+"/apigateway/v2/robots", bearer, &list) != 200 {
		return false
	}
	state := map[string]bool{}
	for _, r := range list.RobotDataList {
		state[r.BasicData.ID] = r.IsOnline
	}
	for _, id := range ids {
		if is, listed := state[id]; !listed || is != online {
			return false
		}
	}
	return true
}

var quickClient = &http.Client{Timeout: 5 * time.Second}

// getJSON is a GET that tolerates a gateway that is down: 0 when no answer came.
func getJSON(url, bearer string, out any) int {
	req, _ := http.NewRequest("GET", url, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "bearer "+bearer)
	}
	resp, err := quickClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return 0
		}
	}
	return resp.StatusCode
}

func status(url, bearer string) int { return getJSON(url, bearer, nil) }
