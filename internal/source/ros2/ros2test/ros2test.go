// Package ros2test runs ROS 2 tests against real DDS peers: each test in a network namespace
// of its own (loopback only, multicast on), never on the host's interfaces, with two peers
// built from peer/ (Cyclone DDS with idlc types, Fast DDS with fastddsgen types).
package ros2test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// envNetns names the test that runs in this process's own network namespace.
const envNetns = "FLEETGATE_ROS2_NETNS"

// InNetns runs the calling top-level test in a new network namespace: it reports whether this
// process is already in that namespace (go on with the test), or, in the parent, runs the test
// binary again under `unshare -rn` for this one test, passes its verdict on and returns false.
func InNetns(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envNetns) == t.Name() {
		return true
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("NOT POSSIBLE HERE: unshare (util-linux) is missing: DDS tests run in a network namespace of their own")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("NOT POSSIBLE HERE: ip (iproute2) is missing: DDS tests bring up the namespace's loopback")
	}
	args := []string{"-test.run", "^" + regexp.QuoteMeta(t.Name()) + "$", "-test.v", "-test.count=1"}
	script := `ip link set lo up multicast on && ip route add 224.0.0.0/4 dev lo 2>/dev/null; exec "$@"`
	cmd := exec.Command("unshare", append([]string{"-rn", "--", "sh", "-c", script, "sh", os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), envNetns+"="+t.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := out.String()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t.Log(line)
	}
	switch {
	case err != nil:
		t.Fatalf("the test in its network namespace failed: %v", err)
	case strings.Contains(text, "--- SKIP: "+t.Name()):
		t.Skip("skipped in its network namespace (see above)")
	case !strings.Contains(text, "--- PASS: "+t.Name()):
		t.Fatalf("the test did not run in its network namespace")
	}
	return false
}

// InNetnsB is InNetns for a benchmark: the parent runs it again in a new network namespace
// and reports each of the child's sub-benchmark results (its metrics) as its own.
func InNetnsB(b *testing.B) bool {
	b.Helper()
	if os.Getenv(envNetns) == b.Name() {
		return true
	}
	benchtime := "1x"
	if f := flag.Lookup("test.benchtime"); f != nil {
		benchtime = f.Value.String()
	}
	script := `ip link set lo up multicast on && ip route add 224.0.0.0/4 dev lo 2>/dev/null; exec "$@"`
	cmd := exec.Command("unshare", "-rn", "--", "sh", "-c", script, "sh", os.Args[0],
		"-test.run", "^$", "-test.bench", "^"+regexp.QuoteMeta(b.Name())+"$", "-test.benchtime", benchtime, "-test.v")
	cmd.Env = append(os.Environ(), envNetns+"="+b.Name())
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		b.Log(line)
	}
	if err != nil {
		b.Fatalf("the benchmark in its network namespace failed: %v", err)
	}
	// "BenchmarkX/sub-2   1   123 ns/op   4.5 unit ..." lines become sub-benchmarks here.
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		name, ok := strings.CutPrefix(firstOr(f), b.Name()+"/")
		if !ok || len(f) < 4 {
			continue
		}
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		b.Run(name, func(b *testing.B) {
			for i := 2; i+1 < len(f); i += 2 {
				if v, err := strconv.ParseFloat(f[i], 64); err == nil && f[i+1] != "ns/op" {
					b.ReportMetric(v, f[i+1])
				}
			}
		})
	}
	return false
}

func firstOr(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Peers are the paths of the built test peers.
type Peers struct {
	Cyclone string // Cyclone DDS, idlc types
	FastDDS string // Fast DDS, fastddsgen types
}

// Build builds the peers (once per source version, cached under the user cache directory).
func Build(t testing.TB) Peers {
	t.Helper()
	for _, tool := range []string{"idlc", "fastddsgen", "gcc", "g++", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: scripts/test.sh installs cyclonedds-dev cyclonedds-tools libfastrtps-dev fastddsgen g++ pkg-config", tool)
		}
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "peer")
	h := sha256.New()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "fleetgate-ros2-peers", hex.EncodeToString(h.Sum(nil))[:16])
	peers := Peers{Cyclone: filepath.Join(out, "cyclone_peer"), FastDDS: filepath.Join(out, "fastdds_peer")}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// Packages test in parallel: one build at a time.
	lock, err := os.OpenFile(filepath.Join(out, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if fileExists(peers.Cyclone) && fileExists(peers.FastDDS) {
		return peers
	}
	cmd := exec.Command(filepath.Join(src, "build.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the ROS 2 test peers: %v\n%s", err, b)
	}
	return peers
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
