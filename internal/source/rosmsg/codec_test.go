package rosmsg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Every catalog type with a ROS counterpart has a codec, and every field of the catalog type
// is carried: nothing the catalog can hold is lost on the way to or from ROS.
func TestCodecsCoverCatalogFields(t *testing.T) {
	for _, typ := range Types() {
		c, err := CodecFor(typ)
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		checkCovered(t, c.plan)
	}
}

func checkCovered(t *testing.T, p *plan) {
	t.Helper()
	used := map[protoreflect.Name]bool{}
	for _, s := range p.steps {
		if s.fd != nil {
			used[s.fd.Name()] = true
		}
		if s.sub != nil {
			checkCovered(t, s.sub)
		}
	}
	fields := p.md.Fields()
	for i := range fields.Len() {
		if !used[fields.Get(i).Name()] {
			t.Errorf("%s.%s has no ROS field in %s", p.md.FullName(), fields.Get(i).Name(), p.spec.Type)
		}
	}
}

// fillScript fills a rospy message of each type with distinct values (numbers counting up,
// arrays of three, fixed arrays full, seq 0 since the catalog drops it) and prints its
// serialisation in hex.
const fillScript = `
import sys, io, json, importlib, genpy
n = [0]
def nxt():
    n[0] += 1
    return n[0]
def value(t):
    base = t.split('[')[0]
    if t.endswith(']'):
        size = t[t.index('[')+1:-1]
        count = int(size) if size else 3
        if base in ('uint8', 'char', 'int8', 'byte'):
            return bytes((nxt() % 100) for _ in range(count))
        return [value(base) for _ in range(count)]
    if base == 'bool': return nxt() % 2 == 1
    if base in ('int8',): return (nxt() % 100) - 50
    if base in ('uint8', 'char', 'byte'): return nxt() % 200
    if base.startswith('int') or base.startswith('uint'): return nxt() * 7
    if base == 'float32': return nxt() + 0.5
    if base == 'float64': return nxt() + 0.25
    if base == 'string': return 's%d' % nxt()
    if base == 'time': return genpy.Time(nxt(), nxt())
    if base == 'duration': return genpy.Duration(nxt(), nxt())
    if base == 'Header': base = 'std_msgs/Header'
    pkg, name = base.split('/')
    m = getattr(importlib.import_module(pkg + '.msg'), name)()
    fill(m)
    return m
def fill(m):
    for slot, t in zip(m.__slots__, m._slot_types):
        setattr(m, slot, value(t))
    if hasattr(m, 'seq'): m.seq = 0
out = {}
for t in sys.argv[1:]:
    pkg, name = t.split('/')
    try:
        cls = getattr(importlib.import_module(pkg + '.msg'), name)
    except ImportError:
        continue
    m = cls()
    fill(m)
    b = io.BytesIO()
    m.serialize(b)
    out[t] = b.getvalue().hex()
print(json.dumps(out))
`

// Bytes rospy wrote decode into the catalog message and encode back to the same bytes, for
// every type: decoding uses all of them, so every field made the trip.
func TestRoundTripRospyBytes(t *testing.T) {
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", fillScript}, Types()...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	var samples map[string]string
	if err := json.Unmarshal(out, &samples); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, typ := range Types() {
		h, ok := samples[typ]
		if !ok {
			if !strings.HasPrefix(typ, "ackermann_msgs/") {
				t.Errorf("no rospy sample of %s", typ)
			}
			continue
		}
		t.Run(typ, func(t *testing.T) {
			data, _ := hex.DecodeString(h)
			c, err := CodecFor(typ)
			if err != nil {
				t.Fatal(err)
			}
			payload, err := c.ToCatalog(data)
			if err != nil {
				t.Fatal(err)
			}
			back, err := c.FromCatalog(payload)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, data) {
				t.Errorf("round trip differs:\n rospy %x\n ours  %x", data, back)
			}
			if _, err := msgs.PayloadToJSON(c.Catalog, payload); err != nil {
				t.Errorf("the catalog payload does not convert to JSON: %v", err)
			}
		})
	}
}

