package main

import (
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
)

// TestServeNATSNeedsCredentials: serve --nats refuses to start without credentials for the
// bus, saying what to give, and refuses NATS flags that contradict each other, before it
// touches the database or the bus (neither exists here).
func TestServeNATSNeedsCredentials(t *testing.T) {
	serve := []string{"serve", "--data", t.TempDir(), "--db", "postgres://fleetgate@127.0.0.1:1/nowhere"}
	bus := "nats://127.0.0.1:1"
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no credentials", nil, []string{"--nats", bus},
			"--nats needs credentials for the NATS server: any client on the bus reads every robot's streams and sends requests to robots. Give --nats-user with FLEETGATE_NATS_PASSWORD"},
		{"no credentials, the bus from the environment", []string{"FLEETGATE_NATS=" + bus}, nil, "--nats-insecure joins a bus without them"},
		{"a CA is no credential", nil, []string{"--nats", "tls://127.0.0.1:1", "--nats-ca", "ca.pem"}, "--nats needs credentials"},
		{"a user without its password", nil, []string{"--nats", bus, "--nats-user", "r1"}, "--nats-user needs its password: give FLEETGATE_NATS_PASSWORD"},
		{"a password without its user", []string{"FLEETGATE_NATS_PASSWORD=s3cret"}, []string{"--nats", bus}, "goes with --nats-user"},
		{"a token and a password in the URL", []string{"FLEETGATE_NATS_TOKEN=t"}, []string{"--nats", "nats://r1:s3cret@127.0.0.1:1"}, "give the NATS credentials one way"},
		{"insecure with credentials", []string{"FLEETGATE_NATS_INSECURE=true"}, []string{"--nats", "nats://r1:s3cret@127.0.0.1:1"}, "drop --nats-insecure"},
		{"a client certificate without its key", nil, []string{"--nats", bus, "--nats-cert", "c.pem"}, "--nats-cert and --nats-key go together"},
		{"credentials without a bus", []string{"FLEETGATE_NATS_PASSWORD=s3cret"}, []string{"--nats-user", "r1"}, "--nats-password, --nats-user go with --nats"},
		{"insecure without a bus", nil, []string{"--nats-insecure"}, "--nats-insecure goes with --nats"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tt.env, append(serve, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
			if strings.Contains(stderr, "s3cret") {
				t.Errorf("the password shows: %q", stderr)
			}
		})
	}
}

// TestServeJoinsTheBusWithCredentials runs serve --nats against real nats-servers: with the
// user in a flag and the password in FLEETGATE_NATS_PASSWORD it joins, a wrong password is
// refused by the bus in words, and --nats-insecure joins a bus without credentials with a
// warning. The password never reaches the log.
func TestServeJoinsTheBusWithCredentials(t *testing.T) {
	pg := pgtest.Start(t)
	bus := natstest.Start(t)
	serve := func(db string, args ...string) []string {
		return append([]string{"serve", "--db", db, "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken, "--replica", "r1"}, args...)
	}

	joined := start(t, []string{"FLEETGATE_NATS_PASSWORD=" + bus.Password}, serve(pg.NewDatabase(t), "--nats", bus.Address(), "--nats-user", natstest.User)...)
	if logs := joined.Stderr(); !strings.Contains(logs, `msg="NATS connected"`) || !strings.Contains(logs, `credentials="user fleetgate"`) ||
		strings.Contains(logs, bus.Password) || strings.Contains(logs, "--nats-insecure") {
		t.Errorf("the replica should say it joined as user fleetgate, without the password or a warning:\n%s", logs)
	}

	_, stderr, code := runCLI(t, []string{"FLEETGATE_NATS_PASSWORD=wrong-" + bus.Password}, serve(pg.NewDatabase(t), "--nats", bus.Address(), "--nats-user", natstest.User)...)
	if code != 1 || !strings.Contains(stderr, "the server refused this replica's credentials (user fleetgate): nats: Authorization Violation") ||
		strings.Contains(stderr, bus.Password) {
		t.Errorf("a wrong password: exit %d, stderr:\n%s", code, stderr)
	}

	open := natstest.StartWith(t, natstest.Options{Open: true})
	db := pg.NewDatabase(t)
	insecure := start(t, []string{"FLEETGATE_NATS_INSECURE=true"}, serve(db, "--nats", open.Address())...)
	if logs := insecure.Stderr(); !strings.Contains(logs, `level=WARN msg="NATS without credentials (--nats-insecure): any client that reaches the NATS server is a full peer of the replicas`) ||
		!strings.Contains(logs, `credentials="none (--nats-insecure)"`) {
		t.Errorf("--nats-insecure should warn:\n%s", logs)
	}
	// A restart warns again: the warning is not a one-time notice.
	insecure.cmd.Process.Kill()
	insecure.wait(t, 10*time.Second)
	again := start(t, nil, serve(db, "--nats", open.Address(), "--nats-insecure")...)
	if !strings.Contains(again.Stderr(), "NATS without credentials (--nats-insecure)") {
		t.Errorf("--nats-insecure should warn at every start:\n%s", again.Stderr())
	}
}
