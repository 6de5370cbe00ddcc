// Package msgs knows the message catalog (Platform.Messages.*): it looks types up, builds empty
// JSON templates, and converts between JSON and serialized protobuf payloads.
package msgs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// Importing the catalog registers its types in protoregistry.GlobalTypes.
	_ "github.com/fleetgate/fleetgate/proto/catalogpb"
)

var (
	// ErrUnknownType is wrapped by errors about a name that is not a catalog type.
	ErrUnknownType = errors.New("unknown message type")
	// ErrInvalid is wrapped by errors about JSON or a payload that does not fit its type.
	ErrInvalid = errors.New("invalid message")
)

// catalogPrefix keeps other registered types (the stream envelope, the agent link) out of the
// catalog: callers must not be able to name them as a payload type.
const catalogPrefix = "Platform.Messages."

// The std_msgs types a custom KPI can carry as a native value.
const (
	kpiFloat64 = "Platform.Messages.std_msgs.Float64"
	kpiInt32   = "Platform.Messages.std_msgs.Int32"
	kpiBool    = "Platform.Messages.std_msgs.Bool"
	kpiString  = "Platform.Messages.std_msgs.String"
)

// catalog is built once: the generated packages register every type at init, before any call.
var catalog = sync.OnceValues(func() (map[string]protoreflect.MessageType, []string) {
	types := make(map[string]protoreflect.MessageType)
	var names []string
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		name := string(mt.Descriptor().FullName())
		if strings.HasPrefix(name, catalogPrefix) {
			types[name] = mt
			names = append(names, name)
		}
		return true
	})
	slices.Sort(names)
	return types, names
})

// Known reports whether fullName (e.g. "Platform.Messages.geometry_msgs.Twist") is a catalog type.
func Known(fullName string) bool {
	types, _ := catalog()
	_, ok := types[fullName]
	return ok
}

// Names lists every catalog type's full name, sorted.
func Names() []string {
	_, names := catalog()
	return slices.Clone(names)
}

func lookup(fullName string) (protoreflect.MessageType, error) {
	types, _ := catalog()
	mt, ok := types[fullName]
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a catalog message type", ErrUnknownType, fullName)
	}
	return mt, nil
}

// New returns a new empty message of the type.
func New(fullName string) (proto.Message, error) {
	mt, err := lookup(fullName)
	if err != nil {
		return nil, err
	}
	return mt.New().Interface(), nil
}

var templates sync.Map // full name → []byte, never modified once stored

// Template is the JSON of an empty message of the type with every singular nested message
// expanded, so a caller sees the whole shape: {"linear":{"x":0,"y":0,"z":0},...} for a Twist.
func Template(fullName string) ([]byte, error) {
	if t, ok := templates.Load(fullName); ok {
		return bytes.Clone(t.([]byte)), nil
	}
	mt, err := lookup(fullName)
	if err != nil {
		return nil, err
	}
	m := mt.New()
	expand(m, map[protoreflect.FullName]bool{})
	t, err := MarshalJSON(m.Interface())
	if err != nil {
		return nil, fmt.Errorf("template of %s: %w", fullName, err)
	}
	templates.Store(fullName, t)
	return bytes.Clone(t), nil
}

// expand sets every singular message field of m, recursively. A type already being expanded
// further up is left unset (JSON null), or a recursive type would never end.
func expand(m protoreflect.Message, expanding map[protoreflect.FullName]bool) {
	defer mark(expanding, m.Descriptor().FullName())()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !singularMessage(fd) || expanding[fd.Message().FullName()] {
			continue
		}
		expand(m.Mutable(fd).Message(), expanding)
	}
}

// singularMessage excludes lists and maps (they are [] and {}) and oneofs (they have no single
// empty shape).
func singularMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && !fd.IsList() && !fd.IsMap() && fd.ContainingOneof() == nil
}

// mark records that a message of type name is being walked, until the returned func runs.
func mark(walking map[protoreflect.FullName]bool, name protoreflect.FullName) func() {
	was := walking[name]
	walking[name] = true
	return func() { walking[name] = was }
}

