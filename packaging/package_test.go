// Package packaging holds the tests of fleetgate's Debian packages and systemd units; the
// packages are built by build.sh (make packages) with nfpm.
package packaging

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/fleetgate/fleetgate/internal/store"
)

// root is the repository's root (tests run in their package's directory).
var root = func() string { d, _ := filepath.Abs(".."); return d }()

// command runs a command and returns its output; any failure ends the test, with the output.
func command(t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestVersionFromGit: the version the packages and binaries carry, from git's tags and
// commit count, ordered as an upgrade needs by dpkg.
func TestVersionFromGit(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) string {
		return command(t, []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}, repo, "git", args...)
	}
	version := func(args ...string) string {
		return command(t, nil, repo, filepath.Join(root, "packaging/version.sh"), args...)
	}
	commit := func(msg string) string {
		os.WriteFile(filepath.Join(repo, "file"), []byte(msg), 0o644)
		git("add", "file")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "--short=7", "HEAD")
	}
	git("init", "-q")
	commit("one")
	second := commit("two")
	var seen []string
	step := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
		seen = append(seen, got)
	}
	step("no tag yet", version(), "0.0.0+2.g"+second)
	git("tag", "v1.2.0")
	step("on a tag", version(), "1.2.0")
	third := commit("three")
	step("after a tag", version(), "1.2.0+1.g"+third)
	os.WriteFile(filepath.Join(repo, "file"), []byte("changed"), 0o644)
	step("changes not committed", version(), "1.2.0+1.g"+third+".dirty")
	if got := version("HEAD~1"); got != "1.2.0" {
		t.Errorf("of a revision: %q, want 1.2.0 (a revision is never dirty)", got)
	}
	git("checkout", "-q", "file")
	git("tag", "v1.3.0-rc1")
	step("a pre-release", version(), "1.3.0~rc1")
	git("tag", "v1.3.0")
	step("its release", version(), "1.3.0")
	for i := 1; i < len(seen); i++ {
		if err := exec.Command("dpkg", "--compare-versions", seen[i-1], "lt", seen[i]).Run(); err != nil {
			t.Errorf("dpkg does not order %s before %s: an upgrade would be a downgrade", seen[i-1], seen[i])
		}
	}
}

// TestUnitsVerify: systemd-analyze verify finds nothing to say about the units (their
// ExecStart pointed at a binary that exists here), their exposure is "OK" by
// systemd-analyze security (2.0 at most), and the hardening the issue asks is there.
func TestUnitsVerify(t *testing.T) {
	dir := t.TempDir()
	for _, unit := range []string{"fleetgate-cloud.service", "fleetgate-agent.service"} {
		t.Run(unit, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, "packaging", unit))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			for _, want := range []string{"User=fleetgate", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
				"PrivateTmp=yes", "CapabilityBoundingSet=\n", "AmbientCapabilities=\n", "StateDirectory=fleetgate/",
				"EnvironmentFile=/etc/fleetgate/", "ExecStart=/usr/bin/fleetgate "} {
				if !strings.Contains(text, "\n"+want) {
					t.Errorf("%s lacks %q", unit, strings.TrimSpace(want))
				}
			}
			path := filepath.Join(dir, unit)
			// verify checks that ExecStart's binary exists: this test's own will do.
			self, _ := os.Executable()
			if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "/usr/bin/fleetgate", self)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
			}
			out, err = exec.Command("systemd-analyze", "security", "--offline=true", "--threshold=20", path).CombinedOutput()
			if err != nil {
				t.Errorf("systemd-analyze security %s: %v, exposure over 2.0:\n%s", unit, err, out)
			}
		})
	}
}

