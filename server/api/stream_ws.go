package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// W3 close codes (the contract's "after the upgrade" table).
const (
	closeNormal       = websocket.StatusNormalClosure
	closeGoingAway    = websocket.StatusGoingAway
	closePolicy       = websocket.StatusPolicyViolation
	closeTooBig       = websocket.StatusMessageTooBig
	closeInternal     = websocket.StatusInternalError
	closeReasonMaxLen = 120
)

const (
	// tokenCheckPeriod is how often a socket re-checks its bearer token, so revocation and
	// expiry end it within about a second.
	tokenCheckPeriod = time.Second
	// writeStall is how long one frame may take to leave before the client is cut off.
	writeStall = 15 * time.Second
	// publishTimeout bounds one teleop publish to the robot.
	publishTimeout = 250 * time.Millisecond
	// maxRateLimit is the highest maxRate accepted, in frames per second.
	maxRateLimit = 1000
	// maxCorkedFrame is the largest split frame written under TCP_CORK (see writeFrame).
	maxCorkedFrame = 512 << 10
)

// streamSocket is the W3 route: /apigateway/v2/robots/{robotId}/streams/connect.
type streamSocket struct {
	gw       *gateway.Gateway
	controls *live.Controls
	feeds    *output.Feeds
	scaled   *scaledImages
	sockets  *Sockets
	log      *slog.Logger
}

// liveQuery is W3's query string.
type liveQuery struct {
	input      bool
	json       bool
	sel        gateway.StreamSelector
	maxRate    float64
	downsample bool
	camera     *gateway.CameraTarget // a camera named by address (camera_ws.go)
	maxWidth   int                   // camera images scaled down to this width (camera_ws.go)
}

func parseLiveQuery(c echo.Context) (liveQuery, error) {
	q := liveQuery{downsample: true}
	var err error
	if q.sel, err = streamQuery(c); err != nil {
		return q, err
	}
	direction, err := queryParam(c, "direction")
	if err != nil {
		return q, err
	}
	switch strings.ToLower(direction) {
	case "", fleet.Output:
	case fleet.Input:
		q.input = true
	default:
		return q, gateway.Errorf(gateway.EInvalid, "direction must be output or input")
	}
	format, err := queryParam(c, "format")
	if err != nil {
		return q, err
	}
	switch strings.ToLower(format) {
	case "", "protobuf":
	case "json":
		q.json = true
	default:
		return q, gateway.Errorf(gateway.EInvalid, "format must be protobuf or json")
	}
	if rate, err := queryParam(c, "maxRate"); err != nil {
		return q, err
	} else if rate != "" {
		q.maxRate, err = strconv.ParseFloat(rate, 64)
		if err != nil || q.maxRate < 0 || q.maxRate > maxRateLimit || q.maxRate != q.maxRate {
			return q, gateway.Errorf(gateway.EInvalid, "maxRate must be a number of frames per second from 0 to %d", maxRateLimit)
		}
	}
	if whole, err := queryParam(c, "withoutDownSampling"); err != nil {
		return q, err
	} else if whole != "" {
		b, err := strconv.ParseBool(whole)
		if err != nil {
			return q, gateway.Errorf(gateway.EInvalid, "withoutDownSampling must be true or false")
		}
		q.downsample = !b
	}
	if q.camera, err = cameraQuery(c, q.sel, q.input); err != nil {
		return q, err
	}
	if q.maxWidth, err = maxWidthQuery(c, q.input); err != nil {
		return q, err
	}
	if q.input && (q.maxRate != 0 || c.QueryParams().Has("withoutDownSampling")) {
		return q, gateway.Errorf(gateway.EInvalid, "maxRate and withoutDownSampling apply to output only")
	}
	return q, nil
}

// socketToken is the bearer token of an upgrade request: the authorization header, else the
// panel's token subprotocol (protocolToken), else the access_token query parameter (with or
// without a "bearer " prefix, any case), which browsers must use since they cannot set
// headers on a WebSocket.
func socketToken(req *http.Request) (string, error) {
	if h := req.Header.Get(echo.HeaderAuthorization); h != "" {
		token, ok := gateway.ParseAuthorization(h)
		if !ok {
			return "", gateway.Errorf(gateway.EUnauthorized, "malformed authorization header; send authorization: bearer <token>")
		}
		return token, nil
	}
	if token := protocolToken(req); token != "" {
		return token, nil
	}
	values := req.URL.Query()["access_token"]
	if len(values) != 1 || values[0] == "" {
		return "", gateway.Errorf(gateway.EUnauthorized, "missing token: send authorization: bearer <token> or access_token=<token>")
	}
	token := values[0]
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = token[7:]
	}
	return token, nil
}

