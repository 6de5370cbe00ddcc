package rosmsg

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// ros2Definitions are the ROS 2 (Humble and later) definitions of the catalog's types: the ROS 1
// ones but for time, which ROS 2 makes a message (builtin_interfaces/Time: int32 sec, uint32
// nanosec), and the Header, which lost its seq.
var ros2Definitions = func() map[string]string {
	m := maps.Clone(definitions)
	m["builtin_interfaces/Time"] = "int32 sec\nuint32 nanosec"
	m["std_msgs/Header"] = "builtin_interfaces/Time stamp\nstring frame_id"
	m["nav_msgs/MapMetaData"] = strings.Replace(m["nav_msgs/MapMetaData"], "time map_load_time", "builtin_interfaces/Time map_load_time", 1)
	delete(m, "actionlib_msgs/GoalID") // ROS 1's actionlib: ROS 2 cancels through its action's service
	// A goal's cancel (written, never read): what an action's cancel_goal service takes, which
	// a bridge node on the robot passes on (docs/ros2.md).
	m["unique_identifier_msgs/UUID"] = "uint8[16] uuid"
	m["action_msgs/GoalInfo"] = "unique_identifier_msgs/UUID goal_id\nbuiltin_interfaces/Time stamp"
	// Foxglove's H.264 camera (ROS 2 only here: ROS 1's foxglove_msgs is not in Debian).
	m["foxglove_msgs/CompressedVideo"] = "builtin_interfaces/Time timestamp\nstring frame_id\nuint8[] data\nstring format"
	for t, text := range m {
		if strings.Contains(text, "\ntime ") || strings.HasPrefix(text, "time ") || strings.Contains(text, "duration") {
			panic("rosmsg: ROS 2 definition of " + t + " still has a ROS 1 time")
		}
	}
	return m
}()

var ros2Specs = sync.OnceValues(func() (map[string]*Spec, error) {
	out := map[string]*Spec{}
	resolve := func(t string) (string, bool) { s, ok := ros2Definitions[t]; return s, ok }
	for _, t := range slices.Sorted(maps.Keys(ros2Definitions)) {
		s, err := Parse(t, ros2Definitions[t], resolve)
		if err != nil {
			return nil, err
		}
		out[t] = s
	}
	return out, nil
})

// ros2Catalog maps the ROS 2 types that only ROS 2 robots bring to their catalog types.
var ros2Catalog = map[string]string{
	"foxglove_msgs/CompressedVideo": "Platform.Messages.foxglove_msgs.CompressedVideo",
}

// CatalogTypeROS2 is the catalog type of a ROS 2 type (package/Name), "" when the catalog has
// none.
func CatalogTypeROS2(rosType string) string {
	if c := CatalogType(rosType); c != "" {
		return c
	}
	return ros2Catalog[rosType]
}

// SpecCodecROS2 is SpecCodec of a ROS 2 type: its spec only, for a message the transport
// writes as bytes of its own (a goal's cancel).
func SpecCodecROS2(rosType string) (*Codec, error) {
	spec, ok := LookupROS2(rosType)
	if !ok {
		return nil, fmt.Errorf("rosmsg: %s is not defined here", rosType)
	}
	return &Codec{Spec: spec}, nil
}

// LookupROS2 returns the ROS 2 spec of a type this package knows (package/Name).
func LookupROS2(rosType string) (*Spec, bool) {
	all, err := ros2Specs()
	if err != nil {
		panic(fmt.Sprintf("rosmsg: the built-in ROS 2 definitions do not parse: %v", err))
	}
	s, ok := all[rosType]
	return s, ok
}

var cdrCodecs sync.Map // ROS type → *Codec or error

// CDRCodecFor returns the CDR codec of a ROS 2 type (package/Name) that has a catalog type.
func CDRCodecFor(rosType string) (*Codec, error) {
	if c, ok := cdrCodecs.Load(rosType); ok {
		if err, bad := c.(error); bad {
			return nil, err
		}
		return c.(*Codec), nil
	}
	c, err := newCDRCodec(rosType)
	if err != nil {
		cdrCodecs.Store(rosType, err)
		return nil, err
	}
	cdrCodecs.Store(rosType, c)
	return c, nil
}

func newCDRCodec(rosType string) (*Codec, error) {
	catalog := CatalogTypeROS2(rosType)
	spec, ok := LookupROS2(rosType)
	if catalog == "" || !ok {
		return nil, fmt.Errorf("rosmsg: %s has no catalog type", rosType)
	}
	return NewCDRCodec(spec, catalog)
}

// NewCDRCodec compiles a CDR codec between a parsed ROS 2 spec and a catalog type whose
// fields carry the spec's names (a later transport may bring definitions of its own).
func NewCDRCodec(spec *Spec, catalog string) (*Codec, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(catalog))
	if err != nil {
		return nil, fmt.Errorf("rosmsg: catalog type %s of %s: %w", catalog, spec.Type, err)
	}
	p, err := compile(spec, mt.Descriptor(), true)
	if err != nil {
		return nil, err
	}
	return &Codec{Spec: spec, Catalog: catalog, plan: p}, nil
}
