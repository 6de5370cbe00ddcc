package camera

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/fleetgate/fleetgate"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw      string
		want     Spec
		public   string
		wantErr  bool
		errWords string
	}{
		{raw: "rtsp://cam.local:554/stream1", want: Spec{Source: fleetgate.SourceRTSP, URL: "rtsp://cam.local:554/stream1"}, public: "rtsp://cam.local:554/stream1"},
		{raw: "RTSPS://10.0.0.5/live", want: Spec{Source: fleetgate.SourceRTSP, URL: "rtsps://10.0.0.5/live"}, public: "rtsps://10.0.0.5/live"},
		{raw: "rtsp://user:p%40ss@10.0.0.5/live?transport=udp&x=1", want: Spec{Source: fleetgate.SourceRTSP, URL: "rtsp://10.0.0.5/live?x=1", Username: "user", Password: "p@ss", UDP: true},
			public: "rtsp://10.0.0.5/live?transport=udp&x=1"},
		{raw: "http://admin:secret@192.168.1.20/onvif/device_service", want: Spec{Source: fleetgate.SourceONVIF, URL: "http://192.168.1.20/onvif/device_service", Username: "admin", Password: "secret"},
			public: "http://192.168.1.20/onvif/device_service"},
		{raw: "/dev/video0", want: Spec{Source: fleetgate.SourceDevice, Device: "/dev/video0"}, public: "/dev/video0"},
		{raw: "/dev/v4l/by-id/usb-Logitech_C920-video-index0", want: Spec{Source: fleetgate.SourceDevice, Device: "/dev/v4l/by-id/usb-Logitech_C920-video-index0"}, public: "/dev/v4l/by-id/usb-Logitech_C920-video-index0"},
		{raw: "file:///etc/passwd", wantErr: true, errWords: "rtsp://"},
		{raw: "/etc/passwd", wantErr: true, errWords: "not a video device"},
		{raw: "/dev/../etc/passwd", wantErr: true},
		{raw: "/dev/sda", wantErr: true},
		{raw: "rtsp:///nohost", wantErr: true, errWords: "no host"},
		{raw: "rtsp://cam:99999/x", wantErr: true, errWords: "port"},
		{raw: "rtsp://cam/x?transport=sctp", wantErr: true, errWords: "tcp or udp"},
		{raw: "rtsp://cam/x#frag", wantErr: true},
		{raw: "rtsp://cam/a b", wantErr: true},
		{raw: "rtsp://cam/a\nb", wantErr: true},
		{raw: "rtsp://:secret@cam/x", wantErr: true, errWords: "password needs a username"},
		{raw: "rtsp://cam/" + strings.Repeat("a", maxURL), wantErr: true},
		{raw: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseURL(tt.raw)
			if tt.wantErr {
				if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.errWords) {
					t.Fatalf("ParseURL(%q) = %+v, %v; want a syntax error saying %q", tt.raw, got, err, tt.errWords)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Fatalf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
			}
			if p := got.Public(); p != tt.public {
				t.Fatalf("Public() = %q, want %q", p, tt.public)
			}
		})
	}
}

func TestAddressPolicy(t *testing.T) {
	tests := []struct {
		host    string
		refused bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"[::1]", true},
		{"::ffff:127.0.0.1", true},
		{"localhost", true},
		{"cams.localhost", true},
		{"169.254.169.254", true}, // cloud metadata
		{"fe80::1", true},
		{"0.0.0.0", true},
		{"224.0.0.1", true},
		{"10.1.2.3", false},
		{"192.168.1.20", false},
		{"172.16.0.9", false},
		{"192.0.2.7", false},
		{"2001:db8::7", false},
	}
	strict := AddressPolicy{}
	open := AddressPolicy{AllowPrivate: true}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			err := strict.CheckLiteral(tt.host)
			if refused := errors.Is(err, ErrRefusedAddress); refused != tt.refused {
				t.Fatalf("CheckLiteral(%s) = %v; refused %v, want %v", tt.host, err, refused, tt.refused)
			}
			if !strings.Contains(tt.host, "localhost") {
				_, err = strict.Resolve(context.Background(), tt.host)
				if refused := errors.Is(err, ErrRefusedAddress); refused != tt.refused {
					t.Fatalf("Resolve(%s) = %v; refused %v, want %v", tt.host, err, refused, tt.refused)
				}
			}
			if err := open.CheckLiteral(tt.host); err != nil {
				t.Fatalf("with --camera-allow-private: %v", err)
			}
		})
	}
}

