package main

import (
	"archive/tar"
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// The files of an agent's data directory that are its identity: a restore must give them
// back byte for byte (the local TLS certificate operators pinned, the download signing key,
// the robots' ids).
var agentKeys = []string{"local-tls.crt", "local-tls.key", "download-signing.key", "sim/robots.json"}

// TestBackupOfARunningGatewayAndRestore backs up an agent while entries are posted to its
// event log, restores the backup into a new data directory and runs a gateway there: it has
// every entry acknowledged before the backup began, none torn, the same robot, the same
// admin token, and serves the same TLS certificate.
func TestBackupOfARunningGatewayAndRestore(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "agent", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1")
	bearer := login(t, p.URL, testToken)
	robotID := onlyRobot(t, p.URL, bearer)

	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			q := url.Values{"robotId": {robotID}, "message": {"entry-" + strconv.Itoa(i)}}
			req, _ := http.NewRequest("POST", p.URL+"/apigateway/v2/events/log?"+q.Encode(), nil)
			req.Header.Set("Authorization", "bearer "+bearer)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("posting entry %d: %v", i, err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("posting entry %d: %d", i, resp.StatusCode)
				return
			}
			acked.Add(1)
		}
	}()
	stopPosting := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopPosting()
	for deadline := time.Now().Add(20 * time.Second); acked.Load() < 50; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d entries posted in 20 s", acked.Load())
		}
	}

	backup := filepath.Join(t.TempDir(), "fleetgate.tar.gz")
	before := acked.Load()
	stdout, stderr, code := runCLI(t, nil, "backup", "--data", dir, "--out", backup)
	after := acked.Load()
	if code != 0 || !strings.Contains(stdout, "backed up") {
		t.Fatalf("backup: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stopPosting()
	if st, err := os.Stat(backup); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the backup: %v, mode %v; want 0600, it holds keys", err, st.Mode())
	}

	restored := filepath.Join(t.TempDir(), "restored")
	if stdout, stderr, code := runCLI(t, nil, "restore", "--from", backup, "--data", restored); code != 0 || !strings.Contains(stdout, "restored") {
		t.Fatalf("restore: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, name := range agentKeys {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(restored, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: restored %d bytes (%v), want the %d bytes of the original", name, len(got), err, len(want))
		}
	}

	r := start(t, nil, "agent", "--data", restored, "--listen", "127.0.0.1:0", "--sim", "1")
	if got := onlyRobot(t, r.URL, login(t, r.URL, testToken)); got != robotID {
		t.Errorf("the restored agent hosts robot %s, want %s", got, robotID)
	}
	if block, _ := pem.Decode(readFile(t, filepath.Join(dir, "local-tls.crt"))); block == nil || !bytes.Equal(servedCertificate(t, r.URL), block.Bytes) {
		t.Error("the restored agent serves another TLS certificate than the original")
	}
	events, stderr, code := runCLI(t, nil, "events", "list", "--data", restored, "--limit", "1000000")
	if code != 0 {
		t.Fatalf("events list: %d %s", code, stderr)
	}
	n := int64(strings.Count(events, `"entry-`))
	t.Logf("%d entries acknowledged before the backup, %d in the restored log, %d acknowledged after", before, n, after)
	if n < before || n > after {
		t.Errorf("the restored log holds %d entries; %d were acknowledged before the backup began and %d when it ended", n, before, after)
	}
	for i := range n { // whole transactions, in order: the first n entries, no gap
		if !strings.Contains(events, `"entry-`+strconv.FormatInt(i, 10)+`"`) {
			t.Fatalf("entry-%d is missing from the restored log of %d entries", i, n)
		}
	}
}

// onlyRobot returns the id of a gateway's one robot.
func onlyRobot(t *testing.T, base, bearer string) string {
	t.Helper()
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	if s := api(t, "GET", base+"/apigateway/v2/robots", bearer, &list); s != 200 || len(list.RobotDataList) != 1 {
		t.Fatalf("robots: %d %+v", s, list)
	}
	return list.RobotDataList[0].BasicData.ID
}

