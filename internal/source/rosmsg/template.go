package rosmsg

import (
	"bytes"
	"strconv"
)

// EmptyJSON is an empty message of the type as JSON, the way the gateway answers a message
// template (endpoint 8) for a type outside the catalog: the fields in the definition's order
// under their ROS names, numbers 0, bool false, strings "", time and duration
// {"secs":0,"nsecs":0} (ROS 1's), a variable-length array [], a fixed-length one its length in
// empty elements, and every nested message expanded. Constants take no room in a message and
// are left out.
func (s *Spec) EmptyJSON() []byte {
	var b bytes.Buffer
	s.writeEmpty(&b)
	return b.Bytes()
}

func (s *Spec) writeEmpty(b *bytes.Buffer) {
	b.WriteByte('{')
	for i := range s.Fields {
		f := &s.Fields[i]
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.Name))
		b.WriteByte(':')
		if !f.Array {
			f.writeEmptyElement(b)
			continue
		}
		b.WriteByte('[')
		for j := 0; j < f.Len; j++ { // Len is -1 for a variable-length array: none
			if j > 0 {
				b.WriteByte(',')
			}
			f.writeEmptyElement(b)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

func (f *Field) writeEmptyElement(b *bytes.Buffer) {
	switch {
	case f.Spec != nil:
		f.Spec.writeEmpty(b)
	case f.Type == "bool":
		b.WriteString("false")
	case f.Type == "string" || f.Type == "wstring":
		b.WriteString(`""`)
	case f.Type == "time" || f.Type == "duration":
		b.WriteString(`{"secs":0,"nsecs":0}`)
	default:
		b.WriteByte('0')
	}
}