// TestRuntimeDependencies: depends.sh names the Debian packages of the shared libraries a cgo
// binary links. A program linked as the ROS 2 build is, against Cyclone DDS, depends on the
// runtime package of Debian's cyclonedds, whatever its name on this release.
func TestRuntimeDependencies(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "dds.c")
	os.WriteFile(src, []byte("#include <dds/dds.h>\nint main(void) { return dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL) < 0; }\n"), 0o644)
	bin := filepath.Join(dir, "dds")
	command(t, nil, dir, "sh", "-c", "gcc -o "+bin+" "+src+" $(pkg-config --cflags --libs CycloneDDS)")
	depends := command(t, nil, root, "packaging/depends.sh", bin)
	// The package whose source is cyclonedds and that holds the library, as dpkg knows it.
	lib := command(t, nil, dir, "sh", "-c", "readlink -f $(ldconfig -p | awk '/libddsc.so/ {print $NF; exit}')")
	pkg := strings.Split(command(t, nil, dir, "dpkg", "-S", lib), ":")[0]
	if source := command(t, nil, dir, "dpkg-query", "-W", "-f", "${source:Package}", pkg); source != "cyclonedds" {
		t.Fatalf("%s holds %s but comes from %s, not cyclonedds", pkg, lib, source)
	}
	if !regexp.MustCompile(`(^|, )`+regexp.QuoteMeta(pkg)+` \(>= [0-9.]+\)(,|$)`).MatchString(depends) || !strings.Contains(depends, "libc6 (>= ") {
		t.Errorf("depends.sh: %q; want %s and libc6, each with its version", depends, pkg)
	}
}

// upgradeFrom is the commit the upgrade test installs first: the last one before the store's
// migration 8, whose upgrade then migrates a database that an older fleetgate wrote. It is
// built as it was (a real older binary) and packaged with today's packaging. When releases
// are tagged, it becomes the latest release.
const upgradeFrom = "e9a937931392f4bedbea0ed6faee4b33cb80f8fd"

const adminToken = "fgt_PackageTestToken0123456789abcdef"