// servedCertificate is the DER of the certificate a gateway's port presents over TLS.
func servedCertificate(t *testing.T, base string) []byte {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("TLS to %s: %v", u.Host, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRestoreRefusals(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "agent", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1")
	backup := filepath.Join(t.TempDir(), "fleetgate.tar.gz")
	if _, stderr, code := runCLI(t, nil, "backup", "--data", dir, "--out", backup); code != 0 {
		t.Fatalf("backup: %d %s", code, stderr)
	}
	original := readFile(t, filepath.Join(dir, "local-tls.key"))

	t.Run("a running gateway's data, even with --force", func(t *testing.T) {
		for _, force := range []string{"--force=false", "--force"} {
			_, stderr, code := runCLI(t, nil, "restore", "--from", backup, "--data", dir, force)
			if code != 1 || !strings.Contains(stderr, "a gateway is running on "+dir) {
				t.Errorf("restore %s: exit %d, %q; want a refusal naming the running gateway", force, code, stderr)
			}
		}
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("the agent exited %d on SIGTERM", code)
	}

	t.Run("a stopped gateway's data without --force", func(t *testing.T) {
		_, stderr, code := runCLI(t, nil, "restore", "--from", backup, "--data", dir)
		if code != 1 || !strings.Contains(stderr, "holds data: --force moves it aside") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})
	t.Run("a stopped gateway's data with --force is moved aside", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, nil, "restore", "--from", backup, "--data", dir, "--force")
		_, aside, _ := strings.Cut(stdout, "the data that was there is in ")
		aside = strings.TrimSpace(aside)
		if code != 0 || aside == "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if !bytes.Equal(readFile(t, filepath.Join(aside, "local-tls.key")), original) || !fileExists(filepath.Join(aside, "fleetgate.db")) {
			t.Errorf("%s does not hold the data that was there", aside)
		}
		if !bytes.Equal(readFile(t, filepath.Join(dir, "local-tls.key")), original) {
			t.Error("the restored key differs from the backed-up one")
		}
	})

	// A damaged or foreign file restores nothing.
	damaged := func(t *testing.T, name string, b []byte) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := readFile(t, backup)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0xff
	for _, c := range []struct {
		name, want string
		file       []byte
	}{
		{"cut short", "", good[:len(good)*2/3]},
		{"a flipped byte", "", flipped},
		{"not gzip", "not a fleetgate backup", []byte("hello")},
		{"a path outside the data directory", `"../escaped", which is not a file inside a data directory`, tarGz(t, map[string]string{"../escaped": "x"})},
		{"no manifest", "no manifest", tarGz(t, map[string]string{"fleetgate.db": "x"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			into := filepath.Join(t.TempDir(), "data")
			_, stderr, code := runCLI(t, nil, "restore", "--from", damaged(t, "b.tar.gz", c.file), "--data", into)
			if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "nothing was restored") {
				t.Errorf("exit %d, %q; want a refusal saying %q and nothing restored", code, stderr, c.want)
			}
			if entries, _ := os.ReadDir(filepath.Dir(into)); len(entries) != 0 {
				t.Errorf("a failed restore left %v", entries)
			}
		})
	}
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// tarGz makes a gzipped tar of the given files.
func tarGz(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBackupStoreOnlyAndUsage(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t, 20*time.Second)
	recording := filepath.Join(dir, "recordings", "r.mcap")
	if err := os.MkdirAll(filepath.Dir(recording), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recording, []byte("a recording"), 0o600); err != nil {
		t.Fatal(err)
	}
	// serve --demo's agents keep live stores of their own there, never copied as files.
	demoStore := filepath.Join(dir, "demo-agents", "demo-agent-1", "fleetgate.db")
	os.MkdirAll(filepath.Dir(demoStore), 0o700)
	if err := os.WriteFile(demoStore, []byte("a live store"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag     string
		included bool
	}{{"--store-only=false", true}, {"--store-only", false}} {
		out := filepath.Join(t.TempDir(), "b.tar.gz")
		stdout, stderr, code := runCLI(t, nil, "backup", "--data", dir, "--out", out, c.flag)
		if code != 0 {
			t.Fatalf("backup %s: %d %s", c.flag, code, stderr)
		}
		restored := filepath.Join(t.TempDir(), "restored")
		if _, stderr, code := runCLI(t, nil, "restore", "--from", out, "--data", restored); code != 0 {
			t.Fatalf("restore: %d %s", code, stderr)
		}
		if fileExists(filepath.Join(restored, "recordings", "r.mcap")) != c.included || strings.Contains(stdout, "left out recordings/") == c.included {
			t.Errorf("backup %s: the recording restored: %v (want %v); stdout %q", c.flag, !c.included, c.included, stdout)
		}
		if fileExists(filepath.Join(restored, "demo-agents")) || !strings.Contains(stdout, "left out demo-agents/") {
			t.Errorf("backup %s copied the demo agents' live stores; stdout %q", c.flag, stdout)
		}
		// The server admits the restored store: its admin token logs in.
		r := start(t, nil, "serve", "--data", restored, "--listen", "127.0.0.1:0")
		login(t, r.URL, testToken)
	}

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"PostgreSQL", []string{"backup", "--data", dir, "--out", "b.tar.gz", "--db", "postgres://fleet@db/fleet"}, "back it up with pg_dump"},
		{"into the data directory", []string{"backup", "--data", dir, "--out", filepath.Join(dir, "b.tar.gz")}, "inside the data directory"},
		{"no output", []string{"backup", "--data", dir}, "--out is required"},
		{"no input", []string{"restore", "--data", dir}, "--from is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, nil, c.args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, %q; want %d and %q", code, stderr, exitUsage, c.want)
			}
		})
	}
}

// A restore holds the data directory's lock alone; gateways share it.
func TestDataDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	restore, err := lockDataDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockGatewayData(dir); err == nil || !strings.Contains(err.Error(), "is being restored") {
		t.Errorf("a gateway started during a restore: %v", err)
	}
	restore()
	first, err := lockGatewayData(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer first()
	second, err := lockGatewayData(dir)
	if err != nil {
		t.Fatalf("a second gateway on the same directory: %v", err)
	}
	defer second()
	if _, err := lockDataDir(dir, true); !errors.Is(err, errDataDirBusy) {
		t.Errorf("a restore while gateways run: %v, want errDataDirBusy", err)
	}
}
