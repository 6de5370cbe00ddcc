package rosmsg

import (
	"encoding/json"
	"strings"
	"testing"
)

// rosgraph_msgs/Log as a ROS 1 publisher sends it in its connection header.
const logFullText = `byte DEBUG=1
byte INFO=2
Header header
byte level
string name
string msg
string file
string function
uint32 line
string[] topics
` + "================================================================================\n" + `MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id`

// The template of a type known only from its definition: every field, nested messages
// expanded, arrays by their kind, constants left out, valid JSON in the definition's order.
func TestEmptyJSONFromDefinition(t *testing.T) {
	spec, err := ParseFullText("rosgraph_msgs/Log", logFullText)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"header":{"seq":0,"stamp":{"secs":0,"nsecs":0},"frame_id":""},"level":0,"name":"","msg":"","file":"","function":"","line":0,"topics":[]}`
	if got := string(spec.EmptyJSON()); got != want {
		t.Errorf("template\n%s\nwant\n%s", got, want)
	}

	spec, err = Parse("test_msgs/Mixed", "bool on\nfloat64[3] xyz\nduration d\nstd_msgs/Header[2] h\nuint8[] data\nint32 K=5", func(typ string) (string, bool) {
		return "uint32 seq\ntime stamp\nstring frame_id", typ == "std_msgs/Header"
	})
	if err != nil {
		t.Fatal(err)
	}
	got := spec.EmptyJSON()
	if !json.Valid(got) || strings.Contains(string(got), "K") {
		t.Fatalf("template %s", got)
	}
	want = `{"on":false,"xyz":[0,0,0],"d":{"secs":0,"nsecs":0},"h":[{"seq":0,"stamp":{"secs":0,"nsecs":0},"frame_id":""},{"seq":0,"stamp":{"secs":0,"nsecs":0},"frame_id":""}],"data":[]}`
	if string(got) != want {
		t.Errorf("template\n%s\nwant\n%s", got, want)
	}
}
