package camera

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
)

// rtspRequest is one request a fake camera received.
type rtspRequest struct {
	method, uri string
	headers     map[string]string // by lower-case name
}

// fakeRTSP is a camera of the test's own on addr: it answers each request with what answer
// returns (the status line and headers, without CSeq, which it adds; a body after a blank
// line) and records the requests.
type fakeRTSP struct {
	ln       net.Listener
	mu       sync.Mutex
	requests []rtspRequest
}

func startFakeRTSP(t *testing.T, addr string, answer func(f *fakeRTSP, r rtspRequest) string) *fakeRTSP {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRTSP{ln: ln}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				in := bufio.NewReader(conn)
				for {
					line, err := in.ReadString('\n')
					if err != nil {
						return
					}
					parts := strings.Fields(line)
					if len(parts) != 3 {
						continue
					}
					r := rtspRequest{method: parts[0], uri: parts[1], headers: map[string]string{}}
					for {
						h, err := in.ReadString('\n')
						if err != nil {
							return
						}
						h = strings.TrimRight(h, "\r\n")
						if h == "" {
							break
						}
						name, value, _ := strings.Cut(h, ":")
						r.headers[strings.ToLower(name)] = strings.TrimSpace(value)
					}
					f.mu.Lock()
					f.requests = append(f.requests, r)
					f.mu.Unlock()
					head, body, _ := strings.Cut(answer(f, r), "\n\n")
					msg := strings.ReplaceAll(head, "\n", "\r\n") + "\r\nCSeq: " + r.headers["cseq"] + "\r\n"
					if body != "" {
						body = strings.ReplaceAll(body, "\n", "\r\n")
						msg += fmt.Sprintf("Content-Length: %d\r\n", len(body))
					}
					if _, err := conn.Write([]byte(msg + "\r\n" + body)); err != nil {
						return
					}
				}
			})
		}
	})
	return f
}

func (f *fakeRTSP) url(path string) string { return "rtsp://" + f.ln.Addr().String() + path }

func (f *fakeRTSP) seen() []rtspRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rtspRequest(nil), f.requests...)
}

// guardedCamera is an ad-hoc camera under policy, with real ffmpeg.
func guardedCamera(t *testing.T, rawURL string, policy AddressPolicy, logs *logtest.Buffer) *Camera {
	t.Helper()
	spec, err := ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = &logtest.Buffer{}
	}
	c := New(Config{Name: "adhoc", Spec: spec, Tools: tools(t), Policy: &policy, Linger: -1,
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(func() {
		c.Close()
		if n := len(cameratest.Children("ffmpeg")) + len(cameratest.Children("ffprobe")); n != 0 {
			t.Errorf("%d ffmpeg processes left after Close", n)
		}
	})
	return c
}

// failsWith subscribes to c and waits for the camera to fail; it returns what its viewers
// are told.
func failsWith(t *testing.T, c *Camera) string {
	t.Helper()
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	select {
	case <-sub.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the camera did not fail")
	}
	if !fleetgate.Is(sub.Err(), fleetgate.EUnavailable) {
		t.Fatalf("ended with %v, want unavailable", sub.Err())
	}
	return fleetgate.ErrorMessage(sub.Err())
}

// loopbackWitness is a TCP listener and a UDP socket on 127.0.0.1 that count what reaches
// them: the addresses a hostile camera points ffmpeg at.
type loopbackWitness struct {
	tcp  *net.TCPListener
	udp  *net.UDPConn
	port int // the UDP socket's; RTCP goes to port+1, which the second socket takes
	rtcp *net.UDPConn
}

func newLoopbackWitness(t *testing.T) *loopbackWitness {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	w := &loopbackWitness{tcp: ln}
	// An even UDP port with the next one free, as RTP and RTCP take them.
	for range 50 {
		rtp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		port := rtp.LocalAddr().(*net.UDPAddr).Port
		if rtcp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port + 1}); err == nil {
			w.udp, w.rtcp, w.port = rtp, rtcp, port
			t.Cleanup(func() { rtp.Close(); rtcp.Close() })
			return w
		}
		rtp.Close()
	}
	t.Fatal("no pair of free UDP ports")
	return nil
}

