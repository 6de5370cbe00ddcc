package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/source/camera"
	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// These tests run an agent with cameras against GStreamer's RTSP server and watch them over
// W3 as a client would: real server, real ffmpeg, real peer.

func cameraAgent(t *testing.T, cams server.CameraConfig, sims int) (*servertest.Server, string) {
	t.Helper()
	s := servertest.MustOpen(t, servertest.Agent, func(c *server.Config) {
		c.Cameras = cams
		c.Sim = server.SimConfig{Count: sims, Seed: 1, CmdTimeout: time.Second}
	})
	return s, s.Login(servertest.AdminToken)
}

func mustCamera(t *testing.T, flag string) camera.Configured {
	t.Helper()
	c, err := camera.ParseFlag(flag)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type robotItem struct {
	BasicData struct{ ID, Name string }
	IsOnline  bool
}

func robotsOf(t *testing.T, s *servertest.Server, bearer string) map[string]string {
	t.Helper()
	var list struct{ RobotDataList []robotItem }
	s.Do(http.MethodGet, "/apigateway/v2/robots", bearer, "").JSON(t, &list)
	out := map[string]string{}
	for _, r := range list.RobotDataList {
		out[r.BasicData.Name] = r.BasicData.ID
	}
	return out
}

type streamItem struct {
	ComponentName, StreamName, StreamType, Direction string
	StreamSourceType                                 int
	SourceURL                                        *string `json:"sourceUrl"`
	SourceEndpoint                                   *string `json:"sourceEndpoint"`
}

func streamsOf(t *testing.T, s *servertest.Server, bearer, robotID string) []streamItem {
	t.Helper()
	var out struct{ RobotStreams []streamItem }
	r := s.Do(http.MethodGet, "/apigateway/v2/robots/"+robotID+"/streams", bearer, "")
	if r.Status != http.StatusOK {
		t.Fatalf("streams: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &out)
	return out.RobotStreams
}

// w3 dials a W3 output socket; the query is added to the robot's connect URL.
func w3(ctx context.Context, s *servertest.Server, bearer, robotID string, q url.Values) (*websocket.Conn, *http.Response, error) {
	return w3Protocols(ctx, s, bearer, robotID, q)
}

// w3Protocols is w3 offering subprotocols (the panel's "fleetgate" first).
func w3Protocols(ctx context.Context, s *servertest.Server, bearer, robotID string, q url.Values, protocols ...string) (*websocket.Conn, *http.Response, error) {
	u := "ws" + strings.TrimPrefix(s.URL, "http") + "/apigateway/v2/robots/" + robotID + "/streams/connect?" + q.Encode()
	opts := &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}}
	if len(protocols) > 0 {
		opts.Subprotocols = append([]string{"fleetgate"}, protocols...)
	}
	conn, resp, err := websocket.Dial(ctx, u, opts)
	if conn != nil {
		conn.SetReadLimit(16 << 20)
	}
	return conn, resp, err
}

// jpegFrames reads n frames, each a MessageStream envelope of a CompressedImage JPEG that
// decodes, and returns the time they took and the last image's size.
func jpegFrames(t *testing.T, ctx context.Context, conn *websocket.Conn, n int) (time.Duration, int, int) {
	t.Helper()
	var start time.Time
	w, h := 0, 0
	for i := range n {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if i == 0 {
			start = time.Now()
		}
		var env streampb.MessageStream
		if err := proto.Unmarshal(b, &env); err != nil || env.DataType != camera.ImageType || env.Compression != streampb.Compression_COMPRESSION_NONE {
			t.Fatalf("frame %d: envelope %v, %v", i, &env, err)
		}
		var img catalogpb.CompressedImage
		if err := proto.Unmarshal(env.Data, &img); err != nil {
			t.Fatal(err)
		}
		decoded, err := jpeg.Decode(bytes.NewReader(img.Data))
		if err != nil {
			t.Fatalf("frame %d: the JPEG does not decode: %v", i, err)
		}
		w, h = decoded.Bounds().Dx(), decoded.Bounds().Dy()
	}
	return time.Since(start), w, h
}

// closedWith reads until the socket closes and returns its close status and reason.
func closedWith(ctx context.Context, conn *websocket.Conn) (websocket.StatusCode, string) {
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Reason
			}
			return -1, err.Error()
		}
	}
}

