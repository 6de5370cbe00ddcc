// Package natstest runs a throwaway NATS server for tests: Debian's nats-server with JetStream
// and an authorization block, as production runs it, its store in a temporary directory,
// listening on a free port of 127.0.0.1, stopped when the test ends. A test that needs it
// fails, never skips, when the binary is missing (the test command installs the nats-server
// package).
package natstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// MaxPayload is the servers' max_payload: large enough for a camera frame, as a production
// configuration should be (the default 1 MiB is not).
const MaxPayload = 8 << 20

// User is the user name every server lets in, with its Password.
const User = "fleetgate"

// Options change a server from the default, which lets in User with a random password.
type Options struct {
	// Token makes the server take this token instead of the user and password.
	Token string
	// Nkey is a public user nkey (U...) the server lets in beside the user and password.
	Nkey string
	// TLS makes the server speak only TLS, with a certificate of a CA of its own (CAFile).
	TLS bool
	// VerifyClients (with TLS) makes the server let in only clients that show a certificate
	// its CA signed (ClientCert), on top of their credentials.
	VerifyClients bool
	// Open drops the authorization block: the bus of fleetgate serve --nats-insecure, and of
	// nothing else.
	Open bool
}

// Server is a running nats-server; Stop and Restart take it down and up on the same port,
// store and credentials, as an outage and a recovery.
type Server struct {
	// Password is User's password, random for each server.
	Password string
	tb       testing.TB
	opts     Options
	port     int
	dir      string
	cmd      *exec.Cmd
	log      *os.File
}

// Start starts a server with the default options that stops when tb ends.
func Start(tb testing.TB) *Server { return StartWith(tb, Options{}) }

// StartWith starts a server with opts that stops when tb ends.
func StartWith(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if _, err := exec.LookPath("nats-server"); err != nil {
		tb.Fatal("nats-server is not installed (Debian package nats-server; scripts/test.sh installs it)")
	}
	var pw [16]byte
	rand.Read(pw[:])
	s := &Server{Password: hex.EncodeToString(pw[:]), tb: tb, opts: opts, port: freePort(tb), dir: tb.TempDir()}
	conf := fmt.Sprintf("listen: 127.0.0.1:%d\nmax_payload: %d\njetstream {\n  store_dir: %q\n}\n", s.port, MaxPayload, filepath.Join(s.dir, "js"))
	switch {
	case opts.Open:
	case opts.Token != "":
		conf += fmt.Sprintf("authorization {\n  token: %q\n}\n", opts.Token)
	default:
		users := fmt.Sprintf("    {user: %q, password: %q}\n", User, s.Password)
		if opts.Nkey != "" {
			users += fmt.Sprintf("    {nkey: %q}\n", opts.Nkey)
		}
		conf += "authorization {\n  users = [\n" + users + "  ]\n}\n"
	}
	if opts.TLS {
		s.writeCertificates()
		conf += fmt.Sprintf("tls {\n  cert_file: %q\n  key_file: %q\n  ca_file: %q\n  verify: %t\n}\n",
			s.file("server.crt"), s.file("server.key"), s.CAFile(), opts.VerifyClients)
	}
	if err := os.WriteFile(s.file("nats.conf"), []byte(conf), 0o600); err != nil {
		tb.Fatal(err)
	}
	s.Restart()
	tb.Cleanup(s.Stop)
	return s
}

// URL is the server's client URL with the credentials in it (nats://fleetgate:PASSWORD@...,
// or the token): every client of the bus needs them.
func (s *Server) URL() string {
	u, _ := url.Parse(s.Address())
	switch {
	case s.opts.Open:
	case s.opts.Token != "":
		u.User = url.User(s.opts.Token)
	default:
		u.User = url.UserPassword(User, s.Password)
	}
	return u.String()
}

// Address is the server's client URL without credentials (tls:// with TLS).
func (s *Server) Address() string {
	scheme := "nats"
	if s.opts.TLS {
		scheme = "tls"
	}
	return scheme + "://127.0.0.1:" + strconv.Itoa(s.port)
}

// CAFile is the PEM file of the CA that signed the server's certificate and ClientCert (TLS).
func (s *Server) CAFile() string { return s.file("ca.crt") }

// ClientCert is a client certificate and its key, signed by the server's CA (TLS).
func (s *Server) ClientCert() (certFile, keyFile string) {
	return s.file("client.crt"), s.file("client.key")
}

// Log is what the server logged so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.file("nats.log"))
	return string(b)
}

func (s *Server) file(name string) string { return filepath.Join(s.dir, name) }

// Restart starts the server again after Stop (its JetStream store kept) and waits until it
// takes connections.
func (s *Server) Restart() {
	s.tb.Helper()
	log, err := os.OpenFile(s.file("nats.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.tb.Fatal(err)
	}
	s.log = log
	s.cmd = exec.Command("nats-server", "-c", s.file("nats.conf"))
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("nats-server did not start: %v\n%s", err, s.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (as a crash would).
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
	s.log.Close()
}

// writeCertificates makes a CA, the server's certificate for 127.0.0.1 and a client
// certificate, each signed by the CA.
func (s *Server) writeCertificates() {
	s.tb.Helper()
	caKey, caCert := s.certificate(&x509.Certificate{
		Subject: pkix.Name{CommonName: "natstest CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil, nil, "ca")
	s.certificate(&x509.Certificate{
		Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, caCert, caKey, "server")
	s.certificate(&x509.Certificate{
		Subject:  pkix.Name{CommonName: "natstest client"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, caCert, caKey, "client")
}

// certificate writes name.crt and name.key: template signed by parent (nil: by itself).
func (s *Server) certificate(template, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name string) (*ecdsa.PrivateKey, *x509.Certificate) {
	s.tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		s.tb.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	template.SerialNumber = serial
	template.NotBefore, template.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	if parent == nil {
		parent, parentKey = template, key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, parentKey)
	if err != nil {
		s.tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		s.tb.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		s.tb.Fatal(err)
	}
	for file, block := range map[string]*pem.Block{
		name + ".crt": {Type: "CERTIFICATE", Bytes: der},
		name + ".key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(s.file(file), pem.EncodeToMemory(block), 0o600); err != nil {
			s.tb.Fatal(err)
		}
	}
	return key, cert
}

func freePort(tb testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
