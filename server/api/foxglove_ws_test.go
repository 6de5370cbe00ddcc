package api_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// foxglove is a client of the Foxglove route speaking foxglove.websocket.v1 by hand (the npm
// client's test is cmd/fleetgate's foxglove_test.go): it checks the protocol's bytes.
type foxglove struct {
	conn *websocket.Conn
}

// fgMessage is a server message: a JSON one (Op set) or a binary message data one.
type fgMessage struct {
	Op           string
	Capabilities []string
	Channels     []struct {
		ID                                          uint32
		Topic, Encoding, SchemaName, SchemaEncoding string
	}
	ChannelIDs []uint32
	Level      int
	Message    string

	binary bool
	sub    uint32
	nanos  uint64
	data   []byte
}

func (a *liveAgent) foxgloveURL(query string) string {
	return a.ws + "/robots/" + a.robot + "/foxglove?" + query
}

func (a *liveAgent) foxglove(t *testing.T, query string, header http.Header) *foxglove {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, a.foxgloveURL(query), &websocket.DialOptions{HTTPHeader: header, Subprotocols: []string{"foxglove.websocket.v1"}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	if conn.Subprotocol() != "foxglove.websocket.v1" {
		t.Errorf("subprotocol %q selected", conn.Subprotocol())
	}
	conn.SetReadLimit(32 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	return &foxglove{conn: conn}
}

func (f *foxglove) read(t *testing.T) fgMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	typ, data, err := f.conn.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ == websocket.MessageBinary {
		if len(data) < 13 || data[0] != 1 {
			t.Fatalf("binary message % x: not message data", data[:min(len(data), 16)])
		}
		return fgMessage{binary: true, sub: binary.LittleEndian.Uint32(data[1:5]), nanos: binary.LittleEndian.Uint64(data[5:13]), data: data[13:]}
	}
	var m fgMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

// until reads until a message ok accepts.
func (f *foxglove) until(t *testing.T, what string, ok func(fgMessage) bool) fgMessage {
	t.Helper()
	for range 1000 {
		if m := f.read(t); ok(m) {
			return m
		}
	}
	t.Fatalf("no %s in 1000 messages", what)
	return fgMessage{}
}

func (f *foxglove) send(t *testing.T, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := f.conn.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

func (f *foxglove) publish(t *testing.T, channel uint32, payload string) {
	t.Helper()
	b := binary.LittleEndian.AppendUint32([]byte{1}, channel)
	if err := f.conn.Write(context.Background(), websocket.MessageBinary, append(b, payload...)); err != nil {
		t.Fatal(err)
	}
}

// channels reads the server info and the first advertisement: topic → channel id.
func (f *foxglove) channels(t *testing.T) (info fgMessage, ids map[string]uint32) {
	t.Helper()
	info = f.read(t)
	if info.Op != "serverInfo" {
		t.Fatalf("first message %+v, want serverInfo", info)
	}
	adv := f.until(t, "advertise", func(m fgMessage) bool { return m.Op == "advertise" })
	ids = map[string]uint32{}
	for _, c := range adv.Channels {
		ids[c.Topic] = c.ID
	}
	return info, ids
}

func TestFoxgloveRefusals(t *testing.T) {
	a := newLiveAgent(t)
	auth := http.Header{"Authorization": {"bearer " + a.admin}}
	if r := a.DoRaw("GET", "/apigateway/v2/robots/"+a.robot+"/foxglove", auth, nil); r.Status != 400 {
		t.Errorf("not an upgrade: %d, want 400", r.Status)
	}
	// coder/websocket's Dial offers no subprotocol unless told.
	body := a.refused(t, a.foxgloveURL(""), auth, 400)
	if !strings.Contains(body, "foxglove.websocket.v1") {
		t.Errorf("no subprotocol: %s; want it named", body)
	}
	dial := func(query string, header http.Header) int {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, resp, err := websocket.Dial(ctx, a.foxgloveURL(query), &websocket.DialOptions{HTTPHeader: header, Subprotocols: []string{"foxglove.websocket.v1"}})
		if err == nil {
			conn.CloseNow()
			return 101
		}
		if resp == nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	if s := dial("", nil); s != 401 {
		t.Errorf("no token: %d, want 401", s)
	}
	if s := dial("access_token=fgt_NotAToken0123456789abcdefghijklm", nil); s != 401 {
		t.Errorf("a wrong API token: %d, want 401", s)
	}
	if s := dial("access_token="+servertest.AdminToken, nil); s != 101 {
		t.Errorf("the API token itself in the URL: %d, want the upgrade", s)
	}
	a.robot = "00000000-0000-4000-8000-000000000000"
	if s := dial("", auth); s != 404 {
		t.Errorf("an unknown robot: %d, want 404", s)
	}
}

// TestFoxgloveSubscriptions: output streams are channels (inputs are not), a subscription gets
// the robot's messages as they are, behind the header naming it, and nothing once unsubscribed.
func TestFoxgloveSubscriptions(t *testing.T) {
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	info, ids := f.channels(t)
	if len(info.Capabilities) != 1 || info.Capabilities[0] != "clientPublish" {
		t.Errorf("capabilities %v; an admin may publish", info.Capabilities)
	}
	if len(ids) != 2 || ids["/base/pose"] == 0 || ids["/lidar/scan"] == 0 {
		t.Fatalf("channels %v; want the two output streams", ids)
	}
	f.send(t, map[string]any{"op": "subscribe", "subscriptions": []map[string]uint32{{"id": 7, "channelId": ids["/base/pose"]}}})
	waitFor(t, "the subscription", func() bool { return a.bot.Subscribers(poseKey) == 1 })
	want := marshal(t, &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 3}}})
	sample := a.bot.Emit(poseKey, poseType, want)
	m := f.until(t, "the pose", func(m fgMessage) bool { return m.binary })
	if m.sub != 7 || string(m.data) != string(want) || m.nanos != uint64(sample.Time.UnixNano()) {
		t.Errorf("message of subscription %d at %d, %d bytes; want 7 at %d, the robot's bytes", m.sub, m.nanos, len(m.data), sample.Time.UnixNano())
	}
	f.send(t, map[string]any{"op": "subscribe", "subscriptions": []map[string]uint32{{"id": 8, "channelId": 999}}})
	if m := f.until(t, "a status", func(m fgMessage) bool { return m.Op == "status" }); m.Level != 2 || !strings.Contains(m.Message, "no channel 999") {
		t.Errorf("subscribing to no channel: %+v", m)
	}
	f.send(t, map[string]any{"op": "unsubscribe", "subscriptionIds": []uint32{7}})
	waitFor(t, "the subscription's end", func() bool { return a.bot.Subscribers(poseKey) == 0 })
}

// TestFoxglovePublish: a client channel on an input stream drives it through the door: the
// lease (a second client refused, naming the holder), clamped speeds, the zero when it ends.
func TestFoxglovePublish(t *testing.T) {
	a := newLiveAgent(t)
	first := a.foxglove(t, "", http.Header{"Authorization": {"bearer " + a.admin}})
	first.channels(t)
	first.send(t, map[string]any{"op": "advertise", "channels": []map[string]any{{"id": 1, "topic": "/base/cmd_vel", "encoding": "json", "schemaName": "geometry_msgs/Twist"}}})
	// The lease is taken on the advertisement: the first command may race it, so repeat.
	var published []float64
	waitFor(t, "a clamped command at the robot", func() bool {
		first.publish(t, 1, `{"linear":{"x":5},"angular":{"z":-0.5}}`)
		for _, p := range a.bot.Published() {
			published = append(published, twistOf(t, p).GetLinear().GetX())
		}
		return len(published) > 0
	})
	for _, x := range published {
		if x != 1 {
			t.Fatalf("commands at the robot: linear.x %v; want 5 clamped to the default 1 m/s", published)
		}
	}

	second := a.foxglove(t, "", http.Header{"Authorization": {"bearer " + a.admin}})
	second.channels(t)
	second.send(t, map[string]any{"op": "advertise", "channels": []map[string]any{{"id": 1, "topic": "/base/cmd_vel", "encoding": "json", "schemaName": "geometry_msgs/Twist"}}})
	refusal := second.until(t, "the refusal", func(m fgMessage) bool { return m.Op == "status" })
	if refusal.Level != 2 || !strings.Contains(refusal.Message, "driven by admin@localhost") {
		t.Errorf("a second publisher: %+v; want an error naming the holder", refusal)
	}
	before := len(a.bot.Published())
	second.publish(t, 1, `{"linear":{"x":-1}}`)
	if m := second.until(t, "the reminder", func(m fgMessage) bool { return m.Op == "status" }); !strings.Contains(m.Message, "refused") {
		t.Errorf("publishing on a refused channel: %+v", m)
	}

	first.send(t, map[string]any{"op": "unadvertise", "channelIds": []uint32{1}})
	p := waitPublished(t, a.bot, before+1)
	if !isZeroTwist(twistOf(t, p[len(p)-1])) {
		t.Errorf("the last command after unadvertise: %v; want the zero", twistOf(t, p[len(p)-1]))
	}
	for _, q := range p[before:] {
		if twistOf(t, q).GetLinear().GetX() < 0 {
			t.Errorf("the refused client's command reached the robot")
		}
	}
	if held := a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, ""); !strings.Contains(string(held.Body), `"controls":[]`) {
		t.Errorf("controls after unadvertise: %s", held.Body)
	}
}

