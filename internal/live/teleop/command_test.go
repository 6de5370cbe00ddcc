package teleop

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	validTwist     = &catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}, Angular: &catalogpb.Vector3{Z: -0.25}}
	validAckermann = &catalogpb.AckermannDriveStamped{
		Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: 1, Nanosec: 2}, FrameId: "base_link"},
		Drive:  &catalogpb.AckermannDrive{SteeringAngle: 0.125, Speed: 1.5},
	}
)

const (
	twistJSON     = `{"linear":{"x":0.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":-0.25}}`
	ackermannJSON = `{"header":{"stamp":{"sec":1,"nanosec":2},"frameId":"base_link"},"drive":{"steeringAngle":0.125,"speed":1.5}}`
)

// padJSON pads a JSON object with spaces inside its braces to exactly size bytes.
func padJSON(obj string, size int) []byte {
	return []byte(obj[:1] + strings.Repeat(" ", size-len(obj)) + obj[1:])
}

// padProtobuf appends an unknown length-delimited field so the payload is exactly size bytes.
func padProtobuf(t testing.TB, payload []byte, size int) []byte {
	t.Helper()
	for n := size - len(payload) - 4; n > 0; n-- {
		b := protowire.AppendTag(bytes.Clone(payload), 15, protowire.BytesType)
		b = protowire.AppendBytes(b, make([]byte, n))
		if len(b) == size {
			return b
		}
	}
	t.Fatalf("cannot pad %d bytes to %d", len(payload), size)
	return nil
}

