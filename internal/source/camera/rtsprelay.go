package camera

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// The RTSP relay holds ffmpeg to the address policy on every hop (docs/cameras.md
// "Redirects and RTP addresses"). ffmpeg follows an RTSP 3xx to wherever its Location
// points, with no option to stop it, and sends RTP over UDP to wherever a SETUP answer's
// source= says; a pre-flight could not help, as a camera may answer the pre-flight one way
// and ffmpeg another. So a camera under the policy is opened by ffmpeg at the relay's own
// loopback address, and the relay makes every connection to the camera itself, each to an
// address the policy allowed, reading the camera's RTSP answers on their way to ffmpeg:
//
//   - a redirect to an allowed address is followed: its Location is rewritten to the relay,
//     whose next connection goes there; a redirect to a refused one ends the camera;
//   - a UDP transport gets source= the camera's own checked address (ffmpeg would otherwise
//     send its RTP to the relay's host), and one naming a refused address, a host name or
//     multicast ends the camera;
//   - the credentials (ffmpeg's Authorization header) go to the host the operator named
//     only, never to another host a redirect names.
//
// Interleaved RTP passes through as it came. The relay speaks TLS to an rtsps:// camera.

// rtspRelay is one ffmpeg's (or ffprobe's) way to a guarded camera.
type rtspRelay struct {
	policy AddressPolicy
	ln     net.Listener
	origin string // the host the operator named: credentials go to it only
	log    *slog.Logger

	mu        sync.Mutex
	next      hop // where ffmpeg's next connection goes
	redirects int
	accepted  int
	conns     map[net.Conn]struct{}
	refusal   error // why the relay refused the camera, the first time
	problem   error // the first connection or protocol fault, for the log
	answered  bool  // the camera answered in RTSP
	status    int   // the status of its latest answer
	closed    bool
	wg        sync.WaitGroup
}

// hop is where one of the relay's connections goes: an address the policy allowed.
type hop struct {
	addr netip.AddrPort
	tls  bool
	host string // the host as its URL named it: TLS's server name, and whose credentials
}

// Bounds of what the relay reads from a camera.
const (
	maxRedirects   = 5
	maxRTSPHeader  = 64 << 10
	maxRTSPHeaders = 128
	maxRTSPBody    = 1 << 20
)

// Default ports of RTSP (RFC 2326) and RTSP over TLS (RFC 7826).
const (
	rtspPort  = 554
	rtspsPort = 322
)

// hopTo is the hop to rawURL (rtsp:// or rtsps://) at ip, the address the policy allowed
// for its host.
func hopTo(rawURL string, ip netip.Addr) (hop, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return hop{}, err
	}
	h := hop{tls: strings.EqualFold(u.Scheme, "rtsps"), host: strings.ToLower(u.Hostname())}
	port := rtspPort
	if h.tls {
		port = rtspsPort
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return hop{}, fmt.Errorf("port %q", p)
		}
	}
	h.addr = netip.AddrPortFrom(ip.Unmap(), uint16(port))
	return h, nil
}

// startRelay listens on loopback for ffmpeg; its first connection goes to first.
func startRelay(policy AddressPolicy, first hop, log *slog.Logger) (*rtspRelay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the camera relay: %w", err)
	}
	r := &rtspRelay{policy: policy, ln: ln, origin: first.host, log: log, next: first, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// local is rawURL (credentials kept) as ffmpeg opens it: at the relay, in plain RTSP.
func (r *rtspRelay) local(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	u.Scheme, u.Host = "rtsp", r.ln.Addr().String()
	return u.String(), nil
}

// Close stops the relay and its connections, and returns once they are done.
func (r *rtspRelay) Close() {
	r.mu.Lock()
	r.closed = true
	conns := make([]net.Conn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	r.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	r.wg.Wait()
}

// failure is why ffmpeg failed (err, its own message) as the relay saw it: a refusal of the
// relay's; a camera that never answered in RTSP, whatever ffmpeg made of it (a closed port,
// a filtered one and one that speaks something else read the same); the camera's refusal
// of the credentials or of the path.
func (r *rtspRelay) failure(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.refusal != nil:
		return r.refusal
	case !r.answered:
		if r.problem != nil {
			err = fmt.Errorf("%w (ffmpeg: %v)", r.problem, err)
		}
		return failed(wordsNoAnswer, err)
	case r.status == 401 || r.status == 403:
		return failed(wordsCredentials, err)
	case r.status == 404:
		return failed(wordsNoStream, err)
	case isTimeout(err):
		return err
	}
	return failed(wordsUnreadable, err)
}

func (r *rtspRelay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		// ffmpeg opens one connection, and one more per redirect it follows.
		if r.closed || r.refusal != nil || r.accepted > maxRedirects {
			r.mu.Unlock()
			c.Close()
			continue
		}
		r.accepted++
		h := r.next
		r.conns[c] = struct{}{}
		r.wg.Add(1)
		r.mu.Unlock()
		go r.serve(c, h)
	}
}

