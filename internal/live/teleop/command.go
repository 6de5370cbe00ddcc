package teleop

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/msgs"
)

// Input command types: the only two the contract accepts on an input socket.
const (
	TwistType     = "Platform.Messages.geometry_msgs.Twist"
	AckermannType = "Platform.Messages.ackermann_msgs.AckermannDriveStamped"
)

// headerType is the stamp of a stamped command: it says when and in which frame, never how
// fast, so it is not part of what makes a command a stop.
const headerType protoreflect.FullName = "Platform.Messages.std_msgs.Header"

// InputTypeAllowed reports whether fullName is a motion command type: the contract's two
// input types, the ones a Controller paces and zeroes.
func InputTypeAllowed(fullName string) bool {
	return fullName == TwistType || fullName == AckermannType
}

// GoalType is the type of a goal stream: a pose for the robot to drive itself to (map frame,
// metres). An input socket on a goal stream (an extension of the contract) sends one goal a
// frame, under the robot's motion lease (internal/door).
const GoalType = "Platform.Messages.geometry_msgs.PoseStamped"

// SocketTypeAllowed reports whether an input socket may send fullName: a motion command or a
// goal.
func SocketTypeAllowed(fullName string) bool {
	return InputTypeAllowed(fullName) || fullName == GoalType
}

// IsKeepalive reports whether m is a goal socket's keepalive: the empty goal message (a
// zero-length binary frame, or the JSON text {}), which names no frame and no pose and so is
// no goal. It keeps the motion lease alive as a zero command does on a cmd_vel socket.
func IsKeepalive(m proto.Message) bool {
	return string(m.ProtoReflect().Descriptor().FullName()) == GoalType && proto.Size(m) == 0
}

// Input frame formats (the W3 format query parameter).
const (
	FormatProtobuf = "protobuf"
	FormatJSON     = "json"
)

// MaxInputMessage is the largest complete input message (all fragments together), in bytes.
const MaxInputMessage = 64 << 10

// refuse is the policy's refusal of a command: code says which (the contract closes each with
// a code of its own), reason says why in words, cause is kept for logs and errors.Is
// (msgs.ErrInvalid, ErrBeyondLimits).
func refuse(code, reason string, cause error) *fleetgate.Error {
	return &fleetgate.Error{Code: code, Message: reason, Err: cause}
}

// DecodeCommand turns one complete input message into a command of type typ; binary says the
// frame was binary and format is FormatProtobuf or FormatJSON. Every error is a
// *fleetgate.Error whose code is the contract's answer (its close code in parentheses):
//
//   - EUnsupported (1003): a text frame on a protobuf socket or a binary frame on a JSON socket;
//   - ETooLarge (1009): more than MaxInputMessage bytes;
//   - EMalformed (1007): protobuf that does not decode as typ (wire-type mismatches included),
//     JSON that protojson does not accept (unknown fields, syntax, out-of-range numbers such as
//     1e999) or that msgs.ParseJSON finds loose (quoted numbers, null scalars), invalid UTF-8;
//   - EInvalid (1008): a NaN or infinite number anywhere (protobuf float bits, or the protojson
//     strings "NaN", "Infinity", "-Infinity", which are well-formed JSON mapping and so a policy
//     matter), and a typ or format this socket cannot have (the handler refuses those before
//     the upgrade).
//
// Unknown protobuf fields are dropped: what goes to the robot is exactly what was checked.
func DecodeCommand(typ, format string, binary bool, data []byte) (proto.Message, error) {
	if !SocketTypeAllowed(typ) {
		return nil, refuse(fleetgate.EInvalid, "input type not accepted: "+typ, nil)
	}
	switch format {
	case FormatProtobuf:
		if !binary {
			return nil, refuse(fleetgate.EUnsupported, "text frame on a protobuf input socket", nil)
		}
	case FormatJSON:
		if binary {
			return nil, refuse(fleetgate.EUnsupported, "binary frame on a json input socket", nil)
		}
	default:
		return nil, refuse(fleetgate.EInvalid, "input format not accepted: "+format, nil)
	}
	if len(data) > MaxInputMessage {
		return nil, refuse(fleetgate.ETooLarge, fmt.Sprintf("input message over %d bytes", MaxInputMessage), nil)
	}
	if format == FormatProtobuf {
		return decodeProtobuf(typ, data)
	}
	return decodeJSON(typ, data)
}