func TestConfiguredCamerasOverW3(t *testing.T) {
	h264 := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "h264", FPS: 15})
	mjpeg := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg", FPS: 15, User: "viewer", Password: "pa55-word"})
	withCreds := strings.Replace(mjpeg.URL(), "rtsp://", "rtsp://viewer:pa55-word@", 1)
	s, bearer := cameraAgent(t, server.CameraConfig{Cameras: []camera.Configured{
		mustCamera(t, "sim-1/front="+h264.URL()),
		mustCamera(t, "dock="+withCreds),
	}}, 1)
	robots := robotsOf(t, s, bearer)
	simID := robots["sim-1"]
	if simID == "" || len(robots) != 2 {
		t.Fatalf("robots %v: want sim-1 and the agent's camera robot", robots)
	}
	var hostID string
	for name, id := range robots {
		if name != "sim-1" {
			hostID = id
		}
	}
	// Listed as output streams of the camera component, without credentials.
	check := func(streams []streamItem, name, wantURL string) {
		t.Helper()
		for _, st := range streams {
			if st.StreamName == name && st.StreamSourceType == 5 {
				if st.ComponentName != camera.Component || st.StreamType != camera.ImageType || st.Direction != "output" ||
					st.SourceURL == nil || *st.SourceURL != wantURL || st.SourceEndpoint != nil {
					t.Fatalf("stream %s: %+v", name, st)
				}
				return
			}
		}
		t.Fatalf("no camera stream %s in %+v", name, streams)
	}
	simStreams := streamsOf(t, s, bearer, simID)
	check(simStreams, "front", h264.URL())
	check(streamsOf(t, s, bearer, hostID), "dock", mjpeg.URL())
	if len(simStreams) < 3 {
		t.Fatalf("the robot's own streams are gone: %+v", simStreams)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct{ robot, name string }{{simID, "front"}, {hostID, "dock"}} {
		conn, _, err := w3(ctx, s, bearer, tc.robot, url.Values{"componentName": {"camera"}, "streamName": {tc.name}, "source": {"5"}})
		if err != nil {
			t.Fatal(err)
		}
		jpegFrames(t, ctx, conn, 3) // the first may come in a burst
		const n = 30
		took, w, h := jpegFrames(t, ctx, conn, n)
		rate := float64(n-1) / took.Seconds()
		if w != 320 || h != 240 || rate < 9 || rate > 22 {
			t.Fatalf("%s: %dx%d at %.1f frames/s, want 320x240 at 15", tc.name, w, h, rate)
		}
		conn.Close(websocket.StatusNormalClosure, "")
		t.Logf("%s: %.1f frames/s over W3", tc.name, rate)
	}
	if strings.Contains(s.Logs(), "pa55-word") {
		t.Fatal("a camera password is in the agent's log")
	}
}