// track adds a connection for Close to end; false (and c closed) when the relay is closed.
func (r *rtspRelay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		c.Close()
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *rtspRelay) forget(c net.Conn) {
	c.Close()
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
}

// serve relays one connection of ffmpeg's to h until either end closes.
func (r *rtspRelay) serve(client net.Conn, h hop) {
	defer r.wg.Done()
	defer r.forget(client)
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	camera, err := r.dial(ctx, h)
	cancel()
	if err != nil {
		r.fault(fmt.Errorf("connecting to the camera at %s: %w", h.addr, err))
		return
	}
	if !r.track(camera) {
		return
	}
	defer r.forget(camera)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.pipe(camera, client, r.fromFFmpeg(h)); err != nil && !isClosed(err) {
			r.fault(err)
		}
		camera.Close()
		client.Close()
	}()
	if err := r.pipe(client, camera, r.fromCamera(h)); err != nil && !isClosed(err) {
		r.fault(err)
	}
	camera.Close()
	client.Close()
	<-done
}

// dial connects to h, under the policy at the socket as well.
func (r *rtspRelay) dial(ctx context.Context, h hop) (net.Conn, error) {
	d := net.Dialer{Control: r.policy.dialControl}
	conn, err := d.DialContext(ctx, "tcp", h.addr.String())
	if err != nil {
		return nil, err
	}
	if !h.tls {
		return conn, nil
	}
	// As ffmpeg by default: the camera's certificate is not verified (cameras carry
	// self-signed ones), so rtsps keeps passive listeners out, not an active one.
	cfg := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} //nolint:gosec // documented in docs/cameras.md
	if _, err := netip.ParseAddr(h.host); err != nil {
		cfg.ServerName = h.host
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS: %w", err)
	}
	return tc, nil
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

// fault records the first connection or protocol fault.
func (r *rtspRelay) fault(err error) {
	r.mu.Lock()
	if r.problem == nil {
		r.problem = err
	}
	r.mu.Unlock()
}

// refuse records a refusal (the first one stands) and returns it, which ends the
// connection: what was refused never reaches ffmpeg.
func (r *rtspRelay) refuse(words string, err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refusal == nil {
		r.refusal = failed(words, err)
		r.log.Warn("camera refused by the address policy", "err", err)
	}
	return r.refusal
}

// fromFFmpeg edits ffmpeg's requests to h: its credentials go to the operator's host only.
func (r *rtspRelay) fromFFmpeg(h hop) func(*rtspMessage) error {
	return func(m *rtspMessage) error {
		if h.host != r.origin {
			m.drop("Authorization")
		}
		return nil
	}
}

// fromCamera checks and edits the camera's messages to ffmpeg: its redirects and transports.
func (r *rtspRelay) fromCamera(h hop) func(*rtspMessage) error {
	return func(m *rtspMessage) error {
		status := m.status()
		r.mu.Lock()
		r.answered = true
		if status != 0 {
			r.status = status
		}
		r.mu.Unlock()
		locations := 0
		for i := range m.headers {
			name, value := m.header(i)
			switch {
			case strings.EqualFold(name, "Location"):
				locations++
				if locations > 1 {
					return r.refuse(wordsRedirect, errors.New("the camera answered a redirect with two locations"))
				}
				if status < 300 || status > 399 {
					m.headers[i] = "" // ffmpeg reads Location only from a redirect
					continue
				}
				local, err := r.redirect(value)
				if err != nil {
					return err
				}
				m.headers[i] = name + ": " + local
			case strings.EqualFold(name, "Transport"):
				transport, err := r.transport(h, value)
				if err != nil {
					return err
				}
				m.headers[i] = name + ": " + transport
			}
		}
		return nil
	}
}

