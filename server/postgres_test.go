package server_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/internal/store/postgres"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/server"
)

// TestReplicasStartTogetherOnPostgres: cloud gateways started at once on one empty
// PostgreSQL database all open; one of them bootstraps it and prints the admin token.
func TestReplicasStartTogetherOnPostgres(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	const replicas = 3
	stdouts := make([]bytes.Buffer, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() {
			srv, err := server.Open(context.Background(), server.Config{Mode: server.ModeCloud, Listen: "127.0.0.1:0",
				DataDir: t.TempDir(), Database: url, TokenTTL: time.Hour, Version: "test",
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stdout: &stdouts[i]})
			if err == nil {
				err = srv.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	printed := 0
	for i := range replicas {
		if errs[i] != nil {
			t.Errorf("replica %d: %v", i, errs[i])
		}
		printed += strings.Count(stdouts[i].String(), "admin API token: fgt_")
	}
	if printed != 1 {
		t.Errorf("the admin token was printed %d times, want once", printed)
	}
}

// TestReplicasShareTheDownloadSigningKey: on a shared database the download signing key is
// the database's, made once, so a link one replica signed verifies at every other; no replica
// keeps a key of its own in its data directory.
func TestReplicasShareTheDownloadSigningKey(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		srv, err := server.Open(context.Background(), server.Config{Mode: server.ModeCloud, Listen: "127.0.0.1:0",
			DataDir: dir, Database: url, TokenTTL: time.Hour, Version: "test",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stdout: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "download-signing.key")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a replica on the shared database kept a signing key of its own in %s (%v)", dir, err)
		}
	}
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	candidate := blob.NewSecretHex() // stored only if no replica stored a key before
	key, err := db.SharedSecret(context.Background(), "download-signing-key", func() string { return candidate })
	if err != nil {
		t.Fatal(err)
	}
	if key == candidate {
		t.Error("no replica stored the signing key in the database")
	}
	signer, err := blob.SignerFromHex(key)
	if err != nil {
		t.Fatalf("the stored key: %v", err)
	}
	q := signer.Sign("GET", "/files/x", time.Minute)
	if err := signer.Verify("GET", "/files/x", q); err != nil {
		t.Errorf("a link signed with the shared key does not verify: %v", err)
	}
}
