package api_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// rosBot is a scriptable robot whose source gives ROS definitions of the types outside the
// catalog (fleet.MessageDefinitions), as a ROS 1 robot does.
type rosBot struct {
	*fleettest.Robot
	defs map[fleetgate.StreamKey][2]string // encoding, definition
}

func (r *rosBot) MessageDefinition(_ context.Context, key fleetgate.StreamKey) (string, string, error) {
	d, ok := r.defs[key]
	if !ok {
		return "", "", fleetgate.Errorf(fleetgate.ENotFound, "no definition of %s", key.Name)
	}
	return d[0], d[1], nil
}

// TestFoxgloveROSTypes: a ROS type outside the catalog is a channel of the ROS encoding with
// the source's definition (ros1msg or ros2msg), its messages the transport's bytes; a type
// without a definition is no channel, and a status says so.
func TestFoxgloveROSTypes(t *testing.T) {
	s := servertest.MustOpen(t, servertest.Agent)
	thing := fleetgate.StreamKey{Name: "/thing", Source: fleetgate.SourceROS1}
	other := fleetgate.StreamKey{Name: "/other", Source: fleetgate.SourceROS2}
	bot := &rosBot{Robot: &fleettest.Robot{ID: "6c1e8f0c-9a53-4c5f-8d0e-2f3b9c1d7a62", Name: "ros-bot",
		StreamList: []fleetgate.Stream{
			{Name: "/thing", Type: "my_msgs/Thing", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
			{Name: "/other", Type: "other_msgs/msg/Other", Direction: fleetgate.Output, Source: fleetgate.SourceROS2},
			{Name: "/mystery", Type: "x_msgs/Mystery", Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
		}},
		defs: map[fleetgate.StreamKey][2]string{thing: {"ros1msg", "int32 a\nstring b"}, other: {"ros2msg", "float64 x"}}}
	if err := s.Registry().Add(context.Background(), bot, fleetgate.LocalFleetID); err != nil {
		t.Fatal(err)
	}
	a := &liveAgent{Server: s, admin: s.Login(servertest.AdminToken), robot: bot.ID, ws: "ws" + strings.TrimPrefix(s.URL, "http") + "/apigateway/v2"}
	f := a.foxglove(t, "access_token="+a.admin, nil)
	f.read(t) // serverInfo
	var adv fgMessage
	var warned string
	for adv.Op == "" || warned == "" {
		switch m := f.read(t); m.Op {
		case "advertise":
			adv = m
		case "status":
			warned = m.Message
		}
	}
	got := map[string]string{}
	var thingID uint32
	for _, c := range adv.Channels {
		got[c.Topic] = c.Encoding + " " + c.SchemaName + " " + c.SchemaEncoding
		if c.Topic == "/thing" {
			thingID = c.ID
		}
	}
	if got["/thing"] != "ros1 my_msgs/Thing ros1msg" || got["/other"] != "cdr other_msgs/msg/Other ros2msg" || len(got) != 2 {
		t.Errorf("channels %v", got)
	}
	if !strings.Contains(warned, "/mystery (x_msgs/Mystery: no definition of /mystery)") {
		t.Errorf("status %q; want the stream without a definition named", warned)
	}
	f.subscribe(t, 1, thingID)
	waitFor(t, "the subscription", func() bool { return bot.Subscribers(thing) == 1 })
	raw := []byte{7, 0, 0, 0, 2, 0, 0, 0, 'h', 'i'}
	bot.Emit(thing, "my_msgs/Thing", raw)
	if m := f.until(t, "the message", func(m fgMessage) bool { return m.binary }); !bytes.Equal(m.data, raw) {
		t.Errorf("message % x; want the transport's bytes % x", m.data, raw)
	}
}

// TestFoxgloveLatestWins: a client that does not read loses older messages, never the newest:
// each subscription relays the latest sample, as W3 does.
func TestFoxgloveLatestWins(t *testing.T) {
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	_, ids := f.channels(t)
	f.subscribe(t, 1, ids["/base/pose"])
	waitFor(t, "the subscription", func() bool { return a.bot.Subscribers(poseKey) == 1 })
	// 100 poses of 512 KiB (50 MB) while the client reads nothing: far beyond the socket's
	// buffers, so the relay must skip.
	padding := strings.Repeat("p", 512<<10)
	const n = 100
	for i := range n {
		a.bot.Emit(poseKey, poseType, marshal(t, &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: padding},
			Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: float64(i)}}}))
	}
	received, last := 0, -1.0
	for last != n-1 {
		m := f.until(t, "a pose", func(m fgMessage) bool { return m.binary })
		var p catalogpb.PoseStamped
		if err := proto.Unmarshal(m.data, &p); err != nil {
			t.Fatal(err)
		}
		if x := p.GetPose().GetPosition().GetX(); x <= last {
			t.Fatalf("pose %v after %v: out of order", x, last)
		} else {
			last = x
		}
		received++
	}
	t.Logf("%d of %d poses reached a client that did not read while they were sent", received, n)
	if received >= n {
		t.Errorf("every pose was queued for a client that did not read; want the older ones skipped")
	}
}