// withEmptyMessages returns m, or when some singular message field at any depth is unset, a
// shallow copy of m in which those fields hold expanded empty messages, so the JSON of every
// message has the shape of its Template. Bytes, lists and untouched messages are shared with m,
// not copied: a PointCloud2 without a header must not cost a copy of its points.
func withEmptyMessages(m protoreflect.Message, expanding map[protoreflect.FullName]bool) protoreflect.Message {
	defer mark(expanding, m.Descriptor().FullName())()
	var n protoreflect.Message // the copy, made on the first change
	edit := func() protoreflect.Message {
		if n == nil {
			n = m.Type().New()
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				n.Set(fd, v)
				return true
			})
		}
		return n
	}
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.Message() == nil || fd.ContainingOneof() != nil:
		case fd.IsMap():
			if fd.MapValue().Message() == nil {
				continue
			}
			mp := m.Get(fd).Map()
			type entry struct {
				key   protoreflect.MapKey
				value protoreflect.Message
			}
			var entries []entry
			var changed bool
			mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				f := withEmptyMessages(v.Message(), expanding)
				entries = append(entries, entry{k, f})
				changed = changed || f != v.Message()
				return true
			})
			if changed {
				nm := edit().NewField(fd).Map()
				for _, e := range entries {
					nm.Set(e.key, protoreflect.ValueOfMessage(e.value))
				}
				n.Set(fd, protoreflect.ValueOfMap(nm))
			}
		case fd.IsList():
			list := m.Get(fd).List()
			var nl protoreflect.List
			for j := range list.Len() {
				e := list.Get(j).Message()
				f := withEmptyMessages(e, expanding)
				if f == e {
					continue
				}
				if nl == nil {
					nl = edit().NewField(fd).List()
					for k := range list.Len() {
						nl.Append(list.Get(k))
					}
					n.Set(fd, protoreflect.ValueOfList(nl))
				}
				nl.Set(j, protoreflect.ValueOfMessage(f))
			}
		case !m.Has(fd):
			if !expanding[fd.Message().FullName()] {
				expand(edit().Mutable(fd).Message(), expanding)
			}
		default:
			c := m.Get(fd).Message()
			if f := withEmptyMessages(c, expanding); f != c {
				edit().Set(fd, protoreflect.ValueOfMessage(f))
			}
		}
	}
	if n == nil {
		return m
	}
	return n
}

// ParseJSON parses JSON into a new message of the type. It is stricter than protojson: unknown
// fields, quoted 32-bit numbers, non-finite floats and null for anything but a message are all
// rejected, so a number that JavaScript turned into null (NaN, Infinity) never becomes a silent
// zero. null for a message field means unset, as in protojson.
func ParseJSON(fullName string, data []byte) (proto.Message, error) {
	mt, err := lookup(fullName)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, invalidf("invalid JSON for %s: empty input, expected a JSON object", fullName)
	}
	m := mt.New().Interface()
	if err := protojson.Unmarshal(data, m); err != nil {
		return nil, invalidf("invalid JSON for %s: %s", fullName, protoErrorText(err))
	}
	if path, bad := findNonFinite(m.ProtoReflect(), ""); bad {
		return nil, invalidf("invalid JSON for %s: %s is not a finite number", fullName, path)
	}
	// protojson has accepted it, so data is one well-formed JSON object.
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, invalidf("invalid JSON for %s: %v", fullName, err)
	}
	if err := checkKinds(m.ProtoReflect().Descriptor(), v, ""); err != nil {
		return nil, invalidf("invalid JSON for %s: %v", fullName, err)
	}
	return m, nil
}

// protoErrorText drops the "proto:" prefix (followed by a space or, at random, a non-breaking
// space, so nobody parses it) and the position, leaving words such as `unknown field "foo"`.
func protoErrorText(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "proto:")
	s = strings.TrimLeft(s, " \u00a0")
	if strings.HasPrefix(s, "(line ") {
		if i := strings.Index(s, "): "); i >= 0 {
			s = s[i+3:]
		}
	}
	return s
}