// redirect follows a camera's redirect to location, when the policy allows its address: the
// relay's next connection goes there, and ffmpeg is sent back to the relay.
func (r *rtspRelay) redirect(location string) (string, error) {
	location = strings.TrimSpace(location)
	u, err := url.Parse(location)
	if err != nil || (!strings.EqualFold(u.Scheme, "rtsp") && !strings.EqualFold(u.Scheme, "rtsps")) || u.Hostname() == "" {
		return "", r.refuse(wordsRedirect, fmt.Errorf("the camera redirected to %q, not an rtsp:// address", redactURL(location)))
	}
	u.User = nil
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	ip, err := r.policy.Resolve(ctx, u.Hostname())
	cancel()
	if err != nil {
		words := wordsNoAnswer
		if errors.Is(err, ErrRefusedAddress) {
			words = wordsRedirect
		}
		return "", r.refuse(words, fmt.Errorf("the camera redirected to %s: %w", u.Redacted(), err))
	}
	next, err := hopTo(u.String(), ip)
	if err != nil {
		return "", r.refuse(wordsRedirect, fmt.Errorf("the camera redirected to %s: %w", u.Redacted(), err))
	}
	r.mu.Lock()
	if r.redirects >= maxRedirects {
		r.mu.Unlock()
		return "", r.refuse(wordsRedirect, fmt.Errorf("the camera redirected more than %d times", maxRedirects))
	}
	r.redirects++
	r.next = next
	r.mu.Unlock()
	r.log.Info("camera redirect followed", "to", u.Redacted(), "address", next.addr)
	u.Scheme, u.Host = "rtsp", r.ln.Addr().String()
	return u.String(), nil
}

// transport checks a Transport header of the camera's (RFC 2326 section 12.39): over TCP
// (interleaved) RTP comes on the relayed connection; over UDP ffmpeg sends to the source=
// address, or to the host it connected to, which is the relay's: so a UDP transport must be
// unicast, names an address the policy allows as its source, and gets the camera's own
// address as its source when it names none.
func (r *rtspRelay) transport(h hop, value string) (string, error) {
	specs := strings.Split(value, ",")
	for i, spec := range specs {
		params := strings.Split(spec, ";")
		protocol := strings.ToUpper(strings.TrimSpace(params[0]))
		if strings.HasSuffix(protocol, "/TCP") {
			continue
		}
		source := ""
		kept := params[:1]
		for _, p := range params[1:] {
			name, v, _ := strings.Cut(p, "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "multicast":
				return "", r.refuse(wordsTransport, errors.New("the camera answered a multicast transport, which the agent never asks for"))
			case "source":
				source = strings.TrimSpace(v)
				continue
			}
			kept = append(kept, p)
		}
		ip := h.addr.Addr()
		if source != "" {
			named, err := netip.ParseAddr(source)
			if err != nil {
				return "", r.refuse(wordsTransport, fmt.Errorf("the camera named %q as its RTP source, not an IP address", source))
			}
			if why := refusedAddr(named); why != "" && !r.policy.AllowPrivate {
				return "", r.refuse(wordsTransport, fmt.Errorf("the camera named %s as its RTP source, %s", named, why))
			}
			ip = named.Unmap()
		}
		specs[i] = strings.Join(append(kept, "source="+ip.String()), ";")
	}
	return strings.Join(specs, ","), nil
}

