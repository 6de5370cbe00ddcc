package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run the real binary, the way an operator does.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fleetgate-bin")
	if err != nil {
		panic(err)
	}
	// A test run again in a network namespace of its own (the ROS 2 tests) takes the binary
	// its parent built.
	if b := os.Getenv("FLEETGATE_TEST_BINARY"); b != "" {
		binary = b
		os.Exit(m.Run())
	}
	binary = filepath.Join(dir, "fleetgate")
	os.Setenv("FLEETGATE_TEST_BINARY", binary)
	if out, err := exec.Command("go", append(append([]string{"build"}, buildTags...), "-o", binary, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building fleetgate: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const testToken = "fgt_CliTestToken0123456789abcdefghij"

// runCLI runs a command to completion and returns stdout, stderr and the exit code.
func runCLI(t testing.TB, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(cleanEnv(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// cleanEnv is the test's environment without FLEETGATE_* variables that would leak in.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLEETGATE_") {
			env = append(env, kv)
		}
	}
	return env
}

// process is a running gateway.
type process struct {
	cmd    *exec.Cmd
	URL    string
	mu     sync.Mutex
	stdout strings.Builder
	stderr strings.Builder
	done   chan error
}

var listeningURL = regexp.MustCompile(`url=(http\S+)|"url":"(http[^"]+)"`)

// start runs a gateway in the background and waits for its "listening" log line. The
// process is killed at cleanup if the test has not stopped it.
func start(t testing.TB, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(binary, args...), done: make(chan error, 1)}
	p.cmd.Env = append(cleanEnv(), env...)
	stdout, _ := p.cmd.StdoutPipe()
	stderr, _ := p.cmd.StderrPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		p.copyLines(stdout, &p.stdout, nil)
	}()
	go func() {
		defer readers.Done()
		p.copyLines(stderr, &p.stderr, func(line string) {
			if m := listeningURL.FindStringSubmatch(line); m != nil && strings.Contains(line, "listening") {
				select {
				case urls <- m[1] + m[2]:
				default:
				}
			}
		})
	}()
	go func() {
		readers.Wait() // Wait must not race the pipe readers
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.URL = <-urls:
		return p
	case err := <-p.done:
		p.done <- err
		t.Fatalf("fleetgate %v exited before listening (%v)\nstderr:\n%s", args, err, p.Stderr())
	case <-time.After(20 * time.Second):
		t.Fatalf("fleetgate %v not listening within 20 s\nstderr:\n%s", args, p.Stderr())
	}
	return nil
}

func (p *process) copyLines(r io.Reader, into *strings.Builder, each func(string)) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.mu.Lock()
		into.WriteString(sc.Text() + "\n")
		p.mu.Unlock()
		if each != nil {
			each(sc.Text())
		}
	}
}

func (p *process) Stdout() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stdout.String() }
func (p *process) Stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stderr.String() }

// wait waits for the process to exit and returns its exit code.
func (p *process) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return exitErr.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		t.Fatalf("process did not exit within %v", within)
		return -1
	}
}

// api sends a request to the gateway and decodes a JSON answer into out (when non-nil).
func api(t testing.TB, method, url, bearer string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, url, err)
		}
	}
	return resp.StatusCode
}

