// Package xmlrpc is the XML-RPC the ROS 1 master and node APIs speak: encoding calls and
// responses, a decoder bounded in size and depth (a peer on the robot network is not trusted
// to be well behaved), an HTTP client and a server handler.
//
// Values are Go values: int (i4), bool, string, float64 (double), []byte (base64),
// time.Time (dateTime.iso8601), []any (array), map[string]any (struct) and nil (nil).
package xmlrpc

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Bounds of what Decode accepts.
const (
	// MaxMessage bounds a call or response body: getSystemState of a large ROS graph is a few
	// hundred kilobytes.
	MaxMessage = 16 << 20
	// MaxDepth bounds the nesting of arrays and structs; ROS uses three levels.
	MaxDepth = 32
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed XML-RPC")

// Fault is an XML-RPC fault response.
type Fault struct {
	Code    int
	Message string
}

func (f *Fault) Error() string { return fmt.Sprintf("XML-RPC fault %d: %s", f.Code, f.Message) }

const dateTimeLayout = "20060102T15:04:05"

// EncodeCall writes a methodCall document.
func EncodeCall(method string, params ...any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><methodCall><methodName>`)
	xml.EscapeText(&b, []byte(method))
	b.WriteString(`</methodName><params>`)
	for _, p := range params {
		b.WriteString("<param>")
		if err := encodeValue(&b, p, 0); err != nil {
			return nil, err
		}
		b.WriteString("</param>")
	}
	b.WriteString("</params></methodCall>")
	return b.Bytes(), nil
}

// EncodeResponse writes a methodResponse document carrying v.
func EncodeResponse(v any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><methodResponse><params><param>`)
	if err := encodeValue(&b, v, 0); err != nil {
		return nil, err
	}
	b.WriteString("</param></params></methodResponse>")
	return b.Bytes(), nil
}