// A name is looked up and every address it has must be allowed: a name that also points
// at loopback is refused. The lookups go to a DNS server of the test's own.
func TestAddressPolicyResolvesNames(t *testing.T) {
	dns := startTestDNS(t, map[string][]string{
		"cam.test.":   {"10.0.0.9"},
		"mixed.test.": {"10.0.0.9", "127.0.0.1"},
		"meta.test.":  {"169.254.169.254"},
	})
	policy := AddressPolicy{Resolver: dns}
	tests := []struct {
		host    string
		want    string
		refused bool
	}{
		{"cam.test", "10.0.0.9", false},
		{"mixed.test", "", true},
		{"meta.test", "", true},
	}
	for _, tt := range tests {
		ip, err := policy.Resolve(context.Background(), tt.host)
		if refused := errors.Is(err, ErrRefusedAddress); refused != tt.refused || (!refused && ip.String() != tt.want) {
			t.Fatalf("Resolve(%s) = %v, %v; want %q refused %v", tt.host, ip, err, tt.want, tt.refused)
		}
	}
	if _, err := (AddressPolicy{AllowPrivate: true, Resolver: dns}).Resolve(context.Background(), "mixed.test"); err != nil {
		t.Fatalf("with --camera-allow-private: %v", err)
	}
	if err := (AddressPolicy{}).dialControl("tcp", "127.0.0.1:554", nil); !errors.Is(err, ErrRefusedAddress) {
		t.Fatalf("dialling loopback: %v", err)
	}
	if err := (AddressPolicy{}).dialControl("tcp", "10.0.0.1:80", nil); err != nil {
		t.Fatalf("dialling a LAN address: %v", err)
	}
}

// startTestDNS answers A queries for names from a UDP server on 127.0.0.1; the resolver it
// returns asks only it.
func startTestDNS(t *testing.T, names map[string][]string) *net.Resolver {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.EnableCompression()
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			if q.Type == dnsmessage.TypeA {
				for _, a := range names[q.Name.String()] {
					ip := netip.MustParseAddr(a).As4()
					b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: ip})
				}
			}
			msg, err := b.Finish()
			if err == nil {
				conn.WriteTo(msg, from)
			}
		}
	}()
	addr := conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func TestRedact(t *testing.T) {
	line := "[concat @ 0x1] Impossible to open 'rtsp://admin:S3cret%21@10.0.0.5/live' (S3cret!)"
	got := redact(line, "S3cret!")
	if strings.Contains(got, "S3cret") || strings.Contains(got, "admin") {
		t.Fatalf("redact left a credential: %q", got)
	}
	if !strings.Contains(got, "10.0.0.5/live") {
		t.Fatalf("redact took the address too: %q", got)
	}
}

// An ad-hoc camera whose name leads to loopback is refused when it opens (the lookup is
// then), before ffmpeg runs, and its viewer gets the reason.
func TestPolicyChecksNamesWhenTheCameraOpens(t *testing.T) {
	dns := startTestDNS(t, map[string][]string{"cam.test.": {"127.0.0.1"}})
	spec, err := ParseURL("rtsp://cam.test:8554/live")
	if err != nil {
		t.Fatal(err)
	}
	c := New(Config{Name: "adhoc", Spec: spec, Tools: Tools{FFmpeg: "/nonexistent/ffmpeg", FFprobe: "/nonexistent/ffprobe"},
		Policy: &AddressPolicy{Resolver: dns}})
	defer c.Close()
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	<-sub.Done()
	if err := sub.Err(); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("ended with %v, want the loopback refusal", err)
	}
}