// TestFoxgloveTokenRevoked: revoking the API token in a session's URL ends the session (and
// a publication with it) within seconds.
func TestFoxgloveTokenRevoked(t *testing.T) {
	a := newLiveAgent(t)
	admin, err := a.Store.UserByEmail(context.Background(), gateway.BootstrapAdminEmail)
	if err != nil {
		t.Fatal(err)
	}
	secret, token := a.AddToken(admin.ID, "", "")
	f := a.foxglove(t, "access_token="+secret, nil)
	f.channels(t)
	f.advertise(t, 1, "/base/cmd_vel", "json", "")
	waitFor(t, "a command at the robot", func() bool {
		f.publish(t, 1, `{"linear":{"x":0.2}}`)
		return len(a.bot.Published()) > 0
	})
	if err := a.Store.RevokeAPIToken(context.Background(), token.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var code websocket.StatusCode
	for {
		if _, _, err := f.conn.Read(ctx); err != nil {
			code = websocket.CloseStatus(err)
			break
		}
	}
	if code != websocket.StatusPolicyViolation || time.Since(revoked) > 5*time.Second {
		t.Errorf("closed %d after %v; want 1008 within seconds", code, time.Since(revoked))
	}
	p := a.bot.Published()
	if !isZeroTwist(twistOf(t, p[len(p)-1])) {
		t.Errorf("the last command after the revocation is not the zero")
	}
}

// TestFoxgloveSubscribeRefused: a subscription the robot refuses (its stream gone since the
// listing) ends saying why and its channel is withdrawn (until a listing finds the stream
// again: TestFoxgloveChannelsFollowTheRobot); the session goes on.
func TestFoxgloveSubscribeRefused(t *testing.T) {
	defer live.SetFoxgloveRefresh(time.Hour)() // the listings are the test's own
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	_, ids := f.channels(t)
	a.bot.Lock()
	saved := a.bot.StreamList
	a.bot.StreamList = slices.DeleteFunc(slices.Clone(saved), func(s fleetgate.Stream) bool { return s.Name == "scan" })
	a.bot.Unlock()
	f.subscribe(t, 1, ids["/lidar/scan"])
	if m := f.status(t); m.Level != 2 || !strings.Contains(m.Message, "/lidar/scan") {
		t.Errorf("status %+v; want the scan's refusal", m)
	}
	if m := f.until(t, "the scan withdrawn", func(m fgMessage) bool { return m.Op == "unadvertise" }); len(m.ChannelIDs) != 1 || m.ChannelIDs[0] != ids["/lidar/scan"] {
		t.Errorf("unadvertised %v", m.ChannelIDs)
	}
	// The subscription id is free again, and the pose still served.
	f.subscribe(t, 1, ids["/base/pose"])
	waitFor(t, "the pose subscription", func() bool { return a.bot.Subscribers(poseKey) == 1 })
	if a.bot.Subscribers(scanKey) != 0 {
		t.Error("the refused subscription holds the scan")
	}
}

// TestFoxgloveMessageTooBig: a client message over the limit closes the socket with 1009,
// and a publication ends with the zero first.
func TestFoxgloveMessageTooBig(t *testing.T) {
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	f.channels(t)
	f.advertise(t, 1, "/base/cmd_vel", "json", "")
	waitFor(t, "a command at the robot", func() bool {
		f.publish(t, 1, `{"linear":{"x":0.3}}`)
		return len(a.bot.Published()) > 0
	})
	f.sendRaw(t, websocket.MessageText, []byte(`{"op":"subscribe","x":"`+strings.Repeat("x", live.MaxFoxgloveMessage)+`"}`))
	if code := closeCode(t, f.conn); code != websocket.StatusMessageTooBig {
		t.Errorf("close %d, want 1009", code)
	}
	waitFor(t, "the zero", func() bool {
		p := a.bot.Published()
		return isZeroTwist(twistOf(t, p[len(p)-1]))
	})
}