// testCameraAddress is the allowed address the hostile cameras of the namespace tests listen
// on: a private LAN address, put on the namespace's loopback interface (the policy refuses
// loopback addresses, 127/8 and ::1, not the interface).
const testCameraAddress = "10.99.0.1"

const ownNetworkWithCameraAddress = "ip addr add " + testCameraAddress + "/32 dev lo"

// TestRTSPRedirectToRefusedAddress: a camera on an allowed address answers 302 to a
// loopback listener (and to other refused addresses). No connection reaches them: ffmpeg
// goes through the relay, which refuses the redirect, and the viewer is told so in words.
func TestRTSPRedirectToRefusedAddress(t *testing.T) {
	if !inOwnNetwork(t, ownNetworkWithCameraAddress) {
		return
	}
	witness := newLoopbackWitness(t)
	for _, target := range []string{
		"rtsp://" + witness.tcp.Addr().String() + "/stolen",
		"rtsp://localhost:" + fmt.Sprint(witness.tcp.Addr().(*net.TCPAddr).Port) + "/stolen",
		"rtsp://169.254.169.254/latest/meta-data",
		"rtsp://[::1]:8554/stolen",
		"rtsp://0.0.0.0:" + fmt.Sprint(witness.tcp.Addr().(*net.TCPAddr).Port) + "/stolen",
	} {
		t.Run(target, func(t *testing.T) {
			cam := startFakeRTSP(t, testCameraAddress+":0", func(*fakeRTSP, rtspRequest) string {
				return "RTSP/1.0 302 Moved Temporarily\nLocation: " + target
			})
			logs := &logtest.Buffer{}
			c := guardedCamera(t, cam.url("/live"), AddressPolicy{}, logs)
			told := failsWith(t, c)
			if conns, datagrams := witness.reached(); conns != 0 || datagrams != 0 {
				t.Fatalf("%d connections and %d datagrams reached the loopback listener", conns, datagrams)
			}
			if told != "camera adhoc: "+wordsRedirect {
				t.Fatalf("the viewer was told %q, want the refused redirect; log %s", told, logs)
			}
			if len(cam.seen()) == 0 {
				t.Fatal("the camera was never asked")
			}
			if !strings.Contains(logs.String(), "camera refused by the address policy") {
				t.Fatalf("the log does not say why: %s", logs)
			}
			t.Logf("told %q; logged the refusal of %s", told, target)
		})
	}
}

// describeAnswer is a DESCRIBE answer of an MJPEG (RTP/JPEG) stream.
func describeAnswer(base string) string {
	return "RTSP/1.0 200 OK\nContent-Base: " + base + "/\nContent-Type: application/sdp\n\n" +
		"v=0\no=- 1 1 IN IP4 " + testCameraAddress + "\ns=test\nc=IN IP4 0.0.0.0\nt=0 0\nm=video 0 RTP/AVP 26\na=control:track1\n"
}

// TestRTSPUDPSourceToRefusedAddress: over UDP, a camera's SETUP answer names a loopback
// address as its source=, where ffmpeg would send its RTP and RTCP packets. None arrives
// there: the relay refuses the answer before ffmpeg reads it.
func TestRTSPUDPSourceToRefusedAddress(t *testing.T) {
	if !inOwnNetwork(t, ownNetworkWithCameraAddress) {
		return
	}
	witness := newLoopbackWitness(t)
	cam := startFakeRTSP(t, testCameraAddress+":0", func(f *fakeRTSP, r rtspRequest) string {
		switch r.method {
		case "OPTIONS":
			return "RTSP/1.0 200 OK\nPublic: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN"
		case "DESCRIBE":
			return describeAnswer(f.url("/live"))
		case "SETUP":
			client := strings.TrimPrefix(r.headers["transport"][strings.Index(r.headers["transport"], "client_port="):], "client_port=")
			return fmt.Sprintf("RTSP/1.0 200 OK\nSession: 12345678\nTransport: RTP/AVP;unicast;client_port=%s;server_port=%d-%d;source=127.0.0.1",
				client, witness.port, witness.port+1)
		case "PLAY":
			return "RTSP/1.0 200 OK\nSession: 12345678"
		}
		return "RTSP/1.0 200 OK"
	})
	c := guardedCamera(t, cam.url("/live")+"?transport=udp", AddressPolicy{}, nil)
	told := failsWith(t, c)
	if conns, datagrams := witness.reached(); conns != 0 || datagrams != 0 {
		t.Fatalf("%d connections and %d datagrams reached the loopback address the camera named", conns, datagrams)
	}
	if told != "camera adhoc: "+wordsTransport {
		t.Fatalf("the viewer was told %q, want the refused source", told)
	}
	methods := []string{}
	for _, r := range cam.seen() {
		methods = append(methods, r.method)
	}
	if !strings.Contains(strings.Join(methods, " "), "SETUP") {
		t.Fatalf("the camera was asked %v, never SETUP", methods)
	}
	t.Logf("told %q after %v", told, methods)
}

