package api

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/labstack/echo/v4"
)

// FuzzParseLiveQuery feeds W3 query strings to the parser: it must never panic, every
// refusal is a 400, and what it accepts is within the contract's ranges.
func FuzzParseLiveQuery(f *testing.F) {
	for _, seed := range []string{
		"componentName=camera&streamName=image",
		"componentName=base&streamName=cmd_vel&direction=input&format=json&source=1",
		"streamName=/scan&source=2&streamType=Platform.Messages.sensor_msgs.LaserScan&maxRate=2.5&withoutDownSampling=true",
		"streamName=x&maxRate=NaN", "streamName=x&maxRate=1e309", "streamName=x&source=99",
		"streamName=x&streamName=y", "streamName=x&direction=INPUT&maxRate=3",
		"streamName=%ff&url=rtsp://cam&username=a&password=b&endpoint=/dev/video0", "",
	} {
		f.Add(seed)
	}
	e := echo.New()
	f.Fuzz(func(t *testing.T, raw string) {
		if _, err := url.ParseQuery(raw); err != nil {
			return // net/http would not hand such a query to a handler intact
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.RawQuery = raw
		c := e.NewContext(req, httptest.NewRecorder())
		q, err := parseLiveQuery(c)
		if err != nil {
			if fleetgate.ErrorCode(err) != fleetgate.EInvalid {
				t.Fatalf("%q: refusal %v is not a 400", raw, err)
			}
			return
		}
		if q.sel.Name == "" {
			t.Fatalf("%q: accepted without a streamName", raw)
		}
		if q.maxRate < 0 || q.maxRate > maxRateLimit || q.maxRate != q.maxRate {
			t.Fatalf("%q: maxRate %v accepted", raw, q.maxRate)
		}
		if q.sel.Source != 0 && !q.sel.Source.Valid() {
			t.Fatalf("%q: source %d accepted", raw, q.sel.Source)
		}
		if q.input && q.maxRate != 0 {
			t.Fatalf("%q: maxRate on an input socket", raw)
		}
	})
}
