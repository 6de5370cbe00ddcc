package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// The fleet custom KPI socket (W1, W2) through the real server: upgrades refused before the
// upgrade, frames once a second, visibility, revocation, a stalled client among healthy ones.
// The hub ticks in real time here; internal/kpi checks every rule with an injected clock.

// kpiRobot is a scriptable robot with the simulator's three custom KPIs, stamped with the
// time of each read, so a client can tell how long a frame took from its tick.
type kpiRobot struct {
	*fleettest.Robot
	extra []fleetgate.KPI // more KPIs after the three
}

func newKPIRobot(t testing.TB, name string, x float64) *kpiRobot {
	return &kpiRobot{Robot: &fleettest.Robot{ID: uuid.NewString(), Name: name, KPIList: []fleetgate.KPI{
		kpiOf(t, "pose", &catalogpb.Pose{Position: &catalogpb.Point{X: x, Y: 2}, Orientation: &catalogpb.Quaternion{W: 1}}),
		kpiOf(t, "battery", &catalogpb.Float64{Data: 76.5}),
		kpiOf(t, "activity", &catalogpb.String{Data: "moving"}),
	}}}
}

func kpiOf(t testing.TB, name string, m proto.Message) fleetgate.KPI {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return fleetgate.KPI{Name: name, DataType: string(m.ProtoReflect().Descriptor().FullName()), Payload: b}
}

