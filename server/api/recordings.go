package api

import (
	"context"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Recordings (an extension of the contract, documented in /openapi.json): start, stop and
// list the recordings of a robot's streams that its agent writes to MCAP files. A finished
// recording is also one of the robot's resources, with the same id.

// Recordings is what the recordings routes ask of the core (gateway.StreamService).
type Recordings interface {
	Recordings(ctx context.Context, c *gateway.Caller, robotID string) ([]fleetgate.Recording, error)
	StartRecording(ctx context.Context, c *gateway.Caller, robotID string, in gateway.RecordingInput) (fleetgate.Recording, error)
	StopRecording(ctx context.Context, c *gateway.Caller, robotID, recordingID string) (fleetgate.Recording, error)
}

// RecordingFiles opens recordings to download, whole or cut (gateway.AgentService).
type RecordingFiles interface {
	OpenRecording(ctx context.Context, c *gateway.Caller, robotID, recordingID string, cut gateway.RecordingCut) (*gateway.RecordingFile, error)
}

type recordingRoutes struct {
	recordings Recordings
	files      RecordingFiles
}

func (h recordingRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.GET("/robots/:robotId/recordings", h.list, auth...)
	g.GET("/robots/:robotId/recordings/:recordingId/download", h.download, auth...)
	g.POST("/robots/:robotId/recordings", h.start, auth...)
	g.POST("/robots/:robotId/recordings/:recordingId/stop", h.stop, auth...)
}

type recordingRequest struct {
	Streams         []string `json:"streams"`
	DurationSeconds float64  `json:"durationSeconds"`
	MaxBytes        int64    `json:"maxBytes"`
	MaxRate         float64  `json:"maxRate"`
}

type recordedStream struct {
	ComponentName string `json:"componentName"`
	StreamName    string `json:"streamName"`
	Source        int    `json:"source"`
	StreamType    string `json:"streamType"`
	Topic         string `json:"topic"`
}

type recordingLimits struct {
	DurationSeconds float64 `json:"durationSeconds"`
	MaxBytes        int64   `json:"maxBytes"`
	MaxRate         float64 `json:"maxRate"`
}

// recordingBody is a recording as the API shows it; its state, error type, times and
// duration are those of the Recordings metric's recorders.
type recordingBody struct {
	ID             string           `json:"id"`
	RecorderState  string           `json:"recorderState"`
	ErrorType      string           `json:"errorType"`
	Reason         string           `json:"reason"`
	StartTime      time.Time        `json:"startTime"`
	EndTime        *time.Time       `json:"endTime"` // null while it runs
	Duration       string           `json:"duration"`
	Streams        []recordedStream `json:"streams"`
	Limits         recordingLimits  `json:"limits"`
	Size           int64            `json:"size"`
	Messages       int64            `json:"messages"`
	DroppedSamples int64            `json:"droppedSamples"`
	ResourceID     string           `json:"resourceId"` // the file's id among the robot's resources once finished
	// Trigger and EventID (extensions): "manual", or what made a flight recording, and
	// the event-log entry it was made for.
	Trigger string `json:"trigger"`
	EventID string `json:"eventId"`
}

type recordingsResponse struct {
	Recordings []recordingBody `json:"recordings"`
}

func recordingOf(r fleetgate.Recording, now time.Time) recordingBody {
	b := recordingBody{
		ID: r.ID, RecorderState: r.State, ErrorType: r.ErrorType, Reason: r.Reason, StartTime: r.StartTime.UTC(),
		Duration: hms(r.Duration(now)), Streams: make([]recordedStream, len(r.Streams)),
		Limits: recordingLimits{DurationSeconds: r.Request.Duration.Seconds(), MaxBytes: r.Request.MaxBytes, MaxRate: r.Request.MaxRate},
		Size:   r.Size, Messages: r.Messages, DroppedSamples: r.Dropped, Trigger: r.Trigger, EventID: r.EventID,
	}
	if !r.EndTime.IsZero() {
		end := r.EndTime.UTC()
		b.EndTime = &end
		b.ResourceID = r.ID
	}
	for i, s := range r.Streams {
		b.Streams[i] = recordedStream{ComponentName: s.Key.Component, StreamName: s.Key.Name, Source: int(s.Key.Source), StreamType: s.Type, Topic: s.Topic}
	}
	return b
}

func (h recordingRoutes) list(c echo.Context) error {
	list, err := h.recordings.Recordings(c.Request().Context(), callerOf(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	now := time.Now()
	resp := recordingsResponse{Recordings: make([]recordingBody, len(list))}
	for i, r := range list {
		resp.Recordings[i] = recordingOf(r, now)
	}
	return c.JSON(http.StatusOK, resp)
}

func (h recordingRoutes) start(c echo.Context) error {
	var req recordingRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if math.IsNaN(req.DurationSeconds) || req.DurationSeconds < 0 || req.DurationSeconds > math.MaxInt64/float64(time.Second) {
		return fleetgate.Errorf(fleetgate.EInvalid, "durationSeconds must be a number of seconds, 0 for until stopped")
	}
	rec, err := h.recordings.StartRecording(c.Request().Context(), callerOf(c), c.Param("robotId"), gateway.RecordingInput{
		Streams: req.Streams, Duration: time.Duration(req.DurationSeconds * float64(time.Second)),
		MaxBytes: req.MaxBytes, MaxRate: req.MaxRate,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, recordingOf(rec, time.Now()))
}

func (h recordingRoutes) stop(c echo.Context) error {
	rec, err := h.recordings.StopRecording(c.Request().Context(), callerOf(c), c.Param("robotId"), c.Param("recordingId"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, recordingOf(rec, time.Now()))
}

// download answers with a recording's MCAP file: whole without parameters (Range requests
// work), else a new file of the time range from..to (RFC 3339) and the streams named
// (component/stream or topic, comma-separated), written as it is cut.
func (h recordingRoutes) download(c echo.Context) error {
	cut, err := recordingCutOf(c)
	if err != nil {
		return err
	}
	f, err := h.files.OpenRecording(c.Request().Context(), callerOf(c), c.Param("robotId"), c.Param("recordingId"), cut)
	if err != nil {
		return err
	}
	defer f.Close()
	if !f.Cut() {
		serveFile(c, f.File, f.Resource)
		return nil
	}
	attachmentHeaders(c, f.Resource)
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	if c.Request().Method == http.MethodHead {
		return nil
	}
	if _, err := f.WriteTo(c.Response()); err != nil {
		// The status is sent: cut the connection, so that the client sees a broken download
		// rather than a short file.
		panic(http.ErrAbortHandler)
	}
	return nil
}

// recordingCutOf reads a download's from, to and streams.
func recordingCutOf(c echo.Context) (gateway.RecordingCut, error) {
	var cut gateway.RecordingCut
	for _, p := range []struct {
		name string
		at   *time.Time
	}{{"from", &cut.From}, {"to", &cut.To}} {
		v := c.QueryParam(p.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return cut, fleetgate.Errorf(fleetgate.EInvalid, "%s must be a time in RFC 3339, such as 2026-11-28T09:30:00Z, not %q", p.name, v)
		}
		*p.at = t
	}
	for name := range strings.SplitSeq(c.QueryParam("streams"), ",") {
		if name = strings.TrimSpace(name); name != "" {
			cut.Streams = append(cut.Streams, name)
		}
	}
	if len(cut.Streams) > maxCutStreams {
		return cut, fleetgate.Errorf(fleetgate.EInvalid, "name at most %d streams", maxCutStreams)
	}
	return cut, nil
}

// maxCutStreams bounds the streams of a download, as a recording's.
const maxCutStreams = 64
