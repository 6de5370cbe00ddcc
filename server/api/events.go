package api

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Events is what endpoint 12 and the event log's read API ask of the core
// (gateway.EventService).
type Events interface {
	PostEvent(ctx context.Context, c *gateway.Caller, in gateway.PostEventInput) (fleetgate.Event, error)
	QueryEvents(ctx context.Context, c *gateway.Caller, f fleetgate.EventFilter) ([]fleetgate.EventRow, *fleetgate.EventCursor, error)
}

// eventRoutes are the event log's routes: endpoint 12, and the read API (an extension).
type eventRoutes struct{ events Events }

func (h eventRoutes) mount(g *echo.Group, auth ...echo.MiddlewareFunc) {
	g.POST("/events/log", h.post, auth...)
	g.GET("/events", h.list, auth...)
}

// post is endpoint 12: its fields are query parameters and it takes no body. type and
// severity are extensions.
func (h eventRoutes) post(c echo.Context) error {
	var in gateway.PostEventInput
	var err error
	if in.RobotID, err = requireQuery(c, "robotId"); err != nil {
		return err
	}
	if in.FleetID, err = queryParam(c, "fleetId"); err != nil {
		return err
	}
	if in.Message, err = requireQuery(c, "message"); err != nil {
		return err
	}
	if in.Type, err = optionalEnum(c, "type", fleetgate.ParseEventType); err != nil {
		return err
	}
	if in.Severity, err = optionalEnum(c, "severity", fleetgate.ParseEventSeverity); err != nil {
		return err
	}
	if in.Record, err = optionalEnum(c, "record", parseRecord); err != nil {
		return err
	}
	if err := refuseBody(c); err != nil {
		return err
	}
	if _, err := h.events.PostEvent(c.Request().Context(), callerOf(c), in); err != nil {
		return err
	}
	return c.NoContent(http.StatusOK)
}

// eventJSON is an entry as the read API gives it.
type eventJSON struct {
	ID          int64     `json:"id"`
	Time        time.Time `json:"time"`
	RobotID     string    `json:"robotId"`
	RobotName   string    `json:"robotName"`
	FleetID     string    `json:"fleetId"`
	Agent       string    `json:"agent"` // the agent's id: what the agent filter takes
	AgentName   string    `json:"agentName"`
	Author      string    `json:"author"`
	Message     string    `json:"message"`
	Type        string    `json:"type"`
	Severity    string    `json:"severity"`
	RecordingID string    `json:"recordingId"`
	// RecordingDeleted says what became of the recording when it no longer exists
	// ("deleted by retention"); absent otherwise.
	RecordingDeleted string `json:"recordingDeleted,omitempty"`
}

func eventOf(r fleetgate.EventRow) eventJSON {
	return eventJSON{ID: r.ID, Time: r.CreatedAt, RobotID: r.RobotID, RobotName: r.RobotName, FleetID: r.FleetID, Agent: r.AgentID,
		AgentName: r.AgentName, Author: r.Author, Message: r.Message, Type: string(r.Type), Severity: string(r.Severity), RecordingID: r.RecordingID, RecordingDeleted: r.RecordingGone}
}

type eventPage struct {
	Events     []eventJSON `json:"events"`
	NextCursor string      `json:"nextCursor"` // empty: the last page
}

