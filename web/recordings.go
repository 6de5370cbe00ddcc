package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// The recordings tab: start a recording of chosen streams (Developer and above), stop it,
// and follow the robot's recordings. Every rule is the core's (gateway.StartRecording).

func (p *Panel) registerRecordings(e *echo.Echo, mw []echo.MiddlewareFunc) {
	e.GET("/robots/:robotId/recordings", p.handle(p.recordingsPage), mw...)
	e.GET("/robots/:robotId/recordings/fragment", p.handle(p.recordingsFragment), mw...)
	e.POST("/robots/:robotId/recordings", p.handle(p.startRecording), mw...)
	e.POST("/robots/:robotId/recordings/:recordingId/stop", p.handle(p.stopRecording), mw...)
	e.GET("/robots/:robotId/recordings/:recordingId", p.handle(p.playbackPage), mw...)
}

// mcapType is the media type of a recording's file among the robot's resources.
const mcapType = "application/mcap"

// playbackPage is a recording's player. The page is the panel's like any other (a session,
// and the robot visible to its user: an invisible robot is "not found"); a link to a moment
// (?t=) carries no signature, so it grants nothing: whoever opens it signs in and is checked
// like everybody. The file is read by the page through the download's range requests, with a
// signed link the page asks for (so only those who may download play it).
func (p *Panel) playbackPage(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	h, d, err := p.header(c, "recordings")
	if err != nil {
		return err
	}
	list, err := p.agents.ResourceDetails(ctx, caller, h.ID)
	if err != nil {
		return err
	}
	id := c.Param("recordingId")
	i := slices.IndexFunc(list, func(r fleetgate.ResourceDetail) bool { return r.ID == id && r.MIMEType == mcapType })
	if i < 0 {
		return fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no finished recording %q: it may still be running, or be deleted", h.Name, id)
	}
	v := views.PlaybackView{Nav: p.nav(c, d.Robot.Name+" · recording", "robots"), Header: h, Recording: list[i], At: c.QueryParam("t")}
	return p.render(c, http.StatusOK, views.Playback(v))
}

// recordingsView loads the tab. A robot that is offline, or cannot record, shows why.
func (p *Panel) recordingsView(c echo.Context) (views.RecordingsView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	h, d, err := p.header(c, "recordings")
	if err != nil {
		return views.RecordingsView{}, err
	}
	v := views.RecordingsView{Nav: p.nav(c, d.Robot.Name+" · recordings", "robots"), Header: h, Now: p.now(),
		CanRecord: p.streams.MayRecord(ctx, caller, h.ID)}
	v.Recordings, err = p.streams.Recordings(ctx, caller, h.ID)
	if code := fleetgate.ErrorCode(err); code == fleetgate.EUnavailable || code == fleetgate.EInvalid {
		v.Error, v.CanRecord = fleetgate.ErrorMessage(err), false
		return v, nil
	} else if err != nil {
		return v, err
	}
	if v.CanRecord {
		streams, err := p.streams.Streams(ctx, caller, h.ID)
		if code := fleetgate.ErrorCode(err); code == fleetgate.EUnavailable {
			v.Error = fleetgate.ErrorMessage(err)
		} else if err != nil {
			return v, err
		}
		v.Streams = slices.DeleteFunc(streams, func(s fleetgate.Stream) bool { return s.Direction == fleetgate.Input })
	}
	return v, nil
}

func (p *Panel) recordingsPage(c echo.Context) error {
	v, err := p.recordingsView(c)
	if err != nil {
		return err
	}
	if fl := p.takeFlash(c); fl.Error != "" {
		v.Error, v.Form = fl.Error, recordingForm(fl.Form)
	}
	return p.render(c, http.StatusOK, views.Recordings(v))
}

func (p *Panel) recordingsFragment(c echo.Context) error {
	v, err := p.recordingsView(c)
	if err != nil {
		return err
	}
	if v.Error != "" {
		return fleetgate.Errorf(fleetgate.EUnavailable, "%s", v.Error) // the table keeps its last state
	}
	return p.render(c, http.StatusOK, views.RecordingTable(v))
}

// startRecording starts a recording from the form; a mistake shows the form again with it.
func (p *Panel) startRecording(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	robotID := c.Param("robotId")
	form, err := c.FormParams()
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "the form could not be read")
	}
	in, err := recordingInput(recordingForm(form))
	if err == nil {
		_, err = p.streams.StartRecording(ctx, caller, robotID, in)
	}
	if err == nil {
		return c.Redirect(http.StatusSeeOther, "/robots/"+robotID+"/recordings")
	}
	if code := fleetgate.ErrorCode(err); code != fleetgate.EInvalid && code != fleetgate.EUnavailable {
		return err
	}
	return p.redirectFlash(c, "/robots/"+robotID+"/recordings", flash{Error: fleetgate.ErrorMessage(err), Form: form})
}

// recordingForm is the start form's fields as typed.
func recordingForm(form url.Values) views.RecordingForm {
	return views.RecordingForm{Streams: form["streams"], Duration: strings.TrimSpace(form.Get("duration")),
		MaxSize: strings.TrimSpace(form.Get("maxSize")), MaxRate: strings.TrimSpace(form.Get("maxRate"))}
}

// recordingInput reads the form's fields: a duration as Go writes it (30s, 10m, 1h30m) or
// a number of seconds, a size in MiB, a rate per second.
func recordingInput(f views.RecordingForm) (gateway.RecordingInput, error) {
	in := gateway.RecordingInput{Streams: f.Streams}
	if f.Duration != "" {
		d, err := time.ParseDuration(f.Duration)
		if err != nil {
			secs, nerr := strconv.ParseFloat(f.Duration, 64)
			if nerr != nil || secs < 0 || secs > 1e9 {
				return in, fleetgate.Errorf(fleetgate.EInvalid, "duration %q: write it as 30s, 10m or 1h30m", f.Duration)
			}
			d = time.Duration(secs * float64(time.Second))
		}
		in.Duration = d
	}
	if f.MaxSize != "" {
		mib, err := strconv.ParseFloat(f.MaxSize, 64)
		if err != nil || mib < 0 || mib > 1<<30 {
			return in, fleetgate.Errorf(fleetgate.EInvalid, "size limit %q: a number of MiB", f.MaxSize)
		}
		in.MaxBytes = int64(mib * (1 << 20))
	}
	if f.MaxRate != "" {
		rate, err := strconv.ParseFloat(f.MaxRate, 64)
		if err != nil {
			return in, fleetgate.Errorf(fleetgate.EInvalid, "rate %q: a number of samples per second", f.MaxRate)
		}
		in.MaxRate = rate
	}
	return in, nil
}

func (p *Panel) stopRecording(c echo.Context) error {
	robotID := c.Param("robotId")
	_, err := p.streams.StopRecording(c.Request().Context(), Caller(c), robotID, c.Param("recordingId"))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/robots/"+robotID+"/recordings")
}