func login(t testing.TB, base, token string) string {
	t.Helper()
	resp, err := http.Post(base+"/apigateway/v2/auth/login", "application/json",
		strings.NewReader(`{"userToken":"`+token+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	json.NewDecoder(resp.Body).Decode(&out)
	bearer, ok := strings.CutPrefix(out.Token, "bearer ")
	if !ok {
		t.Fatalf("login token %q", out.Token)
	}
	return bearer
}

func TestUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no command", nil, nil, "a command is required"},
		{"unknown command", nil, []string{"launch"}, "unknown command"},
		{"malformed admin token", nil, []string{"serve", "--data", dir, "--admin-token", "fgt_short"}, "--admin-token must be fgt_"},
		{"admin token from env", []string{"FLEETGATE_ADMIN_TOKEN=nope"}, []string{"agent", "--data", dir}, "--admin-token must be fgt_"},
		{"unknown flag", nil, []string{"serve", "--lisen", ":1"}, "flag provided but not defined"},
		{"bad env duration", []string{"FLEETGATE_TOKEN_TTL=soon"}, []string{"serve", "--data", dir}, "FLEETGATE_TOKEN_TTL"},
		{"stray argument", nil, []string{"version", "extra"}, "unexpected argument"},
		{"bad log format", nil, []string{"serve", "--log-format", "xml"}, "--log-format"},
		{"tls halves", nil, []string{"serve", "--tls-cert", "c.pem"}, "go together"},
		{"kiosk frame ancestors with a path", nil, []string{"serve", "--kiosk-frame-ancestors", "https://wall.example/x"}, "--kiosk-frame-ancestors"},
		{"kiosk frame ancestors with a second source", nil, []string{"serve", "--kiosk-frame-ancestors", "https://a.example https://b.example"}, "--kiosk-frame-ancestors"},
		{"trusted proxy not a CIDR", nil, []string{"serve", "--data", dir, "--trusted-proxy", "10.0.0.0/33"}, "trusted-proxy: \"10.0.0.0/33\" is neither a CIDR"},
		{"trusted proxy from env", []string{"FLEETGATE_TRUSTED_PROXY=10.0.0.0/8,haproxy"}, []string{"agent", "--data", dir}, "FLEETGATE_TRUSTED_PROXY"},
		{"cors origin with a path", nil, []string{"serve", "--data", dir, "--cors-origin", "https://dash.example/app"}, `-cors-origin: "https://dash.example/app" is not an origin`},
		{"cors origin of everyone", []string{"FLEETGATE_CORS_ORIGIN=*"}, []string{"agent", "--data", dir}, "FLEETGATE_CORS_ORIGIN"},
		{"trusted proxy of everyone", nil, []string{"serve", "--data", dir, "--trusted-proxy", "0.0.0.0/0"}, "trusts every address"},
		{"token without user", nil, []string{"token", "create", "--data", dir}, "--user is required"},
		{"robots without verb", nil, []string{"robots"}, "needs one of"},
		{"agent max robots zero", nil, []string{"serve", "--data", dir, "--agent-max-robots", "0"}, "--agent-max-robots must be at least 1"},
		{"agent max robots from env", []string{"FLEETGATE_AGENT_MAX_ROBOTS=many"}, []string{"serve", "--data", dir}, "FLEETGATE_AGENT_MAX_ROBOTS"},
		{"agent max robots on an agent", nil, []string{"agent", "--data", dir, "--agent-max-robots", "5"}, "flag provided but not defined"},
		{"stale robots without an age", nil, []string{"robots", "remove", "--data", dir}, "--stale is required"},
		{"negative retention", nil, []string{"serve", "--data", dir, "--recordings-retention", "-1h"}, "--recordings-retention must be 0"},
		{"cloud quota in words", nil, []string{"serve", "--data", dir, "--recordings-cloud-quota", "lots"}, "recordings-cloud-quota"},
		{"retention on an agent", nil, []string{"agent", "--data", dir, "--recordings-retention", "720h"}, "flag provided but not defined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, c.env, c.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not say %q", stderr, c.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	stdout, _, code := runCLI(t, nil, "version")
	if code != 0 || !regexp.MustCompile(`^fleetgate \S+ \(commit \S+, \S+\)\n$`).MatchString(stdout) {
		t.Fatalf("version: code %d, %q", code, stdout)
	}
	for _, flag := range []string{"--version", "-version"} {
		if again, _, code := runCLI(t, nil, flag); code != 0 || again != stdout {
			t.Errorf("fleetgate %s: code %d, %q; want %q", flag, code, again, stdout)
		}
	}
}

func TestOfflineCommandsNeedAnExistingDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	_, stderr, code := runCLI(t, nil, "robots", "list", "--data", dir)
	if code != 1 || !strings.Contains(stderr, "no fleetgate data in") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("robots list created %s", dir)
	}
}