func TestDecodeCommand(t *testing.T) {
	nanTwist := marshal(t, &catalogpb.Twist{Linear: &catalogpb.Vector3{X: math.NaN()}})
	infTwist := marshal(t, &catalogpb.Twist{Angular: &catalogpb.Vector3{Z: math.Inf(1)}})
	nanAckermann := marshal(t, &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Speed: float32(math.NaN())}})
	infAckermann := marshal(t, &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{SteeringAngle: float32(math.Inf(-1))}})
	// Field 1 (linear, a message) sent as a varint: the bytes of some other type.
	twistWireMismatch := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)
	// Field 2 (drive, a message) sent as fixed 32 bits.
	ackermannWireMismatch := protowire.AppendFixed32(protowire.AppendTag(nil, 2, protowire.Fixed32Type), 7)
	withUnknown := protowire.AppendVarint(protowire.AppendTag(marshal(t, validTwist), 9, protowire.VarintType), 42)

	tests := []struct {
		name   string
		typ    string
		format string
		binary bool
		data   []byte
		code   string        // "": accepted
		want   proto.Message // when accepted
	}{
		{"twist protobuf", TwistType, FormatProtobuf, true, marshal(t, validTwist), "", validTwist},
		{"ackermann protobuf", AckermannType, FormatProtobuf, true, marshal(t, validAckermann), "", validAckermann},
		{"twist JSON", TwistType, FormatJSON, false, []byte(twistJSON), "", validTwist},
		{"ackermann JSON", AckermannType, FormatJSON, false, []byte(ackermannJSON), "", validAckermann},
		{"ackermann JSON with proto field names", AckermannType, FormatJSON, false, []byte(`{"drive":{"steering_angle":0.125,"speed":1.5},"header":{"stamp":{"sec":1,"nanosec":2},"frame_id":"base_link"}}`), "", validAckermann},
		{"empty protobuf is a zero twist", TwistType, FormatProtobuf, true, nil, "", &catalogpb.Twist{}},
		{"unknown protobuf fields are dropped", TwistType, FormatProtobuf, true, withUnknown, "", validTwist},
		{"exactly 64 KiB of padded JSON", TwistType, FormatJSON, false, padJSON(twistJSON, MaxInputMessage), "", validTwist},
		{"exactly 64 KiB of padded protobuf", TwistType, FormatProtobuf, true, padProtobuf(t, marshal(t, validTwist), MaxInputMessage), "", validTwist},

		{"text frame on protobuf", TwistType, FormatProtobuf, false, marshal(t, validTwist), fleetgate.EUnsupported, nil},
		{"binary frame on JSON", AckermannType, FormatJSON, true, []byte(ackermannJSON), fleetgate.EUnsupported, nil},

		{"garbage protobuf", TwistType, FormatProtobuf, true, []byte{0xff, 0xff, 0xff, 0xff}, fleetgate.EMalformed, nil},
		{"truncated protobuf", AckermannType, FormatProtobuf, true, marshal(t, validAckermann)[:5], fleetgate.EMalformed, nil},
		{"twist wire-type mismatch", TwistType, FormatProtobuf, true, twistWireMismatch, fleetgate.EMalformed, nil},
		{"ackermann wire-type mismatch", AckermannType, FormatProtobuf, true, ackermannWireMismatch, fleetgate.EMalformed, nil},
		{"malformed JSON", TwistType, FormatJSON, false, []byte(`{"linear":`), fleetgate.EMalformed, nil},
		{"empty JSON", TwistType, FormatJSON, false, []byte("  "), fleetgate.EMalformed, nil},
		{"JSON null", TwistType, FormatJSON, false, []byte("null"), fleetgate.EMalformed, nil},
		{"JSON array", TwistType, FormatJSON, false, []byte("[]"), fleetgate.EMalformed, nil},
		{"unknown JSON field", TwistType, FormatJSON, false, []byte(`{"linear":{"x":1,"w":2}}`), fleetgate.EMalformed, nil},
		{"unknown top-level JSON field", AckermannType, FormatJSON, false, []byte(`{"drive":{},"throttle":1}`), fleetgate.EMalformed, nil},
		{"invalid UTF-8 in a text frame", AckermannType, FormatJSON, false, []byte("{\"header\":{\"frameId\":\"\xff\"}}"), fleetgate.EMalformed, nil},
		{"quoted number", TwistType, FormatJSON, false, []byte(`{"linear":{"x":"1.5"}}`), fleetgate.EMalformed, nil},
		{"null number", AckermannType, FormatJSON, false, []byte(`{"drive":{"speed":null}}`), fleetgate.EMalformed, nil},
		{"out of range double", TwistType, FormatJSON, false, []byte(`{"linear":{"x":1e999}}`), fleetgate.EMalformed, nil},
		{"out of range float", AckermannType, FormatJSON, false, []byte(`{"drive":{"speed":1e39}}`), fleetgate.EMalformed, nil},
		{"bare NaN token", TwistType, FormatJSON, false, []byte(`{"linear":{"x":NaN}}`), fleetgate.EMalformed, nil},
		{"lowercase nan string", TwistType, FormatJSON, false, []byte(`{"linear":{"x":"nan"}}`), fleetgate.EMalformed, nil},
		{"duplicate field", TwistType, FormatJSON, false, []byte(`{"linear":{"x":1},"linear":{"x":2}}`), fleetgate.EMalformed, nil},

		{"twist JSON NaN", TwistType, FormatJSON, false, []byte(`{"linear":{"x":"NaN"}}`), fleetgate.EInvalid, nil},
		{"twist JSON Infinity", TwistType, FormatJSON, false, []byte(`{"angular":{"z":"Infinity"}}`), fleetgate.EInvalid, nil},
		{"twist JSON -Infinity", TwistType, FormatJSON, false, []byte(`{"linear":{"y":"-Infinity"}}`), fleetgate.EInvalid, nil},
		{"ackermann JSON NaN", AckermannType, FormatJSON, false, []byte(`{"drive":{"speed":"NaN"}}`), fleetgate.EInvalid, nil},
		{"ackermann JSON Infinity", AckermannType, FormatJSON, false, []byte(`{"drive":{"steeringAngle":"Infinity"}}`), fleetgate.EInvalid, nil},
		{"ackermann JSON -Infinity", AckermannType, FormatJSON, false, []byte(`{"drive":{"jerk":"-Infinity"}}`), fleetgate.EInvalid, nil},
		{"twist protobuf NaN double", TwistType, FormatProtobuf, true, nanTwist, fleetgate.EInvalid, nil},
		{"twist protobuf +Inf double", TwistType, FormatProtobuf, true, infTwist, fleetgate.EInvalid, nil},
		{"ackermann protobuf NaN float", AckermannType, FormatProtobuf, true, nanAckermann, fleetgate.EInvalid, nil},
		{"ackermann protobuf -Inf float", AckermannType, FormatProtobuf, true, infAckermann, fleetgate.EInvalid, nil},
		{"other type", "Platform.Messages.geometry_msgs.TwistStamped", FormatProtobuf, true, nil, fleetgate.EInvalid, nil},
		{"unknown type", "Platform.Messages.nope.Nope", FormatJSON, false, []byte(`{}`), fleetgate.EInvalid, nil},
		{"other format", TwistType, "xml", false, []byte(`<twist/>`), fleetgate.EInvalid, nil},

		{"64 KiB + 1 JSON", TwistType, FormatJSON, false, padJSON(twistJSON, MaxInputMessage+1), fleetgate.ETooLarge, nil},
		{"64 KiB + 1 protobuf", AckermannType, FormatProtobuf, true, padProtobuf(t, marshal(t, validAckermann), MaxInputMessage+1), fleetgate.ETooLarge, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeCommand(tt.typ, tt.format, tt.binary, tt.data)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("DecodeCommand: %v, want it accepted", err)
				}
				if !proto.Equal(m, tt.want) {
					t.Fatalf("decoded %v, want %v", m, tt.want)
				}
				if len(m.ProtoReflect().GetUnknown()) != 0 {
					t.Fatalf("decoded command keeps unknown fields %x", m.ProtoReflect().GetUnknown())
				}
				return
			}
			var fe *fleetgate.Error
			if !errors.As(err, &fe) || fe.Code != tt.code {
				t.Fatalf("DecodeCommand = %v, %v; want an error of code %s", m, err, tt.code)
			}
			if m != nil {
				t.Fatalf("returned message %v with the error", m)
			}
			if fe.Message == "" {
				t.Fatalf("refusal %v says no reason", err)
			}
		})
	}
}