// A redirect to an allowed address is followed, through the relay: the images come from
// where the camera sent ffmpeg.
func TestRTSPRedirectFollowedThroughRelay(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg", Width: 320, Height: 240})
	front := startFakeRTSP(t, "127.0.0.1:0", func(*fakeRTSP, rtspRequest) string {
		return "RTSP/1.0 302 Found\nLocation: " + srv.URL()
	})
	logs := &logtest.Buffer{}
	c := guardedCamera(t, front.url("/moved"), AddressPolicy{AllowPrivate: true}, logs)
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	imgs, _ := images(t, sub, 3)
	if w, h := decodeJPEG(t, imgs[2].Data); w != 320 || h != 240 {
		t.Fatalf("%dx%d", w, h)
	}
	if !strings.Contains(logs.String(), "camera redirect followed") {
		t.Fatalf("the redirect is not in the log: %s", logs)
	}
}

// Through the relay, RTSP over TCP and over UDP stream as they do directly.
func TestRTSPCameraThroughRelay(t *testing.T) {
	for _, query := range []string{"", "?transport=udp"} {
		t.Run("transport"+query, func(t *testing.T) {
			srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "h264", Width: 320, Height: 240})
			c := guardedCamera(t, srv.URL()+query, AddressPolicy{AllowPrivate: true}, nil)
			sub, err := c.Subscribe()
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			imgs, _ := images(t, sub, 5)
			decodeJPEG(t, imgs[4].Data)
			if args := cmdline(t, c.PID()); !strings.Contains(args, relayedProtocols) {
				t.Fatalf("ffmpeg runs %q, not limited to the relayed protocols", args)
			}
		})
	}
}

// The credentials go to the host the operator named, never to another host a redirect
// names; a redirect to another port of the same host keeps them.
func TestRTSPRedirectKeepsCredentialsOnTheirHost(t *testing.T) {
	askCredentials := func(*fakeRTSP, rtspRequest) string {
		return "RTSP/1.0 401 Unauthorized\nWWW-Authenticate: Basic realm=\"cam\""
	}
	for _, tc := range []struct {
		host      string
		gets      bool
		wantWords string
	}{{"127.0.0.2", false, wordsCredentials}, {"127.0.0.1", true, wordsCredentials}} {
		t.Run(tc.host, func(t *testing.T) {
			target := startFakeRTSP(t, tc.host+":0", askCredentials)
			front := startFakeRTSP(t, "127.0.0.1:0", func(*fakeRTSP, rtspRequest) string {
				return "RTSP/1.0 302 Found\nLocation: " + target.url("/live")
			})
			withUser := strings.Replace(front.url("/cam"), "rtsp://", "rtsp://viewer:pa55word@", 1)
			told := failsWith(t, guardedCamera(t, withUser, AddressPolicy{AllowPrivate: true}, nil))
			if told != "camera adhoc: "+tc.wantWords {
				t.Fatalf("told %q", told)
			}
			sent := false
			for _, r := range target.seen() {
				sent = sent || r.headers["authorization"] != ""
			}
			if sent != tc.gets || len(target.seen()) == 0 {
				t.Fatalf("the redirect's target on %s got credentials: %v, want %v (%d requests)", tc.host, sent, tc.gets, len(target.seen()))
			}
		})
	}
}