// pipe copies an RTSP connection from src to dst, message by message: interleaved binary
// packets as they are, RTSP messages (requests and answers) through edit, which may change
// their headers or refuse them (ending the connection).
func (r *rtspRelay) pipe(dst io.Writer, src io.Reader, edit func(*rtspMessage) error) error {
	in := bufio.NewReaderSize(src, maxRTSPHeader)
	out := bufio.NewWriterSize(dst, 64<<10)
	for {
		b, err := in.Peek(1)
		if err != nil {
			return err
		}
		if b[0] == '$' {
			// $, the channel, a 16-bit length, the packet (RFC 2326 section 10.12).
			head, err := in.Peek(4)
			if err != nil {
				return err
			}
			n := int64(binary.BigEndian.Uint16(head[2:4]))
			if _, err := io.CopyN(out, in, 4+n); err != nil {
				return err
			}
		} else {
			m, err := readRTSPMessage(in)
			if err != nil {
				return err
			}
			if err := edit(m); err != nil {
				return err
			}
			if err := m.write(out); err != nil {
				return err
			}
		}
		// Flush when nothing more is waiting: a frame's packets go out together, and the
		// last one is not held back.
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}

// errNotRTSP is a peer whose bytes are not RTSP.
var errNotRTSP = errors.New("the peer does not speak RTSP")

// rtspMessage is an RTSP request or answer: its start line, its header lines as they came
// ("" for one dropped), its body.
type rtspMessage struct {
	start   string
	headers []string
	body    []byte
}

// readRTSPMessage reads one message; its header must hold in maxRTSPHeader and its body,
// as its one Content-Length says, in maxRTSPBody.
func readRTSPMessage(in *bufio.Reader) (*rtspMessage, error) {
	m := &rtspMessage{}
	size := 0
	for {
		line, err := in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errors.New("an RTSP header line over 64 KiB")
		}
		if err != nil {
			return nil, err
		}
		if size += len(line); size > maxRTSPHeader {
			return nil, errors.New("an RTSP header over 64 KiB")
		}
		text := strings.TrimRight(string(line), "\r\n")
		if m.start == "" {
			if text == "" {
				continue // blank lines between messages
			}
			if !rtspStartLine(text) {
				return nil, errNotRTSP
			}
			m.start = text
			continue
		}
		if text == "" {
			break
		}
		if len(m.headers) == maxRTSPHeaders {
			return nil, fmt.Errorf("an RTSP message with over %d header lines", maxRTSPHeaders)
		}
		m.headers = append(m.headers, text)
	}
	length := -1
	for i := range m.headers {
		name, value := m.header(i)
		if !strings.EqualFold(name, "Content-Length") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil || n < 0 || n > maxRTSPBody || (length >= 0 && n != length) {
			return nil, fmt.Errorf("an RTSP message with Content-Length %q (at most %d, once)", value, maxRTSPBody)
		}
		length = n
	}
	if length > 0 {
		m.body = make([]byte, length)
		if _, err := io.ReadFull(in, m.body); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// rtspStartLine reports whether line begins an RTSP message: an answer (RTSP/1.0 200 OK)
// or a request (METHOD URI RTSP/1.0).
func rtspStartLine(line string) bool {
	parts := strings.SplitN(line, " ", 3)
	if len(parts) < 2 {
		return false
	}
	if strings.HasPrefix(parts[0], "RTSP/") {
		code, err := strconv.Atoi(parts[1])
		return err == nil && code >= 100 && code <= 999
	}
	return len(parts) == 3 && strings.HasPrefix(parts[2], "RTSP/")
}

// status is an answer's status code, 0 for a request.
func (m *rtspMessage) status() int {
	if !strings.HasPrefix(m.start, "RTSP/") {
		return 0
	}
	parts := strings.SplitN(m.start, " ", 3)
	code, _ := strconv.Atoi(parts[1])
	return code
}

// header is header line i's name and value.
func (m *rtspMessage) header(i int) (name, value string) {
	name, value, _ = strings.Cut(m.headers[i], ":")
	return strings.TrimSpace(name), value
}

// drop removes every header line named name.
func (m *rtspMessage) drop(name string) {
	for i := range m.headers {
		if n, _ := m.header(i); strings.EqualFold(n, name) {
			m.headers[i] = ""
		}
	}
}

func (m *rtspMessage) write(w *bufio.Writer) error {
	w.WriteString(m.start)
	w.WriteString("\r\n")
	for _, h := range m.headers {
		if h != "" {
			w.WriteString(h)
			w.WriteString("\r\n")
		}
	}
	w.WriteString("\r\n")
	_, err := w.Write(m.body)
	return err
}