func TestDecodeCommandInvalidUTF8InProtobufString(t *testing.T) {
	// Header.frame_id holding the byte 0xff: proto3 strings must be UTF-8.
	header := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), []byte{0xff})
	data := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), header)
	_, err := DecodeCommand(AckermannType, FormatProtobuf, true, data)
	if !fleetgate.Is(err, fleetgate.EMalformed) {
		t.Fatalf("DecodeCommand = %v, want it malformed", err)
	}
	if !errors.Is(err, msgs.ErrInvalid) {
		t.Fatalf("error %v does not wrap msgs.ErrInvalid", err)
	}
}

// TestRefusalNamesItsCause: a long cause (a client's unknown field name) is said whole; the
// edge cuts the close reason to its frame (internal/edge).
func TestRefusalNamesItsCause(t *testing.T) {
	name := strings.Repeat("é", 200)
	_, err := DecodeCommand(TwistType, FormatJSON, false, []byte(`{"`+name+`":1}`))
	if !fleetgate.Is(err, fleetgate.EMalformed) {
		t.Fatalf("DecodeCommand = %v, want it malformed", err)
	}
	if msg := fleetgate.ErrorMessage(err); !strings.HasPrefix(msg, "malformed JSON: ") || !strings.Contains(msg, name) || !utf8.ValidString(msg) {
		t.Fatalf("message %q: want the cause, the field named", msg)
	}
}

func TestInputTypeAllowed(t *testing.T) {
	for name, want := range map[string]bool{
		TwistType:     true,
		AckermannType: true,
		"Platform.Messages.geometry_msgs.TwistStamped":     false,
		"Platform.Messages.ackermann_msgs.AckermannDrive":  false,
		"Platform.Messages.sensor_msgs.Image":              false,
		"platform.messages.geometry_msgs.twist":            false,
		"":                                                 false,
		"Platform.Messages.geometry_msgs.Twist ":           false,
		"Platform.Messages.ackermann_msgs.AckermannDriveX": false,
	} {
		if got := InputTypeAllowed(name); got != want {
			t.Errorf("InputTypeAllowed(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsZero(t *testing.T) {
	tests := []struct {
		name string
		m    proto.Message
		want bool
	}{
		{"empty twist", &catalogpb.Twist{}, true},
		{"twist with zero vectors", &catalogpb.Twist{Linear: &catalogpb.Vector3{}, Angular: &catalogpb.Vector3{}}, true},
		{"twist with negative zero", &catalogpb.Twist{Linear: &catalogpb.Vector3{X: math.Copysign(0, -1)}}, true},
		{"twist turning", &catalogpb.Twist{Angular: &catalogpb.Vector3{Z: 0.1}}, false},
		{"twist moving sideways", &catalogpb.Twist{Linear: &catalogpb.Vector3{Y: -1e-300}}, false},
		{"twist NaN", &catalogpb.Twist{Linear: &catalogpb.Vector3{X: math.NaN()}}, false},
		{"empty ackermann", &catalogpb.AckermannDriveStamped{}, true},
		{"ackermann with a stamped header only", &catalogpb.AckermannDriveStamped{
			Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: 12, Nanosec: 34}, FrameId: "base"},
			Drive:  &catalogpb.AckermannDrive{},
		}, true},
		{"ackermann steering only", &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{SteeringAngle: 0.3}}, false},
		{"ackermann jerk only", &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Jerk: 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsZero(tt.m); got != tt.want {
				t.Fatalf("IsZero(%v) = %v, want %v", tt.m, got, tt.want)
			}
		})
	}
}

