package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
)

// TestServeOnPostgres: serve --db keeps the store in PostgreSQL, not in the data directory;
// the offline commands reach it with --db; a second replica on the same database serves
// what the first and the CLI stored.
func TestServeOnPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t)
	dir := t.TempDir()
	// The test server trusts every password; this one must still never reach the log.
	withPassword := strings.Replace(url, "fleetgate@", "fleetgate:pw-not-for-logs@", 1)
	first := start(t, nil, "serve", "--db", withPassword, "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	if _, err := os.Stat(filepath.Join(dir, "fleetgate.db")); !os.IsNotExist(err) {
		t.Errorf("serve --db made a SQLite file in the data directory (%v)", err)
	}
	if !strings.Contains(first.Stderr(), "store in PostgreSQL") || strings.Contains(first.Stderr(), "pw-not-for-logs") {
		t.Errorf("the log should name the database, without a password:\n%s", first.Stderr())
	}

	// The CLI needs no data directory with --db.
	nowhere := filepath.Join(t.TempDir(), "none")
	stdout, stderr, code := runCLI(t, nil, "token", "create", "--db", url, "--data", nowhere, "--user", "admin@localhost", "--name", "laptop")
	token := strings.TrimSpace(stdout)
	if code != 0 || !regexp.MustCompile(`^fgt_[0-9A-Za-z]{32}$`).MatchString(token) {
		t.Fatalf("token create --db: %d %q %q", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, nil, "robots", "add", "--db", url, "--data", nowhere, "--name", "tugger"); code != 0 {
		t.Fatalf("robots add --db: %d %q", code, stderr)
	}
	if list, stderr, _ := runCLI(t, []string{"FLEETGATE_DB=" + url}, "robots", "list", "--data", nowhere); !strings.Contains(list, "tugger") {
		t.Errorf("robots list with FLEETGATE_DB:\n%s\n%s", list, stderr)
	}
	if _, err := os.Stat(nowhere); !os.IsNotExist(err) {
		t.Errorf("the offline commands created %s", nowhere)
	}

	second := start(t, nil, "serve", "--db", url, "--data", t.TempDir(), "--listen", "127.0.0.1:0")
	if strings.Contains(second.Stdout(), "admin API token") {
		t.Errorf("the second replica bootstrapped again: %q", second.Stdout())
	}
	var robots struct {
		RobotDataList []struct{ BasicData struct{ Name string } }
	}
	if s := api(t, "GET", second.URL+"/apigateway/v2/robots", login(t, second.URL, token), &robots); s != 200 || len(robots.RobotDataList) != 1 || robots.RobotDataList[0].BasicData.Name != "tugger" {
		t.Errorf("robots on the second replica: %d %+v", s, robots)
	}
}

func TestPostgresMistakes(t *testing.T) {
	empty := pgtest.Start(t).NewDatabase(t)
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"serve with a database that is not PostgreSQL", []string{"serve", "--db", "mysql://db/fleet"}, 2, "--db must be a PostgreSQL URL"},
		{"agent keeps its store in its data directory", []string{"agent", "--db", empty}, 2, "flag provided but not defined: -db"},
		{"offline command on a database no server made", []string{"robots", "list", "--db", empty}, 1, "no fleetgate data in"},
		{"offline command with a database that is not PostgreSQL", []string{"events", "list", "--db", "sqlite:///x"}, 2, "--db must be a PostgreSQL URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.says) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.says)
			}
		})
	}
}