func TestCameraViewersShareOneFFmpeg(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg"})
	s, bearer := cameraAgent(t, server.CameraConfig{Cameras: []camera.Configured{mustCamera(t, "dock="+srv.URL())}}, 0)
	var hostID string
	for _, id := range robotsOf(t, s, bearer) {
		hostID = id
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conns := make([]*websocket.Conn, 20)
	for i := range conns {
		var err error
		conns[i], _, err = w3(ctx, s, bearer, hostID, url.Values{"streamName": {"dock"}, "componentName": {"camera"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conns[i].CloseNow()
	}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { jpegFrames(t, ctx, c, 5) })
	}
	wg.Wait()
	if pids := cameratest.Children("ffmpeg"); len(pids) != 1 {
		t.Fatalf("%d ffmpeg processes for 20 viewers of one camera, want 1", len(pids))
	}
}

func TestCameraFaultsOverW3(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "h264"})
	s, bearer := cameraAgent(t, server.CameraConfig{Cameras: []camera.Configured{mustCamera(t, "dock="+srv.URL())}}, 0)
	var hostID string
	for _, id := range robotsOf(t, s, bearer) {
		hostID = id
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q := url.Values{"streamName": {"dock"}, "componentName": {"camera"}, "source": {"5"}}
	viewers := make([]*websocket.Conn, 3)
	for i := range viewers {
		var err error
		if viewers[i], _, err = w3(ctx, s, bearer, hostID, q); err != nil {
			t.Fatal(err)
		}
		jpegFrames(t, ctx, viewers[i], 2)
	}
	killed := time.Now()
	srv.Kill()
	for _, v := range viewers {
		code, reason := closedWith(ctx, v)
		if code != websocket.StatusInternalError || reason == "" {
			t.Fatalf("after the camera died: closed %d %q, want 1011 with a reason", code, reason)
		}
		if d := time.Since(killed); d > 5*time.Second {
			t.Fatalf("told %s after the camera died", d)
		}
	}
	// Unreachable now: a new viewer is told within 5 s.
	start := time.Now()
	conn, _, err := w3(ctx, s, bearer, hostID, q)
	if err != nil {
		t.Fatal(err)
	}
	code, reason := closedWith(ctx, conn)
	// In words, and nothing a port scanner could read: no system error, address or port.
	if code != websocket.StatusInternalError || !strings.HasSuffix(reason, "camera dock: the camera did not answer") || time.Since(start) > 5*time.Second {
		t.Fatalf("a viewer of an unreachable camera: %d %q after %s", code, reason, time.Since(start))
	}
	served, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"refused", "127.0.0.1", served.Port(), "dial", "tcp"} {
		if strings.Contains(reason, leak) {
			t.Fatalf("the reason %q says %q", reason, leak)
		}
	}
	if !strings.Contains(s.Logs(), "Connection refused") {
		t.Fatalf("the agent's log does not keep the detail")
	}
	t.Logf("unreachable camera: 1011 %q after %s", reason, time.Since(start).Round(time.Millisecond))
	// The camera comes back: a reconnecting viewer gets images.
	srv.Restart(t)
	conn, _, err = w3(ctx, s, bearer, hostID, q)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	jpegFrames(t, ctx, conn, 3)
}

// cameraProtocol is the panel's subprotocol with a camera's credentials.
func cameraProtocol(user, password string) string {
	b, _ := json.Marshal(map[string]string{"username": user, "password": password})
	return "fleetgate.camera." + base64.RawURLEncoding.EncodeToString(b)
}

// adhocQuery is a W3 query for a camera by address.
func adhocQuery(source, rawURL, user, password string) url.Values {
	q := url.Values{"streamName": {"mine"}, "source": {source}, "url": {rawURL}}
	if user != "" {
		q.Set("username", user)
		q.Set("password", password)
	}
	return q
}

