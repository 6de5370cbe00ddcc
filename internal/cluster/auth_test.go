package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/fleetgate/fleetgate/internal/cluster"
	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// TestBusRefusesClientsWithoutCredentials: the bus the tests and the demo run lets in no
// client without the replicas' credentials, nor one with wrong ones, so such a client can
// neither read robots' streams nor send a replica a request.
func TestBusRefusesClientsWithoutCredentials(t *testing.T) {
	bus := natstest.Start(t)
	tests := []struct {
		name string
		opts []nats.Option
		ok   bool
	}{
		{"no credentials", nil, false},
		{"a wrong password", []nats.Option{nats.UserInfo(natstest.User, "not-"+bus.Password)}, false},
		{"another user with the password", []nats.Option{nats.UserInfo("admin", bus.Password)}, false},
		{"a token instead", []nats.Option{nats.Token(bus.Password)}, false},
		{"the replicas' credentials", []nats.Option{nats.UserInfo(natstest.User, bus.Password)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc, err := nats.Connect(bus.Address(), append(tt.opts, nats.NoReconnect(), nats.Timeout(5*time.Second))...)
			if tt.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				defer nc.Close()
				// A peer may use the replicas' subjects.
				sub, err := nc.SubscribeSync("fleetgate.presence")
				if err != nil {
					t.Fatal(err)
				}
				if err := nc.Publish("fleetgate.presence", []byte("x")); err != nil {
					t.Fatal(err)
				}
				if _, err := sub.NextMsg(5 * time.Second); err != nil {
					t.Errorf("a peer with credentials hears nothing on the bus: %v", err)
				}
				return
			}
			if err == nil {
				nc.Close()
				t.Fatal("the bus let the client in")
			}
			if !errors.Is(err, nats.ErrAuthorization) {
				t.Errorf("refused with %v, want %v", err, nats.ErrAuthorization)
			}
		})
	}
}

// TestReplicaJoinsOnlyWithCredentials: Open joins a bus with each kind of credentials the
// serve flags take, refuses to start without any unless Insecure (which warns), and says in
// words why the bus refused it, never showing the secret.
func TestReplicaJoinsOnlyWithCredentials(t *testing.T) {
	seed, public := nkeySeed(t)
	otherSeed, _ := nkeySeed(t)
	const token = "a-bus-token-0123456789"
	tests := []struct {
		name   string
		server natstest.Options
		config func(bus *natstest.Server) cluster.Config
		err    string // a part of Open's error; empty: joins
		logs   string // a part of the replica's log
	}{
		{"user and password", natstest.Options{}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{User: natstest.User, Password: bus.Password}}
		}, "", "credentials=\"user fleetgate\""},
		{"credentials in the URL", natstest.Options{}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.URL()}
		}, "", "credentials=\"credentials in the URL\""},
		{"token", natstest.Options{Token: token}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{Token: token}}
		}, "", "credentials=token"},
		{"nkey seed", natstest.Options{Nkey: public}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{NkeySeedFile: seed}}
		}, "", "credentials=\"nkey seed "},
		{"TLS with the server's CA", natstest.Options{TLS: true}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{User: natstest.User, Password: bus.Password, CAFile: bus.CAFile()}}
		}, "", "tls=true"},
		{"TLS with a client certificate", natstest.Options{TLS: true, VerifyClients: true}, func(bus *natstest.Server) cluster.Config {
			cert, key := bus.ClientCert()
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{User: natstest.User, Password: bus.Password, CAFile: bus.CAFile(), CertFile: cert, KeyFile: key}}
		}, "", "tls=true"},
		{"insecure on an open bus", natstest.Options{Open: true}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{Insecure: true}}
		}, "", "NATS without credentials (--nats-insecure)"},

		{"no credentials", natstest.Options{Open: true}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address()}
		}, "--nats needs credentials for the NATS server", ""},
		{"insecure on a bus that asks credentials", natstest.Options{}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{Insecure: true}}
		}, "the server refused this replica's credentials (none (--nats-insecure))", ""},
		{"a wrong password", natstest.Options{}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{User: natstest.User, Password: "wrong-" + bus.Password}}
		}, "the server refused this replica's credentials (user fleetgate)", ""},
		{"a wrong password in the URL", natstest.Options{}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: strings.Replace(bus.URL(), bus.Password, "wrong-"+bus.Password, 1)}
		}, "connecting to NATS at nats://***@127.0.0.1:", ""},
		{"another nkey", natstest.Options{Nkey: public}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{NkeySeedFile: otherSeed}}
		}, "the server refused this replica's credentials (nkey seed ", ""},
		{"TLS without the server's CA", natstest.Options{TLS: true}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{User: natstest.User, Password: bus.Password}}
		}, "the server's certificate is not signed by a CA this replica trusts (give that CA's PEM file: --nats-ca)", ""},
		{"TLS without the client certificate the server asks", natstest.Options{TLS: true, VerifyClients: true}, func(bus *natstest.Server) cluster.Config {
			return cluster.Config{URL: bus.Address(), Auth: cluster.Auth{User: natstest.User, Password: bus.Password, CAFile: bus.CAFile()}}
		}, "connecting to NATS at tls://127.0.0.1:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus := natstest.StartWith(t, tt.server)
			cfg := tt.config(bus)
			// The node's callbacks may still log after Close.
			logs := &lockedWriter{w: &bytes.Buffer{}}
			cfg.Replica, cfg.Logger = "a", slog.New(slog.NewTextHandler(logs, nil))
			cfg.Local = fleet.NewRegistry(nil, cfg.Logger, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			node, err := cluster.Open(ctx, cfg)
			if err == nil {
				node.Close()
			}
			t.Logf("Open: %v", err)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.err != "" && err == nil:
				t.Fatalf("joined; want an error with %q", tt.err)
			case tt.err != "" && !strings.Contains(err.Error(), tt.err):
				t.Errorf("error %q, want %q in it", err, tt.err)
			}
			if !strings.Contains(logs.String(), tt.logs) {
				t.Errorf("the log lacks %q:\n%s", tt.logs, logs)
			}
			for _, secret := range []string{bus.Password, token, readFile(t, seed), readFile(t, otherSeed)} {
				if strings.Contains(logs.String(), secret) || (err != nil && strings.Contains(err.Error(), secret)) {
					t.Errorf("a secret shows in the log or the error %v:\n%s", err, logs)
				}
			}
		})
	}
}

