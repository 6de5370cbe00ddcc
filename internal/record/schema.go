package record

import (
	"context"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/foxglovepb"
)

// catalogPrefix starts the names of catalog types; others are relayed as opaque bytes.
const catalogPrefix = "Platform.Messages."

// The catalog's compressed video frame (an H.264 access unit) has the fields and numbers of
// Foxglove's foxglove.CompressedVideo, and builtin_interfaces.Time encodes as
// google.protobuf.Timestamp does for any time after 1970: the recorder writes its samples
// unchanged under Foxglove's schema, which Foxglove and Lichtblick play as video.
const videoType = video.Type

// keyframe reports whether an H.264 sample decodes on its own: the source says so, or its
// access unit shows it (a source that publishes CompressedVideo without the flag).
func keyframe(s fleetgate.Sample) bool {
	if s.Keyframe {
		return true
	}
	var v catalogpb.CompressedVideo
	return proto.Unmarshal(s.Payload, &v) == nil && video.IsKeyframe(v.Data)
}

// schemaOf picks how stream s is recorded: a catalog type as protobuf with the
// FileDescriptorSet of its file and imports; a type outside the catalog (a ROS 1 type relayed
// as opaque bytes) as raw ros1 messages with the source's message definition, when the
// source gives one (fleet.MessageDefinitions), else without a schema. A ROS 2 topic's opaque
// type is raw CDR (message encoding cdr), recorded without a schema: DDS discovery does not
// carry the definition.
func schemaOf(ctx context.Context, robot fleet.Robot, s fleetgate.Stream) (plan, error) {
	p := plan{stream: s, topic: topicOf(s), schemaName: s.Type}
	if s.Type == videoType {
		md := (&foxglovepb.CompressedVideo{}).ProtoReflect().Descriptor()
		data, err := mcap.ProtobufSchema(md)
		if err != nil {
			return plan{}, err
		}
		p.schemaName = string(md.FullName())
		p.messageEnc, p.schemaEncoding, p.schema = mcap.EncodingProtobuf, mcap.EncodingProtobuf, data
		return p, nil
	}
	if strings.HasPrefix(s.Type, catalogPrefix) {
		m, err := msgs.New(s.Type)
		if err != nil {
			return plan{}, fleetgate.Errorf(fleetgate.EInvalid, "stream %s: %v", keyName(s.Key()), err)
		}
		data, err := mcap.ProtobufSchema(m.ProtoReflect().Descriptor())
		if err != nil {
			return plan{}, err
		}
		p.messageEnc, p.schemaEncoding, p.schema = mcap.EncodingProtobuf, mcap.EncodingProtobuf, data
		return p, nil
	}
	if s.Source == fleetgate.SourceROS2 {
		p.messageEnc = mcap.MessageCDR
		return p, nil
	}
	p.messageEnc = mcap.MessageROS1
	defs, ok := fleet.As[fleet.MessageDefinitions](robot)
	if !ok {
		return p, nil
	}
	enc, def, err := defs.MessageDefinition(ctx, s.Key())
	switch {
	case fleetgate.Is(err, fleetgate.ENotFound):
		return p, nil
	case err != nil:
		return plan{}, err
	case enc != mcap.SchemaROS1:
		return p, nil // a definition this recorder cannot label
	}
	p.schemaEncoding, p.schema = enc, []byte(def)
	// ros1msg names a schema as a package resource name: pkg/Type.
	p.schemaName = strings.TrimPrefix(s.Type, "/")
	return p, nil
}
