package server

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The local gateway answers HTTP and HTTPS on its one port (DESIGN section 8): browsers give
// the Gamepad API and secure cookies only to secure contexts, and on a robot network that
// means HTTPS to the agent's address. Without --tls-cert the agent makes a self-signed
// certificate at its first start and keeps it in its data directory; its SHA-256 fingerprint
// is logged at every start and shown on the admin page, for operators to check what their
// browser shows them.

// Local TLS files in an agent's data directory.
const (
	localCertFile = "local-tls.crt"
	localKeyFile  = "local-tls.key"
)

// loadOrCreateLocalCert returns the agent's certificate: the one kept in dataDir, or a new
// self-signed one (ECDSA P-256, ten years) for localhost, this host's name and addresses.
func loadOrCreateLocalCert(dataDir string) (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(dataDir, localCertFile), filepath.Join(dataDir, localKeyFile)
	if cert, err := tls.LoadX509KeyPair(certPath, keyPath); err == nil {
		return cert, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return tls.Certificate{}, fmt.Errorf("the local TLS certificate in %s: %w (remove both files to make a new one)", dataDir, err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, err
	}
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "fleetgate local gateway " + host, Organization: []string{"fleetgate"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if host != "" && host != "localhost" {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ipn.IP)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.LoadX509KeyPair(certPath, keyPath)
}

// certFingerprint is the SHA-256 of a certificate's DER, as browsers show it (AB:CD:...).
func certFingerprint(cert tls.Certificate) string {
	if len(cert.Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(cert.Certificate[0])
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// sniffTimeout bounds the wait for a new connection's first byte.
const sniffTimeout = 10 * time.Second

// dualListener answers TLS and plain HTTP on one port: a connection whose first byte is a TLS
// handshake record (22) is TLS, any other is plain. The first byte is read on a goroutine of
// the connection's own, so a client that sends nothing holds up nobody else's Accept.
type dualListener struct {
	net.Listener
	tls   *tls.Config
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	err   error
}

func newDualListener(ln net.Listener, cfg *tls.Config) *dualListener {
	d := &dualListener{Listener: ln, tls: cfg, conns: make(chan net.Conn), done: make(chan struct{})}
	go d.acceptLoop()
	return d
}

func (d *dualListener) acceptLoop() {
	for {
		c, err := d.Listener.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			d.closeWith(err)
			return
		}
		go d.sniff(c)
	}
}

func (d *dualListener) sniff(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(sniffTimeout))
	br := bufio.NewReaderSize(c, 512)
	first, err := br.Peek(1)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var out net.Conn = &peekedConn{Conn: c, r: br}
	if first[0] == 22 { // TLS handshake record
		out = tls.Server(out, d.tls)
	}
	select {
	case d.conns <- out:
	case <-d.done:
		out.Close()
	}
}

func (d *dualListener) Accept() (net.Conn, error) {
	select {
	case c := <-d.conns:
		return c, nil
	case <-d.done:
		if d.err != nil {
			return nil, d.err
		}
		return nil, net.ErrClosed
	}
}

func (d *dualListener) Close() error { return d.closeWith(nil) }

// closeWith closes once; why (the inner listener's failure) is what Accept returns then. It is
// set before done closes, so Accept reads it after.
func (d *dualListener) closeWith(why error) error {
	var err error
	d.once.Do(func() {
		d.err = why
		close(d.done)
		err = d.Listener.Close()
	})
	return err
}

// peekedConn is a connection whose first bytes were read ahead (to tell TLS from plain).
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }

// NetConn is the connection underneath, for socket options (api.tcpConn).
func (p *peekedConn) NetConn() net.Conn { return p.Conn }
