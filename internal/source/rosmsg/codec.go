package rosmsg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/fleetgate/fleetgate/proto/catalogpb" // registers the catalog's types
)

// ErrInvalid is wrapped by errors about bytes or a message that do not fit their type.
var ErrInvalid = errors.New("invalid message")

// dropped are the ROS fields the catalog has no room for; decoding skips them, encoding
// writes zero (a publisher fills the Header's seq itself).
var dropped = map[string]bool{"std_msgs/Header.seq": true}

const timeType = "Platform.Messages.builtin_interfaces.Time"

// Codec converts messages of one ROS type to and from its catalog type, field by field, in
// ROS 1 serialisation (CodecFor) or in ROS 2's CDR (CDRCodecFor).
type Codec struct {
	Spec    *Spec
	Catalog string // full name of the catalog type
	plan    *plan
}

// plan maps the fields of a ROS type to the fields of a catalog message.
type plan struct {
	spec  *Spec
	md    protoreflect.MessageDescriptor
	steps []step
	cdr   bool // the wire format is CDR: aligned primitives, NUL-terminated strings
}

type step struct {
	f   *Field
	fd  protoreflect.FieldDescriptor // nil for a dropped field
	sub *plan                        // for embedded messages
}

var codecs sync.Map // ROS type → *Codec or error

// CodecFor returns the codec of a ROS type that has a catalog type.
func CodecFor(rosType string) (*Codec, error) {
	if c, ok := codecs.Load(rosType); ok {
		if err, bad := c.(error); bad {
			return nil, err
		}
		return c.(*Codec), nil
	}
	c, err := newCodec(rosType)
	if err != nil {
		codecs.Store(rosType, err)
		return nil, err
	}
	codecs.Store(rosType, c)
	return c, nil
}

// SpecCodec is the codec of a ROS type the catalog lacks but this package defines (a goal's
// cancel): it carries the type's spec, for a writer's connection header, and its messages are
// written as the transport's bytes; Encode and Decode refuse.
func SpecCodec(rosType string) (*Codec, error) {
	spec, ok := Lookup(rosType)
	if !ok {
		return nil, fmt.Errorf("rosmsg: %s is not defined here", rosType)
	}
	return &Codec{Spec: spec}, nil
}

func newCodec(rosType string) (*Codec, error) {
	catalog := CatalogType(rosType)
	spec, ok := Lookup(rosType)
	if catalog == "" || !ok {
		return nil, fmt.Errorf("rosmsg: %s has no catalog type", rosType)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(catalog))
	if err != nil {
		return nil, fmt.Errorf("rosmsg: catalog type %s of %s: %w", catalog, rosType, err)
	}
	p, err := compile(spec, mt.Descriptor(), false)
	if err != nil {
		return nil, err
	}
	return &Codec{Spec: spec, Catalog: catalog, plan: p}, nil
}

// compile pairs each ROS field with the catalog field of the same name and checks that their
// kinds fit.
func compile(spec *Spec, md protoreflect.MessageDescriptor, cdr bool) (*plan, error) {
	p := &plan{spec: spec, md: md, cdr: cdr}
	for i := range spec.Fields {
		f := &spec.Fields[i]
		s := step{f: f}
		fd := md.Fields().ByName(protoreflect.Name(f.Name))
		if fd == nil {
			if !dropped[spec.Type+"."+f.Name] {
				return nil, fmt.Errorf("rosmsg: %s.%s has no field in %s", spec.Type, f.Name, md.FullName())
			}
			p.steps = append(p.steps, s)
			continue
		}
		s.fd = fd
		if err := fits(f, fd); err != nil {
			return nil, fmt.Errorf("rosmsg: %s.%s: %w", spec.Type, f.Name, err)
		}
		if f.Spec != nil {
			sub, err := compile(f.Spec, fd.Message(), cdr)
			if err != nil {
				return nil, err
			}
			s.sub = sub
		}
		p.steps = append(p.steps, s)
	}
	return p, nil
}

// kindOf is the catalog field kind each ROS builtin maps to.
var kindOf = map[string]protoreflect.Kind{
	"bool": protoreflect.BoolKind,
	"int8": protoreflect.Int32Kind, "int16": protoreflect.Int32Kind, "int32": protoreflect.Int32Kind,
	"uint8": protoreflect.Uint32Kind, "byte": protoreflect.Uint32Kind, "char": protoreflect.Uint32Kind,
	"uint16": protoreflect.Uint32Kind, "uint32": protoreflect.Uint32Kind,
	"int64": protoreflect.Int64Kind, "uint64": protoreflect.Uint64Kind,
	"float32": protoreflect.FloatKind, "float64": protoreflect.DoubleKind,
	"string": protoreflect.StringKind,
}