// checkKinds walks the decoded JSON v of a message md and rejects what protojson tolerates but a
// strict caller must not send: null for a scalar, list or map, and a string where a 32-bit number or a float is
// expected. 64-bit integers may be strings: that is how MarshalJSON writes them.
func checkKinds(md protoreflect.MessageDescriptor, v any, path string) error {
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return nil // well-known types have their own JSON forms
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s must be a JSON object", orRoot(path))
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		fv, ok := obj[fd.JSONName()]
		if !ok {
			fv, ok = obj[string(fd.Name())]
		}
		if !ok {
			continue
		}
		fpath := join(path, fd.JSONName())
		if fv == nil {
			if singularMessage(fd) {
				continue
			}
			return fmt.Errorf("%s is null: leave it out or give a value", fpath)
		}
		switch {
		case fd.IsMap():
			entries, _ := fv.(map[string]any)
			for _, k := range slices.Sorted(mapKeys(entries)) {
				if err := checkValue(fd.MapValue(), entries[k], fmt.Sprintf("%s[%q]", fpath, k)); err != nil {
					return err
				}
			}
		case fd.IsList():
			items, _ := fv.([]any)
			for j, item := range items {
				if err := checkValue(fd, item, fmt.Sprintf("%s[%d]", fpath, j)); err != nil {
					return err
				}
			}
		default:
			if err := checkValue(fd, fv, fpath); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkValue(fd protoreflect.FieldDescriptor, v any, path string) error {
	if v == nil {
		return fmt.Errorf("%s is null: give a value", path)
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkKinds(fd.Message(), v, path)
	case protoreflect.FloatKind, protoreflect.DoubleKind,
		protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if _, ok := v.(json.Number); !ok {
			return fmt.Errorf("%s must be a JSON number, not a string", path)
		}
	}
	return nil
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func orRoot(path string) string {
	if path == "" {
		return "the message"
	}
	return path
}

// CheckFinite returns an error naming the first float or double field of m (singular, repeated,
// nested or a map value) that is NaN or infinite, by its JSON path such as "linear.x".
func CheckFinite(m proto.Message) error {
	if path, ok := findNonFinite(m.ProtoReflect(), ""); ok {
		return invalidf("%s is not a finite number", path)
	}
	return nil
}

func findNonFinite(m protoreflect.Message, path string) (string, bool) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		fpath := join(path, fd.JSONName())
		v := m.Get(fd)
		switch {
		case fd.IsMap():
			mp := v.Map()
			var keys []protoreflect.MapKey
			mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			// Sorted, so the error names the same entry every time.
			slices.SortFunc(keys, func(a, b protoreflect.MapKey) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				if p, bad := nonFiniteValue(fd.MapValue(), mp.Get(k), fmt.Sprintf("%s[%q]", fpath, k.String())); bad {
					return p, true
				}
			}
		case fd.IsList():
			list := v.List()
			for j := range list.Len() {
				if p, bad := nonFiniteValue(fd, list.Get(j), fmt.Sprintf("%s[%d]", fpath, j)); bad {
					return p, true
				}
			}
		default:
			if p, bad := nonFiniteValue(fd, v, fpath); bad {
				return p, true
			}
		}
	}
	return "", false
}

func nonFiniteValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) (string, bool) {
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		return path, math.IsNaN(f) || math.IsInf(f, 0)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return findNonFinite(v.Message(), path)
	}
	return "", false
}

var marshalOptions = protojson.MarshalOptions{EmitUnpopulated: true}

// MarshalJSON is the canonical JSON of a message: camelCase names, zero values present, compact.
// An unset nested message is written as its empty object, not null (as protojson would), so a
// client always sees the shape of the type's Template. Non-finite floats come out as the
// protojson strings "NaN", "Infinity" and "-Infinity".
func MarshalJSON(m proto.Message) ([]byte, error) {
	filled := withEmptyMessages(m.ProtoReflect(), map[protoreflect.FullName]bool{})
	b, err := marshalOptions.Marshal(filled.Interface())
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	// protojson inserts spaces at random to stop byte comparisons; Compact makes it stable.
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("marshal %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return out.Bytes(), nil
}

// Decode unmarshals a serialized payload into a new message of the type. Fields the catalog does
// not know are kept (a newer sender may add some); a known field with the wrong wire type means
// the payload is of another type and is an error.
func Decode(fullName string, payload []byte) (proto.Message, error) {
	mt, err := lookup(fullName)
	if err != nil {
		return nil, err
	}
	m := mt.New().Interface()
	if err := proto.Unmarshal(payload, m); err != nil {
		return nil, invalidf("invalid %s payload: %s", fullName, protoErrorText(err))
	}
	if err := checkUnknown(m.ProtoReflect(), ""); err != nil {
		return nil, invalidf("invalid %s payload: %v", fullName, err)
	}
	return m, nil
}

// checkUnknown looks at the fields proto.Unmarshal set aside as unknown: it does that silently
// for a known field number with a wire type that does not match the field, which is what bytes
// of another type (or noise) usually look like.
func checkUnknown(m protoreflect.Message, path string) error {
	fields := m.Descriptor().Fields()
	for b := m.GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if fd := fields.ByNumber(num); fd != nil {
			return fmt.Errorf("%s is encoded as %s, which does not fit a %s field",
				join(path, fd.JSONName()), wireTypeName(typ), fd.Kind())
		}
		b = b[n:]
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil || !m.Has(fd) {
			continue
		}
		fpath := join(path, fd.JSONName())
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() == nil {
				continue
			}
			var err error
			m.Get(fd).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				err = checkUnknown(v.Message(), fmt.Sprintf("%s[%q]", fpath, k.String()))
				return err == nil
			})
			if err != nil {
				return err
			}
		case fd.IsList():
			list := m.Get(fd).List()
			for j := range list.Len() {
				if err := checkUnknown(list.Get(j).Message(), fmt.Sprintf("%s[%d]", fpath, j)); err != nil {
					return err
				}
			}
		default:
			if err := checkUnknown(m.Get(fd).Message(), fpath); err != nil {
				return err
			}
		}
	}
	return nil
}

