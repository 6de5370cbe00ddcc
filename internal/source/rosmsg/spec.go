// Package rosmsg knows ROS message types: their definitions (.msg text, in the syntax of ROS 1
// and ROS 2), the md5sum and full definition a ROS 1 connection header carries (computed as
// genmsg computes them), and the codecs between the message catalog's protobuf types and the
// two wire formats: ROS 1 serialisation, and the CDR (XCDR1, with its encapsulation header)
// that ROS 2 sends over DDS. Any transport of ROS messages shares it.
package rosmsg

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Spec is a parsed message definition.
type Spec struct {
	Type      string // package/Name
	Text      string // the definition as given
	Constants []Constant
	Fields    []Field
	MD5       string // the md5sum of the connection header
	FullText  string // message_definition: Text, then every type it embeds
}

// Constant is a constant declaration; it takes no room on the wire.
type Constant struct {
	Type, Name, Value string
}

// Field is one field of a message.
type Field struct {
	Name     string
	Type     string // a builtin (float32, time, ...) or a message type package/Name
	TypeText string // the type as written, with its array suffix ("float64[36]")
	Array    bool
	Len      int   // fixed array length; -1 for a variable-length array
	Spec     *Spec // the field's message type; nil for builtins
	// ROS 2 only: Bound is the most elements a bounded sequence ("int32[<=5]") takes, and
	// StringBound the longest a bounded string ("string<=8") is; 0 for no bound. Default is
	// the default value as written ("int32 x 5"): it takes no room on the wire.
	Bound, StringBound int
	Default            string
}

// builtinSize is the wire size of each builtin (0: variable, string).
var builtinSize = map[string]int{
	"bool": 1, "int8": 1, "uint8": 1, "byte": 1, "char": 1,
	"int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "float32": 4,
	"int64": 8, "uint64": 8, "float64": 8, "time": 8, "duration": 8,
	"string": 0,
}

func isBuiltin(t string) bool { _, ok := builtinSize[t]; return ok }

// minSize is the least number of bytes a value of the field's element type takes, so that a
// count announced on the wire can be checked against the bytes left before allocating.
func (f *Field) minSize() int {
	if f.Spec != nil {
		return f.Spec.minSize()
	}
	if n := builtinSize[f.Type]; n > 0 {
		return n
	}
	return 4 // a string's length
}

func (s *Spec) minSize() int {
	n := 0
	for i := range s.Fields {
		f := &s.Fields[i]
		switch {
		case f.Array && f.Len < 0:
			n += 4
		case f.Array:
			n += f.Len * f.minSize()
		default:
			n += f.minSize()
		}
	}
	return n
}

// HasHeader reports whether the message starts with a std_msgs/Header, whose seq a publisher
// fills in.
func (s *Spec) HasHeader() bool {
	return len(s.Fields) > 0 && s.Fields[0].Type == "std_msgs/Header" && !s.Fields[0].Array
}

// Resolver finds the definition text of a message type.
type Resolver func(typ string) (text string, ok bool)

// Parse parses the definition text of typ, resolving the types it embeds through resolve.
func Parse(typ, text string, resolve Resolver) (*Spec, error) {
	return parse(typ, text, resolve, map[string]*Spec{}, map[string]bool{})
}

func parse(typ, text string, resolve Resolver, done map[string]*Spec, parsing map[string]bool) (*Spec, error) {
	if s, ok := done[typ]; ok {
		return s, nil
	}
	if parsing[typ] {
		return nil, fmt.Errorf("%s embeds itself", typ)
	}
	parsing[typ] = true
	defer delete(parsing, typ)
	pkg, _, ok := strings.Cut(typ, "/")
	if !ok {
		return nil, fmt.Errorf("message type %q is not package/Name", typ)
	}
	s := &Spec{Type: typ, Text: text}
	for n, line := range strings.Split(text, "\n") {
		if err := s.parseLine(line, pkg); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", typ, n+1, err)
		}
	}
	for i := range s.Fields {
		f := &s.Fields[i]
		if isBuiltin(f.Type) {
			continue
		}
		sub, ok := done[f.Type]
		if !ok {
			subText, found := resolve(f.Type)
			if !found {
				return nil, fmt.Errorf("%s: field %s: unknown type %s", typ, f.Name, f.Type)
			}
			var err error
			if sub, err = parse(f.Type, subText, resolve, done, parsing); err != nil {
				return nil, err
			}
		}
		f.Spec = sub
	}
	s.MD5 = s.computeMD5()
	s.FullText = s.computeFullText()
	done[typ] = s
	return s, nil
}

