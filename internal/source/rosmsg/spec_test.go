package rosmsg

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// rospyFacts runs /usr/bin/python3 with the Debian ROS message packages and returns, for each
// type, what rospy's generated class says: its md5sum and full definition text. Types rospy
// does not ship (ackermann_msgs is not packaged in Debian) are left out.
func rospyFacts(t *testing.T, types []string) map[string]struct{ MD5, FullText string } {
	t.Helper()
	script := `
import json, sys, importlib
out = {}
for t in sys.argv[1:]:
    pkg, name = t.split('/')
    try:
        mod = importlib.import_module(pkg + '.msg')
    except ImportError:
        continue
    cls = getattr(mod, name)
    out[t] = {'MD5': cls._md5sum, 'FullText': cls._full_text}
print(json.dumps(out))
`
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", script}, types...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 with rospy messages (Debian python3-sensor-msgs, python3-geometry-msgs, python3-nav-msgs, python3-tf2-msgs): %v\n%s", err, out)
	}
	var facts map[string]struct{ MD5, FullText string }
	if err := json.Unmarshal(out, &facts); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return facts
}

// Every type's md5sum is rospy's. Parsing rospy's own full text (comments and all) gives the
// same md5sum too, which tests the parser on definitions as ROS writes them.
func TestMD5MatchesRospy(t *testing.T) {
	types := Types()
	facts := rospyFacts(t, types)
	for _, typ := range types {
		spec, ok := Lookup(typ)
		if !ok {
			t.Fatalf("%s has no definition", typ)
		}
		fact, ok := facts[typ]
		if !ok {
			if !strings.HasPrefix(typ, "ackermann_msgs/") {
				t.Errorf("rospy does not know %s", typ)
			}
			continue
		}
		if spec.MD5 != fact.MD5 {
			t.Errorf("%s: md5 %s, rospy %s", typ, spec.MD5, fact.MD5)
		}
		parsed, err := ParseFullText(typ, fact.FullText)
		if err != nil {
			t.Errorf("%s: parsing rospy's full text: %v", typ, err)
			continue
		}
		if parsed.MD5 != fact.MD5 {
			t.Errorf("%s: md5 of rospy's full text %s, rospy %s", typ, parsed.MD5, fact.MD5)
		}
	}
}

