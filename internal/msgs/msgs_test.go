package msgs

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

const (
	twist     = "Platform.Messages.geometry_msgs.Twist"
	ackermann = "Platform.Messages.ackermann_msgs.AckermannDriveStamped"
	laserScan = "Platform.Messages.sensor_msgs.LaserScan"
)

func TestKnownAndNew(t *testing.T) {
	tests := []struct {
		name  string
		known bool
	}{
		{"Platform.Messages.geometry_msgs.Twist", true},
		{"Platform.Messages.std_msgs.Header", true},
		{"Platform.Messages.builtin_interfaces.Time", true},
		{"Platform.Stream.MessageStream", false}, // the envelope is registered but no catalog type
		{"Platform.Messages.geometry_msgs", false},
		{"Platform.Messages.", false},
		{"geometry_msgs.Twist", false},
		{"Platform.Messages.geometry_msgs.twist", false},
		{"google.protobuf.Timestamp", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Known(tt.name); got != tt.known {
				t.Fatalf("Known = %v, want %v", got, tt.known)
			}
			m, err := New(tt.name)
			if !tt.known {
				if !errors.Is(err, ErrUnknownType) || m != nil {
					t.Fatalf("New = %v, %v; want nil and ErrUnknownType", m, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(m.ProtoReflect().Descriptor().FullName()); got != tt.name {
				t.Fatalf("New made a %s", got)
			}
			if proto.Size(m) != 0 {
				t.Fatalf("New is not empty: %v", m)
			}
		})
	}
}

// requiredTypes are the types the contract names; the catalog may grow, never shrink.
var requiredTypes = []string{
	"std_msgs.Header", "std_msgs.String", "std_msgs.Bool", "std_msgs.Int32", "std_msgs.Float64",
	"geometry_msgs.Vector3", "geometry_msgs.Point", "geometry_msgs.Quaternion", "geometry_msgs.Pose",
	"geometry_msgs.PoseStamped", "geometry_msgs.Twist", "geometry_msgs.TwistStamped",
	"sensor_msgs.Image", "sensor_msgs.CompressedImage", "sensor_msgs.LaserScan",
	"sensor_msgs.PointCloud2", "sensor_msgs.PointField", "sensor_msgs.BatteryState", "sensor_msgs.Joy",
	"sensor_msgs.NavSatFix", "sensor_msgs.Imu",
	"nav_msgs.Odometry", "nav_msgs.OccupancyGrid",
	"ackermann_msgs.AckermannDrive", "ackermann_msgs.AckermannDriveStamped",
}

func TestNames(t *testing.T) {
	names := Names()
	if len(names) < 29 {
		t.Fatalf("%d catalog types, want at least 29: %v", len(names), names)
	}
	if !slices.IsSorted(names) {
		t.Fatalf("Names is not sorted: %v", names)
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("Names has duplicates: %v", names)
	}
	for _, short := range requiredTypes {
		if !slices.Contains(names, "Platform.Messages."+short) {
			t.Errorf("catalog lacks Platform.Messages.%s", short)
		}
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "Platform.Messages.") || !Known(n) {
			t.Errorf("Names lists %q, which is not a catalog type", n)
		}
	}
	names[0] = "changed by the caller"
	if Names()[0] == "changed by the caller" {
		t.Fatal("Names returns the shared slice")
	}
}

func TestTemplateGolden(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{twist, `{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`},
		{ackermann, `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"drive":{"steeringAngle":0,"steeringAngleVelocity":0,"speed":0,"acceleration":0,"jerk":0}}`},
		{"Platform.Messages.geometry_msgs.PoseStamped", `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"pose":{"position":{"x":0,"y":0,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":0}}}`},
		{"Platform.Messages.std_msgs.String", `{"data":""}`},
		{"Platform.Messages.sensor_msgs.Joy", `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"axes":[],"buttons":[]}`},
		{"Platform.Messages.sensor_msgs.CompressedImage", `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"format":"","data":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second call comes from the cache
				got, err := Template(tt.name)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Fatalf("Template =\n%s\nwant\n%s", got, tt.want)
				}
				got[0] = 'X' // a caller's change must not reach the cache
			}
		})
	}
}

func TestTemplateEveryType(t *testing.T) {
	names := Names()
	if len(names) < 29 {
		t.Fatalf("%d catalog types, want at least 29", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tmpl, err := Template(name)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(tmpl, &v); err != nil {
				t.Fatalf("template is not JSON: %v\n%s", err, tmpl)
			}
			if _, ok := v.(map[string]any); !ok {
				t.Fatalf("template is not a JSON object: %s", tmpl)
			}
			if path, ok := findNull(v, ""); ok {
				t.Fatalf("template has null at %s: %s", path, tmpl)
			}
			m, err := ParseJSON(name, tmpl)
			if err != nil {
				t.Fatalf("ParseJSON(template): %v", err)
			}
			again, err := MarshalJSON(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, tmpl) {
				t.Fatalf("template does not survive a round trip:\n%s\n%s", tmpl, again)
			}
		})
	}
}

func TestTemplateConcurrent(t *testing.T) {
	want := map[string]string{}
	for _, name := range Names() {
		tmpl, err := Template(name)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = string(tmpl)
	}
	templates.Clear() // build again, now from many goroutines at once
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, name := range Names() {
				tmpl, err := Template(name)
				if err != nil || string(tmpl) != want[name] {
					t.Errorf("Template(%s) = %s, %v; want %s", name, tmpl, err, want[name])
				}
			}
		})
	}
	wg.Wait()
}

func findNull(v any, path string) (string, bool) {
	switch v := v.(type) {
	case nil:
		return path, true
	case map[string]any:
		for k, e := range v {
			if p, ok := findNull(e, path+"."+k); ok {
				return p, true
			}
		}
	case []any:
		for _, e := range v {
			if p, ok := findNull(e, path+"[]"); ok {
				return p, true
			}
		}
	}
	return "", false
}

func TestTemplateUnknownType(t *testing.T) {
	for _, name := range []string{"Platform.Stream.MessageStream", "Platform.Messages.nope.Nope", ""} {
		if _, err := Template(name); !errors.Is(err, ErrUnknownType) {
			t.Errorf("Template(%q) = %v, want ErrUnknownType", name, err)
		}
	}
}

// dynamicType builds a message type from descriptor text, for shapes the catalog lacks: recursion
// and maps.
func dynamicType(t *testing.T, messages ...*descriptorpb.DescriptorProto) func(name string) protoreflect.MessageType {
	t.Helper()
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:        proto.String("msgs_test_" + strings.ReplaceAll(t.Name(), "/", "_") + ".proto"),
		Package:     proto.String("msgstest"),
		Syntax:      proto.String("proto3"),
		MessageType: messages,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) protoreflect.MessageType {
		return dynamicpb.NewMessageType(fd.Messages().ByName(protoreflect.Name(name)))
	}
}

func field(name string, num int32, kind descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, typeName string) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{
		Name: proto.String(name), Number: proto.Int32(num), Type: kind.Enum(), Label: label.Enum(),
	}
	if typeName != "" {
		f.TypeName = proto.String(typeName)
	}
	return f
}

const (
	optional = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
	repeated = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	tMessage = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	tDouble  = descriptorpb.FieldDescriptorProto_TYPE_DOUBLE
	tFloat   = descriptorpb.FieldDescriptorProto_TYPE_FLOAT
	tString  = descriptorpb.FieldDescriptorProto_TYPE_STRING
)

func TestExpandStopsAtRecursion(t *testing.T) {
	types := dynamicType(t,
		&descriptorpb.DescriptorProto{Name: proto.String("Node"), Field: []*descriptorpb.FieldDescriptorProto{
			field("next", 1, tMessage, optional, ".msgstest.Node"),
			field("value", 2, tDouble, optional, ""),
			field("children", 3, tMessage, repeated, ".msgstest.Node"),
			field("other", 4, tMessage, optional, ".msgstest.Other"),
		}},
		&descriptorpb.DescriptorProto{Name: proto.String("Other"), Field: []*descriptorpb.FieldDescriptorProto{
			field("back", 1, tMessage, optional, ".msgstest.Node"),
			field("label", 2, tString, optional, ""),
		}},
	)
	m := types("Node").New()
	expand(m, map[protoreflect.FullName]bool{})
	got, err := MarshalJSON(m.Interface())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"next":null,"value":0,"children":[],"other":{"back":null,"label":""}}`
	if string(got) != want {
		t.Fatalf("expand =\n%s\nwant\n%s", got, want)
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name     string
		typ      string
		in       string
		want     string // MarshalJSON of the result, when the input is valid
		wantErr  error
		wantText string // the whole error text, or with a trailing "…" a prefix of it
	}{
		{
			name: "twist", typ: twist,
			in:   `{"linear":{"x":1.5},"angular":{"z":-0.5}}`,
			want: `{"linear":{"x":1.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":-0.5}}`,
		},
		{
			name: "twist with spaces and exponent", typ: twist,
			in:   " {\n \"linear\" : { \"x\" : 2e-1 } }\n",
			want: `{"linear":{"x":0.2,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`,
		},
		{
			name: "ackermann with snake_case names", typ: ackermann,
			in:   `{"header":{"stamp":{"sec":12,"nanosec":5},"frame_id":"base_link"},"drive":{"steering_angle":0.25,"steering_angle_velocity":1,"speed":2.5,"jerk":-1}}`,
			want: `{"header":{"stamp":{"sec":12,"nanosec":5},"frameId":"base_link"},"drive":{"steeringAngle":0.25,"steeringAngleVelocity":1,"speed":2.5,"acceleration":0,"jerk":-1}}`,
		},
		{
			name: "ackermann with camelCase names", typ: ackermann,
			in:   `{"drive":{"steeringAngle":-0.1,"speed":1}}`,
			want: `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"drive":{"steeringAngle":-0.1,"steeringAngleVelocity":0,"speed":1,"acceleration":0,"jerk":0}}`,
		},
		{
			name: "empty object", typ: twist, in: `{}`,
			want: `{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`,
		},
		{
			name: "laser scan with ranges", typ: laserScan,
			in:   `{"angleMin":-1.5,"ranges":[1,2.25,3],"intensities":[]}`,
			want: `{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"angleMin":-1.5,"angleMax":0,"angleIncrement":0,"timeIncrement":0,"scanTime":0,"rangeMin":0,"rangeMax":0,"ranges":[1,2.25,3],"intensities":[]}`,
		},
		{
			name: "unknown field", typ: twist, in: `{"foo":1}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: unknown field "foo"`,
		},
		{
			name: "unknown nested field", typ: twist, in: `{"linear":{"x":1,"w":2}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: unknown field "w"`,
		},
		{
			name: "pose given for twist", typ: twist,
			in:      `{"position":{"x":1,"y":2,"z":3},"orientation":{"x":0,"y":0,"z":0,"w":1}}`,
			wantErr: ErrInvalid, wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: unknown field "position"`,
		},
		{
			name: "string for a double", typ: twist, in: `{"linear":{"x":"fast"}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: invalid value for double field x: "fast"`,
		},
		{
			name: "quoted number for a double", typ: twist, in: `{"linear":{"x":"1.5"}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: linear.x must be a JSON number, not a string`,
		},
		{
			name: "quoted number for a uint32", typ: ackermann, in: `{"header":{"stamp":{"nanosec":"5"}}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: header.stamp.nanosec must be a JSON number, not a string`,
		},
		{
			name: "quoted number in a repeated float", typ: laserScan, in: `{"ranges":[1,"2"]}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.LaserScan: ranges[1] must be a JSON number, not a string`,
		},
		{
			name: "number for a message", typ: twist, in: `{"linear":5}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: syntax error (line 1:11): unexpected token 5`,
		},
		{
			name: "number for a string", typ: ackermann, in: `{"header":{"frameId":7}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: invalid value for string field frameId: 7`,
		},
		{
			name: "fraction for an int", typ: "Platform.Messages.std_msgs.Int32", in: `{"data":1.5}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.std_msgs.Int32: invalid value for int32 field data: 1.5`,
		},
		{
			name: "float out of range", typ: ackermann, in: `{"drive":{"speed":1e39}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: invalid value for float field speed: 1e39`,
		},
		{
			name: "null number", typ: twist, in: `{"linear":{"x":null}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: linear.x is null: leave it out or give a value`,
		},
		{
			name: "null message is unset", typ: twist, in: `{"angular":null,"linear":{"y":3}}`,
			want: `{"linear":{"x":0,"y":3,"z":0},"angular":{"x":0,"y":0,"z":0}}`,
		},
		{
			name: "null list", typ: laserScan, in: `{"ranges":null}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.LaserScan: ranges is null: leave it out or give a value`,
		},
		{
			name: "null in a list", typ: laserScan, in: `{"ranges":[1,null]}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.LaserScan: …`,
		},
		{
			name: "null string", typ: ackermann, in: `{"header":{"frameId":null}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: header.frameId is null: leave it out or give a value`,
		},
		{
			name: "the same field twice, once snake_case", typ: ackermann,
			in: `{"drive":{"steeringAngle":1,"steering_angle":2}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: duplicate field "steering_angle"`,
		},
		{
			name: "not JSON", typ: twist, in: `linear x 1`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: syntax error (line 1:1): invalid value linear`,
		},
		{
			name: "empty input", typ: twist, in: " \n", wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: empty input, expected a JSON object`,
		},
		{
			name: "array", typ: twist, in: `[]`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: syntax error (line 1:1): unexpected token [`,
		},
		{
			name: "trailing data", typ: twist, in: `{}{}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: …`,
		},
		{
			name: "NaN in a nested double", typ: twist, in: `{"linear":{"x":"NaN"}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: linear.x is not a finite number`,
		},
		{
			name: "Infinity in a nested double", typ: twist, in: `{"angular":{"z":"Infinity"}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.geometry_msgs.Twist: angular.z is not a finite number`,
		},
		{
			name: "-Infinity in a top-level double", typ: "Platform.Messages.std_msgs.Float64", in: `{"data":"-Infinity"}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.std_msgs.Float64: data is not a finite number`,
		},
		{
			name: "NaN in a nested float", typ: ackermann, in: `{"drive":{"speed":"NaN"}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: drive.speed is not a finite number`,
		},
		{
			name: "Infinity in a float, snake_case name", typ: ackermann, in: `{"drive":{"steering_angle":"Infinity"}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.ackermann_msgs.AckermannDriveStamped: drive.steeringAngle is not a finite number`,
		},
		{
			name: "-Infinity in a top-level float", typ: laserScan, in: `{"rangeMax":"-Infinity"}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.LaserScan: rangeMax is not a finite number`,
		},
		{
			name: "Infinity in a repeated float", typ: laserScan, in: `{"ranges":[1,2,"Infinity",4]}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.LaserScan: ranges[2] is not a finite number`,
		},
		{
			name: "NaN in a repeated float", typ: laserScan, in: `{"ranges":[1],"intensities":["NaN"]}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.LaserScan: intensities[0] is not a finite number`,
		},
		{
			name: "-Infinity in a repeated double", typ: "Platform.Messages.sensor_msgs.Imu",
			in: `{"angular_velocity_covariance":[0,0,0,0,"-Infinity"]}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.sensor_msgs.Imu: angularVelocityCovariance[4] is not a finite number`,
		},
		{
			name: "NaN deep in a nested message", typ: "Platform.Messages.nav_msgs.Odometry",
			in: `{"pose":{"pose":{"orientation":{"w":"NaN"}}}}`, wantErr: ErrInvalid,
			wantText: `invalid JSON for Platform.Messages.nav_msgs.Odometry: pose.pose.orientation.w is not a finite number`,
		},
		{
			name: "unknown type", typ: "Platform.Messages.geometry_msgs.Nope", in: `{}`, wantErr: ErrUnknownType,
			wantText: `unknown message type: "Platform.Messages.geometry_msgs.Nope" is not a catalog message type`,
		},
		{
			name: "the envelope is no catalog type", typ: "Platform.Stream.MessageStream", in: `{}`, wantErr: ErrUnknownType,
			wantText: `unknown message type: "Platform.Stream.MessageStream" is not a catalog message type`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseJSON(tt.typ, []byte(tt.in))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				got, err := MarshalJSON(m)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
				}
				return
			}
			if m != nil {
				t.Fatalf("a message with the error: %v", m)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want one that is %v", err, tt.wantErr)
			}
			for _, other := range []error{ErrInvalid, ErrUnknownType} {
				if other != tt.wantErr && errors.Is(err, other) {
					t.Fatalf("error %v is also %v", err, other)
				}
			}
			if prefix, ok := strings.CutSuffix(tt.wantText, "…"); ok {
				if !strings.HasPrefix(err.Error(), prefix) || len(err.Error()) <= len(prefix) {
					t.Fatalf("error %q, want it to start with %q and say more", err, prefix)
				}
			} else if err.Error() != tt.wantText {
				t.Fatalf("error\n%q\nwant\n%q", err, tt.wantText)
			}
		})
	}
}

func TestCheckFinite(t *testing.T) {
	types := dynamicType(t,
		&descriptorpb.DescriptorProto{
			Name: proto.String("Holder"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("gains", 1, tMessage, repeated, ".msgstest.Holder.GainsEntry"),
				field("points", 2, tMessage, repeated, ".msgstest.Holder.PointsEntry"),
			},
			NestedType: []*descriptorpb.DescriptorProto{
				mapEntry("GainsEntry", field("value", 2, tDouble, optional, "")),
				mapEntry("PointsEntry", field("value", 2, tMessage, optional, ".msgstest.P")),
			},
		},
		&descriptorpb.DescriptorProto{Name: proto.String("P"), Field: []*descriptorpb.FieldDescriptorProto{
			field("f", 1, tFloat, optional, ""),
		}},
	)
	holder := func(gains map[string]float64, points map[string]float64) proto.Message {
		m := types("Holder").New()
		g := m.Mutable(m.Descriptor().Fields().ByName("gains")).Map()
		for k, v := range gains {
			g.Set(protoreflect.ValueOfString(k).MapKey(), protoreflect.ValueOfFloat64(v))
		}
		pf := m.Descriptor().Fields().ByName("points")
		p := m.Mutable(pf).Map()
		for k, v := range points {
			pm := p.NewValue()
			pm.Message().Set(pm.Message().Descriptor().Fields().ByName("f"), protoreflect.ValueOfFloat32(float32(v)))
			p.Set(protoreflect.ValueOfString(k).MapKey(), pm)
		}
		return m.Interface()
	}
	inf, nan := math.Inf(1), math.NaN()

	tests := []struct {
		name string
		m    proto.Message
		want string // "" when finite
	}{
		{"empty twist", &catalogpb.Twist{}, ""},
		{"finite twist", &catalogpb.Twist{Linear: &catalogpb.Vector3{X: math.MaxFloat64, Y: -math.SmallestNonzeroFloat64}}, ""},
		{"NaN double", &catalogpb.Twist{Angular: &catalogpb.Vector3{Y: nan}}, "angular.y is not a finite number"},
		{"the first of two", &catalogpb.Twist{Linear: &catalogpb.Vector3{Z: inf}, Angular: &catalogpb.Vector3{X: nan}}, "linear.z is not a finite number"},
		{"-Inf float", &catalogpb.AckermannDriveStamped{Drive: &catalogpb.AckermannDrive{Jerk: float32(math.Inf(-1))}}, "drive.jerk is not a finite number"},
		{"repeated float", &catalogpb.LaserScan{Ranges: []float32{1, 2, float32(inf)}}, "ranges[2] is not a finite number"},
		{"repeated message", &catalogpb.PointCloud2{Fields: []*catalogpb.PointField{{Name: "x"}}}, ""},
		{"nested repeated double", &catalogpb.Odometry{Twist: &catalogpb.TwistWithCovariance{Covariance: []float64{0, nan}}}, "twist.covariance[1] is not a finite number"},
		{"finite maps", holder(map[string]float64{"a": 1, "b": 2}, map[string]float64{"p": 3}), ""},
		{"map of doubles", holder(map[string]float64{"a": 1, "b": nan, "c": inf}, nil), `gains["b"] is not a finite number`},
		{"map of messages", holder(nil, map[string]float64{"p": 1, "q": inf}), `points["q"].f is not a finite number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFinite(tt.m)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || err.Error() != tt.want {
				t.Fatalf("CheckFinite = %v, want %q wrapping ErrInvalid", err, tt.want)
			}
		})
	}
}

func mapEntry(name string, value *descriptorpb.FieldDescriptorProto) *descriptorpb.DescriptorProto {
	return &descriptorpb.DescriptorProto{
		Name:    proto.String(name),
		Field:   []*descriptorpb.FieldDescriptorProto{field("key", 1, tString, optional, ""), value},
		Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
	}
}

func header(sec int32, nanosec uint32, frame string) *catalogpb.Header {
	return &catalogpb.Header{Stamp: &catalogpb.Time{Sec: sec, Nanosec: nanosec}, FrameId: frame}
}

func TestPayloadRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		m    proto.Message
		want string
	}{
		{
			name: "laser scan",
			m: &catalogpb.LaserScan{
				Header:   header(1700000000, 250000000, "laser"),
				AngleMin: -1.5, AngleMax: 1.5, AngleIncrement: 0.1, ScanTime: 0.05, RangeMin: 0.1, RangeMax: 30,
				Ranges: []float32{0.5, 1.25, 29.9}, Intensities: []float32{100, 0, 7},
			},
			want: `{"header":{"stamp":{"sec":1700000000,"nanosec":250000000},"frameId":"laser"},"angleMin":-1.5,"angleMax":1.5,"angleIncrement":0.1,"timeIncrement":0,"scanTime":0.05,"rangeMin":0.1,"rangeMax":30,"ranges":[0.5,1.25,29.9],"intensities":[100,0,7]}`,
		},
		{
			name: "occupancy grid",
			m: &catalogpb.OccupancyGrid{
				Header: header(3, 0, "map"),
				Info: &catalogpb.MapMetaData{
					MapLoadTime: &catalogpb.Time{Sec: 2}, Resolution: 0.05, Width: 2, Height: 2,
					Origin: &catalogpb.Pose{Position: &catalogpb.Point{X: -10, Y: -10}, Orientation: &catalogpb.Quaternion{W: 1}},
				},
				Data: []byte{0, 100, 255, 50}, // 255 is ROS's -1, unknown
			},
			want: `{"header":{"stamp":{"sec":3,"nanosec":0},"frameId":"map"},"info":{"mapLoadTime":{"sec":2,"nanosec":0},"resolution":0.05,"width":2,"height":2,"origin":{"position":{"x":-10,"y":-10,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":1}}},"data":"AGT/Mg=="}`,
		},
		{
			name: "compressed image",
			m: &catalogpb.CompressedImage{
				Header: header(-1, 999999999, "camera front"),
				Format: "jpeg",
				Data:   []byte{0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0xff, 0xd9},
			},
			want: `{"header":{"stamp":{"sec":-1,"nanosec":999999999},"frameId":"camera front"},"format":"jpeg","data":"/9j/4AAQSkZJRv/Z"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := string(tt.m.ProtoReflect().Descriptor().FullName())
			direct, err := MarshalJSON(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if string(direct) != tt.want {
				t.Fatalf("MarshalJSON =\n%s\nwant\n%s", direct, tt.want)
			}
			payload, err := proto.Marshal(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := PayloadToJSON(name, payload)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("PayloadToJSON =\n%s\nwant\n%s", got, tt.want)
			}
			back, err := ParseJSON(name, got)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(back, tt.m) {
				t.Fatalf("JSON round trip changed the message:\n%v\n%v", back, tt.m)
			}
			decoded, err := Decode(name, payload)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(decoded, tt.m) {
				t.Fatalf("Decode changed the message:\n%v\n%v", decoded, tt.m)
			}
		})
	}
}

func TestMarshalJSONIsCompact(t *testing.T) {
	m := &catalogpb.Imu{
		Header:                header(1, 2, "imu"),
		Orientation:           &catalogpb.Quaternion{W: 1},
		OrientationCovariance: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1},
	}
	first, err := MarshalJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(first, " \n\t") {
		t.Fatalf("not compact: %q", first)
	}
	if !json.Valid(first) {
		t.Fatalf("not JSON: %s", first)
	}
	for range 20 {
		again, err := MarshalJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, first) {
			t.Fatalf("MarshalJSON is not stable:\n%s\n%s", first, again)
		}
	}
}

// A robot's LaserScan says "no return" with +Inf, as ROS does: that is data to show, not an error.
func TestPayloadToJSONKeepsNonFinite(t *testing.T) {
	payload, err := proto.Marshal(&catalogpb.LaserScan{Ranges: []float32{1, float32(math.Inf(1)), float32(math.NaN())}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := PayloadToJSON(laserScan, payload)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"ranges":[1,"Infinity","NaN"]`)) {
		t.Fatalf("PayloadToJSON = %s", got)
	}
}

func TestDecodeErrors(t *testing.T) {
	boolTrue, err := proto.Marshal(&catalogpb.Bool{Data: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		typ      string
		payload  []byte
		wantErr  error
		wantText string
	}{
		{"garbage", twist, []byte("\xff\xff\xff\xff"), ErrInvalid,
			"invalid Platform.Messages.geometry_msgs.Twist payload: cannot parse invalid wire-format data"},
		{"truncated", twist, []byte{0x0a, 0x09, 0x09}, ErrInvalid,
			"invalid Platform.Messages.geometry_msgs.Twist payload: cannot parse invalid wire-format data"},
		{"a Bool payload for a Twist", twist, boolTrue, ErrInvalid,
			"invalid Platform.Messages.geometry_msgs.Twist payload: linear is encoded as a varint, which does not fit a message field"},
		{"wrong wire type nested", twist, []byte{0x12, 0x02, 0x18, 0x01} /* angular {z as a varint} */, ErrInvalid,
			"invalid Platform.Messages.geometry_msgs.Twist payload: angular.z is encoded as a varint, which does not fit a double field"},
		{"invalid UTF-8 in a string", "Platform.Messages.std_msgs.String", []byte{0x0a, 0x02, 0xff, 0xfe}, ErrInvalid,
			"invalid Platform.Messages.std_msgs.String payload: string field contains invalid UTF-8"},
		{"unknown type", "Platform.Messages.std_msgs.Nope", nil, ErrUnknownType,
			`unknown message type: "Platform.Messages.std_msgs.Nope" is not a catalog message type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PayloadToJSON(tt.typ, tt.payload)
			if got != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("PayloadToJSON = %s, %v; want an error that is %v", got, err, tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), tt.wantText) {
				t.Fatalf("error\n%q\nwant\n%q", err, tt.wantText)
			}
			if m, err := Decode(tt.typ, tt.payload); m != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode = %v, %v; want an error that is %v", m, err, tt.wantErr)
			}
		})
	}
}

func TestDecodeTolerates(t *testing.T) {
	twistPayload, err := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 1}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		payload []byte
		want    string
	}{
		{"empty payload is the zero message", nil,
			`{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`},
		// A newer sender may add fields; numbers the catalog does not know are left out.
		{"a field from a newer catalog", protowire.AppendVarint(protowire.AppendTag(twistPayload, 99, protowire.VarintType), 7),
			`{"linear":{"x":1,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PayloadToJSON(twist, tt.payload)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestKPI(t *testing.T) {
	tests := []struct {
		name      string
		m         proto.Message
		wantValue any
		wantJSON  string
	}{
		{"float64", &catalogpb.Float64{Data: 42.5}, 42.5, `42.5`},
		{"float64 zero", &catalogpb.Float64{}, 0.0, `0`},
		{"float64 large", &catalogpb.Float64{Data: 1e21}, 1e21, `1e+21`},
		{"int32", &catalogpb.Int32{Data: -7}, -7.0, `-7`},
		{"bool true", &catalogpb.Bool{Data: true}, true, `true`},
		{"bool false", &catalogpb.Bool{}, false, `false`},
		{"string", &catalogpb.String{Data: `docking "A" <ok>`}, `docking "A" <ok>`, `"docking \"A\" \u003cok\u003e"`},
		{"empty string", &catalogpb.String{}, "", `""`},
		{
			"pose",
			&catalogpb.Pose{Position: &catalogpb.Point{X: 1.5, Y: -2, Z: 0.25}, Orientation: &catalogpb.Quaternion{Z: 0.7071, W: 0.7071}},
			`{"position":{"x":1.5,"y":-2,"z":0.25},"orientation":{"x":0,"y":0,"z":0.7071,"w":0.7071}}`,
			`{"position":{"x":1.5,"y":-2,"z":0.25},"orientation":{"x":0,"y":0,"z":0.7071,"w":0.7071}}`,
		},
		{"empty pose", &catalogpb.Pose{},
			`{"position":{"x":0,"y":0,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":0}}`,
			`{"position":{"x":0,"y":0,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":0}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := string(tt.m.ProtoReflect().Descriptor().FullName())
			payload, err := proto.Marshal(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			v, err := KPIValue(name, payload)
			if err != nil {
				t.Fatal(err)
			}
			if v != tt.wantValue {
				t.Fatalf("KPIValue = %#v, want %#v", v, tt.wantValue)
			}
			raw, err := KPIJSON(name, payload)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tt.wantJSON {
				t.Fatalf("KPIJSON = %s, want %s", raw, tt.wantJSON)
			}
			// The value must embed in a frame as it is.
			frame, err := json.Marshal(map[string]any{"value": raw})
			if err != nil {
				t.Fatalf("KPIJSON does not embed: %v", err)
			}
			if !bytes.Contains(frame, raw) {
				t.Fatalf("frame %s lost %s", frame, raw)
			}
		})
	}
}

func TestKPIErrors(t *testing.T) {
	nan, err := proto.Marshal(&catalogpb.Float64{Data: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		typ     string
		payload []byte
		wantErr error
	}{
		{"NaN has no JSON number", "Platform.Messages.std_msgs.Float64", nan, ErrInvalid},
		{"garbage", "Platform.Messages.std_msgs.Float64", []byte{0xff}, ErrInvalid},
		{"unknown type", "Platform.Messages.std_msgs.Float32", nil, ErrUnknownType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if v, err := KPIValue(tt.typ, tt.payload); v != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("KPIValue = %v, %v; want %v", v, err, tt.wantErr)
			}
			if raw, err := KPIJSON(tt.typ, tt.payload); raw != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("KPIJSON = %s, %v; want %v", raw, err, tt.wantErr)
			}
		})
	}
}

func TestMarshalJSONFillsUnsetMessages(t *testing.T) {
	cloud := &catalogpb.PointCloud2{
		Fields: []*catalogpb.PointField{{Name: "x", Datatype: 7, Count: 1}},
		Width:  1, Height: 1, PointStep: 4, RowStep: 4, Data: []byte{1, 2, 3, 4}, IsDense: true,
	}
	odom := &catalogpb.Odometry{ChildFrameId: "base", Pose: &catalogpb.PoseWithCovariance{Covariance: []float64{1}}}
	tests := []struct {
		name string
		m    proto.Message
		want string
	}{
		{"unset header", cloud,
			`{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"height":1,"width":1,"fields":[{"name":"x","offset":0,"datatype":7,"count":1}],"isBigendian":false,"pointStep":4,"rowStep":4,"data":"AQIDBA==","isDense":true}`},
		{"unset deep inside a set message", odom,
			`{"header":{"stamp":{"sec":0,"nanosec":0},"frameId":""},"childFrameId":"base","pose":{"pose":{"position":{"x":0,"y":0,"z":0},"orientation":{"x":0,"y":0,"z":0,"w":0}},"covariance":[1]},"twist":{"twist":{"linear":{"x":0,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}},"covariance":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := proto.Clone(tt.m)
			got, err := MarshalJSON(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("MarshalJSON =\n%s\nwant\n%s", got, tt.want)
			}
			if !proto.Equal(tt.m, before) || proto.Size(tt.m) != proto.Size(before) {
				t.Fatalf("MarshalJSON changed its argument: %v", tt.m)
			}
		})
	}
	if cloud.Header != nil || odom.Pose.Pose != nil || odom.Twist != nil {
		t.Fatal("MarshalJSON set fields of its argument")
	}
	filled := withEmptyMessages(cloud.ProtoReflect(), map[protoreflect.FullName]bool{}).Interface().(*catalogpb.PointCloud2)
	if &filled.Data[0] != &cloud.Data[0] {
		t.Fatal("filling the header copied the point data")
	}
	full := &catalogpb.Twist{Linear: &catalogpb.Vector3{}, Angular: &catalogpb.Vector3{}}
	if withEmptyMessages(full.ProtoReflect(), map[protoreflect.FullName]bool{}).Interface() != proto.Message(full) {
		t.Fatal("a message without unset fields was copied")
	}
}

func TestWithEmptyMessagesInListsMapsAndRecursion(t *testing.T) {
	types := dynamicType(t,
		&descriptorpb.DescriptorProto{
			Name: proto.String("Node"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("next", 1, tMessage, optional, ".msgstest.Node"),
				field("items", 2, tMessage, repeated, ".msgstest.Item"),
				field("named", 3, tMessage, repeated, ".msgstest.Node.NamedEntry"),
			},
			NestedType: []*descriptorpb.DescriptorProto{
				mapEntry("NamedEntry", field("value", 2, tMessage, optional, ".msgstest.Item")),
			},
		},
		&descriptorpb.DescriptorProto{Name: proto.String("Item"), Field: []*descriptorpb.FieldDescriptorProto{
			field("inner", 1, tMessage, optional, ".msgstest.Inner"),
		}},
		&descriptorpb.DescriptorProto{Name: proto.String("Inner"), Field: []*descriptorpb.FieldDescriptorProto{
			field("v", 1, tDouble, optional, ""),
		}},
	)
	root := types("Node").New()
	fields := root.Descriptor().Fields()
	next := root.Mutable(fields.ByName("next")).Message() // a Node inside a Node: its own next stays null
	items := root.Mutable(fields.ByName("items")).List()
	items.Append(items.NewElement())
	named := root.Mutable(fields.ByName("named")).Map()
	named.Set(protoreflect.ValueOfString("a").MapKey(), named.NewValue())
	before := proto.Clone(root.Interface())

	got, err := MarshalJSON(root.Interface())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"next":{"next":null,"items":[],"named":{}},"items":[{"inner":{"v":0}}],"named":{"a":{"inner":{"v":0}}}}`
	if string(got) != want {
		t.Fatalf("MarshalJSON =\n%s\nwant\n%s", got, want)
	}
	if !proto.Equal(root.Interface(), before) || next.Has(fields.ByName("next")) ||
		items.Get(0).Message().Has(items.Get(0).Message().Descriptor().Fields().ByName("inner")) {
		t.Fatal("MarshalJSON changed its argument")
	}
}

// A stream of a type outside the catalog (a ROS 1 topic relayed raw) reads as its type and its
// bytes in base64; a name in the catalog's namespace that the catalog lacks stays an error.
func TestOpaquePayloadToJSON(t *testing.T) {
	got, err := PayloadToJSON("rosgraph_msgs/Log", []byte{0, 1, 2, 0xff})
	if err != nil || string(got) != `{"dataType":"rosgraph_msgs/Log","data":"AAEC/w=="}` {
		t.Errorf("got %s, %v", got, err)
	}
	got, err = PayloadToJSON("rosgraph_msgs/Log", nil)
	if err != nil || string(got) != `{"dataType":"rosgraph_msgs/Log","data":""}` {
		t.Errorf("empty: got %s, %v", got, err)
	}
	if _, err := PayloadToJSON("Platform.Messages.std_msgs.Nope", nil); !errors.Is(err, ErrUnknownType) {
		t.Errorf("unknown catalog name: %v", err)
	}
	for typ, want := range map[string]bool{"rosgraph_msgs/Log": true, "Platform.Messages.std_msgs.String": false, "": false} {
		if Opaque(typ) != want {
			t.Errorf("Opaque(%q) = %v", typ, !want)
		}
	}
}

func TestCatalogName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"Platform.Messages.geometry_msgs.Twist", "Platform.Messages.geometry_msgs.Twist", true},
		{"geometry_msgs/msg/Twist", "Platform.Messages.geometry_msgs.Twist", true},
		{"geometry_msgs/Twist", "Platform.Messages.geometry_msgs.Twist", true},
		{"sensor_msgs/msg/PointCloud2", "Platform.Messages.sensor_msgs.PointCloud2", true},
		{"ackermann_msgs/AckermannDriveStamped", "Platform.Messages.ackermann_msgs.AckermannDriveStamped", true},
		{"geometry_msgs/msg/Nope", "", false},
		{"geometry_msgs/srv/Twist", "", false},
		{"geometry_msgs//Twist", "", false},
		{"/Twist", "", false},
		{"Twist", "", false},
		{"geometry_msgs.Twist", "", false},
		{"a/msg/b/c", "", false},
	} {
		got, ok := CatalogName(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("CatalogName(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