// socketCaller authenticates an upgrade request by its socket token (socketToken), checks
// where it comes from (checkSocketOrigin) and records the caller for the request log line.
func socketCaller(c echo.Context, gw *gateway.Gateway) (caller *gateway.Caller, bearer string, err error) {
	bearer, err = socketToken(c.Request())
	if err != nil {
		return nil, "", err
	}
	caller, err = gw.Authenticate(c.Request().Context(), bearer)
	if err != nil {
		return nil, "", err
	}
	if err := checkSocketOrigin(c.Request(), bearer); err != nil {
		return nil, "", err
	}
	c.Set(callerKey, caller)
	return caller, bearer, nil
}

func isUpgrade(req *http.Request) bool {
	return req.Method == http.MethodGet &&
		headerHasToken(req.Header, "Connection", "upgrade") &&
		headerHasToken(req.Header, "Upgrade", "websocket")
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// connect checks a W3 request in the contract's order (400, 401, 404, 501, 409), then
// upgrades and runs the socket until it ends.
func (h *streamSocket) connect(c echo.Context) error {
	req := c.Request()
	if !isUpgrade(req) {
		return gateway.Errorf(gateway.EInvalid, "this route is a WebSocket: send an upgrade request")
	}
	q, err := parseLiveQuery(c)
	if err != nil {
		return err
	}
	if err := h.gw.CheckCameraTarget(q.camera); err != nil {
		return err
	}
	caller, bearer, err := socketCaller(c, h.gw)
	if err != nil {
		return err
	}
	ctx := req.Context()
	ls, err := h.openLiveStream(ctx, caller, c.Param("robotId"), q)
	if err != nil {
		return err
	}
	sock := &socket{id: uuid.NewString(), h: h, caller: caller, bearer: bearer, ls: ls, q: q,
		done: make(chan struct{}), closed: make(chan struct{})}
	if q.input {
		target := live.Target{RobotID: ls.Robot.ID, Source: int(ls.Stream.Source), Component: ls.Stream.Component, Stream: ls.Stream.Name}
		lease, holder, ok := h.controls.Acquire(target, sock.id, caller.User.Email)
		if !ok {
			return &gateway.Error{Code: gateway.EConflict, Owner: holder.User, Since: holder.Since,
				Message: "stream " + q.sel.String() + " is controlled by " + holder.User + " since " + holder.Since.UTC().Format(time.RFC3339)}
		}
		sock.lease = lease
	}
	conn, err := websocket.Accept(c.Response(), req, acceptOptions())
	if err != nil {
		sock.release()
		return nil // Accept answered the client (a cross-origin request gets 403)
	}
	setNotSentLowat(req.Context())
	sock.conn = conn
	if q.input {
		sock.newController()
	} else {
		sock.tcp = corkableConn(req.Context())
	}
	if !h.sockets.add(sock) {
		sock.release()
		conn.Close(closeGoingAway, "server shutting down")
		return nil
	}
	defer h.sockets.remove(sock)
	sock.run()
	return nil
}

// socket is one upgraded W3 connection.
type socket struct {
	id     string
	h      *streamSocket
	caller *gateway.Caller
	bearer string
	ls     gateway.LiveStream
	q      liveQuery
	conn   *websocket.Conn
	lease  *live.Lease
	tcp    syscall.RawConn // the output socket's TCP connection, for TCP_CORK; nil: none

	ctl *live.Controller

	stopOnce sync.Once
	done     chan struct{} // closed by stop
	closed   chan struct{} // closed when the close handshake is over
	writing  atomicTime
}

func (s *socket) release() {
	if s.lease != nil {
		s.lease.Release()
	}
}

// stop ends the socket once: a controlled robot gets its zero command first, then the client
// its close code.
func (s *socket) stop(code websocket.StatusCode, reason string) {
	s.stopOnce.Do(func() {
		close(s.done)
		if s.ctl != nil {
			if err := s.ctl.Stop(); err != nil {
				// The robot may still be moving on its last command: its own timeout is all
				// that stops it now. Nobody else is told, so say it loudly.
				s.h.log.Error("the zero command did not reach the robot", "robot", s.ls.Robot.ID, "name", s.ls.Robot.Name,
					"stream", s.q.sel.String(), "err", err)
			}
		}
		s.release()
		if len(reason) > closeReasonMaxLen {
			reason = reason[:closeReasonMaxLen]
		}
		// Close waits for the peer's answer (up to seconds): never hold the caller on it.
		go func() {
			s.conn.Close(code, reason)
			close(s.closed)
		}()
	})
}

func (s *socket) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.watch(ctx)
	if s.q.input {
		s.runInput()
	} else {
		s.runOutput(ctx)
	}
	<-s.closed // the handshake ends before the context that CloseRead reads under
}