func decodeProtobuf(typ string, data []byte) (proto.Message, error) {
	m, err := msgs.Decode(typ, data)
	if err != nil {
		return nil, refuse(fleetgate.EMalformed, "malformed protobuf: "+detail(err, "invalid "+typ+" payload: "), err)
	}
	dropUnknown(m.ProtoReflect())
	if err := msgs.CheckFinite(m); err != nil {
		return nil, refuse(fleetgate.EInvalid, err.Error(), err)
	}
	return m, nil
}

func decodeJSON(typ string, data []byte) (proto.Message, error) {
	if !utf8.Valid(data) {
		return nil, refuse(fleetgate.EMalformed, "text frame is not valid UTF-8", nil)
	}
	m, err := msgs.ParseJSON(typ, data)
	if err == nil {
		return m, nil
	}
	// ParseJSON refuses non-finite numbers together with malformed JSON. protojson accepts
	// "NaN" and "Infinity", so a message it accepts that is not finite is a policy violation
	// (EInvalid), and anything else ParseJSON refused is malformed (EMalformed).
	loose, _ := msgs.New(typ)
	if protojson.Unmarshal(data, loose) == nil {
		if ferr := msgs.CheckFinite(loose); ferr != nil {
			return nil, refuse(fleetgate.EInvalid, ferr.Error(), ferr)
		}
	}
	return nil, refuse(fleetgate.EMalformed, "malformed JSON: "+detail(err, "invalid JSON for "+typ+": "), err)
}

// detail drops the type name msgs puts in front of its messages: a close reason has 123 bytes
// (the edge cuts it there) and the client knows which type it sends.
func detail(err error, prefix string) string {
	return strings.TrimPrefix(err.Error(), prefix)
}

// dropUnknown clears the unknown fields of m and of every message in it.
func dropUnknown(m protoreflect.Message) {
	if m.GetUnknown() != nil {
		m.SetUnknown(nil)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					dropUnknown(mv.Message())
					return true
				})
			}
		case fd.Message() == nil:
		case fd.IsList():
			for i := range v.List().Len() {
				dropUnknown(v.List().Get(i).Message())
			}
		default:
			dropUnknown(v.Message())
		}
		return true
	})
}

// IsZero reports whether a command asks for no motion: every number in it is zero, with the
// header (stamp and frame) ignored. NaN is not zero.
func IsZero(m proto.Message) bool {
	return zeroNumbers(m.ProtoReflect())
}

func zeroNumbers(m protoreflect.Message) bool {
	zero := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				zero = zeroValue(fd.MapValue(), mv)
				return zero
			})
		case fd.IsList():
			for i := 0; zero && i < v.List().Len(); i++ {
				zero = zeroValue(fd, v.List().Get(i))
			}
		default:
			zero = zeroValue(fd, v)
		}
		return zero
	})
	return zero
}

func zeroValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if fd.Message().FullName() == headerType {
			return true
		}
		return zeroNumbers(v.Message())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float() == 0
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	}
	return true // not a number: strings, bools, enums and bytes say nothing about motion
}

// Zero returns a new type-correct stop command: every number zero, the motion parts present
// (so its JSON spells them out), the header empty. It returns nil for a type that is not an
// input type.
func Zero(typ string) proto.Message {
	if !InputTypeAllowed(typ) {
		return nil
	}
	m, err := msgs.New(typ)
	if err != nil {
		return nil // the catalog always has both input types; msgs tests guard that
	}
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && fd.Message().FullName() != headerType {
			r.Mutable(fd)
		}
	}
	return m
}
