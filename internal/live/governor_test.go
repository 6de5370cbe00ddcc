package live

import (
	"testing"
	"time"
)

func TestPictureAgeFrames(t *testing.T) {
	for _, tc := range []struct {
		frame string
		age   time.Duration
		ok    bool
	}{
		{`{"pictureAgeMs":800}`, 800 * time.Millisecond, true},
		{`{"pictureAgeMs":12.5}`, 12500 * time.Microsecond, true},
		{`{"pictureAgeMs":-40}`, 0, true}, // clocks that disagree: never less than none
		{`{"pictureAgeMs":1e300}`, time.Hour, true},
		{`{"pictureAgeMs":"800"}`, 0, false},
		{`{"handover":"grant"}`, 0, false},
		{`{"linear":{"x":1}}`, 0, false},
		{`not json`, 0, false},
	} {
		age, ok := pictureAge([]byte(tc.frame))
		if age != tc.age || ok != tc.ok {
			t.Errorf("pictureAge(%s) = %v %v, want %v %v", tc.frame, age, ok, tc.age, tc.ok)
		}
	}
}
