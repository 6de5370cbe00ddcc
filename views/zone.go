package views

import (
	"sync/atomic"
	"time"
)

// The site's time zone: every time the panel shows (tables, the kiosk's clock, an alert's
// start) is in it, so a wall clock and a table beside it never disagree. It is the one
// setting views read besides their arguments, set once when the panel is built (web.New, from
// --timezone); the host's local zone until then.

type siteZone struct {
	loc  *time.Location
	name string // the IANA name the browser's clock is given ("" when unknown: its own)
}

var zone atomic.Pointer[siteZone]

func init() { zone.Store(&siteZone{loc: time.Local}) }

// SetTimeZone makes loc, named name (an IANA name, or "" when unknown), the site's zone.
func SetTimeZone(loc *time.Location, name string) {
	if loc == nil {
		loc = time.Local
	}
	zone.Store(&siteZone{loc: loc, name: name})
}

// TimeZoneName is the site's zone as the browser's clock takes it ("" when unknown).
func TimeZoneName() string { return zone.Load().name }

// inZone is t in the site's zone.
func inZone(t time.Time) time.Time { return t.In(zone.Load().loc) }