// watch ends the socket when its token is revoked or expires, or a write stalls.
// A controller is pinged every controllerPingEvery and let go when a ping goes unanswered for
// controllerPingTimeout: a client whose machine vanished (no FIN, no RST) or froze would
// otherwise keep the robot's control, and everybody else 409, until TCP gives up minutes
// later or its token expires. Browsers answer pings by themselves. (Atomic: tests shorten
// them.)
var controllerPingEvery, controllerPingTimeout atomicDuration

func init() {
	controllerPingEvery.Store(int64(5 * time.Second))
	controllerPingTimeout.Store(int64(10 * time.Second))
}

type atomicDuration struct{ atomic.Int64 }

func (d *atomicDuration) get() time.Duration { return time.Duration(d.Load()) }

func (s *socket) watch(ctx context.Context) {
	if s.q.input {
		go s.every(ctx, controllerPingEvery.get(), s.pingController)
	}
	s.every(ctx, tokenCheckPeriod, func(ctx context.Context) bool {
		checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := s.h.gw.StillValid(checkCtx, s.bearer)
		cancel()
		if gateway.ErrorCode(err) == gateway.EUnauthorized {
			s.stop(closePolicy, "token revoked or expired")
			return false
		}
		if since := s.writing.since(); since > writeStall {
			s.stop(closePolicy, "client too slow")
			s.conn.CloseNow()
			return false
		}
		if s.q.input && !s.h.gw.StillConnected(s.ls) {
			// The control lease is on this connection of the robot: a robot that went away
			// (or came back as a new connection) is driven afresh.
			s.stop(closeGoingAway, "the robot went offline")
			return false
		}
		return true
	})
}

// every calls check each period until it returns false, ctx ends or the socket stops.
func (s *socket) every(ctx context.Context, period time.Duration, check func(context.Context) bool) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
		if !check(ctx) {
			return
		}
	}
}

// pingController lets go of a controller that stops answering pings (see
// controllerPingEvery); the reader, always running on an input socket, takes the pongs.
func (s *socket) pingController(ctx context.Context) bool {
	pingCtx, cancel := context.WithTimeout(ctx, controllerPingTimeout.get())
	err := s.conn.Ping(pingCtx)
	cancel()
	if err == nil {
		return true
	}
	select {
	case <-s.done:
		return false // the socket is closing anyway: leave its handshake alone
	default:
	}
	if ctx.Err() == nil {
		s.stop(closeGoingAway, "the controller does not answer pings")
		s.conn.CloseNow() // nobody is there to answer the close handshake either
	}
	return false
}

func (s *socket) runOutput(ctx context.Context) {
	readCtx := s.discardReads(ctx)
	stream, err := s.h.gw.ResolveOutput(ctx, s.ls, s.q.sel)
	if err != nil {
		if gateway.ErrorCode(err) == gateway.EUnavailable {
			s.stop(closeInternal, "output bootstrap failed: "+gateway.ErrorMessage(err))
		} else {
			s.stop(closePolicy, "stream not resolved: "+gateway.ErrorMessage(err))
		}
		return
	}
	sub, err := s.ls.Live.Subscribe(ctx, stream.Key())
	if err != nil {
		s.stop(closeInternal, "output bootstrap failed")
		return
	}
	defer sub.Close()
	feed, release := s.h.feeds.Get(s.feedID(), stream)
	defer release()
	variant := output.Variant{Format: output.Protobuf, Downsample: s.q.downsample}
	msgType := websocket.MessageBinary
	if s.q.json {
		variant.Format, msgType = output.JSON, websocket.MessageText
	}
	pacer := output.NewPacer(s.q.maxRate)
	for {
		sample, err := sub.Next(readCtx)
		if err != nil {
			s.stop(outputEnded(err))
			return
		}
		if wait := pacer.Wait(time.Now()); wait > 0 {
			select {
			case <-time.After(wait):
			case <-readCtx.Done():
				s.stop(closeNormal, "")
				return
			}
			if newer, ok := sub.Take(); ok {
				sample = newer // latest wins, also across the rate wait
			}
		}
		frame, err := feed.Frame(s.scaled(stream, sample), variant)
		if errors.Is(err, output.ErrTooLarge) {
			s.stop(closeTooBig, "frame too large for JSON; use format=protobuf")
			return
		} else if err != nil {
			s.stop(closeInternal, "output conversion failed")
			return
		}
		s.writing.set(time.Now())
		err = writeFrame(s.conn, s.tcp, msgType, frame)
		s.writing.set(time.Time{})
		if err != nil {
			s.stop(closeNormal, "")
			return
		}
		pacer.Sent(time.Now())
	}
}