func TestZero(t *testing.T) {
	tests := []struct {
		typ  string
		json string
	}{
		{TwistType, `{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`},
		{AckermannType, `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"drive":{"steeringAngle":0,"steeringAngleVelocity":0,"speed":0,"acceleration":0,"jerk":0}}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			z := Zero(tt.typ)
			if got := string(z.ProtoReflect().Descriptor().FullName()); got != tt.typ {
				t.Fatalf("Zero(%s) is a %s", tt.typ, got)
			}
			if !IsZero(z) {
				t.Fatalf("Zero(%s) = %v is not zero", tt.typ, z)
			}
			j, err := msgs.MarshalJSON(z)
			if err != nil || string(j) != tt.json {
				t.Fatalf("JSON of Zero(%s) = %s, %v; want %s", tt.typ, j, err, tt.json)
			}
			if Zero(tt.typ) == z {
				t.Fatal("Zero returned the same message twice: callers may modify theirs")
			}
		})
	}
	if z := Zero("Platform.Messages.sensor_msgs.Image"); z != nil {
		t.Fatalf("Zero of a non-input type = %v, want nil", z)
	}
}

// FuzzDecodeCommand: DecodeCommand never panics; what it accepts is finite, of the requested
// type and survives re-encoding in both formats; what it refuses is a refusal of an input
// socket's codes, with a reason.
func FuzzDecodeCommand(f *testing.F) {
	seeds := []struct {
		ackermann, json, binary bool
		data                    []byte
	}{
		{false, false, true, marshal(f, validTwist)},
		{true, false, true, marshal(f, validAckermann)},
		{false, true, false, []byte(twistJSON)},
		{true, true, false, []byte(ackermannJSON)},
		{false, false, true, marshal(f, &catalogpb.Twist{Linear: &catalogpb.Vector3{X: math.NaN()}})},
		{true, false, true, marshal(f, &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Speed: float32(math.Inf(1))}})},
		{false, true, false, []byte(`{"linear":{"x":"NaN"}}`)},
		{true, true, false, []byte(`{"drive":{"speed":"-Infinity"}}`)},
		{false, true, false, []byte(`{"linear":{"x":"1.5"}}`)},
		{false, true, false, []byte(`{"linear":{"w":1}}`)},
		{true, true, false, []byte("{\"header\":{\"frameId\":\"\xff\"}}")},
		{false, false, true, []byte{0x08, 0x05}},
		{true, false, true, []byte{0x15, 0x01, 0x02, 0x03, 0x04}},
		{false, false, true, []byte{0xff, 0xff}},
		{false, false, false, marshal(f, validTwist)},
		{true, true, true, []byte(ackermannJSON)},
		{false, true, false, []byte(`{"linear":null,"angular":{}}`)},
	}
	for _, s := range seeds {
		f.Add(s.ackermann, s.json, s.binary, s.data)
	}
	f.Fuzz(func(t *testing.T, ackermann, json, binary bool, data []byte) {
		typ, format := TwistType, FormatProtobuf
		if ackermann {
			typ = AckermannType
		}
		if json {
			format = FormatJSON
		}
		m, err := DecodeCommand(typ, format, binary, data)
		if err != nil {
			var fe *fleetgate.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a coded refusal", err)
			}
			switch fe.Code {
			case fleetgate.EUnsupported, fleetgate.EMalformed, fleetgate.EInvalid, fleetgate.ETooLarge:
			default:
				t.Fatalf("code %s for input", fe.Code)
			}
			if fe.Message == "" {
				t.Fatalf("refusal %v says no reason", err)
			}
			return
		}
		if got := string(m.ProtoReflect().Descriptor().FullName()); got != typ {
			t.Fatalf("decoded a %s, want %s", got, typ)
		}
		if err := msgs.CheckFinite(m); err != nil {
			t.Fatalf("accepted a non-finite command: %v", err)
		}

		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeCommand(typ, FormatProtobuf, true, b)
		if err != nil {
			t.Fatalf("re-encoded protobuf %x refused: %v", b, err)
		}
		if !proto.Equal(m, again) {
			t.Fatalf("protobuf round trip: %v, want %v", again, m)
		}

		j, err := msgs.MarshalJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		if len(j) > MaxInputMessage {
			return // a long frame id escapes to more than an input message may hold
		}
		again, err = DecodeCommand(typ, FormatJSON, false, j)
		if err != nil {
			t.Fatalf("re-encoded JSON %s refused: %v", j, err)
		}
		// JSON spells out unset nested messages, so compare the canonical JSON, not presence.
		j2, err := msgs.MarshalJSON(again)
		if err != nil || !bytes.Equal(j, j2) {
			t.Fatalf("JSON round trip: %s, want %s (%v)", j2, j, err)
		}
	})
}

func BenchmarkDecodeCommand(b *testing.B) {
	benchmarks := []struct {
		name, typ, format string
		binary            bool
		data              []byte
	}{
		{"twist protobuf", TwistType, FormatProtobuf, true, marshal(b, validTwist)},
		{"twist JSON", TwistType, FormatJSON, false, []byte(twistJSON)},
		{"ackermann protobuf", AckermannType, FormatProtobuf, true, marshal(b, validAckermann)},
		{"ackermann JSON", AckermannType, FormatJSON, false, []byte(ackermannJSON)},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := DecodeCommand(bm.typ, bm.format, bm.binary, bm.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A goal socket takes PoseStamped frames in both conventions, each a goal, and the empty
// message is its keepalive; a goal frame is held to the same rules as a command's.
func TestDecodeGoal(t *testing.T) {
	pose := &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 4, Y: 2}}}
	bin, err := proto.Marshal(pose)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, format string
		binary       bool
		data         []byte
		keepalive    bool
		code         string
	}{
		{"protobuf goal", FormatProtobuf, true, bin, false, ""},
		{"json goal", FormatJSON, false, []byte(`{"header":{"frameId":"map"},"pose":{"position":{"x":4,"y":2}}}`), false, ""},
		{"json goal at the origin", FormatJSON, false, []byte(`{"pose":{}}`), false, ""},
		{"protobuf keepalive", FormatProtobuf, true, nil, true, ""},
		{"json keepalive", FormatJSON, false, []byte(`{}`), true, ""},
		{"non-finite", FormatJSON, false, []byte(`{"pose":{"position":{"x":"NaN"}}}`), false, fleetgate.EInvalid},
		{"unknown field", FormatJSON, false, []byte(`{"goal":1}`), false, fleetgate.EMalformed},
		{"text on protobuf", FormatProtobuf, false, []byte(`{}`), false, fleetgate.EUnsupported},
		{"garbage", FormatProtobuf, true, []byte{0xff, 0xff}, false, fleetgate.EMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeCommand(GoalType, tc.format, tc.binary, tc.data)
			if tc.code != "" {
				if !fleetgate.Is(err, tc.code) {
					t.Fatalf("DecodeCommand = %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := IsKeepalive(m); got != tc.keepalive {
				t.Fatalf("IsKeepalive = %v, want %v", got, tc.keepalive)
			}
		})
	}
	if IsKeepalive(&catalogpb.Twist{}) {
		t.Fatal("a zero Twist is a command, not a goal socket's keepalive")
	}
	if !SocketTypeAllowed(GoalType) || InputTypeAllowed(GoalType) {
		t.Fatal("a goal is a socket's type, not a motion command's")
	}
}
