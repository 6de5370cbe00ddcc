package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

func testSessionsStoreOnlyHashesAndExpire(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := db.Sessions(func() time.Time { return now })

	must(t, s.CommitCtx(ctx, "tok-1", []byte("data-1"), now.Add(time.Minute)))
	var stored string
	must(t, db.QueryRow(context.Background(), `SELECT token_hash FROM sessions`).Scan(&stored))
	if stored != gateway.HashSecret("tok-1") {
		t.Errorf("stored key %q: want the SHA-256 of the token, never the token", stored)
	}
	b, found, err := s.FindCtx(ctx, "tok-1")
	if err != nil || !found || string(b) != "data-1" {
		t.Fatalf("Find = %q, %v, %v", b, found, err)
	}
	must(t, s.CommitCtx(ctx, "tok-1", []byte("data-2"), now.Add(time.Minute)))
	if b, _, _ := s.FindCtx(ctx, "tok-1"); string(b) != "data-2" {
		t.Errorf("after a second commit: %q", b)
	}
	if _, found, _ := s.FindCtx(ctx, "tok-2"); found {
		t.Error("an unknown token is found")
	}
	exp, err := db.SessionExpiry(ctx, gateway.HashSecret("tok-1"))
	if err != nil || !exp.Equal(now.Add(time.Minute)) {
		t.Errorf("SessionExpiry = %v, %v", exp, err)
	}

	now = now.Add(time.Minute)
	if _, found, _ := s.FindCtx(ctx, "tok-1"); found {
		t.Error("an expired session is found")
	}
	if n, err := s.DeleteExpired(ctx); err != nil || n != 1 {
		t.Errorf("DeleteExpired = %d, %v", n, err)
	}
	must(t, s.CommitCtx(ctx, "tok-3", []byte("x"), now.Add(time.Hour)))
	must(t, s.DeleteCtx(ctx, "tok-3"))
	if count(t, db, "sessions") != 0 {
		t.Error("Delete left the session")
	}
}

func testUseSocketTokenOnce(t *testing.T, open Opener) {
	db := open(t)
	f := bootstrap(t, db)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	must(t, db.CreateSocketToken(ctx, fleetgate.SocketToken{Hash: "h", UserID: f.admin.ID, SessionHash: "s", ExpiresAt: now.Add(time.Minute), CreatedAt: now}))
	tok, err := db.UseSocketToken(ctx, "h", now)
	if err != nil || !tok.UsedAt.Equal(now) || tok.UserID != f.admin.ID {
		t.Fatalf("first use = %+v, %v", tok, err)
	}
	_, err = db.UseSocketToken(ctx, "h", now)
	wantCode(t, "second use", err, fleetgate.ENotFound)
	must(t, db.CreateSocketToken(ctx, fleetgate.SocketToken{Hash: "late", UserID: f.admin.ID, SessionHash: "s", ExpiresAt: now, CreatedAt: now}))
	_, err = db.UseSocketToken(ctx, "late", now)
	wantCode(t, "use at expiry", err, fleetgate.ENotFound)
}
