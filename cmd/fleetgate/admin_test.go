package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestAgentsCommands(t *testing.T) {
	dir := t.TempDir()
	start(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)

	stdout, stderr, code := runCLI(t, nil, "agents", "list", "--data", dir)
	if code != 0 || strings.TrimSpace(stdout) != "NAME  ID  FLEET  CREATED  LAST SEEN  REVOKED" {
		t.Fatalf("agents list with no agents: %d %q %q", code, stdout, stderr)
	}

	ids := map[string]string{}
	for _, add := range [][]string{{"--name", "yard", "--fleet", "warehouse-2"}, {"--name", "dock"}} {
		stdout, stderr, code := runCLI(t, nil, append([]string{"agents", "add", "--data", dir}, add...)...)
		m := regexp.MustCompile(`(?m)^agent (\S+) \(([0-9a-f-]{36})\)$`).FindStringSubmatch(stdout)
		if code != 0 || m == nil {
			t.Fatalf("agents add %v: %d %q %q", add, code, stdout, stderr)
		}
		ids[m[1]] = m[2]
	}

	rows := func() []string {
		t.Helper()
		stdout, stderr, code := runCLI(t, nil, "agents", "list", "--data", dir)
		if code != 0 {
			t.Fatalf("agents list: %d %q", code, stderr)
		}
		return strings.Split(strings.TrimSpace(stdout), "\n")[1:]
	}
	rfc3339 := `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`
	want := []*regexp.Regexp{
		// By name; the default fleet of a served data directory is "default".
		regexp.MustCompile(`^dock +` + ids["dock"] + ` +default +` + rfc3339 + ` +never +no$`),
		regexp.MustCompile(`^yard +` + ids["yard"] + ` +warehouse-2 +` + rfc3339 + ` +never +no$`),
	}
	checkRows := func(when string, got []string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: agents list rows %q, want %d", when, got, len(want))
		}
		for i, re := range want {
			if !re.MatchString(got[i]) {
				t.Errorf("%s: row %q does not match %s", when, got[i], re)
			}
		}
	}
	checkRows("before revoking", rows())

	stdout, stderr, code = runCLI(t, nil, "agents", "revoke", "--data", dir, "--name", "dock")
	if code != 0 || stdout != "revoked agent dock ("+ids["dock"]+")\n" {
		t.Fatalf("agents revoke --name: %d %q %q", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, nil, "agents", "revoke", "--data", dir, "--id", ids["yard"])
	if code != 0 || stdout != "revoked agent yard ("+ids["yard"]+")\n" {
		t.Fatalf("agents revoke --id: %d %q %q", code, stdout, stderr)
	}
	want[0] = regexp.MustCompile(`^dock +` + ids["dock"] + ` +default +` + rfc3339 + ` +never +` + rfc3339 + `$`)
	want[1] = regexp.MustCompile(`^yard +` + ids["yard"] + ` +warehouse-2 +` + rfc3339 + ` +never +` + rfc3339 + `$`)
	checkRows("after revoking", rows())

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"again by name", []string{"--name", "dock"}, "already revoked"},
		{"again by id", []string{"--id", ids["yard"]}, "already revoked"},
		{"unknown name", []string{"--name", "nobody"}, `no agent "nobody"`},
		{"unknown id", []string{"--id", "00000000-0000-0000-0000-000000000000"}, "no agent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, nil, append([]string{"agents", "revoke", "--data", dir}, tt.args...)...)
			if code != 1 || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit code %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

func TestAgentsUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no verb", []string{"agents"}, "needs one of: [add list revoke]"},
		{"unknown verb", []string{"agents", "remove"}, `unknown verb "remove"`},
		{"revoke without an agent", []string{"agents", "revoke", "--data", dir}, "one of --name or --id is required"},
		{"revoke with both", []string{"agents", "revoke", "--data", dir, "--name", "a", "--id", "b"}, "one of --name or --id is required"},
		{"list with a stray argument", []string{"agents", "list", "--data", dir, "dock"}, "unexpected argument"},
		{"list with an unknown flag", []string{"agents", "list", "--name", "dock"}, "flag provided but not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, nil, c.args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit code %d, stderr %q; want %d and %q", code, stderr, exitUsage, c.want)
			}
		})
	}
}