// writeFrame sends one frame as one WebSocket message. A frame in one part goes in one
// WebSocket frame. A split one (head, the sample's payload, tail: see output.Frame) goes as
// one message in three fragments, which RFC 6455 has every client reassemble before its
// application sees the message, so the payload is sent from the sample itself, never copied.
//
// A fragmented message costs the library one more flush than a whole one: its 4 KiB buffer
// goes out before the payload and the tail with the closing frame after it, each a small
// segment that wakes the client. For frames up to maxCorkedFrame, TCP_CORK on the socket
// while the message is written lets the kernel send them inside full segments (the classic
// use: a header, a body from elsewhere, a trailer); uncorking pushes the rest at once. It
// measured 8-27% more throughput at 150-300 KiB frames, and nothing or a little less from
// 600 KiB, where the payload's own segments dominate and a corked partial segment can wait
// for the receive window (docs/benchmarks.md).
func writeFrame(conn *websocket.Conn, tcp syscall.RawConn, typ websocket.MessageType, f output.Frame) error {
	if len(f.Head) == 0 && len(f.Tail) == 0 {
		return conn.Write(context.Background(), typ, f.Body)
	}
	if tcp != nil && f.Len() <= maxCorkedFrame {
		tcp.Control(cork)
		defer tcp.Control(uncork)
	}
	w, err := conn.Writer(context.Background(), typ)
	if err != nil {
		return err
	}
	for _, part := range [...][]byte{f.Head, f.Body, f.Tail} {
		if len(part) == 0 {
			continue // an empty write would still send a frame
		}
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return w.Close()
}

// tcpCork is TCP_CORK (linux/tcp.h), used on Linux only: other systems number their options
// differently.
const tcpCork = 3

// corkableConn is the TCP connection of an upgrade request, for cork and uncork; nil when
// there is none (TLS, another system).
func corkableConn(ctx context.Context) syscall.RawConn {
	if runtime.GOOS != "linux" {
		return nil
	}
	tcp := tcpConn(ctx)
	if tcp == nil {
		return nil
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// cork and uncork set TCP_CORK; errors are ignored (a closing socket fails the write anyway).
func cork(fd uintptr)   { setsockoptInt(syscall.SetsockoptInt, fd, syscall.IPPROTO_TCP, tcpCork, 1) }
func uncork(fd uintptr) { setsockoptInt(syscall.SetsockoptInt, fd, syscall.IPPROTO_TCP, tcpCork, 0) }

// setsockoptInt calls syscall.SetsockoptInt, whose descriptor is an int on Unix and a Handle
// on Windows, so that this file builds everywhere without build tags.
func setsockoptInt[FD ~int | ~uintptr](set func(FD, int, int, int) error, fd uintptr, level, opt, value int) error {
	return set(FD(fd), level, opt, value)
}

// newController makes the rate cap and deadman of an input socket; it exists before the
// socket is visible to shutdown, which stops it.
func (s *socket) newController() {
	key := s.ls.Stream.Key()
	typ := s.ls.Stream.Type
	robot := s.ls.Live
	s.ctl = live.NewController(live.ControllerConfig{
		Clock: live.RealClock(),
		Type:  typ,
		Publish: func(m proto.Message) error {
			payload, err := proto.Marshal(m)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
			defer cancel()
			return robot.Publish(ctx, key, typ, payload)
		},
		OnPublishError: func(error) { go s.stop(closeInternal, "publishing to the robot failed") },
	})
}

// discardReads reads an output socket for its control frames (pings, the close handshake)
// and closes it 1008 on a data frame, as the contract wants. It does what the library's
// CloseRead does, which we cannot use: in coder/websocket v1.8.15 its own Close on a data
// frame waits 15 s for the goroutine it runs in. The returned context ends with the socket.
func (s *socket) discardReads(ctx context.Context) context.Context {
	readCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		if _, _, err := s.conn.Reader(readCtx); err == nil {
			s.stop(closePolicy, "output sockets take no data frames")
		}
	}()
	return readCtx
}

func (s *socket) runInput() {
	typ := s.ls.Stream.Type
	s.conn.SetReadLimit(live.MaxInputMessage)
	format := "protobuf"
	if s.q.json {
		format = "json"
	}
	buf := make([]byte, 0, 4<<10)
	for {
		msgType, r, err := s.conn.Reader(context.Background())
		if err != nil {
			s.stop(closeStatusOr(err, closeNormal), "")
			return
		}
		buf, err = readAll(buf[:0], r)
		if err != nil {
			s.stop(closeStatusOr(err, closeTooBig), "message over 64 KiB")
			return
		}
		cmd, err := live.DecodeCommand(typ, format, msgType == websocket.MessageBinary, buf)
		if err == nil {
			err = live.LimitCommand(cmd, s.ls.Stream.Limits)
		}
		if err != nil {
			var ce *live.CloseError
			if errors.As(err, &ce) {
				s.stop(websocket.StatusCode(ce.Code), ce.Reason)
			} else {
				s.stop(closeInternal, "decoding failed")
			}
			return
		}
		s.ctl.Command(cmd)
	}
}

// readAll reads a message into buf, reusing its storage.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// closeStatusOr is the close code a read error carries (the library closes on oversize
// messages with 1009 itself), else def.
func closeStatusOr(err error, def websocket.StatusCode) websocket.StatusCode {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return closeTooBig
	}
	return def
}

// atomicTime is a time read by the watchdog while the writer sets it.
type atomicTime struct {
	mu sync.Mutex
	t  time.Time
}

func (a *atomicTime) set(t time.Time) { a.mu.Lock(); a.t = t; a.mu.Unlock() }

func (a *atomicTime) since() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.t.IsZero() {
		return 0
	}
	return time.Since(a.t)
}

