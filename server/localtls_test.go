package server_test

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestLocalGatewayAnswersHTTPAndHTTPS: the local gateway's one port answers plain HTTP and
// HTTPS (told apart by the first byte), with a self-signed certificate made at the first
// start, kept across restarts, its fingerprint the one the server reports; a cloud stays plain.
func TestLocalGatewayAnswersHTTPAndHTTPS(t *testing.T) {
	dir := t.TempDir()
	var seen string
	for run := range 2 {
		s := servertest.MustOpen(t, servertest.Agent, func(c *server.Config) { c.DataDir = dir })
		fingerprint := s.TLSFingerprint()
		if fingerprint == "" {
			t.Fatal("no certificate fingerprint")
		}
		plain := s.URL + "/healthz"
		secure := "https://" + strings.TrimPrefix(s.URL, "http://") + "/healthz"
		if resp, err := http.Get(plain); err != nil || resp.StatusCode != 200 {
			t.Fatalf("plain HTTP: %v %v", resp, err)
		}
		var peer []byte
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true,
			VerifyConnection: func(cs tls.ConnectionState) error { peer = cs.PeerCertificates[0].Raw; return nil }}}}
		resp, err := client.Get(secure)
		if err != nil || resp.StatusCode != 200 || resp.TLS == nil {
			t.Fatalf("HTTPS on the same port: %v %v", resp, err)
		}
		resp.Body.Close()
		sum := sha256.Sum256(peer)
		if got := strings.ReplaceAll(fingerprint, ":", ""); !strings.EqualFold(got, hex.EncodeToString(sum[:])) {
			t.Errorf("reported fingerprint %s is not the served certificate's %x", fingerprint, sum)
		}
		if run == 1 && fingerprint != seen {
			t.Errorf("a restart made a new certificate: %s then %s", seen, fingerprint)
		}
		seen = fingerprint
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	cloud := servertest.MustOpen(t)
	if cloud.TLSFingerprint() != "" {
		t.Error("a cloud without --tls-cert made a certificate")
	}
}
