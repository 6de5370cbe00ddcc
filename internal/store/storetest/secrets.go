package storetest

import (
	"context"
	"testing"
)

// testSharedSecrets: the first value stored under a name is the one every later caller gets.
func testSharedSecrets(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	made := 0
	fresh := func(v string) func() string { return func() string { made++; return v } }
	first, err := db.SharedSecret(ctx, "download-signing-key", fresh("aaaa"))
	if err != nil || first != "aaaa" {
		t.Fatalf("first: %q, %v", first, err)
	}
	again, err := db.SharedSecret(ctx, "download-signing-key", fresh("bbbb"))
	if err != nil || again != "aaaa" {
		t.Errorf("a second caller got %q, %v; want the first value", again, err)
	}
	other, err := db.SharedSecret(ctx, "another", fresh("cccc"))
	if err != nil || other != "cccc" {
		t.Errorf("another name: %q, %v", other, err)
	}
	if made != 3 {
		t.Errorf("fresh called %d times, want once per call", made)
	}
}