// TestServeWorkflow is the "done when": start, log in, list, read details, post an
// event, kill -9, and find the event and the robot again.
func TestServeWorkflow(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	if strings.Contains(p.Stdout(), "admin API token") {
		t.Errorf("a given --admin-token must not be printed: %q", p.Stdout())
	}

	robotID, stderr, code := runCLI(t, nil, "robots", "add", "--data", dir, "--name", "forklift-7")
	robotID = strings.TrimSpace(robotID)
	if code != 0 || !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(robotID) {
		t.Fatalf("robots add: code %d, id %q, stderr %q", code, robotID, stderr)
	}

	bearer := login(t, p.URL, testToken)
	var list struct {
		RobotDataList []struct {
			BasicData struct{ ID, Name string }
			IsOnline  bool
		}
	}
	if s := api(t, "GET", p.URL+"/apigateway/v2/robots", bearer, &list); s != 200 || len(list.RobotDataList) != 1 || list.RobotDataList[0].BasicData.ID != robotID {
		t.Fatalf("robots: %d %+v", s, list)
	}
	var details map[string]any
	if s := api(t, "GET", p.URL+"/apigateway/v2/robots/"+robotID, bearer, &details); s != 200 || details["fleetName"] != "default" {
		t.Fatalf("robot details: %d %v", s, details)
	}
	if s := api(t, "POST", p.URL+"/apigateway/v2/events/log?robotId="+robotID+"&message=pallet+dropped+at+dock+3", bearer, nil); s != 200 {
		t.Fatalf("post event: %d", s)
	}

	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, 10*time.Second)

	stdout, stderr, code := runCLI(t, nil, "events", "list", "--data", dir, "--robot", robotID)
	if code != 0 || !strings.Contains(stdout, `"pallet dropped at dock 3"`) || !strings.Contains(stdout, "admin@localhost") {
		t.Fatalf("events list after kill -9: code %d\n%s%s", code, stdout, stderr)
	}

	again := start(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	bearer = login(t, again.URL, testToken)
	if s := api(t, "GET", again.URL+"/apigateway/v2/robots/"+robotID, bearer, nil); s != 200 {
		t.Fatalf("robot after restart: %d", s)
	}
}

func TestFreshDataDirectoryPrintsTheAdminTokenOnce(t *testing.T) {
	dir := t.TempDir()
	first := start(t, nil, "agent", "--data", dir, "--listen", "127.0.0.1:0")
	m := regexp.MustCompile(`(?m)^admin API token: (fgt_[0-9A-Za-z]{32})$`).FindStringSubmatch(first.Stdout())
	if m == nil {
		t.Fatalf("stdout %q has no admin API token line", first.Stdout())
	}
	if strings.Contains(first.Stderr(), m[1]) {
		t.Error("the admin token appears in the log")
	}
	bearer := login(t, first.URL, m[1])
	if s := api(t, "GET", first.URL+"/apigateway/v2/robots", bearer, nil); s != 200 {
		t.Fatalf("robots with the printed token: %d", s)
	}
	first.cmd.Process.Signal(syscall.SIGTERM)
	if code := first.wait(t, 15*time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit code %d, want 0\n%s", code, first.Stderr())
	}
	if !strings.Contains(first.Stderr(), "msg=stopped") {
		t.Errorf("no graceful stop in the log:\n%s", first.Stderr())
	}

	second := start(t, nil, "agent", "--data", dir, "--listen", "127.0.0.1:0")
	if strings.Contains(second.Stdout(), "admin API token") {
		t.Errorf("second start printed a token again: %q", second.Stdout())
	}
	// The agent's fleet is local-fleet.
	robotOut, _, _ := runCLI(t, nil, "robots", "add", "--data", dir, "--name", "amr-1")
	list, _, _ := runCLI(t, nil, "robots", "list", "--data", dir)
	if !strings.Contains(list, strings.TrimSpace(robotOut)) || !strings.Contains(list, "local-fleet") {
		t.Errorf("robots list:\n%s", list)
	}
}