// Sockets tracks the upgraded W3 connections, which http.Server.Shutdown does not wait for:
// Shutdown zeroes every controlled robot, closes every socket with 1001, then waits.
type Sockets struct {
	mu       sync.Mutex
	open     map[*socket]struct{}
	wg       sync.WaitGroup
	shutting bool
}

// NewSockets returns an empty tracker.
func NewSockets() *Sockets { return &Sockets{open: map[*socket]struct{}{}} }

func (ss *Sockets) add(s *socket) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.shutting {
		return false
	}
	ss.open[s] = struct{}{}
	ss.wg.Add(1)
	return true
}

func (ss *Sockets) remove(s *socket) {
	ss.mu.Lock()
	delete(ss.open, s)
	ss.mu.Unlock()
	ss.wg.Done()
}

// Shutdown stops every socket (robots zeroed first) and waits for their handlers, or ctx.
func (ss *Sockets) Shutdown(ctx context.Context) error {
	ss.mu.Lock()
	ss.shutting = true
	open := make([]*socket, 0, len(ss.open))
	for s := range ss.open {
		open = append(open, s)
	}
	ss.mu.Unlock()
	// Every controlled robot gets its zero at once, not one after another.
	var zeroed sync.WaitGroup
	for _, s := range open {
		zeroed.Go(func() { s.stop(closeGoingAway, "server shutting down") })
	}
	zeroed.Wait()
	done := make(chan struct{})
	go func() { ss.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Len is the number of open sockets.
func (ss *Sockets) Len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.open)
}

type controlItem struct {
	ComponentName    string    `json:"componentName"`
	StreamName       string    `json:"streamName"`
	StreamSourceType int       `json:"streamSourceType"`
	Owner            string    `json:"owner"`
	Since            time.Time `json:"since"`
}

type controlsResponse struct {
	Controls []controlItem `json:"controls"`
}

// controls is GET /robots/{robotId}/controls (an extension): who drives which input stream,
// since browsers see a refused upgrade only as close code 1006.
func (h *streamSocket) controlsList(c echo.Context) error {
	r, err := h.gw.AuthorizeControls(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	held := h.controls.Held(r.ID)
	resp := controlsResponse{Controls: make([]controlItem, len(held))}
	for i, hd := range held {
		resp.Controls[i] = controlItem{ComponentName: hd.Target.Component, StreamName: hd.Target.Stream,
			StreamSourceType: hd.Target.Source, Owner: hd.Owner.User, Since: hd.Owner.Since.UTC()}
	}
	return c.JSON(http.StatusOK, resp)
}