func wireTypeName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "a varint"
	case protowire.Fixed32Type:
		return "fixed 32 bits"
	case protowire.Fixed64Type:
		return "fixed 64 bits"
	case protowire.BytesType:
		return "length-delimited bytes"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "a group"
	}
	return fmt.Sprintf("wire type %d", t)
}

// Opaque reports whether typ names a type outside the catalog's namespace, such as a ROS 1
// topic's type ("rosgraph_msgs/Log") that the catalog lacks: a stream of such a type carries
// the source's own serialisation as opaque bytes, which no one here decodes.
func Opaque(typ string) bool { return typ != "" && !strings.HasPrefix(typ, catalogPrefix) }

// opaqueJSON is the JSON form of an opaque payload: {"dataType": <the type>, "data": <base64
// of the bytes>}, the shape protojson gives a message of one bytes field beside its type.
type opaqueJSON struct {
	DataType string `json:"dataType"`
	Data     []byte `json:"data"`
}

// PayloadToJSON decodes a serialized payload of the type and returns its MarshalJSON. A payload
// of an Opaque type becomes {"dataType": ..., "data": <base64>}.
func PayloadToJSON(fullName string, payload []byte) ([]byte, error) {
	if Opaque(fullName) {
		if payload == nil {
			payload = []byte{} // "", not null
		}
		return json.Marshal(opaqueJSON{DataType: fullName, Data: payload})
	}
	m, err := Decode(fullName, payload)
	if err != nil {
		return nil, err
	}
	return MarshalJSON(m)
}

// KPIValue turns a custom KPI's payload into its metric value: a float64 for std_msgs Float64 and
// Int32, a bool for Bool, a string for String, and the MarshalJSON text of any other message.
func KPIValue(fullName string, payload []byte) (any, error) {
	m, err := Decode(fullName, payload)
	if err != nil {
		return nil, err
	}
	data := m.ProtoReflect().Descriptor().Fields().ByName("data")
	switch fullName {
	case kpiFloat64:
		// A metric value travels as a JSON number, which cannot be NaN or infinite.
		if err := CheckFinite(m); err != nil {
			return nil, err
		}
		return m.ProtoReflect().Get(data).Float(), nil
	case kpiInt32:
		return float64(m.ProtoReflect().Get(data).Int()), nil
	case kpiBool:
		return m.ProtoReflect().Get(data).Bool(), nil
	case kpiString:
		return m.ProtoReflect().Get(data).String(), nil
	}
	b, err := MarshalJSON(m)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// KPIJSON is the JSON value of a custom KPI for the KPI WebSocket frames: a number, a boolean or
// a string for the std_msgs scalars, and the MarshalJSON object of any other message.
func KPIJSON(fullName string, payload []byte) (json.RawMessage, error) {
	m, err := Decode(fullName, payload)
	if err != nil {
		return nil, err
	}
	data := m.ProtoReflect().Descriptor().Fields().ByName("data")
	switch fullName {
	case kpiFloat64:
		if err := CheckFinite(m); err != nil {
			return nil, err
		}
		return strconv.AppendFloat(nil, m.ProtoReflect().Get(data).Float(), 'g', -1, 64), nil
	case kpiInt32:
		return strconv.AppendInt(nil, m.ProtoReflect().Get(data).Int(), 10), nil
	case kpiBool:
		return strconv.AppendBool(nil, m.ProtoReflect().Get(data).Bool()), nil
	case kpiString:
		return json.Marshal(m.ProtoReflect().Get(data).String())
	}
	return MarshalJSON(m)
}

// invalidError carries a caller-facing message and is errors.Is ErrInvalid.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}