func TestEnvironmentConfiguresTheServer(t *testing.T) {
	dir := t.TempDir()
	p := start(t, []string{
		"FLEETGATE_DATA=" + dir,
		"FLEETGATE_LISTEN=127.0.0.1:0",
		"FLEETGATE_ADMIN_TOKEN=" + testToken,
		"FLEETGATE_LOG_FORMAT=json",
		"FLEETGATE_METRICS_LISTEN=127.0.0.1:0",
		"FLEETGATE_CORS_ORIGIN=http://dash.example:3000, HTTPS://Ops.example:443",
	}, "serve")
	if _, err := os.Stat(filepath.Join(dir, "fleetgate.db")); err != nil {
		t.Fatalf("FLEETGATE_DATA ignored: %v", err)
	}
	bearer := login(t, p.URL, testToken)
	api(t, "GET", p.URL+"/apigateway/v2/robots?access_token=SECRETVALUE", bearer, nil)
	// FLEETGATE_CORS_ORIGIN's origins, as browsers write them, may call the API.
	for _, origin := range []string{"http://dash.example:3000", "https://ops.example"} {
		req, _ := http.NewRequest("OPTIONS", p.URL+"/apigateway/v2/robots", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != http.StatusNoContent || got != origin {
			t.Errorf("preflight from %s: %d, Access-Control-Allow-Origin %q", origin, resp.StatusCode, got)
		}
	}

	var metricsURL string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && metricsURL == "" {
		for _, line := range strings.Split(p.Stderr(), "\n") {
			var entry map[string]any
			if json.Unmarshal([]byte(line), &entry) == nil && entry["msg"] == "metrics listening" {
				metricsURL, _ = entry["url"].(string)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if metricsURL == "" {
		t.Fatalf("no metrics listening line in JSON logs:\n%s", p.Stderr())
	}
	resp, err := http.Get(metricsURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `fleetgate_http_requests_total{method="GET",route="/apigateway/v2/robots",status="200"} 1`) {
		t.Errorf("metrics lack the request counter:\n%.2000s", body)
	}
	logs := p.Stderr()
	for _, secret := range []string{"SECRETVALUE", bearer} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain a secret %q", secret)
		}
	}
}

func TestAdminCommands(t *testing.T) {
	dir := t.TempDir()
	start(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)

	stdout, stderr, code := runCLI(t, nil, "token", "create", "--data", dir, "--user", "admin@localhost", "--name", "laptop")
	token := strings.TrimSpace(stdout)
	if code != 0 || !regexp.MustCompile(`^fgt_[0-9A-Za-z]{32}$`).MatchString(token) {
		t.Fatalf("token create: %d %q %q", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, nil, "token", "create", "--data", dir, "--user", "nobody@example.com"); code != 1 || !strings.Contains(stderr, "no user") {
		t.Errorf("token for unknown user: %d %q", code, stderr)
	}

	stdout, stderr, code = runCLI(t, nil, "agents", "add", "--data", dir, "--name", "dock-agent", "--fleet", "warehouse-2")
	if code != 0 || !strings.Contains(stdout, "created fleet warehouse-2") || !regexp.MustCompile(`agent key \(shown once\): fga_[0-9A-Za-z]{40}`).MatchString(stdout) {
		t.Fatalf("agents add: %d %q %q", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, nil, "agents", "add", "--data", dir, "--name", "dock-agent"); code != 1 || !strings.Contains(stderr, "already exists") {
		t.Errorf("duplicate agent: %d %q", code, stderr)
	}
	stdout, _, code = runCLI(t, nil, "robots", "add", "--data", dir, "--name", "tugger", "--fleet", "warehouse-2")
	if code != 0 || strings.Contains(stdout, "created fleet") {
		t.Errorf("robots add into the existing fleet: %d %q", code, stdout)
	}
	list, _, _ := runCLI(t, nil, "robots", "list", "--data", dir)
	if !strings.Contains(list, "tugger") || !strings.Contains(list, "warehouse-2") || !strings.Contains(list, "never") {
		t.Errorf("robots list:\n%s", list)
	}
}