// TestAuthCheck: mistakes in the credentials are refused before any connection, in words
// that say what to give.
func TestAuthCheck(t *testing.T) {
	const url = "nats://10.0.0.5:4222"
	tests := []struct {
		name string
		urls string
		auth cluster.Auth
		err  string // empty: accepted
	}{
		{"user and password", url, cluster.Auth{User: "r", Password: "pw"}, ""},
		{"credentials in every URL", "nats://r:pw@n1:4222, nats://r:pw@n2:4222", cluster.Auth{}, ""},
		{"a token in a bare host:port", "tok@n1:4222", cluster.Auth{}, ""},
		{"a client certificate alone", "tls://n1:4222", cluster.Auth{CertFile: "c.pem", KeyFile: "k.pem"}, ""},
		{"a client certificate and a password", "tls://n1:4222", cluster.Auth{User: "r", Password: "pw", CertFile: "c.pem", KeyFile: "k.pem"}, ""},
		{"insecure", url, cluster.Auth{Insecure: true}, ""},

		{"nothing", url, cluster.Auth{}, "--nats needs credentials for the NATS server"},
		{"a CA is no credential", "tls://n1:4222", cluster.Auth{CAFile: "ca.pem"}, "--nats needs credentials"},
		{"a user without password", url, cluster.Auth{User: "r"}, "--nats-user needs its password: give FLEETGATE_NATS_PASSWORD"},
		{"a password without user", url, cluster.Auth{Password: "pw"}, "goes with --nats-user"},
		{"a certificate without key", url, cluster.Auth{CertFile: "c.pem"}, "--nats-cert and --nats-key go together"},
		{"a user and a token", url, cluster.Auth{User: "r", Password: "pw", Token: "t"}, "give the NATS credentials one way, not --nats-user and its password and a token"},
		{"a token and credentials in the URL", "nats://r:pw@n1:4222", cluster.Auth{Token: "t"}, "one way, not a token and credentials in the --nats URL"},
		{"credentials in some URLs only", "nats://r:pw@n1:4222,nats://n2:4222", cluster.Auth{}, "some URLs carry credentials and others not"},
		{"insecure with credentials", url, cluster.Auth{Insecure: true, Token: "t"}, "drop --nats-insecure"},
		{"a URL that is not one, password hidden", "nats://r:secret@n1:4222/%zz", cluster.Auth{}, "--nats: nats://***@n1:4222/%zz is not a NATS URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.auth.Check(tt.urls)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error %v, want %q in it", err, tt.err)
			}
		})
	}
}

// nkeySeed writes a new user nkey seed to a file and returns the file and the public key.
func nkeySeed(t *testing.T) (file, public string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	public, _ = kp.PublicKey()
	file = filepath.Join(t.TempDir(), "replica.nk")
	if err := os.WriteFile(file, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	return file, public
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}
