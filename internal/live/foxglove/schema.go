package foxglove

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/fleetgate/fleetgate/internal/mcap"
	_ "github.com/fleetgate/fleetgate/proto/catalogpb"  // the catalog's types, by name
	_ "github.com/fleetgate/fleetgate/proto/foxglovepb" // foxglove.CompressedImage
)

// Schema says how a channel's messages are encoded and described.
type Schema struct {
	Encoding       string // of the messages: protobuf, ros1 or cdr
	Name           string // the message type's name
	Data           string // the schema as the protocol carries it (see ProtobufSchema, ROSSchema)
	SchemaEncoding string // of Data: protobuf, ros1msg or ros2msg
}

// Channel is the channel of a schema with an id and a topic.
func (s Schema) Channel(id uint32, topic string) Channel {
	return Channel{ID: id, Topic: topic, Encoding: s.Encoding, SchemaName: s.Name, Schema: s.Data, SchemaEncoding: s.SchemaEncoding}
}

// protobufSchemas caches ProtobufSchema's answers by full name: a FileDescriptorSet of the
// catalog's file and its imports is some KiB, the same for every client.
var protobufSchemas sync.Map // full name → Schema

// ProtobufSchema is the schema of protobuf message type fullName (a catalog type, or
// foxglove.CompressedImage): schema name the full name, schema the base64 of a serialised
// FileDescriptorSet of its file and every file it imports, as Foxglove reads protobuf channels.
func ProtobufSchema(fullName string) (Schema, error) {
	if s, ok := protobufSchemas.Load(fullName); ok {
		return s.(Schema), nil
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(fullName))
	if err != nil {
		return Schema{}, fmt.Errorf("no protobuf message %s: %w", fullName, err)
	}
	set, err := mcap.ProtobufSchema(mt.Descriptor())
	if err != nil {
		return Schema{}, err
	}
	s := Schema{Encoding: EncodingProtobuf, Name: fullName, SchemaEncoding: EncodingProtobuf, Data: base64.StdEncoding.EncodeToString(set)}
	protobufSchemas.Store(fullName, s)
	return s, nil
}

// ROS message definitions as the robot's source gives them (fleet.MessageDefinitions).
const (
	DefinitionROS1 = "ros1msg"
	DefinitionROS2 = "ros2msg"
)

// ROSSchema is the schema of a ROS type relayed as the transport's bytes (a type outside the
// catalog): with a ROS 1 definition (ros1msg), messages in ROS 1 serialisation (encoding ros1),
// named pkg/Type; with a ROS 2 one (ros2msg), CDR (encoding cdr), named pkg/msg/Type.
func ROSSchema(rosType, definitionEncoding, definition string) (Schema, error) {
	pkg, name, ok := splitROSType(rosType)
	if !ok {
		return Schema{}, fmt.Errorf("%q is not a ROS type name", rosType)
	}
	switch definitionEncoding {
	case DefinitionROS1:
		return Schema{Encoding: "ros1", Name: pkg + "/" + name, Data: definition, SchemaEncoding: DefinitionROS1}, nil
	case DefinitionROS2:
		return Schema{Encoding: "cdr", Name: pkg + "/msg/" + name, Data: definition, SchemaEncoding: DefinitionROS2}, nil
	default:
		return Schema{}, fmt.Errorf("a definition of encoding %q, which Foxglove does not read", definitionEncoding)
	}
}

// splitROSType splits pkg/Type or pkg/msg/Type (a leading / allowed).
func splitROSType(t string) (pkg, name string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(t, "/"), "/")
	if len(parts) == 3 && parts[1] == "msg" {
		parts = []string{parts[0], parts[2]}
	}
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}