// EncodeFault writes a fault methodResponse.
func EncodeFault(f *Fault) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><methodResponse><fault>`)
	// A struct of an int and a string cannot fail to encode.
	_ = encodeValue(&b, map[string]any{"faultCode": f.Code, "faultString": f.Message}, 0)
	b.WriteString("</fault></methodResponse>")
	return b.Bytes()
}

func encodeValue(b *bytes.Buffer, v any, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("xmlrpc: value nested deeper than %d", MaxDepth)
	}
	switch n := v.(type) {
	case int32:
		v = int(n)
	case int64:
		v = int(n)
	}
	b.WriteString("<value>")
	switch v := v.(type) {
	case nil:
		b.WriteString("<nil/>")
	case int:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("xmlrpc: int %d does not fit i4", v)
		}
		b.WriteString("<i4>")
		b.WriteString(strconv.Itoa(v))
		b.WriteString("</i4>")
	case bool:
		if v {
			b.WriteString("<boolean>1</boolean>")
		} else {
			b.WriteString("<boolean>0</boolean>")
		}
	case string:
		b.WriteString("<string>")
		if err := escapeString(b, v); err != nil {
			return err
		}
		b.WriteString("</string>")
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("xmlrpc: %v has no XML-RPC form", v)
		}
		b.WriteString("<double>")
		b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		b.WriteString("</double>")
	case []byte:
		b.WriteString("<base64>")
		b.WriteString(base64.StdEncoding.EncodeToString(v))
		b.WriteString("</base64>")
	case time.Time:
		b.WriteString("<dateTime.iso8601>")
		b.WriteString(v.Format(dateTimeLayout))
		b.WriteString("</dateTime.iso8601>")
	case []string:
		b.WriteString("<array><data>")
		for _, e := range v {
			if err := encodeValue(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array>")
	case []any:
		b.WriteString("<array><data>")
		for _, e := range v {
			if err := encodeValue(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array>")
	case map[string]any:
		b.WriteString("<struct>")
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys) // stable output
		for _, k := range keys {
			b.WriteString("<member><name>")
			if err := escapeString(b, k); err != nil {
				return err
			}
			b.WriteString("</name>")
			if err := encodeValue(b, v[k], depth+1); err != nil {
				return err
			}
			b.WriteString("</member>")
		}
		b.WriteString("</struct>")
	default:
		return fmt.Errorf("xmlrpc: cannot encode %T", v)
	}
	b.WriteString("</value>")
	return nil
}

// escapeString writes s as XML text. XML 1.0 cannot carry most control characters at all, so
// a string with one is refused rather than sent in a form the peer would reject.
func escapeString(b *bytes.Buffer, s string) error {
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			return fmt.Errorf("xmlrpc: string has control character %U", r)
		}
	}
	return xml.EscapeText(b, []byte(s))
}

// DecodeCall reads a methodCall document: the method name and its parameters.
func DecodeCall(r io.Reader) (string, []any, error) {
	d := newDecoder(r)
	if err := d.open("methodCall"); err != nil {
		return "", nil, err
	}
	var method string
	var params []any
	for {
		tok, err := d.next()
		if err != nil {
			return "", nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "methodName":
				if method, err = d.text(t.Name.Local); err != nil {
					return "", nil, err
				}
			case "params":
				if params, err = d.params(); err != nil {
					return "", nil, err
				}
			default:
				return "", nil, d.errorf("unexpected <%s> in methodCall", t.Name.Local)
			}
		case xml.EndElement:
			if method == "" {
				return "", nil, d.errorf("methodCall without methodName")
			}
			return method, params, nil
		}
	}
}

// DecodeResponse reads a methodResponse document: its one value, or a *Fault.
func DecodeResponse(r io.Reader) (any, error) {
	d := newDecoder(r)
	if err := d.open("methodResponse"); err != nil {
		return nil, err
	}
	var result any
	var got bool
	for {
		tok, err := d.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "params":
				params, err := d.params()
				if err != nil {
					return nil, err
				}
				if len(params) != 1 {
					return nil, d.errorf("methodResponse with %d params, want 1", len(params))
				}
				result, got = params[0], true
			case "fault":
				v, err := d.valueIn("fault")
				if err != nil {
					return nil, err
				}
				return nil, faultOf(v)
			default:
				return nil, d.errorf("unexpected <%s> in methodResponse", t.Name.Local)
			}
		case xml.EndElement:
			if !got {
				return nil, d.errorf("methodResponse without params")
			}
			return result, nil
		}
	}
}

func faultOf(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return &Fault{Code: -1, Message: fmt.Sprintf("malformed fault %v", v)}
	}
	f := &Fault{}
	if c, ok := m["faultCode"].(int); ok {
		f.Code = c
	}
	if s, ok := m["faultString"].(string); ok {
		f.Message = s
	}
	return f
}

type decoder struct {
	x     *xml.Decoder
	depth int
}

func newDecoder(r io.Reader) *decoder {
	x := xml.NewDecoder(io.LimitReader(r, MaxMessage+1))
	x.Strict = true
	// A document naming another charset is read as UTF-8; ROS sends UTF-8 or ASCII only.
	x.CharsetReader = func(_ string, input io.Reader) (io.Reader, error) { return input, nil }
	return &decoder{x: x}
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// next returns the next start or end element, skipping text between elements, comments,
// processing instructions and directives. A document over MaxMessage fails here.
func (d *decoder) next() (xml.Token, error) {
	for {
		if d.x.InputOffset() > MaxMessage {
			return nil, d.errorf("document over %d bytes", MaxMessage)
		}
		tok, err := d.x.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, d.errorf("unexpected end of document")
			}
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t, nil
		case xml.EndElement:
			return t, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, d.errorf("unexpected text %q", truncate(string(t)))
			}
		}
	}
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// open reads up to the start of the root element, which must be name.
func (d *decoder) open(name string) error {
	tok, err := d.next()
	if err != nil {
		return err
	}
	if t, ok := tok.(xml.StartElement); !ok || t.Name.Local != name {
		return d.errorf("document is not a %s", name)
	}
	return nil
}

// text reads the character data of the element name up to its end; nested elements are an error.
func (d *decoder) text(name string) (string, error) {
	var sb strings.Builder
	for {
		if d.x.InputOffset() > MaxMessage {
			return "", d.errorf("document over %d bytes", MaxMessage)
		}
		tok, err := d.x.Token()
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			return sb.String(), nil
		case xml.StartElement:
			return "", d.errorf("unexpected <%s> in <%s>", t.Name.Local, name)
		}
	}
}

// params reads <param><value>...</value></param>... up to </params>.
func (d *decoder) params() ([]any, error) {
	var out []any
	for {
		tok, err := d.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "param" {
				return nil, d.errorf("unexpected <%s> in params", t.Name.Local)
			}
			v, err := d.valueIn("param")
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		case xml.EndElement:
			return out, nil
		}
	}
}

// valueIn reads one <value> and the end of its enclosing element.
func (d *decoder) valueIn(parent string) (any, error) {
	tok, err := d.next()
	if err != nil {
		return nil, err
	}
	t, ok := tok.(xml.StartElement)
	if !ok || t.Name.Local != "value" {
		return nil, d.errorf("<%s> without a value", parent)
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if tok, err = d.next(); err != nil {
		return nil, err
	}
	if _, ok := tok.(xml.EndElement); !ok {
		return nil, d.errorf("<%s> with more than one value", parent)
	}
	return v, nil
}

// value reads the content of a <value> element whose start was read, up to its end.
func (d *decoder) value() (any, error) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > MaxDepth {
		return nil, d.errorf("values nested deeper than %d", MaxDepth)
	}
	var text strings.Builder
	for {
		if d.x.InputOffset() > MaxMessage {
			return nil, d.errorf("document over %d bytes", MaxMessage)
		}
		tok, err := d.x.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			return text.String(), nil // a value without a type element is a string
		case xml.StartElement:
			if strings.TrimSpace(text.String()) != "" {
				return nil, d.errorf("text beside <%s> in a value", t.Name.Local)
			}
			v, err := d.typed(t.Name.Local)
			if err != nil {
				return nil, err
			}
			if tok, err = d.next(); err != nil {
				return nil, err
			}
			if _, ok := tok.(xml.EndElement); !ok {
				return nil, d.errorf("value with more than one element")
			}
			return v, nil
		}
	}
}

func (d *decoder) typed(kind string) (any, error) {
	switch kind {
	case "array":
		return d.array()
	case "struct":
		return d.structure()
	case "nil":
		if _, err := d.text(kind); err != nil {
			return nil, err
		}
		return nil, nil
	}
	s, err := d.text(kind)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "string":
		return s, nil
	case "i4", "int", "i8":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || (kind != "i8" && (n < math.MinInt32 || n > math.MaxInt32)) {
			return nil, d.errorf("bad <%s> %q", kind, truncate(s))
		}
		return int(n), nil
	case "boolean":
		switch strings.TrimSpace(s) {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
		return nil, d.errorf("bad boolean %q", truncate(s))
	case "double":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, d.errorf("bad double %q", truncate(s))
		}
		return f, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, d.errorf("bad base64")
		}
		return b, nil
	case "dateTime.iso8601":
		t, err := time.Parse(dateTimeLayout, strings.TrimSpace(s))
		if err != nil {
			return nil, d.errorf("bad dateTime %q", truncate(s))
		}
		return t, nil
	}
	return nil, d.errorf("unknown value type <%s>", kind)
}

func (d *decoder) array() ([]any, error) {
	tok, err := d.next()
	if err != nil {
		return nil, err
	}
	if t, ok := tok.(xml.StartElement); !ok || t.Name.Local != "data" {
		return nil, d.errorf("array without data")
	}
	out := []any{}
	for {
		tok, err := d.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "value" {
				return nil, d.errorf("unexpected <%s> in array", t.Name.Local)
			}
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		case xml.EndElement: // </data>
			if tok, err = d.next(); err != nil {
				return nil, err
			}
			if _, ok := tok.(xml.EndElement); !ok { // </array>
				return nil, d.errorf("array with more than data")
			}
			return out, nil
		}
	}
}

func (d *decoder) structure() (map[string]any, error) {
	out := map[string]any{}
	for {
		tok, err := d.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "member" {
				return nil, d.errorf("unexpected <%s> in struct", t.Name.Local)
			}
			name, v, err := d.member()
			if err != nil {
				return nil, err
			}
			out[name] = v
		case xml.EndElement:
			return out, nil
		}
	}
}

func (d *decoder) member() (string, any, error) {
	var name string
	var v any
	var hasName, hasValue bool
	for {
		tok, err := d.next()
		if err != nil {
			return "", nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "name" && !hasName:
				if name, err = d.text("name"); err != nil {
					return "", nil, err
				}
				hasName = true
			case t.Name.Local == "value" && !hasValue:
				if v, err = d.value(); err != nil {
					return "", nil, err
				}
				hasValue = true
			default:
				return "", nil, d.errorf("unexpected <%s> in member", t.Name.Local)
			}
		case xml.EndElement:
			if !hasName || !hasValue {
				return "", nil, d.errorf("member without name or value")
			}
			return name, v, nil
		}
	}
}