func (s *Spec) parseLine(line, pkg string) error {
	// A string constant's value runs to the end of the line, '#' included.
	if t, rest, ok := strings.Cut(strings.TrimSpace(line), " "); ok && t == "string" && strings.Contains(rest, "=") {
		// genmsg keeps the name as written up to '=' and trims only the value.
		name, value, _ := strings.Cut(rest, "=")
		s.Constants = append(s.Constants, Constant{Type: "string", Name: name, Value: strings.TrimSpace(value)})
		return nil
	}
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	// A constant is "type NAME=value"; the type itself may hold "<=" (a ROS 2 bound).
	typ, afterType := line, ""
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		typ, afterType = line[:i], line[i:]
	}
	if name, value, ok := strings.Cut(afterType, "="); ok {
		parts := append([]string{typ}, strings.Fields(name)...)
		if len(parts) != 2 || !isBuiltin(parts[0]) || parts[0] == "time" || parts[0] == "duration" {
			return fmt.Errorf("bad constant %q", line)
		}
		value = strings.TrimSpace(value)
		if value == "" {
			return fmt.Errorf("constant %s without a value", parts[1])
		}
		s.Constants = append(s.Constants, Constant{Type: parts[0], Name: parts[1], Value: value})
		return nil
	}
	parts := strings.Fields(line)
	if len(parts) < 2 {
		return fmt.Errorf("bad field %q", line)
	}
	f := Field{Name: parts[1], TypeText: parts[0], Len: -1}
	if len(parts) > 2 { // a ROS 2 default value, which may contain spaces
		_, rest, _ := strings.Cut(line, parts[0])
		_, rest, _ = strings.Cut(rest, parts[1])
		f.Default = strings.TrimSpace(rest)
	}
	if !validName(f.Name) {
		return fmt.Errorf("bad field name %q", f.Name)
	}
	base := parts[0]
	if i := strings.IndexByte(base, '['); i >= 0 {
		if !strings.HasSuffix(base, "]") {
			return fmt.Errorf("bad array type %q", base)
		}
		f.Array = true
		n := base[i+1 : len(base)-1]
		switch {
		case n == "":
		case strings.HasPrefix(n, "<="):
			l, err := strconv.Atoi(n[2:])
			if err != nil || l <= 0 || l > 1<<30 {
				return fmt.Errorf("bad sequence bound in %q", base)
			}
			f.Bound = l
		default:
			l, err := strconv.Atoi(n)
			if err != nil || l < 0 || l > 1<<20 {
				return fmt.Errorf("bad array length in %q", base)
			}
			f.Len = l
		}
		base = base[:i]
	}
	if b, n, ok := strings.Cut(base, "<="); ok {
		l, err := strconv.Atoi(n)
		if (b != "string" && b != "wstring") || err != nil || l <= 0 {
			return fmt.Errorf("bad bounded string %q", base)
		}
		base, f.StringBound = b, l
	}
	if base == "wstring" {
		return fmt.Errorf("wstring is not supported")
	}
	if strings.Count(base, "/") > 2 || strings.HasPrefix(base, "/") || strings.HasSuffix(base, "/") {
		return fmt.Errorf("bad type %q", base)
	}
	// ROS 2 writes a message type package/msg/Name where it means package/Name.
	if pk, rest, ok := strings.Cut(base, "/msg/"); ok {
		base = pk + "/" + rest
	}
	switch {
	case isBuiltin(base):
	case base == "Header":
		base = "std_msgs/Header"
	case !strings.Contains(base, "/"):
		base = pkg + "/" + base
	}
	f.Type = base
	s.Fields = append(s.Fields, f)
	return nil
}

// validName reports whether a field name is an identifier.
func validName(n string) bool {
	for i, c := range n {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return n != ""
}

// computeMD5 follows genmsg: constants first ("type name=value"), then fields, builtins as
// written and embedded messages by their own md5sum, one per line.
func (s *Spec) computeMD5() string {
	var b strings.Builder
	for _, c := range s.Constants {
		fmt.Fprintf(&b, "%s %s=%s\n", c.Type, c.Name, c.Value)
	}
	for _, f := range s.Fields {
		if f.Spec == nil {
			fmt.Fprintf(&b, "%s %s\n", f.TypeText, f.Name)
		} else {
			fmt.Fprintf(&b, "%s %s\n", f.Spec.MD5, f.Name)
		}
	}
	sum := md5.Sum([]byte(strings.TrimSpace(b.String())))
	return hex.EncodeToString(sum[:])
}

// computeFullText follows genmsg: the text, then for each embedded type (depth first, each
// once) a line of 80 '=', "MSG: type" and its text.
func (s *Spec) computeFullText() string {
	var b strings.Builder
	b.WriteString(s.Text)
	b.WriteString("\n")
	seen := map[string]bool{}
	var walk func(*Spec)
	walk = func(sp *Spec) {
		for _, f := range sp.Fields {
			if f.Spec == nil {
				continue
			}
			if !seen[f.Type] {
				seen[f.Type] = true
				b.WriteString(strings.Repeat("=", 80))
				b.WriteString("\nMSG: ")
				b.WriteString(f.Type)
				b.WriteString("\n")
				b.WriteString(f.Spec.Text)
				b.WriteString("\n")
			}
			walk(f.Spec)
		}
	}
	walk(s)
	out := b.String()
	return out[:len(out)-1]
}

// ParseFullText parses a full definition (a connection header's message_definition): the
// type's text, then each embedded type after a line of '=' and "MSG: package/Name".
func ParseFullText(typ, full string) (*Spec, error) {
	sep := strings.Repeat("=", 80) + "\n"
	parts := strings.Split(full, sep)
	texts := map[string]string{}
	for _, p := range parts[1:] {
		head, body, _ := strings.Cut(p, "\n")
		name, ok := strings.CutPrefix(strings.TrimSpace(head), "MSG: ")
		if !ok {
			return nil, fmt.Errorf("embedded definition without its MSG: line")
		}
		texts[strings.TrimSpace(name)] = strings.TrimSuffix(body, "\n")
	}
	resolve := func(t string) (string, bool) { s, ok := texts[t]; return s, ok }
	return Parse(typ, strings.TrimSuffix(parts[0], "\n"), resolve)
}
