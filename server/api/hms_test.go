package api

import (
	"testing"
	"time"
)

// The recorder's duration is the contract's hh:mm:ss, hours in two digits at least.
func TestDurationIsHHMMSS(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "00:00:00", 4 * time.Second: "00:00:04", 4*time.Second + 999*time.Millisecond: "00:00:04",
		62*time.Minute + 3*time.Second: "01:02:03", 7 * 24 * time.Hour: "168:00:00", -time.Second: "00:00:00",
	} {
		if got := hms(d); got != want {
			t.Errorf("hms(%v) = %q, want %q", d, got, want)
		}
	}
}
