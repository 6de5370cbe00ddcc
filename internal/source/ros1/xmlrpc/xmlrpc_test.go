package xmlrpc

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any // nil: same as in
	}{
		{"int", 42, nil},
		{"negative int", -7, nil},
		{"int32", int32(5), 5},
		{"bool true", true, nil},
		{"bool false", false, nil},
		{"string with markup", `a<b>&"c"`, nil},
		{"unicode", "héllo ✓", nil},
		{"empty string", "", nil},
		{"double", 1.5, nil},
		{"base64", []byte{0, 1, 2, 255}, nil},
		{"time", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), nil},
		{"nil", nil, nil},
		{"array", []any{1, "a", []any{true}}, nil},
		{"string slice", []string{"TCPROS"}, []any{"TCPROS"}},
		{"empty array", []any{}, nil},
		{"struct", map[string]any{"a": 1, "b": []any{"x"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := EncodeResponse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeResponse(strings.NewReader(string(doc)))
			if err != nil {
				t.Fatalf("decode %s: %v", doc, err)
			}
			want := tt.want
			if want == nil {
				want = tt.in
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, want %#v", got, want)
			}
		})
	}
}

func TestEncodeRefuses(t *testing.T) {
	for name, v := range map[string]any{
		"NaN":               math.NaN(),
		"int beyond i4":     int(math.MaxInt32) + 1,
		"control character": "a\x00b",
		"unknown type":      struct{}{},
	} {
		if _, err := EncodeResponse(v); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

func TestCallRoundTrip(t *testing.T) {
	doc, err := EncodeCall("registerSubscriber", "/fleetgate", "/scan", "sensor_msgs/LaserScan", "http://127.0.0.1:1234/")
	if err != nil {
		t.Fatal(err)
	}
	method, params, err := DecodeCall(strings.NewReader(string(doc)))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"/fleetgate", "/scan", "sensor_msgs/LaserScan", "http://127.0.0.1:1234/"}
	if method != "registerSubscriber" || !reflect.DeepEqual(params, want) {
		t.Errorf("got %s %v", method, params)
	}
}

// Python's xmlrpc (rosmaster, rospy) writes <int>, untyped strings and whitespace between
// elements; these are documents as it sends them.
func TestDecodePythonForms(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want any
	}{
		{"registerSubscriber answer", `<?xml version='1.0'?>
<methodResponse>
<params>
<param>
<value><array><data>
<value><int>1</int></value>
<value><string>Subscribed to [/scan]</string></value>
<value><array><data>
<value><string>http://127.0.0.1:40215/</string></value>
</data></array></value>
</data></array></value>
</param>
</params>
</methodResponse>
`, []any{1, "Subscribed to [/scan]", []any{"http://127.0.0.1:40215/"}}},
		{"untyped string", `<methodResponse><params><param><value>plain</value></param></params></methodResponse>`, "plain"},
		{"untyped empty", `<methodResponse><params><param><value></value></param></params></methodResponse>`, ""},
		{"i8 and nil", `<methodResponse><params><param><value><array><data><value><i8>5000000000</i8></value><value><nil/></value></data></array></value></param></params></methodResponse>`, []any{5000000000, nil}},
		{"struct", `<methodResponse><params><param><value><struct><member><name>k</name><value><boolean>1</boolean></value></member></struct></value></param></params></methodResponse>`, map[string]any{"k": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeResponse(strings.NewReader(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeFault(t *testing.T) {
	doc := EncodeFault(&Fault{Code: 3, Message: "no such topic"})
	_, err := DecodeResponse(strings.NewReader(string(doc)))
	var f *Fault
	if !errors.As(err, &f) || f.Code != 3 || f.Message != "no such topic" {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeMalformed(t *testing.T) {
	deep := strings.Repeat("<value><array><data>", MaxDepth+2) + strings.Repeat("</data></array></value>", MaxDepth+2)
	huge := `<methodResponse><params><param><value><string>` + strings.Repeat("a", MaxMessage) + `</string></value></param></params></methodResponse>`
	tests := map[string]string{
		"empty":              "",
		"not xml":            "hello",
		"wrong root":         "<methodCall><methodName>x</methodName></methodCall>",
		"no params":          "<methodResponse></methodResponse>",
		"two params":         "<methodResponse><params><param><value>a</value></param><param><value>b</value></param></params></methodResponse>",
		"bad int":            "<methodResponse><params><param><value><int>x</int></value></param></params></methodResponse>",
		"int beyond i4":      "<methodResponse><params><param><value><i4>4294967296</i4></value></param></params></methodResponse>",
		"bad boolean":        "<methodResponse><params><param><value><boolean>yes</boolean></value></param></params></methodResponse>",
		"bad base64":         "<methodResponse><params><param><value><base64>!!</base64></value></param></params></methodResponse>",
		"unknown type":       "<methodResponse><params><param><value><float>1</float></value></param></params></methodResponse>",
		"nested in string":   "<methodResponse><params><param><value><string><b>x</b></string></value></param></params></methodResponse>",
		"unclosed":           "<methodResponse><params><param><value><array><data>",
		"too deep":           "<methodResponse><params><param>" + deep + "</param></params></methodResponse>",
		"too large":          huge,
		"member no value":    "<methodResponse><params><param><value><struct><member><name>a</name></member></struct></value></param></params></methodResponse>",
		"array without data": "<methodResponse><params><param><value><array></array></value></param></params></methodResponse>",
	}
	for name, doc := range tests {
		t.Run(name, func(t *testing.T) {
			if v, err := DecodeResponse(strings.NewReader(doc)); !errors.Is(err, ErrMalformed) {
				t.Errorf("got %#v, %v; want ErrMalformed", v, err)
			}
		})
	}
}

func TestHandlerAndClient(t *testing.T) {
	h := &Handler{Methods: map[string]Method{
		"getPid": func(ctx context.Context, params []any) (any, error) {
			return []any{1, "", 4242}, nil
		},
		"fail": func(ctx context.Context, params []any) (any, error) {
			return nil, errors.New("broken")
		},
	}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var c Client
	ctx := context.Background()
	got, err := c.Call(ctx, srv.URL, "getPid", "/caller")
	if err != nil || !reflect.DeepEqual(got, []any{1, "", 4242}) {
		t.Fatalf("getPid: %#v, %v", got, err)
	}
	var f *Fault
	if _, err := c.Call(ctx, srv.URL, "fail"); !errors.As(err, &f) || !strings.Contains(f.Message, "broken") {
		t.Errorf("fail: %v", err)
	}
	if _, err := c.Call(ctx, srv.URL, "nope"); !errors.As(err, &f) || f.Code != -32601 {
		t.Errorf("unknown method: %v", err)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, v := range []any{1, "a", []any{1, []any{"x", map[string]any{"k": 1.5}}}, []byte("zz"), nil} {
		doc, _ := EncodeResponse(v)
		f.Add(doc)
	}
	f.Add(EncodeFault(&Fault{Code: 1, Message: "m"}))
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := DecodeResponse(strings.NewReader(string(doc)))
		if err != nil {
			return
		}
		// Whatever decodes encodes again (values of the kinds above only), and decodes the same.
		again, err := EncodeResponse(v)
		if err != nil {
			if strings.Contains(err.Error(), "control character") || strings.Contains(err.Error(), "does not fit i4") {
				return // accepted on input (i8, raw text), not produced on output
			}
			t.Fatalf("re-encoding %#v: %v", v, err)
		}
		v2, err := DecodeResponse(strings.NewReader(string(again)))
		if err != nil || !reflect.DeepEqual(v, v2) {
			t.Fatalf("round trip: %#v -> %s -> %#v, %v", v, again, v2, err)
		}
	})
}

func FuzzDecodeCall(f *testing.F) {
	doc, _ := EncodeCall("publisherUpdate", "/master", "/scan", []any{"http://a:1/"})
	f.Add(doc)
	f.Fuzz(func(t *testing.T, doc []byte) {
		DecodeCall(strings.NewReader(string(doc)))
	})
}
