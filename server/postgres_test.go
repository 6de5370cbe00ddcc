package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

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