func (r *kpiRobot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	list, err := r.Robot.KPIs(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	list = append(list, r.extra...)
	for i := range list {
		list[i].Time = now
	}
	return list, nil
}

// connectKPIRobot registers r as online in fleetID.
func connectKPIRobot(t testing.TB, s *servertest.Server, r *kpiRobot, fleetID string) {
	t.Helper()
	if err := s.Registry().Add(context.Background(), r, fleetID); err != nil {
		t.Fatal(err)
	}
}

func kpiURL(s *servertest.Server, fleetID, query string) string {
	u := "ws" + strings.TrimPrefix(s.URL, "http") + api.V2Prefix + "/fleets/" + url.PathEscape(fleetID) + "/custom-kpis"
	if query != "" {
		u += "?" + query
	}
	return u
}

func dialKPIs(t testing.TB, s *servertest.Server, fleetID, query string, header http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, kpiURL(s, fleetID, query), &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial KPIs of %s: %v (status %d)", fleetID, err, status)
	}
	conn.SetReadLimit(4 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

// kpiFrame is a decoded FleetCustomKpiEventDto.
type kpiFrame struct {
	Updates []struct {
		BasicData struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"basicData"`
		UpdateTime time.Time `json:"updateTime"`
		Metric     struct {
			Name     string          `json:"name"`
			DataType string          `json:"dataType"`
			Value    json.RawMessage `json:"value"`
		} `json:"metric"`
	} `json:"updates"`
	received time.Time
}

// robots maps each robot id of the frame to its KPI names, in order.
func (f kpiFrame) robots() map[string][]string {
	out := map[string][]string{}
	for _, u := range f.Updates {
		out[u.BasicData.ID] = append(out[u.BasicData.ID], u.Metric.Name)
	}
	return out
}

// tickAge is how long after its tick the frame arrived: the robots stamp their KPIs as the
// hub reads them, right after the tick.
func (f kpiFrame) tickAge() time.Duration {
	first := f.Updates[0].UpdateTime
	for _, u := range f.Updates {
		if u.UpdateTime.Before(first) {
			first = u.UpdateTime
		}
	}
	return f.received.Sub(first)
}

func readKPIFrame(t testing.TB, conn *websocket.Conn) kpiFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	typ, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("reading a KPI frame: %v", err)
	}
	f := kpiFrame{received: time.Now()}
	if typ != websocket.MessageText {
		t.Fatalf("frame of type %v, want text", typ)
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.Updates) == 0 {
		t.Fatalf("frame %q: %v", b, err)
	}
	return f
}

// refusedKPIs dials and expects the upgrade to be refused with status and a problem body.
func refusedKPIs(t *testing.T, rawURL string, header http.Header, status int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{HTTPHeader: header})
	if err == nil {
		conn.CloseNow()
		t.Fatalf("%s: upgraded, want %d", rawURL, status)
	}
	if resp == nil {
		t.Fatalf("%s: %v", rawURL, err)
	}
	if resp.StatusCode != status {
		t.Errorf("%s: status %d, want %d", rawURL, resp.StatusCode, status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		body, _ := io.ReadAll(resp.Body)
		t.Errorf("%s: refusal Content-Type %q (%s), want problem+json", rawURL, ct, body)
	}
}

// kpiCloseCode reads until the server closes the socket and returns the close code.
func kpiCloseCode(t *testing.T, conn *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			code := websocket.CloseStatus(err)
			if code == -1 {
				t.Fatalf("socket ended without a close frame: %v", err)
			}
			return code
		}
	}
}

func TestKPISocketRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	target := "/fleets/" + w.fleet.ID + "/custom-kpis"
	// Not an upgrade: 400, after nothing else (a valid token changes nothing).
	send(t, w.Server, apiCase{name: "plain GET", method: http.MethodGet, target: target, header: bearer(w.admin), wantStatus: http.StatusBadRequest})
	send(t, w.Server, apiCase{name: "plain GET without a token", method: http.MethodGet, target: target, wantStatus: http.StatusBadRequest})

	tests := []struct {
		name   string
		fleet  string
		query  string
		header http.Header
		want   int
	}{
		{"no token", w.fleet.ID, "", nil, http.StatusUnauthorized},
		{"unknown token", w.fleet.ID, "access_token=fgb_nope", nil, http.StatusUnauthorized},
		{"empty query token", w.fleet.ID, "access_token=", nil, http.StatusUnauthorized},
		{"malformed header", w.fleet.ID, "", authorization("token " + w.admin), http.StatusUnauthorized},
		{"expired", w.fleet.ID, "access_token=" + w.expiredBearer(t), nil, http.StatusUnauthorized},
		{"revoked", w.fleet.ID, "access_token=" + w.revokedBearerOnFile(t), nil, http.StatusUnauthorized},
		{"bad token before unknown fleet", uuid.NewString(), "access_token=fgb_nope", nil, http.StatusUnauthorized},
		{"unknown fleet", uuid.NewString(), "", bearer(w.admin), http.StatusNotFound},
		{"local-fleet on the cloud", fleetgate.LocalFleetID, "", bearer(w.admin), http.StatusNotFound},
		{"another organization's fleet", w.otherFleet.ID, "", bearer(w.admin), http.StatusNotFound},
		{"a fleet the token is not restricted to", w.fleet.ID, "", bearer(w.fleetBound), http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refusedKPIs(t, kpiURL(w.Server, tt.fleet, tt.query), tt.header, tt.want)
		})
	}

	t.Run("local gateway", func(t *testing.T) {
		agent := servertest.MustOpen(t, servertest.Agent)
		admin := agent.Login(servertest.AdminToken)
		for _, fleetID := range []string{uuid.NewString(), "default", "LOCAL-FLEET"} {
			refusedKPIs(t, kpiURL(agent, fleetID, ""), bearer(admin), http.StatusNotFound)
		}
		dialKPIs(t, agent, fleetgate.LocalFleetID, "access_token="+admin, nil).Close(websocket.StatusNormalClosure, "")
	})
}

func TestKPISocketFrames(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := newKPIRobot(t, "kpi-alpha", 1), newKPIRobot(t, "kpi-bravo", 2)
	connectKPIRobot(t, w.Server, a, w.fleet.ID)
	connectKPIRobot(t, w.Server, b, w.fleet.ID)
	other := newKPIRobot(t, "kpi-second", 3)
	connectKPIRobot(t, w.Server, other, w.secondFleet.ID)

	// The token by header, and by query with or without "bearer " in any case.
	clients := map[string]*websocket.Conn{
		"header":               dialKPIs(t, w.Server, w.fleet.ID, "", bearer(w.admin)),
		"header, BEARER":       dialKPIs(t, w.Server, w.fleet.ID, "", authorization("BEARER "+w.admin)),
		"query":                dialKPIs(t, w.Server, w.fleet.ID, "access_token="+w.admin, nil),
		"query, bearer":        dialKPIs(t, w.Server, w.fleet.ID, "access_token="+url.QueryEscape("bearer "+w.admin), nil),
		"query, Bearer":        dialKPIs(t, w.Server, w.fleet.ID, "access_token="+url.QueryEscape("Bearer "+w.admin), nil),
		"query, kiosk, BeArEr": dialKPIs(t, w.Server, w.fleet.ID, "access_token="+url.QueryEscape("BeArEr "+w.kiosk), nil),
	}
	want := map[string][]string{a.ID: {"pose", "battery", "activity"}, b.ID: {"pose", "battery", "activity"}}
	for name, conn := range clients {
		f := readKPIFrame(t, conn)
		if got := f.robots(); len(got) != 2 || !slices.Equal(got[a.ID], want[a.ID]) || !slices.Equal(got[b.ID], want[b.ID]) {
			t.Errorf("%s: frame robots %v, want %v (the other fleet's robot never)", name, got, want)
		}
	}

	conn := clients["header"]
	f := readKPIFrame(t, conn)
	u := f.Updates[0]
	if u.BasicData.ID != a.ID || u.BasicData.Name != "kpi-alpha" || u.Metric.Name != "pose" ||
		u.Metric.DataType != "Platform.Messages.geometry_msgs.Pose" || u.UpdateTime.Location() != time.UTC {
		t.Errorf("first update %+v", u)
	}
	checkJSON(t, u.Metric.Value, `{"position":{"x":1,"y":2,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":1}}`)
	if v := string(f.Updates[1].Metric.Value); v != "76.5" {
		t.Errorf("battery value %s, want the number 76.5", v)
	}
	if v := string(f.Updates[2].Metric.Value); v != `"moving"` {
		t.Errorf("activity value %s, want the string \"moving\"", v)
	}

	// Clients send nothing, but what they send is dropped, and pings are answered.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"hello":"server"}`)); err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, websocket.MessageBinary, make([]byte, 40<<10)); err != nil {
		t.Fatal(err)
	}
	frames := make(chan kpiFrame, 8)
	go func() {
		defer close(frames)
		for range 3 {
			typ, data, err := conn.Read(ctx)
			if err != nil || typ != websocket.MessageText {
				return
			}
			var f kpiFrame
			json.Unmarshal(data, &f)
			f.received = time.Now()
			frames <- f
		}
	}()
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	var got []kpiFrame
	for f := range frames {
		got = append(got, f)
	}
	if len(got) != 3 {
		t.Fatalf("%d frames after the client wrote, want 3: the socket must stay open", len(got))
	}
	// About one a second: ticks are a second apart and a frame leaves within its tick's
	// 500 ms read deadline, so gaps fall in [0.5 s, 1.5 s]; the bounds leave room for a
	// loaded machine, and still tell one a second from two or from a burst.
	for i := 1; i < len(got); i++ {
		if gap := got[i].received.Sub(got[i-1].received); gap < 300*time.Millisecond || gap > 1800*time.Millisecond {
			t.Errorf("frames %v apart, want about 1 s", gap)
		}
	}

	// A robot leaving drops out of the next frames; one joining comes in.
	w.Registry().Remove(b)
	c := newKPIRobot(t, "kpi-charlie", 4)
	connectKPIRobot(t, w.Server, c, w.fleet.ID)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := readKPIFrame(t, conn).robots()
		_, hasB := got[b.ID]
		_, hasC := got[c.ID]
		if !hasB && hasC && len(got) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("robots %v after bravo left and charlie joined", got)
		}
	}
}

func TestKPISocketVisibility(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// w.robot (Operator for w.operator) and an unshared one, both in w.fleet.
	mine := &kpiRobot{Robot: newKPIRobot(t, "robot-one", 1).Robot}
	mine.ID = w.robot.ID
	unshared := newKPIRobot(t, "unshared", 2)
	connectKPIRobot(t, w.Server, mine, w.fleet.ID)
	connectKPIRobot(t, w.Server, unshared, w.fleet.ID)

	operator := dialKPIs(t, w.Server, w.fleet.ID, "access_token="+w.operator, nil)
	admin := dialKPIs(t, w.Server, w.fleet.ID, "access_token="+w.admin, nil)
	for range 2 {
		if got := readKPIFrame(t, operator).robots(); len(got) != 1 || got[mine.ID] == nil {
			t.Errorf("operator sees %v, want only %s", got, mine.ID)
		}
		if got := readKPIFrame(t, admin).robots(); len(got) != 2 {
			t.Errorf("org admin sees %v, want both robots", got)
		}
	}
	// A token restricted to the second fleet sees its robots there.
	second := newKPIRobot(t, "robot-two", 3)
	second.ID = w.secondRobot.ID
	connectKPIRobot(t, w.Server, second, w.secondFleet.ID)
	bound := dialKPIs(t, w.Server, w.secondFleet.ID, "access_token="+w.fleetBound, nil)
	if got := readKPIFrame(t, bound).robots(); len(got) != 1 || got[second.ID] == nil {
		t.Errorf("fleet-bound token sees %v, want only %s", got, second.ID)
	}
}

func TestKPISocketRevocation(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	connectKPIRobot(t, w.Server, newKPIRobot(t, "kpi-alpha", 1), w.fleet.ID)
	secret, tok := w.AddToken(w.adminUser.ID, fleetgate.ScopeRead, "")
	kiosk := w.Login(secret)
	// Two kiosks on one token, and a client of another token that must live on.
	conns := []*websocket.Conn{
		dialKPIs(t, w.Server, w.fleet.ID, "access_token="+kiosk, nil),
		dialKPIs(t, w.Server, w.fleet.ID, "", bearer(kiosk)),
	}
	survivor := dialKPIs(t, w.Server, w.fleet.ID, "", bearer(w.admin))
	for _, c := range conns {
		readKPIFrame(t, c)
	}
	revoked := time.Now()
	if err := w.Store.RevokeAPIToken(context.Background(), tok.ID, revoked); err != nil {
		t.Fatal(err)
	}
	for i, c := range conns {
		if code := kpiCloseCode(t, c); code != websocket.StatusPolicyViolation {
			t.Errorf("kiosk %d: close %d after revocation, want 1008", i, code)
		}
		took := time.Since(revoked)
		t.Logf("kiosk %d closed 1008 %v after the revocation", i, took.Round(time.Millisecond))
		// Checks run every second: the close comes within about a second; the bound is two
		// check periods, room for a loaded machine under -race, and still no wait for the
		// token's natural end.
		if took > 2*time.Second {
			t.Errorf("revocation closed the socket after %v", took)
		}
	}
	readKPIFrame(t, survivor)
	readKPIFrame(t, survivor)
}

// TestKPISocketStalledClient has one client that never reads, with a tiny receive buffer,
// among healthy ones: its writes block in the kernel at once (frames of ~48 KiB), and the
// healthy clients still get every frame just after its tick.
func TestKPISocketStalledClient(t *testing.T) {
	w := newWorld(t)
	big := newKPIRobot(t, "kpi-big", 1)
	big.extra = []fleetgate.KPI{kpiOf(t, "log", &catalogpb.String{Data: strings.Repeat("x", 48<<10)})}
	connectKPIRobot(t, w.Server, big, w.fleet.ID)

	// The stalled client: a 4 KiB receive buffer, and no reads ever.
	dialer := &net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stalled, _, err := websocket.Dial(ctx, kpiURL(w.Server, w.fleet.ID, "access_token="+w.admin), &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.CloseNow()
	healthy := []*websocket.Conn{
		dialKPIs(t, w.Server, w.fleet.ID, "access_token="+w.admin, nil),
		dialKPIs(t, w.Server, w.fleet.ID, "access_token="+w.kiosk, nil),
		dialKPIs(t, w.Server, w.fleet.ID, "access_token="+w.admin, nil),
	}
	before := w.KPIs().Stats().Drops
	var worst time.Duration
	for tick := 0; tick < 5; tick++ {
		for i, c := range healthy {
			f := readKPIFrame(t, c)
			if age := f.tickAge(); age > worst {
				worst = age
			}
			if len(f.robots()[big.ID]) != 4 {
				t.Fatalf("client %d: frame without the big robot's 4 KPIs", i)
			}
		}
	}
	t.Logf("healthy clients beside a stalled one: tick to receive at most %v over 5 ticks", worst.Round(100*time.Microsecond))
	// The figure is 50 ms; a test never asserts speed on a shared machine, only that
	// nothing waits for the stalled client, whose writes would hold a frame for seconds (up to
	// the 15 s stall timeout). The bound is one tick: a frame later than that was held past the
	// next tick. (The age counts from the earliest reading, so it includes the robot reads,
	// which take hundreds of milliseconds on a loaded machine under -race.)
	if worst > kpi.Period {
		t.Errorf("a healthy client got a frame %v after its tick", worst)
	}
	// The stalled client's slot has been replacing frames: its writer is blocked.
	if drops := w.KPIs().Stats().Drops - before; drops == 0 {
		t.Errorf("no frame was dropped for the stalled client: it was not stalled")
	}
}

func TestFleetsList(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fleet := func(f fleetgate.Fleet, n int) string {
		return `{"id":"` + f.ID + `","name":"` + f.Name + `","robotCount":` + string(rune('0'+n)) + `}`
	}
	tests := []struct {
		name  string
		token string
		want  string
	}{
		{"org admin", w.admin, `{"fleets":[` + fleet(w.fleet, 1) + `,` + fleet(w.secondFleet, 1) + `]}`},
		{"kiosk", w.kiosk, `{"fleets":[` + fleet(w.fleet, 1) + `,` + fleet(w.secondFleet, 1) + `]}`},
		{"operator", w.operator, `{"fleets":[` + fleet(w.fleet, 1) + `,` + fleet(w.secondFleet, 0) + `]}`},
		{"fleet-bound", w.fleetBound, `{"fleets":[` + fleet(w.secondFleet, 1) + `]}`},
		{"other organization", w.otherAdmin, `{"fleets":[` + fleet(w.otherFleet, 1) + `]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := send(t, w.Server, apiCase{method: http.MethodGet, target: "/fleets", header: bearer(tt.token), wantStatus: http.StatusOK})
			checkJSON(t, resp.Body, tt.want)
		})
	}
	send(t, w.Server, apiCase{method: http.MethodGet, target: "/fleets", wantStatus: http.StatusUnauthorized})
	// Query tokens are for the upgrade routes only.
	send(t, w.Server, apiCase{method: http.MethodGet, target: "/fleets?access_token=" + w.admin, wantStatus: http.StatusUnauthorized})

	t.Run("local gateway", func(t *testing.T) {
		agent := servertest.MustOpen(t, servertest.Agent)
		connectKPIRobot(t, agent, newKPIRobot(t, "local", 1), fleetgate.LocalFleetID)
		resp := send(t, agent, apiCase{method: http.MethodGet, target: "/fleets", header: bearer(agent.Login(servertest.AdminToken)), wantStatus: http.StatusOK})
		checkJSON(t, resp.Body, `{"fleets":[{"id":"local-fleet","name":"local-fleet","robotCount":1}]}`)
	})
}
