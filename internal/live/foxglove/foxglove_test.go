package foxglove

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

func TestMessageHeader(t *testing.T) {
	got := AppendMessageHeader(nil, 0x01020304, 0x1122334455667788)
	want := []byte{1, 4, 3, 2, 1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}
	if !bytes.Equal(got, want) || len(got) != MessageHeaderLen {
		t.Errorf("header % x, want % x", got, want)
	}
	if Nanos(time.Unix(-1, 0)) != 0 || Nanos(time.Unix(2, 5)) != 2_000_000_005 {
		t.Error("Nanos")
	}
}

func TestParseClient(t *testing.T) {
	op, err := ParseClientOp([]byte(`{"op":"subscribe","subscriptions":[{"id":3,"channelId":9}]}`))
	if err != nil || op.Op != OpSubscribe || len(op.Subscriptions) != 1 || op.Subscriptions[0] != (Subscription{ID: 3, ChannelID: 9}) {
		t.Errorf("subscribe: %+v %v", op, err)
	}
	if op, err := ParseClientOp([]byte(`{"op":"getParameters","parameterNames":[]}`)); err != nil || op.Op != "getParameters" {
		t.Errorf("an operation not served is no error: %+v %v", op, err)
	}
	for _, bad := range []string{`{}`, `[`, `{"op":3}`, `{"op":"subscribe","subscriptions":"x"}`} {
		if _, err := ParseClientOp([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	m, err := ParseClientMessage([]byte{1, 7, 0, 0, 0, 'h', 'i'})
	if err != nil || m.ChannelID != 7 || string(m.Payload) != "hi" {
		t.Errorf("client message: %+v %v", m, err)
	}
	for _, bad := range [][]byte{nil, {1, 7}, {2, 1, 0, 0, 0}, {9}} {
		if _, err := ParseClientMessage(bad); err == nil {
			t.Errorf("% x: no error", bad)
		}
	}
}

func TestTopic(t *testing.T) {
	for _, c := range []struct{ component, name, want string }{
		{"camera", "image", "/camera/image"}, {"", "/odom", "/odom"}, {"", "odom", "/odom"}, {"/base", "pose", "/base/pose"},
	} {
		if got := Topic(c.component, c.name); got != c.want {
			t.Errorf("Topic(%q, %q) = %q, want %q", c.component, c.name, got, c.want)
		}
	}
}

func TestROSSchema(t *testing.T) {
	s, err := ROSSchema("/my_msgs/Thing", DefinitionROS1, "int32 a")
	if err != nil || s.Encoding != "ros1" || s.Name != "my_msgs/Thing" || s.SchemaEncoding != "ros1msg" || s.Data != "int32 a" {
		t.Errorf("ros1: %+v %v", s, err)
	}
	s, err = ROSSchema("my_msgs/msg/Thing", DefinitionROS2, "int32 a")
	if err != nil || s.Encoding != "cdr" || s.Name != "my_msgs/msg/Thing" || s.SchemaEncoding != "ros2msg" {
		t.Errorf("ros2: %+v %v", s, err)
	}
	if _, err := ROSSchema("Thing", DefinitionROS1, ""); err == nil {
		t.Error("a type without its package: no error")
	}
	if _, err := ROSSchema("a/B", "idl", ""); err == nil {
		t.Error("an IDL definition: no error")
	}
}

// TestProtobufSchema: the schema is a FileDescriptorSet from which a client builds the message
// (with its imports), as Foxglove does.
func TestProtobufSchema(t *testing.T) {
	for _, name := range []string{"foxglove.CompressedImage", "Platform.Messages.geometry_msgs.PoseStamped"} {
		s, err := ProtobufSchema(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Encoding != "protobuf" || s.SchemaEncoding != "protobuf" || s.Name != name {
			t.Errorf("%s: %+v", name, s)
		}
		raw, err := base64.StdEncoding.DecodeString(s.Data)
		if err != nil {
			t.Fatal(err)
		}
		var set descriptorpb.FileDescriptorSet
		if err := proto.Unmarshal(raw, &set); err != nil {
			t.Fatal(err)
		}
		files, err := protodesc.NewFiles(&set)
		if err != nil {
			t.Fatalf("%s: the set does not stand alone: %v", name, err)
		}
		d, err := files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			t.Fatalf("%s is not in its own set: %v", name, err)
		}
		if _, ok := d.(protoreflect.MessageDescriptor); !ok {
			t.Errorf("%s: %T, not a message", name, d)
		}
	}
	if _, err := ProtobufSchema("no.Such"); err == nil || !strings.Contains(err.Error(), "no.Such") {
		t.Errorf("an unknown type: %v", err)
	}
}

// FuzzParseClient: whatever a client sends, parsing answers or refuses; it never panics, and
// a client message's payload is the bytes after its header.
func FuzzParseClient(f *testing.F) {
	f.Add([]byte(`{"op":"subscribe","subscriptions":[{"id":1,"channelId":2}]}`))
	f.Add([]byte(`{"op":"advertise","channels":[{"id":1,"topic":"/cmd_vel","encoding":"json","schemaName":"geometry_msgs/Twist"}]}`))
	f.Add([]byte{1, 2, 0, 0, 0, '{', '}'})
	f.Add([]byte{2, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if op, err := ParseClientOp(data); err == nil && op.Op == "" {
			t.Errorf("%q: parsed without an op", data)
		}
		if m, err := ParseClientMessage(data); err == nil && (len(data) < 5 || !bytes.Equal(m.Payload, data[5:])) {
			t.Errorf("% x: payload % x", data, m.Payload)
		}
	})
}