// ackermann_msgs is not in Debian: its md5sums are checked against genmsg itself run on our
// definitions, and against the values the ackermann_msgs package publishes.
func TestMD5AckermannWithGenmsg(t *testing.T) {
	script := `
import sys, genmsg, genmsg.msg_loader as ml, genmsg.gentools as gt
ctx = ml.MsgContext.create_default()
ml.load_msg_from_string(ctx, sys.argv[1], 'std_msgs/Header')
ml.load_msg_from_string(ctx, sys.argv[2], 'ackermann_msgs/AckermannDrive')
spec = ml.load_msg_from_string(ctx, sys.argv[3], 'ackermann_msgs/AckermannDriveStamped')
ml.load_depends(ctx, spec, {})
print(gt.compute_md5(ctx, ctx.get_registered('ackermann_msgs/AckermannDrive')), gt.compute_md5(ctx, spec))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, definitions["std_msgs/Header"],
		definitions["ackermann_msgs/AckermannDrive"], definitions["ackermann_msgs/AckermannDriveStamped"]).CombinedOutput()
	if err != nil {
		t.Fatalf("genmsg: %v\n%s", err, out)
	}
	drive, _ := Lookup("ackermann_msgs/AckermannDrive")
	stamped, _ := Lookup("ackermann_msgs/AckermannDriveStamped")
	got := drive.MD5 + " " + stamped.MD5
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("ours %s, genmsg %s", got, want)
	}
	const published = "3512e91b48d69674a0e86fadf1ea8231 1fd5d7f58889cefd44d29f6653240d0c"
	if got != published {
		t.Errorf("ours %s, ackermann_msgs publishes %s", got, published)
	}
}

func TestFullText(t *testing.T) {
	spec, _ := Lookup("nav_msgs/Odometry")
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: "
	parts := strings.Split(spec.FullText, sep)
	var order []string
	for _, p := range parts[1:] {
		name, _, _ := strings.Cut(p, "\n")
		order = append(order, name)
	}
	want := []string{"std_msgs/Header", "geometry_msgs/PoseWithCovariance", "geometry_msgs/Pose",
		"geometry_msgs/Point", "geometry_msgs/Quaternion", "geometry_msgs/TwistWithCovariance",
		"geometry_msgs/Twist", "geometry_msgs/Vector3"}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("embedded types %v, want %v", order, want)
	}
	if !strings.HasPrefix(spec.FullText, definitions["nav_msgs/Odometry"]+sep) || strings.HasSuffix(spec.FullText, "\n") {
		t.Errorf("full text shape: %q", spec.FullText)
	}
}

func TestParseErrors(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	tests := map[string]string{
		"unknown type":    "foo_msgs/Bar x",
		"bad field":       "float64",
		"bad array":       "float64[x] a",
		"time constant":   "time T=1",
		"empty constant":  "int32 A=",
		"bad field name":  "int32 a-b 5",
		"huge fixed size": "uint8[99999999] a",
		"bad bound":       "int32[<=0] a",
		"bound on int":    "int32<=5 a",
		"wstring":         "wstring w",
		"type path":       "a/b/c/d x",
	}
	for name, text := range tests {
		if _, err := Parse("test_msgs/T", text, none); err == nil {
			t.Errorf("%s: parsed %q", name, text)
		}
	}
	self := func(string) (string, bool) { return "test_msgs/T child", true }
	if _, err := Parse("test_msgs/T", "T child", self); err == nil {
		t.Error("a type that embeds itself parsed")
	}
}

// ROS 2 definitions add bounded sequences and strings, default values and package/msg/Name
// type references.
func TestParseROS2Syntax(t *testing.T) {
	resolve := func(typ string) (string, bool) { return "int32 sec\nuint32 nanosec", typ == "builtin_interfaces/Time" }
	spec, err := Parse("test_msgs/T", "builtin_interfaces/msg/Time stamp\nint32[<=5] few\nstring<=8 name \"a b\"\nfloat64 gain 0.5\nuint8[4] quad", resolve)
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Name: "stamp", Type: "builtin_interfaces/Time", Len: -1},
		{Name: "few", Type: "int32", Array: true, Len: -1, Bound: 5},
		{Name: "name", Type: "string", Len: -1, StringBound: 8, Default: `"a b"`},
		{Name: "gain", Type: "float64", Len: -1, Default: "0.5"},
		{Name: "quad", Type: "uint8", Array: true, Len: 4},
	}
	if len(spec.Fields) != len(want) {
		t.Fatalf("fields %+v", spec.Fields)
	}
	for i, w := range want {
		g := spec.Fields[i]
		if g.Name != w.Name || g.Type != w.Type || g.Array != w.Array || g.Len != w.Len || g.Bound != w.Bound || g.StringBound != w.StringBound || g.Default != w.Default {
			t.Errorf("field %d: %+v, want %+v", i, g, w)
		}
	}
	if spec.Fields[0].Spec == nil || spec.Fields[0].Spec.Type != "builtin_interfaces/Time" {
		t.Errorf("stamp not resolved: %+v", spec.Fields[0])
	}
}

func TestConstantsAndComments(t *testing.T) {
	spec, err := Parse("test_msgs/T", "# comment\nstring S = a # not a comment\nint8 N = -1 # comment\nfloat32[] v # trailing\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Constants) != 2 || spec.Constants[0].Value != "a # not a comment" || spec.Constants[1].Value != "-1" {
		t.Errorf("constants %+v", spec.Constants)
	}
	if len(spec.Fields) != 1 || spec.Fields[0].Name != "v" || !spec.Fields[0].Array || spec.Fields[0].Len != -1 {
		t.Errorf("fields %+v", spec.Fields)
	}
}