func TestAdhocCameraOverW3(t *testing.T) {
	const user, password = "admin", "s3cret-Pass"
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "h264", User: user, Password: password})
	onvif := cameratest.StartONVIF(t, srv.URL(), user, password)
	// The test's cameras are on loopback, which only --camera-allow-private lets ad-hoc
	// URLs reach; the refusal is tested below on an agent without it.
	s, admin := cameraAgent(t, server.CameraConfig{AllowPrivate: true}, 1)
	simID := robotsOf(t, s, admin)["sim-1"]
	org, _ := s.DefaultOrg()
	dev := s.AddUser(org.ID, "dev@example.com", false, map[string]fleetgate.Role{simID: fleetgate.RoleDeveloper})
	op := s.AddUser(org.ID, "op@example.com", false, map[string]fleetgate.Role{simID: fleetgate.RoleOperator})
	devToken, _ := s.AddToken(dev.ID, "", "")
	opToken, _ := s.AddToken(op.ID, "", "")
	developer, operator := s.Login(devToken), s.Login(opToken)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("RTSP with the right credentials", func(t *testing.T) {
		conn, _, err := w3(ctx, s, developer, simID, adhocQuery("5", srv.URL(), user, password))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		if _, w, h := jpegFrames(t, ctx, conn, 5); w != 320 || h != 240 {
			t.Fatalf("%dx%d", w, h)
		}
	})
	t.Run("RTSP with the credentials in the URL", func(t *testing.T) {
		inURL := strings.Replace(srv.URL(), "rtsp://", "rtsp://"+user+":"+password+"@", 1)
		conn, _, err := w3(ctx, s, developer, simID, adhocQuery("5", inURL, "", ""))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		jpegFrames(t, ctx, conn, 3)
	})
	t.Run("ONVIF", func(t *testing.T) {
		conn, _, err := w3(ctx, s, developer, simID, adhocQuery("4", onvif.URL, user, password))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		jpegFrames(t, ctx, conn, 3)
	})
	// The panel's camera form: the credentials travel in a subprotocol, never in the URL (a
	// browser prints a refused upgrade's URL in its console), and are not echoed.
	t.Run("RTSP with the credentials in the panel's subprotocol", func(t *testing.T) {
		conn, resp, err := w3Protocols(ctx, s, developer, simID, adhocQuery("5", srv.URL(), "", ""), cameraProtocol(user, password))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "fleetgate" {
			t.Fatalf("selected subprotocol %q, want fleetgate", got)
		}
		jpegFrames(t, ctx, conn, 3)
		conn, _, err = w3Protocols(ctx, s, developer, simID, adhocQuery("5", srv.URL(), "", ""), cameraProtocol(user, "wrong-guess"))
		if err != nil {
			t.Fatal(err)
		}
		if code, reason := closedWith(ctx, conn); code != websocket.StatusInternalError || !strings.HasSuffix(reason, "camera mine: the camera refused the credentials") {
			t.Fatalf("wrong credentials in the subprotocol: closed %d %q", code, reason)
		}
		for _, bad := range []struct {
			q        url.Values
			protocol string
		}{
			{adhocQuery("5", srv.URL(), user, password), cameraProtocol(user, password)}, // both
			{url.Values{"streamName": {"mine"}, "source": {"5"}}, cameraProtocol(user, password)},
			{adhocQuery("5", srv.URL(), "", ""), "fleetgate.camera.not*base64"},
			{adhocQuery("5", srv.URL(), "", ""), "fleetgate.camera." + base64.RawURLEncoding.EncodeToString([]byte(`{"user":"x"}`))},
		} {
			if _, resp, err := w3Protocols(ctx, s, developer, simID, bad.q, bad.protocol); err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%v with %s: %v %v, want 400", bad.q, bad.protocol, resp, err)
			}
		}
	})
	t.Run("wrong credentials", func(t *testing.T) {
		start := time.Now()
		conn, _, err := w3(ctx, s, developer, simID, adhocQuery("5", srv.URL(), user, "wrong-guess"))
		if err != nil {
			t.Fatal(err)
		}
		code, reason := closedWith(ctx, conn)
		if code != websocket.StatusInternalError || !strings.HasSuffix(reason, "camera mine: the camera refused the credentials") || time.Since(start) > 5*time.Second {
			t.Fatalf("closed %d %q after %s, want 1011 saying the camera refused the credentials within 5 s", code, reason, time.Since(start))
		}
	})
	t.Run("an operator may not", func(t *testing.T) {
		_, resp, err := w3(ctx, s, operator, simID, adhocQuery("5", srv.URL(), user, password))
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("operator: %v %v, want 403", resp, err)
		}
	})
	t.Run("bad requests are 400 before the upgrade", func(t *testing.T) {
		for _, q := range []url.Values{
			adhocQuery("5", "ftp://10.0.0.1/x", "", ""),
			adhocQuery("5", "rtsp://10.0.0.1/a b", "", ""),
			adhocQuery("5", "http://10.0.0.1/onvif/device_service", "", ""), // source 5 is RTSP
			adhocQuery("2", "rtsp://10.0.0.1/x", "", ""),
			{"streamName": {"x"}, "source": {"6"}, "endpoint": {"/etc/passwd"}},
			{"streamName": {"x"}, "source": {"5"}, "url": {"rtsp://10.0.0.1/x"}, "direction": {"input"}},
		} {
			_, resp, err := w3(ctx, s, developer, simID, q)
			if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%v: %v %v, want 400", q, resp, err)
			}
		}
	})
	logs := s.Logs()
	for _, secret := range []string{password, "wrong-guess", "username=" + user} {
		if strings.Contains(logs, secret) {
			t.Fatalf("a password from the query is in the agent's log")
		}
	}
	if !strings.Contains(logs, "ad-hoc camera opened") {
		t.Fatalf("ad-hoc cameras are not logged: %s", logs)
	}
}