// What a viewer is told of a camera that does not answer in RTSP is the same whether its
// port is closed, or open and speaking something else: the relay tells them apart for the
// log only.
func TestRTSPNoAnswerReadsTheSame(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			c.Close()
		}
	}()
	for _, addr := range []string{closedAddr, other.Addr().String()} {
		logs := &logtest.Buffer{}
		cam := guardedCamera(t, "rtsp://"+addr+"/live", AddressPolicy{AllowPrivate: true}, logs)
		cam.cfg.StartTimeout = time.Second // the wait of every unanswered camera
		got := failsWith(t, cam)
		if got != "camera adhoc: "+wordsNoAnswer {
			t.Fatalf("%s: told %q", addr, got)
		}
		t.Logf("%s: told %q; logged %s", addr, got, strings.TrimSpace(logs.String()))
	}
}

func TestRelayTransportRules(t *testing.T) {
	r := &rtspRelay{log: slog.New(slog.DiscardHandler)}
	h := hop{addr: netip.MustParseAddrPort("10.0.0.5:554"), host: "cam.example"}
	for _, tc := range []struct {
		in, want string
		refused  bool
	}{
		{"RTP/AVP/TCP;unicast;interleaved=0-1", "RTP/AVP/TCP;unicast;interleaved=0-1", false},
		{"RTP/AVP;unicast;client_port=5000-5001;server_port=6000-6001", "RTP/AVP;unicast;client_port=5000-5001;server_port=6000-6001;source=10.0.0.5", false},
		{"RTP/AVP/UDP;unicast;source=10.0.0.9;server_port=6000-6001", "RTP/AVP/UDP;unicast;server_port=6000-6001;source=10.0.0.9", false},
		{"RTP/AVP;unicast;source=127.0.0.1;server_port=6000-6001", "", true},
		{"RTP/AVP;unicast;Source=169.254.169.254", "", true},
		{"RTP/AVP;unicast;source=metadata.internal", "", true},
		{"RTP/AVP;multicast;destination=239.0.0.1", "", true},
		{"RTP/AVP/TCP;interleaved=0-1,RTP/AVP;unicast;source=::1", "", true},
	} {
		r.refusal = nil
		got, err := r.transport(h, tc.in)
		if (err != nil) != tc.refused || got != tc.want {
			t.Errorf("%q: %q, %v; want %q, refused %v", tc.in, got, err, tc.want, tc.refused)
		}
	}
}

func TestReadRTSPMessageBounds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		fail bool
	}{
		{"RTSP/1.0 200 OK\r\nCSeq: 1\r\nContent-Length: 3\r\n\r\nabc", false},
		{"OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n", false},
		{"HTTP/1.1 400 Bad Request\r\n\r\n", true},
		{"SSH-2.0-OpenSSH_9.2\r\n", true},
		{"RTSP/1.0 200 OK\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc", true},
		{"RTSP/1.0 200 OK\r\nContent-Length: 99999999\r\n\r\n", true},
		{"RTSP/1.0 200 OK\r\nX: " + strings.Repeat("a", maxRTSPHeader) + "\r\n\r\n", true},
	} {
		m, err := readRTSPMessage(bufio.NewReaderSize(strings.NewReader(tc.in), maxRTSPHeader))
		if (err != nil) != tc.fail {
			t.Errorf("%.40q: %+v, %v; want failure %v", tc.in, m, err, tc.fail)
		}
	}
}

// The relay counts what it refused: a camera that keeps redirecting ends after
// maxRedirects.
func TestRTSPRedirectLoopEnds(t *testing.T) {
	var hops atomic.Int32
	var loop *fakeRTSP
	loop = startFakeRTSP(t, "127.0.0.1:0", func(*fakeRTSP, rtspRequest) string {
		return fmt.Sprintf("RTSP/1.0 302 Found\nLocation: %s", loop.url(fmt.Sprintf("/hop%d", hops.Add(1))))
	})
	told := failsWith(t, guardedCamera(t, loop.url("/start"), AddressPolicy{AllowPrivate: true}, nil))
	if told != "camera adhoc: "+wordsRedirect {
		t.Fatalf("told %q", told)
	}
	// ffprobe follows maxRedirects redirects, then the relay refuses the next one.
	if n := hops.Load(); n != maxRedirects+1 {
		t.Fatalf("the camera redirected %d times, want %d", n, maxRedirects+1)
	}
}