// byteArray reports whether f is an array of bytes, which the catalog holds as bytes.
func byteArray(f *Field) bool {
	return f.Array && (f.Type == "uint8" || f.Type == "int8" || f.Type == "byte" || f.Type == "char")
}

func fits(f *Field, fd protoreflect.FieldDescriptor) error {
	if byteArray(f) && fd.Kind() == protoreflect.BytesKind && !fd.IsList() {
		return nil
	}
	if f.Array != fd.IsList() {
		return fmt.Errorf("array-ness differs from %s", fd.FullName())
	}
	switch {
	case f.Spec != nil:
		if fd.Message() == nil {
			return fmt.Errorf("message %s in %s, a %s", f.Type, fd.FullName(), fd.Kind())
		}
	case f.Type == "time":
		if fd.Message() == nil || fd.Message().FullName() != timeType {
			return fmt.Errorf("time in %s, not a %s", fd.FullName(), timeType)
		}
	case f.Type == "duration":
		return fmt.Errorf("the catalog has no duration")
	default:
		if want := kindOf[f.Type]; fd.Kind() != want {
			return fmt.Errorf("%s in %s, a %s field (want %s)", f.Type, fd.FullName(), fd.Kind(), want)
		}
	}
	return nil
}

// Decode reads ROS 1 bytes into a new catalog message. The message's bytes fields alias data:
// data must not change while the message is in use. All of data must be used.
func (c *Codec) Decode(data []byte) (proto.Message, error) {
	if c.plan == nil {
		return nil, fmt.Errorf("%w: %s has no catalog type", ErrInvalid, c.Spec.Type)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(c.plan.md.FullName())
	if err != nil {
		return nil, err
	}
	m := mt.New()
	r := reader{b: data, order: binary.LittleEndian}
	if c.plan.cdr {
		if err := r.encapsulation(); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, c.Spec.Type, err)
		}
	}
	if err := c.plan.decode(&r, m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, c.Spec.Type, err)
	}
	rest := len(r.b) - r.off
	if c.plan.cdr && rest < 4 {
		rest = 0 // a CDR writer may pad the message to a multiple of 4
	}
	if rest != 0 {
		return nil, fmt.Errorf("%w: %s: %d bytes left after the message", ErrInvalid, c.Spec.Type, rest)
	}
	return m.Interface(), nil
}

// ToCatalog decodes ROS 1 bytes and marshals the catalog message.
func (c *Codec) ToCatalog(data []byte) ([]byte, error) {
	m, err := c.Decode(data)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(m)
}

type reader struct {
	b     []byte
	off   int
	order binary.ByteOrder
	cdr   bool
	base  int // CDR aligns relative to the end of the encapsulation header
}

var errShort = errors.New("message ends early")

// CDR encapsulation identifiers (the first two bytes; two option bytes follow): plain CDR,
// that is XCDR1 for the final types ROS 2 uses.
const (
	cdrBE = 0x0000
	cdrLE = 0x0001
)

// encapsulation reads the 4-byte header of a CDR sample: its byte order.
func (r *reader) encapsulation() error {
	if len(r.b) < 4 {
		return errShort
	}
	switch id := binary.BigEndian.Uint16(r.b); id {
	case cdrLE:
		r.order = binary.LittleEndian
	case cdrBE:
		r.order = binary.BigEndian
	default:
		return fmt.Errorf("encapsulation 0x%04x is not plain CDR", id)
	}
	r.cdr, r.off, r.base = true, 4, 4
	return nil
}

// align skips CDR padding up to a multiple of n.
func (r *reader) align(n int) error {
	if !r.cdr || n <= 1 {
		return nil
	}
	if pad := (n - (r.off-r.base)%n) % n; pad > 0 {
		if pad > len(r.b)-r.off {
			return errShort
		}
		r.off += pad
	}
	return nil
}

func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.off {
		return nil, errShort
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) u32() (uint32, error) {
	if err := r.align(4); err != nil {
		return 0, err
	}
	b, err := r.take(4)
	if err != nil {
		return 0, err
	}
	return r.order.Uint32(b), nil
}

// str reads a string: ROS 1 counts its bytes; CDR counts a terminating NUL too (an empty
// string of length 0 is accepted as well).
func (r *reader) str() ([]byte, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	b, err := r.take(int(n))
	if err != nil {
		return nil, err
	}
	if r.cdr && len(b) > 0 {
		if b[len(b)-1] != 0 {
			return nil, errors.New("string without its terminating NUL")
		}
		b = b[:len(b)-1]
	}
	return b, nil
}