// TestFoxgloveReadOnlyToken: a read-scope token watches but may not publish: no clientPublish
// capability, and an advertisement is refused without touching the lease.
func TestFoxgloveReadOnlyToken(t *testing.T) {
	a := newLiveAgent(t)
	admin, err := a.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := a.AddToken(admin.ID, fleetgate.ScopeRead, "")
	f := a.foxglove(t, "access_token="+secret, nil)
	info, _ := f.channels(t)
	if len(info.Capabilities) != 0 {
		t.Errorf("capabilities %v for a read-only token", info.Capabilities)
	}
	f.send(t, map[string]any{"op": "advertise", "channels": []map[string]any{{"id": 1, "topic": "/base/cmd_vel", "encoding": "json", "schemaName": "geometry_msgs/Twist"}}})
	if m := f.until(t, "the refusal", func(m fgMessage) bool { return m.Op == "status" }); m.Level != 2 || !strings.Contains(m.Message, "may not drive") {
		t.Errorf("a read-only token advertising: %+v", m)
	}
	f.publish(t, 1, `{"linear":{"x":1}}`)
	f.until(t, "the reminder", func(m fgMessage) bool { return m.Op == "status" })
	if n := len(a.bot.Published()); n != 0 {
		t.Errorf("%d commands reached the robot from a read-only token", n)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 5 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
