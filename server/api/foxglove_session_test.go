package api_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/foxglovepb"
)

// status reads until the next status message.
func (f *foxglove) status(t *testing.T) fgMessage {
	t.Helper()
	return f.until(t, "a status", func(m fgMessage) bool { return m.Op == "status" })
}

// wantStatus reads the next status and checks its level and that it says want.
func (f *foxglove) wantStatus(t *testing.T, level int, want string) {
	t.Helper()
	if m := f.status(t); m.Level != level || !strings.Contains(m.Message, want) {
		t.Errorf("status %d %q; want level %d saying %q", m.Level, m.Message, level, want)
	}
}

func (f *foxglove) sendRaw(t *testing.T, typ websocket.MessageType, b []byte) {
	t.Helper()
	if err := f.conn.Write(context.Background(), typ, b); err != nil {
		t.Fatal(err)
	}
}

func (f *foxglove) subscribe(t *testing.T, sub, channel uint32) {
	t.Helper()
	f.send(t, map[string]any{"op": "subscribe", "subscriptions": []map[string]uint32{{"id": sub, "channelId": channel}}})
}

func (f *foxglove) advertise(t *testing.T, id uint32, topic, encoding, schemaName string) {
	t.Helper()
	f.send(t, map[string]any{"op": "advertise", "channels": []map[string]any{{"id": id, "topic": topic, "encoding": encoding, "schemaName": schemaName}}})
}

// TestFoxgloveCamera: a camera stream is a foxglove.CompressedImage channel, and its messages
// are Foxglove's image with the robot's picture, stamp and frame.
func TestFoxgloveCamera(t *testing.T) {
	a := newLiveAgent(t)
	a.bot.Lock()
	a.bot.StreamList = append(a.bot.StreamList, fleetgate.Stream{Component: "camera", Name: "image", Type: compressedImageType,
		Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	a.bot.Unlock()
	f := a.foxglove(t, "access_token="+a.admin, nil)
	f.read(t) // serverInfo
	adv := f.until(t, "advertise", func(m fgMessage) bool { return m.Op == "advertise" })
	var camera uint32
	for _, c := range adv.Channels {
		if c.Topic == "/camera/image" {
			camera = c.ID
			if c.SchemaName != "foxglove.CompressedImage" || c.Encoding != "protobuf" {
				t.Errorf("camera channel %+v; want protobuf foxglove.CompressedImage", c)
			}
		}
	}
	if camera == 0 {
		t.Fatalf("no camera channel in %+v", adv.Channels)
	}
	f.subscribe(t, 1, camera)
	waitFor(t, "the camera subscription", func() bool { return a.bot.Subscribers(cameraKey) == 1 })
	picture := bytes.Repeat([]byte{0xff, 0xd8, 0xff, 0xe0}, 1000)
	a.bot.Emit(cameraKey, compressedImageType, marshal(t, &catalogpb.CompressedImage{
		Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: 1700000000, Nanosec: 5}, FrameId: "cam"}, Format: "jpeg", Data: picture}))
	m := f.until(t, "the image", func(m fgMessage) bool { return m.binary })
	var img foxglovepb.CompressedImage
	if err := proto.Unmarshal(m.data, &img); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img.Data, picture) || img.Format != "jpeg" || img.FrameId != "cam" || img.Timestamp.GetSeconds() != 1700000000 || img.Timestamp.GetNanos() != 5 {
		t.Errorf("image: %d bytes, format %q, frame %q, stamp %v", len(img.Data), img.Format, img.FrameId, img.Timestamp)
	}
}

