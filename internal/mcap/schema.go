package mcap

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// ProtobufSchema is the schema data of the protobuf encoding for message md: a serialised
// FileDescriptorSet of md's file and every file it imports, dependencies first, as
// `protoc --include_imports --descriptor_set_out` writes it. The schema's name is md's full
// name.
func ProtobufSchema(md protoreflect.MessageDescriptor) ([]byte, error) {
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(md.ParentFile())
	return proto.MarshalOptions{Deterministic: true}.Marshal(set)
}