// TestDebianPackage installs the package built from an older commit, runs the cloud unit's
// ExecStart by hand as systemd would (as the user fleetgate, with the unit's environment and
// env file, no capability, no new privileges), upgrades to the package of this tree (the data
// kept and migrated, the operator's settings kept), runs both units, removes the package (the
// data stays) and purges it (the data goes). It needs root: it installs packages and a user.
//
// On a machine with a fleetgate package of its own it fails rather than replace it. It leaves
// the machine as it found it: the packages purged, the user fleetgate removed if it made it;
// it keeps, as a cache, the older commit's source (7 MB) under the user's cache directory, so
// that Go's build cache finds that build again (about a minute otherwise).
func TestDebianPackage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the package test installs Debian packages and a system user: run it as root (CI does), on a machine without fleetgate installed")
	}
	unlock := lockMachine(t)
	defer unlock()
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Package} ${Version} ${db:Status-Abbrev}\n", "fleetgate", "fleetgate-ros2").Output(); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[2] != "un" {
				t.Fatalf("%s %s is installed on this machine (%s): the package test would replace and purge it; remove it first, or run the test elsewhere (CI)", f[0], f[1], f[2])
			}
		}
	}
	_, err := exec.Command("getent", "passwd", "fleetgate").Output()
	userExisted := err == nil
	t.Cleanup(func() {
		exec.Command("dpkg", "--purge", "fleetgate").Run()
		if !userExisted {
			exec.Command("userdel", "fleetgate").Run()
			exec.Command("groupdel", "fleetgate").Run()
		}
		os.RemoveAll("/var/lib/fleetgate")
	})

	arch := command(t, nil, root, "dpkg", "--print-architecture")
	newVersion := command(t, nil, root, "packaging/version.sh")
	from, src := upgradeFrom, olderSource(t)
	oldVersion := ""
	migrates := src != root
	if migrates {
		oldVersion = command(t, nil, root, "packaging/version.sh", upgradeFrom)
	} else {
		// A clone without that history (a shallow one): the older package is this tree's at an
		// older version. The upgrade keeps the data and the settings as tested; there is no
		// older schema to migrate, and every such run says so.
		t.Logf("NOTE: this clone lacks commit %s (a shallow clone?): the upgrade is tested from this tree's own package at an older version, without a migration; run the test in a full clone for the migration", upgradeFrom)
		from, oldVersion = "HEAD", newVersion+"~older"
	}
	if err := exec.Command("dpkg", "--compare-versions", oldVersion, "lt", newVersion).Run(); err != nil {
		t.Fatalf("%s is not older than %s for dpkg", oldVersion, newVersion)
	}
	dist := t.TempDir()
	started := time.Now()
	command(t, []string{"SRC=" + src, "VERSION=" + oldVersion, "COMMIT=" + command(t, nil, root, "git", "rev-parse", from),
		"DATE=" + command(t, []string{"TZ=UTC"}, root, "git", "log", "-1", "--date=format-local:%Y-%m-%dT%H:%M:%SZ", "--format=%cd", from),
		"SOURCE_DATE_EPOCH=" + command(t, nil, root, "git", "log", "-1", "--format=%ct", from),
		"DEV_BUILD=1", "DIST=" + filepath.Join(dist, "old")}, root, "packaging/build.sh", "fleetgate-"+arch)
	command(t, []string{"DEV_BUILD=1", "DIST=" + filepath.Join(dist, "new")}, root, "packaging/build.sh", "fleetgate-"+arch)
	t.Logf("both packages built in %v", time.Since(started).Round(time.Second))
	oldDeb := filepath.Join(dist, "old", fmt.Sprintf("fleetgate_%s_%s.deb", oldVersion, arch))
	newDeb := filepath.Join(dist, "new", fmt.Sprintf("fleetgate_%s_%s.deb", newVersion, arch))

	// Installed: the user, its home, the units (disabled), the conffiles.
	dpkg(t, "-i", oldDeb)
	if uid := command(t, nil, "/", "id", "-u", "fleetgate"); len(uid) > 3 {
		t.Errorf("fleetgate's uid is %s: want a system user's", uid)
	}
	wantOwner(t, "/var/lib/fleetgate", "fleetgate", 0o750)
	for _, env := range []string{"/etc/fleetgate/cloud.env", "/etc/fleetgate/agent.env"} {
		wantOwner(t, env, "root", 0o600)
	}
	if conffiles := command(t, nil, "/", "dpkg-query", "-W", "-f", "${Conffiles}", "fleetgate"); !strings.Contains(conffiles, "/etc/fleetgate/cloud.env") || !strings.Contains(conffiles, "/etc/fleetgate/agent.env") {
		t.Errorf("conffiles: %q", conffiles)
	}
	if enabled, _ := filepath.Glob("/etc/systemd/system/*.wants/fleetgate-*"); len(enabled) > 0 {
		t.Errorf("the package enabled %v: the units are to be installed disabled", enabled)
	}
	if out, err := exec.Command("systemd-analyze", "verify", "/usr/lib/systemd/system/fleetgate-cloud.service", "/usr/lib/systemd/system/fleetgate-agent.service").CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify of the installed units: %v\n%s", err, out)
	}

	// The older gateway writes its store: a robot and an event-log entry.
	cloud := runUnit(t, "fleetgate-cloud.service")
	if h := healthz(t, cloud.url); h.Version != oldVersion || h.Mode != "cloud" {
		t.Errorf("healthz of the older package: %+v, want version %s", h, oldVersion)
	}
	robot := asFleetgate(t, "/usr/bin/fleetgate", "robots", "add", "--data", "/var/lib/fleetgate/cloud", "--name", "forklift-7")
	postEvent(t, cloud.url, robot, "pallet dropped before the upgrade")
	cloud.stop(t)
	before := schemaOf(t, "/var/lib/fleetgate/cloud/fleetgate.db")
	if migrates && before >= store.LatestSchema() {
		t.Fatalf("the older gateway's store has schema %d, this tree's %d: upgradeFrom must be older than the latest migration", before, store.LatestSchema())
	}

	// The operator's setting survives the upgrade, which asks nothing.
	appendLine(t, "/etc/fleetgate/cloud.env", "FLEETGATE_ALERT_BATTERY=25")
	dpkg(t, "-i", newDeb)
	if b, _ := os.ReadFile("/etc/fleetgate/cloud.env"); !strings.Contains(string(b), "\nFLEETGATE_ALERT_BATTERY=25\n") {
		t.Error("the upgrade lost the operator's change to /etc/fleetgate/cloud.env")
	}
	if out := asFleetgate(t, "/usr/bin/fleetgate", "version"); !strings.HasPrefix(out, "fleetgate "+newVersion+" (commit ") {
		t.Errorf("fleetgate version: %q, want %s and its commit", out, newVersion)
	}

	// The newer gateway migrates the store and serves what the older one wrote.
	cloud = runUnit(t, "fleetgate-cloud.service")
	if h := healthz(t, cloud.url); h.Version != newVersion {
		t.Errorf("healthz after the upgrade: %+v, want version %s", h, newVersion)
	}
	bearer := login(t, cloud.url)
	if events := asFleetgate(t, "/usr/bin/fleetgate", "events", "list", "--data", "/var/lib/fleetgate/cloud"); !strings.Contains(events, "pallet dropped before the upgrade") {
		t.Errorf("the event-log entry of the older gateway is gone after the upgrade:\n%s", events)
	}
	if s := get(t, cloud.url+"/apigateway/v2/robots/"+robot, bearer); s != 200 {
		t.Errorf("the robot of the older gateway: %d after the upgrade", s)
	}
	cloud.stop(t)
	if after := schemaOf(t, "/var/lib/fleetgate/cloud/fleetgate.db"); after != store.LatestSchema() {
		t.Errorf("the store has schema %d after the upgrade (it had %d), want %d", after, before, store.LatestSchema())
	} else {
		t.Logf("upgraded %s to %s: the store migrated from schema %d to %d", oldVersion, newVersion, before, after)
	}

	agent := runUnit(t, "fleetgate-agent.service")
	if h := healthz(t, agent.url); h.Version != newVersion || h.Mode != "agent" {
		t.Errorf("healthz of the agent unit: %+v", h)
	}
	agent.stop(t)

	// Removed: the data and settings stay, the program and units go.
	dpkg(t, "-r", "fleetgate")
	for _, gone := range []string{"/usr/bin/fleetgate", "/usr/lib/systemd/system/fleetgate-cloud.service", "/usr/lib/systemd/system/fleetgate-agent.service"} {
		if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after dpkg -r", gone)
		}
	}
	for _, kept := range []string{"/var/lib/fleetgate/cloud/fleetgate.db", "/var/lib/fleetgate/cloud/download-signing.key", "/var/lib/fleetgate/agent/local-tls.key", "/etc/fleetgate/cloud.env"} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("dpkg -r removed %s: %v", kept, err)
		}
	}
	// Purged: the data and settings go; the user stays (files elsewhere may be its own).
	dpkg(t, "--purge", "fleetgate")
	for _, gone := range []string{"/var/lib/fleetgate", "/etc/fleetgate"} {
		if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after dpkg --purge", gone)
		}
	}
	if _, err := exec.Command("getent", "passwd", "fleetgate").Output(); err != nil {
		t.Error("dpkg --purge removed the user fleetgate")
	}
	t.Logf("the package test took %v", time.Since(started).Round(time.Second))
}