// TestFoxgloveChannelsFollowTheRobot: a stream that appears is advertised, one that goes is
// withdrawn with its subscription, and one that comes back keeps its channel id.
func TestFoxgloveChannelsFollowTheRobot(t *testing.T) {
	defer live.SetFoxgloveRefresh(50 * time.Millisecond)()
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	_, ids := f.channels(t)
	battery := fleetgate.Stream{Component: "base", Name: "battery", Type: "Platform.Messages.sensor_msgs.BatteryState",
		Direction: fleetgate.Output, Source: fleetgate.SourceComponent}
	a.bot.Lock()
	a.bot.StreamList = append(a.bot.StreamList, battery)
	a.bot.Unlock()
	adv := f.until(t, "the battery advertised", func(m fgMessage) bool { return m.Op == "advertise" })
	if len(adv.Channels) != 1 || adv.Channels[0].Topic != "/base/battery" {
		t.Fatalf("advertised %+v; want the new stream alone", adv.Channels)
	}
	batteryID := adv.Channels[0].ID
	if batteryID == ids["/base/pose"] || batteryID == ids["/lidar/scan"] {
		t.Errorf("the new channel reuses an id in use")
	}
	f.subscribe(t, 4, ids["/lidar/scan"])
	waitFor(t, "the scan subscription", func() bool { return a.bot.Subscribers(scanKey) == 1 })

	a.bot.Lock()
	saved := a.bot.StreamList
	a.bot.StreamList = nil
	for _, s := range saved {
		if s.Name != "scan" {
			a.bot.StreamList = append(a.bot.StreamList, s)
		}
	}
	a.bot.Unlock()
	un := f.until(t, "the scan withdrawn", func(m fgMessage) bool { return m.Op == "unadvertise" })
	if len(un.ChannelIDs) != 1 || un.ChannelIDs[0] != ids["/lidar/scan"] {
		t.Errorf("unadvertised %v; want the scan's %d", un.ChannelIDs, ids["/lidar/scan"])
	}
	waitFor(t, "the scan's subscription ended", func() bool { return a.bot.Subscribers(scanKey) == 0 })

	a.bot.Lock()
	a.bot.StreamList = saved
	a.bot.Unlock()
	back := f.until(t, "the scan back", func(m fgMessage) bool { return m.Op == "advertise" })
	if len(back.Channels) != 1 || back.Channels[0].ID != ids["/lidar/scan"] {
		t.Errorf("the scan came back as %+v; want its old id %d", back.Channels, ids["/lidar/scan"])
	}
}

// TestFoxgloveClientMistakes: what a client gets wrong is told in a status and the session
// goes on.
func TestFoxgloveClientMistakes(t *testing.T) {
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	_, ids := f.channels(t)

	f.sendRaw(t, websocket.MessageText, []byte(`{"op":`))
	f.wantStatus(t, 2, "not a message of the protocol")
	f.sendRaw(t, websocket.MessageText, []byte(`{"channels":[]}`))
	f.wantStatus(t, 2, "no op")
	f.send(t, map[string]any{"op": "getParameters", "parameterNames": []string{}})
	f.wantStatus(t, 1, `does not serve "getParameters"`)

	f.subscribe(t, 1, ids["/base/pose"])
	f.subscribe(t, 1, ids["/lidar/scan"])
	f.wantStatus(t, 2, "subscription id 1 is in use")
	f.subscribe(t, 2, ids["/base/pose"])
	f.wantStatus(t, 2, "is subscribed already, as 1")
	f.send(t, map[string]any{"op": "unsubscribe", "subscriptionIds": []uint32{9}})
	f.wantStatus(t, 1, "no subscription 9")

	f.sendRaw(t, websocket.MessageBinary, binary.LittleEndian.AppendUint32([]byte{1}, 5))
	f.wantStatus(t, 2, "no client channel 5")
	f.sendRaw(t, websocket.MessageBinary, []byte{2, 0, 0, 0, 0})
	f.wantStatus(t, 2, "offers no services")
	f.send(t, map[string]any{"op": "unadvertise", "channelIds": []uint32{5}})
	f.wantStatus(t, 1, "no client channel 5")

	// Advertisements that cannot drive anything: each refused, saying why.
	f.advertise(t, 1, "/base/cmd_vel", "cdr", "geometry_msgs/msg/Twist")
	f.wantStatus(t, 2, `encoding "cdr"`)
	f.advertise(t, 2, "/base/nowhere", "json", "geometry_msgs/Twist")
	f.wantStatus(t, 2, "has no input stream /base/nowhere (its input streams: /base/cmd_vel, /base/drive, /base/lamp)")
	f.advertise(t, 3, "/base/cmd_vel", "json", "std_msgs/Bool")
	f.wantStatus(t, 2, "takes "+twistType+", not std_msgs/Bool")
	f.advertise(t, 4, "/base/lamp", "json", "")
	f.wantStatus(t, 2, "take only Twist or AckermannDriveStamped")
	if n := len(a.bot.Published()); n != 0 {
		t.Errorf("%d commands reached the robot", n)
	}

	// Still serving: the subscription made above delivers.
	want := marshal(t, &catalogpb.PoseStamped{Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 9}}})
	a.bot.Emit(poseKey, poseType, want)
	if m := f.until(t, "the pose", func(m fgMessage) bool { return m.binary }); m.sub != 1 || !bytes.Equal(m.data, want) {
		t.Errorf("after the mistakes: message of %d, %d bytes", m.sub, len(m.data))
	}
}