// list is GET /events: a page of the log, newest first, or with format=csv or jsonl the
// whole filtered view, streamed a page at a time so that a year of entries never sits in
// memory.
func (h eventRoutes) list(c echo.Context) error {
	f, err := eventFilterOf(c)
	if err != nil {
		return err
	}
	format, err := queryParam(c, "format")
	if err != nil {
		return err
	}
	if err := refuseBody(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	switch format {
	case "":
		rows, next, err := h.events.QueryEvents(ctx, callerOf(c), f)
		if err != nil {
			return err
		}
		page := eventPage{Events: make([]eventJSON, len(rows)), NextCursor: next.String()}
		for i, r := range rows {
			page.Events[i] = eventOf(r)
		}
		return c.JSON(http.StatusOK, page)
	case "csv", "jsonl":
		if f.Limit != 0 {
			return fleetgate.Errorf(fleetgate.EInvalid, "limit does not apply to format=%s: it gives the whole filtered view", format)
		}
		return h.export(c, f, format)
	}
	return fleetgate.Errorf(fleetgate.EInvalid, "format %q is not one of csv, jsonl", format)
}

// export streams every entry matching f. Once the first byte is out the status is sent, so
// a failure after it aborts the connection: a client never takes a cut file for a whole one.
func (h eventRoutes) export(c echo.Context, f fleetgate.EventFilter, format string) error {
	ctx, caller := c.Request().Context(), callerOf(c)
	f.Limit = gateway.MaxEventPage
	rows, next, err := h.events.QueryEvents(ctx, caller, f)
	if err != nil {
		return err // nothing sent yet: an answer with its status
	}
	res := c.Response()
	if format == "csv" {
		res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	} else {
		res.Header().Set(echo.HeaderContentType, "application/x-ndjson")
	}
	res.Header().Set(echo.HeaderContentDisposition, `attachment; filename="events.`+format+`"`)
	res.WriteHeader(http.StatusOK)
	write := exportWriter(res, format)
	for {
		for _, r := range rows {
			if err := write(eventOf(r)); err != nil {
				panic(http.ErrAbortHandler) // the client went away, or the connection broke
			}
		}
		if err := write(eventJSON{}); err != nil { // flush the page
			panic(http.ErrAbortHandler)
		}
		res.Flush()
		if next == nil {
			return nil
		}
		f.After = next
		if rows, next, err = h.events.QueryEvents(ctx, caller, f); err != nil {
			c.Logger().Errorf("event export cut short: %v", err)
			panic(http.ErrAbortHandler)
		}
	}
}

// exportWriter writes one entry at a time in format; a zero entry flushes.
func exportWriter(res *echo.Response, format string) func(eventJSON) error {
	if format == "jsonl" {
		enc := json.NewEncoder(res)
		return func(e eventJSON) error {
			if e.ID == 0 {
				return nil
			}
			return enc.Encode(e)
		}
	}
	w := csv.NewWriter(res)
	header := []string{"id", "time", "robotId", "robotName", "fleetId", "agent", "agentName", "author", "message", "type", "severity", "recordingId"}
	wroteHeader := false
	return func(e eventJSON) error {
		if !wroteHeader {
			wroteHeader = true
			if err := w.Write(header); err != nil {
				return err
			}
		}
		if e.ID == 0 {
			w.Flush()
			return w.Error()
		}
		return w.Write([]string{strconv.FormatInt(e.ID, 10), e.Time.Format(time.RFC3339Nano), e.RobotID, cell(e.RobotName), e.FleetID,
			e.Agent, cell(e.AgentName), cell(e.Author), cell(e.Message), e.Type, e.Severity, e.RecordingID})
	}
}

// cell keeps a user's text from being run as a formula by the spreadsheet that opens the
// export (CSV injection): a cell that a spreadsheet would read as one starts with a quote.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// eventFilterOf reads GET /events' query.
func eventFilterOf(c echo.Context) (fleetgate.EventFilter, error) {
	var f fleetgate.EventFilter
	var err error
	for name, to := range map[string]*string{"robotId": &f.RobotID, "fleetId": &f.FleetID, "agent": &f.AgentID, "author": &f.Author, "q": &f.Text} {
		if *to, err = queryParam(c, name); err != nil {
			return f, err
		}
	}
	if len(f.Text) > gateway.MaxEventMessage {
		return f, fleetgate.Errorf(fleetgate.EInvalid, "q is %d bytes; the limit is %d", len(f.Text), gateway.MaxEventMessage)
	}
	if f.From, err = queryTime(c, "from"); err != nil {
		return f, err
	}
	if f.To, err = queryTime(c, "to"); err != nil {
		return f, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return f, fleetgate.Errorf(fleetgate.EInvalid, "from (%s) must be before to (%s)", f.From.Format(time.RFC3339), f.To.Format(time.RFC3339))
	}
	if f.Type, err = optionalEnum(c, "type", fleetgate.ParseEventType); err != nil {
		return f, err
	}
	if f.Severity, err = optionalEnum(c, "severity", fleetgate.ParseEventSeverity); err != nil {
		return f, err
	}
	if v, err := queryParam(c, "limit"); err != nil {
		return f, err
	} else if v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > gateway.MaxEventPage {
			return f, fleetgate.Errorf(fleetgate.EInvalid, "limit %q must be a whole number from 1 to %d", v, gateway.MaxEventPage)
		}
		f.Limit = n
	}
	if v, err := queryParam(c, "cursor"); err != nil {
		return f, err
	} else if v != "" {
		if f.After, err = fleetgate.ParseEventCursor(v); err != nil {
			return f, err
		}
	}
	return f, nil
}

// optionalEnum reads an optional parameter with parse; absent, it is T's zero (a filter
// that keeps all; a post whose core chooses the default).
func optionalEnum[T any](c echo.Context, name string, parse func(string) (T, error)) (T, error) {
	var zero T
	v, err := queryParam(c, name)
	if err != nil || v == "" {
		return zero, err
	}
	return parse(v)
}

// parseRecord reads endpoint 12's record (an extension).
func parseRecord(v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fleetgate.Errorf(fleetgate.EInvalid, "record must be true or false")
	}
	return b, nil
}

// queryTime reads an optional RFC 3339 time.
func queryTime(c echo.Context, name string) (time.Time, error) {
	v, err := queryParam(c, name)
	if err != nil || v == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fleetgate.Errorf(fleetgate.EInvalid, "%s %q is not an RFC 3339 time (2026-11-27T08:00:00Z)", name, v)
	}
	return t, nil
}
