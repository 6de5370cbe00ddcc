package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/labstack/echo/v4"
)

// The two conventions share one set of answer types: v2's, with camelCase keys. The second
// convention writes the same values through respelled keys (PascalCase), so its answers
// cannot drift from v2's: a field added to v2 is there in both, spelled as each expects.

// writeAs answers v in the keys of casing k, keeping the order of the keys.
func writeAs(c echo.Context, status int, v any, k keyCasing) error {
	if k == camelCase {
		return c.JSON(status, v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	out, err := k.respellJSON(b)
	if err != nil {
		return err
	}
	return c.JSONBlob(status, out)
}

// respellJSON rewrites the keys of every object in the document b, token by token: values
// (numbers as written, strings, a stream's JSON inside a string) are copied as they are.
func (k keyCasing) respellJSON(b []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out bytes.Buffer
	// For each open object or array: whether a value was written in it, and for objects
	// whether the next string is a key.
	type level struct {
		object, wrote, key bool
	}
	var stack []level
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			closing := tok == json.Delim('}') || tok == json.Delim(']')
			switch {
			case closing:
			case top.object && top.key:
				if top.wrote {
					out.WriteByte(',')
				}
				s, ok := tok.(string)
				if !ok {
					return nil, fmt.Errorf("an object key that is not a string: %v", tok)
				}
				writeJSON(&out, k.key(s))
				out.WriteByte(':')
				top.key, top.wrote = false, true
				continue
			case top.object:
				top.key = true // this value ends the pair
			case top.wrote:
				out.WriteByte(',')
			default:
				top.wrote = true
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteRune(rune(t))
			switch t {
			case '{':
				stack = append(stack, level{object: true, key: true})
			case '[':
				stack = append(stack, level{})
			default:
				stack = stack[:len(stack)-1]
			}
		default:
			writeJSON(&out, t)
		}
	}
	if len(stack) > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	out.WriteByte('\n') // as c.JSON ends its answers
	return out.Bytes(), nil
}

func writeJSON(w *bytes.Buffer, v any) {
	b, _ := json.Marshal(v) // strings, json.Number, booleans and nil always marshal
	w.Write(b)
}