// count reads an array's length, or takes the fixed one, and checks that many elements can
// fit in the bytes left before anything is allocated for them.
func (r *reader) count(f *Field) (int, error) {
	n := f.Len
	if n < 0 {
		u, err := r.u32()
		if err != nil {
			return 0, err
		}
		n64 := uint64(u)
		if f.Bound > 0 && n64 > uint64(f.Bound) {
			return 0, fmt.Errorf("%s: %d elements, its bound is %d", f.Name, u, f.Bound)
		}
		if n64*uint64(f.minSize()) > uint64(len(r.b)-r.off) {
			return 0, fmt.Errorf("%s: %d elements announced, %d bytes left", f.Name, u, len(r.b)-r.off)
		}
		n = int(n64)
	}
	return n, nil
}

func (p *plan) decode(r *reader, m protoreflect.Message) error {
	for i := range p.steps {
		s := &p.steps[i]
		f := s.f
		if s.fd == nil {
			if err := skip(r, f); err != nil {
				return err
			}
			continue
		}
		switch {
		case byteArray(f) && s.fd.Kind() == protoreflect.BytesKind:
			n, err := r.count(f)
			if err != nil {
				return err
			}
			b, err := r.take(n)
			if err != nil {
				return err
			}
			if len(b) > 0 {
				m.Set(s.fd, protoreflect.ValueOfBytes(b))
			}
		case f.Array:
			n, err := r.count(f)
			if err != nil {
				return err
			}
			if n == 0 {
				continue
			}
			list := m.Mutable(s.fd).List()
			for range n {
				v, err := decodeValue(r, s, list)
				if err != nil {
					return err
				}
				list.Append(v)
			}
		default:
			if s.sub != nil || f.Type == "time" {
				if err := decodeInto(r, s, m.Mutable(s.fd).Message()); err != nil {
					return err
				}
				continue
			}
			v, err := decodeScalar(r, f.Type)
			if err != nil {
				return err
			}
			m.Set(s.fd, v)
		}
	}
	return nil
}

func decodeValue(r *reader, s *step, list protoreflect.List) (protoreflect.Value, error) {
	if s.sub != nil || s.f.Type == "time" {
		e := list.NewElement()
		return e, decodeInto(r, s, e.Message())
	}
	return decodeScalar(r, s.f.Type)
}

func decodeInto(r *reader, s *step, m protoreflect.Message) error {
	if s.sub != nil {
		return s.sub.decode(r, m)
	}
	if err := r.align(4); err != nil {
		return err
	}
	b, err := r.take(8) // time: uint32 secs, uint32 nsecs
	if err != nil {
		return err
	}
	fields := m.Descriptor().Fields()
	// The catalog's Time has int32 seconds, as ROS 2; a ROS 1 time past 2038 wraps and
	// comes back whole on the way out.
	m.Set(fields.ByName("sec"), protoreflect.ValueOfInt32(int32(r.order.Uint32(b))))
	m.Set(fields.ByName("nanosec"), protoreflect.ValueOfUint32(r.order.Uint32(b[4:])))
	return nil
}

func decodeScalar(r *reader, typ string) (protoreflect.Value, error) {
	if typ == "string" {
		b, err := r.str()
		if err != nil {
			return protoreflect.Value{}, err
		}
		s := string(b)
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD") // protobuf strings are UTF-8
		}
		return protoreflect.ValueOfString(s), nil
	}
	if err := r.align(builtinSize[typ]); err != nil {
		return protoreflect.Value{}, err
	}
	b, err := r.take(builtinSize[typ])
	if err != nil {
		return protoreflect.Value{}, err
	}
	le := r.order
	switch typ {
	case "bool":
		return protoreflect.ValueOfBool(b[0] != 0), nil
	case "int8":
		return protoreflect.ValueOfInt32(int32(int8(b[0]))), nil
	case "uint8", "byte", "char":
		return protoreflect.ValueOfUint32(uint32(b[0])), nil
	case "int16":
		return protoreflect.ValueOfInt32(int32(int16(le.Uint16(b)))), nil
	case "uint16":
		return protoreflect.ValueOfUint32(uint32(le.Uint16(b))), nil
	case "int32":
		return protoreflect.ValueOfInt32(int32(le.Uint32(b))), nil
	case "uint32":
		return protoreflect.ValueOfUint32(le.Uint32(b)), nil
	case "int64":
		return protoreflect.ValueOfInt64(int64(le.Uint64(b))), nil
	case "uint64":
		return protoreflect.ValueOfUint64(le.Uint64(b)), nil
	case "float32":
		return protoreflect.ValueOfFloat32(math.Float32frombits(le.Uint32(b))), nil
	case "float64":
		return protoreflect.ValueOfFloat64(math.Float64frombits(le.Uint64(b))), nil
	}
	return protoreflect.Value{}, fmt.Errorf("no decoder for %s", typ)
}