// TestFoxglovePublishEnds: protobuf commands drive the stream too; a command far beyond the
// limit stops the channel with the zero, and so does the socket's close.
func TestFoxglovePublishEnds(t *testing.T) {
	a := newLiveAgent(t)
	f := a.foxglove(t, "", http.Header{"Authorization": {"bearer " + a.admin}})
	f.channels(t)
	f.advertise(t, 3, "/base/cmd_vel", "protobuf", twistType)
	twist := func(x float64) string {
		b, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: x}})
		return string(b)
	}
	waitFor(t, "a protobuf command at the robot", func() bool {
		f.publish(t, 3, twist(0.5))
		return len(a.bot.Published()) > 0
	})
	if x := twistOf(t, a.bot.Published()[0]).GetLinear().GetX(); x != 0.5 {
		t.Errorf("published linear.x %v, want 0.5", x)
	}
	f.publish(t, 3, twist(50))
	f.wantStatus(t, 2, "beyond 10x")
	p := a.bot.Published()
	if !isZeroTwist(twistOf(t, p[len(p)-1])) {
		t.Errorf("the last command after a refused one: %v; want the zero", twistOf(t, p[len(p)-1]))
	}
	for _, q := range p {
		if twistOf(t, q).GetLinear().GetX() > 1 {
			t.Errorf("a command of %v m/s reached the robot", twistOf(t, q).GetLinear().GetX())
		}
	}
	f.publish(t, 3, twist(0.5))
	f.wantStatus(t, 2, "stopped")

	// Driving again on a fresh channel, then closing the socket: the zero, the lease free.
	f.advertise(t, 4, "/base/cmd_vel", "json", "")
	before := len(a.bot.Published())
	waitFor(t, "a command on the fresh channel", func() bool {
		f.publish(t, 4, `{"angular":{"z":1}}`)
		return len(a.bot.Published()) > before
	})
	f.conn.Close(websocket.StatusNormalClosure, "")
	waitFor(t, "the zero after the close", func() bool {
		p := a.bot.Published()
		return isZeroTwist(twistOf(t, p[len(p)-1]))
	})
	waitFor(t, "the lease free", func() bool {
		r := a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, "")
		return strings.Contains(string(r.Body), `"controls":[]`)
	})
}

// TestFoxgloveRobotGone: the robot going offline ends its subscriptions (withdrawn, saying
// why) and its publication (the lease let go).
func TestFoxgloveRobotGone(t *testing.T) {
	a := newLiveAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	_, ids := f.channels(t)
	f.subscribe(t, 1, ids["/base/pose"])
	waitFor(t, "the subscription", func() bool { return a.bot.Subscribers(poseKey) == 1 })
	a.bot.Disconnect()
	if m := f.status(t); m.Level != 2 || !strings.Contains(m.Message, "/base/pose") {
		t.Errorf("status %+v; want the pose's end", m)
	}
	if m := f.until(t, "the pose withdrawn", func(m fgMessage) bool { return m.Op == "unadvertise" }); len(m.ChannelIDs) != 1 || m.ChannelIDs[0] != ids["/base/pose"] {
		t.Errorf("unadvertised %v", m.ChannelIDs)
	}
}