// Field by field for a few types, as a reader of the catalog sees them.
func TestDecodeFields(t *testing.T) {
	out, err := exec.Command("/usr/bin/python3", "-c", `
import io, genpy
from nav_msgs.msg import Odometry
from sensor_msgs.msg import LaserScan, PointField
m = Odometry()
m.header.seq = 9; m.header.stamp = genpy.Time(1700000000, 123); m.header.frame_id = 'odom'
m.child_frame_id = 'base_link'
m.pose.pose.position.x = 1.5; m.pose.pose.orientation.w = 1.0
m.pose.covariance = [float(i) for i in range(36)]
m.twist.twist.linear.x = 0.5; m.twist.twist.angular.z = -0.25
b = io.BytesIO(); m.serialize(b); print(b.getvalue().hex())
s = LaserScan(); s.angle_min = -1.5; s.range_max = 10; s.ranges = [1.0, 2.0, float('inf')]
b = io.BytesIO(); s.serialize(b); print(b.getvalue().hex())
`).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	lines := strings.Fields(string(out))
	odomBytes, _ := hex.DecodeString(lines[0])
	c, _ := CodecFor("nav_msgs/Odometry")
	m, err := c.Decode(odomBytes)
	if err != nil {
		t.Fatal(err)
	}
	odom := m.(*catalogpb.Odometry)
	if odom.Header.Stamp.Sec != 1700000000 || odom.Header.Stamp.Nanosec != 123 || odom.Header.FrameId != "odom" ||
		odom.ChildFrameId != "base_link" || odom.Pose.Pose.Position.X != 1.5 || odom.Pose.Pose.Orientation.W != 1 ||
		len(odom.Pose.Covariance) != 36 || odom.Pose.Covariance[35] != 35 ||
		odom.Twist.Twist.Linear.X != 0.5 || odom.Twist.Twist.Angular.Z != -0.25 || len(odom.Twist.Covariance) != 36 {
		t.Errorf("odometry %v", odom)
	}
	scanBytes, _ := hex.DecodeString(lines[1])
	c, _ = CodecFor("sensor_msgs/LaserScan")
	m, err = c.Decode(scanBytes)
	if err != nil {
		t.Fatal(err)
	}
	scan := m.(*catalogpb.LaserScan)
	if scan.AngleMin != -1.5 || scan.RangeMax != 10 || len(scan.Ranges) != 3 || scan.Ranges[1] != 2 || len(scan.Intensities) != 0 {
		t.Errorf("scan %v", scan)
	}
}

// A message made in Go reaches rospy with its values.
func TestEncodeReadByRospy(t *testing.T) {
	c, _ := CodecFor("geometry_msgs/Twist")
	data, err := c.Encode(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.7}, Angular: &catalogpb.Vector3{Z: -1.25}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", "-c", `
import sys
from geometry_msgs.msg import Twist
m = Twist(); m.deserialize(bytes.fromhex(sys.argv[1])); print(m.linear.x, m.linear.y, m.angular.z)
`, hex.EncodeToString(data)).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "0.7 0.0 -1.25" {
		t.Errorf("rospy read %q", got)
	}
}

func TestEncodeRefuses(t *testing.T) {
	tests := []struct {
		typ string
		m   proto.Message
	}{
		{"sensor_msgs/Image", &catalogpb.Image{IsBigendian: 256}},
		{"geometry_msgs/PoseWithCovariance", &catalogpb.PoseWithCovariance{Covariance: []float64{1, 2}}},
		{"sensor_msgs/NavSatFix", &catalogpb.NavSatFix{Status: &catalogpb.NavSatStatus{Status: 200}}},
		{"geometry_msgs/Twist", &catalogpb.Pose{}},
	}
	for _, tt := range tests {
		c, _ := CodecFor(tt.typ)
		if _, err := c.Encode(tt.m); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s %v: %v", tt.typ, tt.m, err)
		}
	}
	// Unset fixed arrays are zeros, as in ROS.
	c, _ := CodecFor("geometry_msgs/PoseWithCovariance")
	data, err := c.Encode(&catalogpb.PoseWithCovariance{})
	if err != nil || len(data) != 7*8+36*8 {
		t.Errorf("empty covariance: %d bytes, %v", len(data), err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	c, _ := CodecFor("sensor_msgs/LaserScan")
	good, _ := c.Encode(&catalogpb.LaserScan{Ranges: []float32{1, 2}})
	tests := map[string][]byte{
		"empty":          {},
		"short":          good[:len(good)-1],
		"trailing bytes": append(append([]byte{}, good...), 0),
		"huge count":     append(append([]byte{}, good[:len(good)-16]...), 0xff, 0xff, 0xff, 0x7f),
	}
	for name, data := range tests {
		if _, err := c.Decode(data); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSetSeq(t *testing.T) {
	spec, _ := Lookup("geometry_msgs/PoseStamped")
	c, _ := CodecFor("geometry_msgs/PoseStamped")
	data, _ := c.Encode(&catalogpb.PoseStamped{})
	SetSeq(spec, data, 7)
	if data[0] != 7 {
		t.Errorf("seq not set: %x", data[:4])
	}
	twist, _ := Lookup("geometry_msgs/Twist")
	zero := make([]byte, 48)
	SetSeq(twist, zero, 7)
	if zero[0] != 0 {
		t.Error("seq written into a message without a header")
	}
}

func FuzzDecode(f *testing.F) {
	for _, typ := range Types() {
		c, _ := CodecFor(typ)
		m := mustNew(typ)
		data, _ := c.Encode(m)
		f.Add(typ, data)
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		c, err := CodecFor(typ)
		if err != nil {
			return
		}
		payload, err := c.ToCatalog(data)
		if err != nil {
			return
		}
		// What decodes encodes, and the encoding decodes to the same catalog message.
		back, err := c.FromCatalog(payload)
		if err != nil {
			t.Fatalf("%s: %x decoded but does not encode: %v", typ, data, err)
		}
		again, err := c.ToCatalog(back)
		if err != nil || !bytes.Equal(again, payload) {
			t.Fatalf("%s: %x -> %x -> %x, %v", typ, data, back, again, err)
		}
	})
}

func mustNew(typ string) proto.Message {
	m, err := msgs.New(CatalogType(typ))
	if err != nil {
		panic(err)
	}
	return m
}