// skip passes over a field the catalog does not carry.
func skip(r *reader, f *Field) error {
	n := 1
	if f.Array {
		var err error
		if n, err = r.count(f); err != nil {
			return err
		}
	}
	for range n {
		switch {
		case f.Spec != nil:
			for i := range f.Spec.Fields {
				if err := skip(r, &f.Spec.Fields[i]); err != nil {
					return err
				}
			}
		case f.Type == "string":
			if _, err := r.str(); err != nil {
				return err
			}
		default:
			if err := r.align(builtinSize[f.Type]); err != nil {
				return err
			}
			if _, err := r.take(builtinSize[f.Type]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Encode writes a catalog message of the codec's type as ROS 1 bytes. Values that do not fit
// the ROS field (a uint8 over 255, a fixed array of the wrong length) are an error; unset
// fields are written as zero.
func (c *Codec) Encode(m proto.Message) ([]byte, error) {
	if c.plan == nil {
		return nil, fmt.Errorf("%w: %s has no catalog type", ErrInvalid, c.Spec.Type)
	}
	rm := m.ProtoReflect()
	if rm.Descriptor().FullName() != c.plan.md.FullName() {
		return nil, fmt.Errorf("%w: a %s is not a %s", ErrInvalid, rm.Descriptor().FullName(), c.plan.md.FullName())
	}
	b := make([]byte, 0, proto.Size(m)+64)
	if c.plan.cdr {
		b = append(b, 0, cdrLE, 0, 0) // little-endian plain CDR, no options
	}
	out, err := c.plan.encode(b, rm)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, c.Spec.Type, err)
	}
	return out, nil
}

// FromCatalog unmarshals a catalog payload and encodes it as ROS 1 bytes.
func (c *Codec) FromCatalog(payload []byte) ([]byte, error) {
	if c.plan == nil {
		return nil, fmt.Errorf("%w: %s has no catalog type", ErrInvalid, c.Spec.Type)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(c.plan.md.FullName())
	if err != nil {
		return nil, err
	}
	m := mt.New().Interface()
	if err := proto.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("%w: %s payload: %v", ErrInvalid, c.Catalog, err)
	}
	return c.Encode(m)
}

func (p *plan) encode(b []byte, m protoreflect.Message) ([]byte, error) {
	var err error
	for i := range p.steps {
		s := &p.steps[i]
		f := s.f
		if s.fd == nil {
			b = appendZero(b, f, p.cdr)
			continue
		}
		v := m.Get(s.fd)
		switch {
		case byteArray(f) && s.fd.Kind() == protoreflect.BytesKind:
			data := v.Bytes()
			if b, err = appendCount(b, f, len(data), p.cdr); err != nil {
				return nil, err
			}
			if f.Len >= 0 && len(data) == 0 {
				b = append(b, make([]byte, f.Len)...)
			} else {
				b = append(b, data...)
			}
		case f.Array:
			list := v.List()
			if b, err = appendCount(b, f, list.Len(), p.cdr); err != nil {
				return nil, err
			}
			if f.Len >= 0 && list.Len() == 0 {
				b = appendZeroElements(b, f, f.Len, p.cdr)
				continue
			}
			for j := range list.Len() {
				if b, err = appendValue(b, s, list.Get(j), p.cdr); err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", f.Name, j, err)
				}
			}
		default:
			if b, err = appendValue(b, s, v, p.cdr); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return b, nil
}

// appendCount writes a variable array's length, or checks a fixed one's (empty means zeros).
func appendCount(b []byte, f *Field, n int, cdr bool) ([]byte, error) {
	if f.Len >= 0 {
		if n != 0 && n != f.Len {
			return nil, fmt.Errorf("%s has %d elements, ROS takes exactly %d", f.Name, n, f.Len)
		}
		return b, nil
	}
	if uint64(n) > math.MaxUint32 || (f.Bound > 0 && n > f.Bound) {
		return nil, fmt.Errorf("%s has too many elements", f.Name)
	}
	return binary.LittleEndian.AppendUint32(pad(b, 4, cdr), uint32(n)), nil
}

// pad appends CDR padding up to a multiple of n; a CDR buffer starts with the 4-byte
// encapsulation header, which alignment does not count.
func pad(b []byte, n int, cdr bool) []byte {
	if !cdr || n <= 1 {
		return b
	}
	for (len(b)-4)%n != 0 {
		b = append(b, 0)
	}
	return b
}

func appendValue(b []byte, s *step, v protoreflect.Value, cdr bool) ([]byte, error) {
	switch {
	case s.sub != nil:
		return s.sub.encode(b, v.Message())
	case s.f.Type == "time":
		m := v.Message()
		fields := m.Descriptor().Fields()
		b = binary.LittleEndian.AppendUint32(pad(b, 4, cdr), uint32(m.Get(fields.ByName("sec")).Int()))
		return binary.LittleEndian.AppendUint32(b, uint32(m.Get(fields.ByName("nanosec")).Uint())), nil
	}
	le := binary.LittleEndian
	if n := builtinSize[s.f.Type]; n > 0 {
		b = pad(b, n, cdr)
	}
	switch s.f.Type {
	case "string":
		str := v.String()
		if s.f.StringBound > 0 && len(str) > s.f.StringBound {
			return nil, fmt.Errorf("a string of %d bytes, %s takes at most %d", len(str), s.f.Name, s.f.StringBound)
		}
		if cdr {
			b = le.AppendUint32(pad(b, 4, cdr), uint32(len(str)+1))
			return append(append(b, str...), 0), nil
		}
		b = le.AppendUint32(b, uint32(len(str)))
		return append(b, str...), nil
	case "bool":
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case "int8", "int16":
		n := v.Int()
		lim := int64(math.MaxInt8)
		if s.f.Type == "int16" {
			lim = math.MaxInt16
		}
		if n > lim || n < -lim-1 {
			return nil, fmt.Errorf("%d does not fit %s", n, s.f.Type)
		}
		if s.f.Type == "int8" {
			return append(b, byte(int8(n))), nil
		}
		return le.AppendUint16(b, uint16(int16(n))), nil
	case "uint8", "byte", "char", "uint16":
		n := v.Uint()
		if s.f.Type == "uint16" {
			if n > math.MaxUint16 {
				return nil, fmt.Errorf("%d does not fit uint16", n)
			}
			return le.AppendUint16(b, uint16(n)), nil
		}
		if n > math.MaxUint8 {
			return nil, fmt.Errorf("%d does not fit %s", n, s.f.Type)
		}
		return append(b, byte(n)), nil
	case "int32":
		return le.AppendUint32(b, uint32(int32(v.Int()))), nil
	case "uint32":
		return le.AppendUint32(b, uint32(v.Uint())), nil
	case "int64":
		return le.AppendUint64(b, uint64(v.Int())), nil
	case "uint64":
		return le.AppendUint64(b, v.Uint()), nil
	case "float32":
		return le.AppendUint32(b, math.Float32bits(float32(v.Float()))), nil
	case "float64":
		return le.AppendUint64(b, math.Float64bits(v.Float())), nil
	}
	return nil, fmt.Errorf("no encoder for %s", s.f.Type)
}

// appendZero writes the zero value of a field.
func appendZero(b []byte, f *Field, cdr bool) []byte {
	switch {
	case f.Array && f.Len < 0:
		return append(pad(b, 4, cdr), 0, 0, 0, 0)
	case f.Array:
		return appendZeroElements(b, f, f.Len, cdr)
	}
	return appendZeroElements(b, f, 1, cdr)
}

func appendZeroElements(b []byte, f *Field, n int, cdr bool) []byte {
	for range n {
		switch {
		case f.Spec != nil:
			for i := range f.Spec.Fields {
				b = appendZero(b, &f.Spec.Fields[i], cdr)
			}
		case f.Type == "string" && cdr:
			b = append(pad(b, 4, cdr), 1, 0, 0, 0, 0)
		case f.Type == "string":
			b = append(b, 0, 0, 0, 0)
		default:
			b = append(pad(b, builtinSize[f.Type], cdr), make([]byte, builtinSize[f.Type])...)
		}
	}
	return b
}

// SetSeq writes seq into the Header a message of spec starts with (see Spec.HasHeader).
func SetSeq(spec *Spec, data []byte, seq uint32) {
	if spec.HasHeader() && len(data) >= 4 {
		binary.LittleEndian.PutUint32(data, seq)
	}
}