func dpkg(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("dpkg", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	// No standard input: a conffile question would fail the step instead of waiting.
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dpkg %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// lockMachine keeps two runs of the package test (two checkouts on one machine) apart.
func lockMachine(t *testing.T) func() {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "fleetgate-package-test.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// olderSource is the source tree of upgradeFrom, extracted once to a directory kept between
// runs: Go's build cache keys packages by their directory, so a build there is found again.
// In a clone without that commit it is this tree (root).
func olderSource(t *testing.T) string {
	t.Helper()
	if err := exec.Command("git", "-C", root, "cat-file", "-e", upgradeFrom+"^{commit}").Run(); err != nil {
		return root // a shallow clone: the caller says what it tests instead
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir() // no HOME (a bare CI environment)
	}
	dir := filepath.Join(cache, "fleetgate", "package-test", upgradeFrom)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	command(t, nil, root, "sh", "-c", "git archive "+upgradeFrom+" | tar -x -C "+tmp)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func wantOwner(t *testing.T, path, user string, mode os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	owner := command(t, nil, "/", "stat", "-c", "%U", path)
	if owner != user || st.Mode().Perm() != mode {
		t.Errorf("%s: owner %s, mode %v; want %s, %v", path, owner, st.Mode().Perm(), user, mode)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// asFleetgate runs a command as the user fleetgate, as an operator runs the offline commands
// on a service's data (sudo -u fleetgate fleetgate events list ...).
func asFleetgate(t *testing.T, args ...string) string {
	t.Helper()
	return command(t, nil, "/", "setpriv", append([]string{"--reuid=fleetgate", "--regid=fleetgate", "--init-groups", "--"}, args...)...)
}

// unitRun is a unit's ExecStart running by hand.
type unitRun struct {
	cmd        *exec.Cmd
	url        string
	stderrFile string
	done       chan error
}

// runUnit runs a unit's ExecStart as systemd would run it: as its User= with its Group= and
// SupplementaryGroups=, with no capability and no new privileges, in /, with Environment= and
// then EnvironmentFile= (which wins), after making its StateDirectory= (owned by the user,
// StateDirectoryMode=). Two settings are the test's: the listening address (127.0.0.1:0, as
// 8080 and 19992 may be taken) and the admin token of a new data directory.
func runUnit(t *testing.T, unit string) *unitRun {
	t.Helper()
	b, err := os.ReadFile("/usr/lib/systemd/system/" + unit)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[k] = append(settings[k], v)
		}
	}
	one := func(key string) string {
		if len(settings[key]) != 1 {
			t.Fatalf("%s has %d %s=, want one", unit, len(settings[key]), key)
		}
		return settings[key][0]
	}
	user, group := one("User"), one("Group")
	state := "/var/lib/" + one("StateDirectory")
	mode := one("StateDirectoryMode")
	command(t, nil, "/", "install", "-d", "-o", user, "-g", group, "-m", mode, state)
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/var/lib/fleetgate", "USER=" + user, "LOGNAME=" + user}
	env = append(env, settings["Environment"]...)
	envFile, err := os.ReadFile(one("EnvironmentFile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(envFile), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			env = append(env, line)
		}
	}
	env = append(env, "FLEETGATE_LISTEN=127.0.0.1:0", "FLEETGATE_ADMIN_TOKEN="+adminToken)
	groups := group
	for _, g := range settings["SupplementaryGroups"] {
		groups += "," + strings.ReplaceAll(g, " ", ",")
	}
	argv := append([]string{"--reuid=" + user, "--regid=" + group, "--groups=" + groups, "--no-new-privs",
		"--bounding-set=-all", "--inh-caps=-all", "--"}, strings.Fields(one("ExecStart"))...)
	r := &unitRun{cmd: exec.Command("setpriv", argv...), done: make(chan error, 1), stderrFile: filepath.Join(t.TempDir(), "stderr")}
	r.cmd.Dir, r.cmd.Env = "/", env
	stderr, err := os.Create(r.stderrFile)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	r.cmd.Stderr = stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { r.cmd.Process.Kill(); <-r.done; r.done <- nil })
	listening := regexp.MustCompile(`msg=listening .*url=(http\S+)`)
	for deadline := time.Now().Add(20 * time.Second); r.url == ""; time.Sleep(20 * time.Millisecond) {
		log, _ := os.ReadFile(r.stderrFile)
		if m := listening.FindSubmatch(log); m != nil {
			r.url = string(m[1])
			break
		}
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("%s's ExecStart exited (%v) before listening:\n%s", unit, err, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's ExecStart not listening within 20 s:\n%s", unit, log)
		}
	}
	return r
}

// stop ends the gateway as systemctl stop does (SIGTERM); it must exit cleanly.
func (r *unitRun) stop(t *testing.T) {
	t.Helper()
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			log, _ := os.ReadFile(r.stderrFile)
			t.Fatalf("exit on SIGTERM: %v\n%s", err, log)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the gateway did not stop within 30 s of SIGTERM (TimeoutStopSec)")
	}
}

type health struct{ Status, Mode, Version string }

func healthz(t *testing.T, base string) health {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 || h.Status != "ok" {
		t.Fatalf("/healthz: %d %+v %v", resp.StatusCode, h, err)
	}
	return h
}

func login(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/apigateway/v2/auth/login", "application/json", strings.NewReader(`{"userToken":"`+adminToken+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&out)
	bearer, ok := strings.CutPrefix(out.Token, "bearer ")
	if resp.StatusCode != 200 || !ok {
		t.Fatalf("login: %d %q", resp.StatusCode, out.Token)
	}
	return bearer
}

func get(t *testing.T, url, bearer string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func postEvent(t *testing.T, base, robot, message string) {
	t.Helper()
	bearer := login(t, base)
	req, _ := http.NewRequest("POST", base+"/apigateway/v2/events/log?robotId="+robot+"&message="+strings.ReplaceAll(message, " ", "+"), nil)
	req.Header.Set("Authorization", "bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("posting an event: %d", resp.StatusCode)
	}
}

// schemaOf is the schema version of a stopped gateway's store; its clean stop left no WAL.
func schemaOf(t *testing.T, db string) int {
	t.Helper()
	if _, err := os.Stat(db + "-wal"); err == nil {
		t.Fatalf("%s-wal is there after the gateway stopped: SIGTERM did not close the store", db)
	}
	schema, err := store.CheckFile(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}