func TestAdhocCameraPrivateAddressesRefused(t *testing.T) {
	s, admin := cameraAgent(t, server.CameraConfig{}, 1)
	simID := robotsOf(t, s, admin)["sim-1"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, u := range []string{"rtsp://127.0.0.1:8554/x", "rtsp://localhost/x", "rtsp://[::1]/x", "http://169.254.169.254/onvif/device_service"} {
		source := "5"
		if strings.HasPrefix(u, "http") {
			source = "4"
		}
		_, resp, err := w3(ctx, s, admin, simID, adhocQuery(source, u, "", ""))
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %v %v, want 403", u, resp, err)
		}
	}
	// (A name is looked up when the camera opens, and refused then: internal/camera's
	// TestPolicyChecksNamesWhenTheCameraOpens.)
}

// Each viewer may ask for a smaller picture (maxWidth, an extension); the shared frames are
// scaled once per width, and viewers of the camera's own size are not touched.
func TestCameraScaledPerViewer(t *testing.T) {
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "mjpeg", Width: 320, Height: 240})
	s, bearer := cameraAgent(t, server.CameraConfig{Cameras: []camera.Configured{mustCamera(t, "dock="+srv.URL())}}, 0)
	var hostID string
	for _, id := range robotsOf(t, s, bearer) {
		hostID = id
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		maxWidth     string
		wantW, wantH int
	}{{"160", 160, 120}, {"160", 160, 120}, {"", 320, 240}, {"1000", 320, 240}} {
		q := url.Values{"streamName": {"dock"}, "componentName": {"camera"}}
		if tc.maxWidth != "" {
			q.Set("maxWidth", tc.maxWidth)
		}
		conn, _, err := w3(ctx, s, bearer, hostID, q)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		if _, w, h := jpegFrames(t, ctx, conn, 3); w != tc.wantW || h != tc.wantH {
			t.Fatalf("maxWidth=%q: %dx%d, want %dx%d", tc.maxWidth, w, h, tc.wantW, tc.wantH)
		}
	}
	for _, bad := range []string{"5", "x", "99999"} {
		_, resp, err := w3(ctx, s, bearer, hostID, url.Values{"streamName": {"dock"}, "componentName": {"camera"}, "maxWidth": {bad}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("maxWidth=%s: %v %v, want 400", bad, resp, err)
		}
	}
}

// Cameras configured on a host without ffmpeg stop the agent at start, saying why.
func TestCamerasWithoutFFmpegFailAtStart(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := server.Open(context.Background(), server.Config{Mode: server.ModeAgent, Listen: "127.0.0.1:0", DataDir: t.TempDir(),
		TokenTTL: time.Hour, Cameras: server.CameraConfig{Cameras: []camera.Configured{mustCamera(t, "dock=rtsp://10.0.0.5/live")}}})
	if err == nil || !strings.Contains(err.Error(), "ffmpeg is not installed") || !strings.Contains(err.Error(), "--camera") {
		t.Fatalf("Open = %v, want the clear error", err)
	}
}
