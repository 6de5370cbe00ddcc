package gateway

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// EventService is the core's event log: entries posted on robots by their users, and those
// an agent's local gateway forwards to the cloud.
type EventService struct {
	store  EventStore
	robots *RobotService
	now    func() time.Time
	// posted is called after an entry is posted here (Config.EventPosted).
	posted func()
}

// EventStore is what the event log needs from durable storage.
type EventStore interface {
	// CreateEvent stores e durably (the transaction is on disk when it returns) and sets its ID.
	CreateEvent(ctx context.Context, e *fleetgate.Event) error
	Events(ctx context.Context, f fleetgate.EventFilter) ([]fleetgate.Event, error)
	// SetEventRecording links entry id to the recording made for it.
	SetEventRecording(ctx context.Context, id int64, recordingID string) error
	// CreateAgentEvents stores entries an agent forwarded, one per (AgentID, OriginID).
	CreateAgentEvents(ctx context.Context, events []fleetgate.Event) error
	// UnforwardedEvents lists the entries posted here the cloud has not confirmed, oldest
	// first; MarkEventsForwarded records its confirmation.
	UnforwardedEvents(ctx context.Context, limit int) ([]fleetgate.Event, error)
	MarkEventsForwarded(ctx context.Context, ids []int64, at time.Time) error

	// Resource tells whether an entry's recording was deleted (DeletedPath).
	Resource(ctx context.Context, id string) (fleetgate.ResourceRecord, error)

	// The names shown beside entries.
	Fleets(ctx context.Context, orgID string) ([]fleetgate.Fleet, error)
	Agent(ctx context.Context, id string) (fleetgate.Agent, error)
	Agents(ctx context.Context, orgID string) ([]fleetgate.Agent, error)
}

// MaxEventMessage is the largest event-log message, in bytes.
const MaxEventMessage = 4096

// PostEventInput is endpoint 12's query.
type PostEventInput struct {
	RobotID string
	FleetID string // optional
	Message string
	// Type and Severity are extensions; empty: a note, of info.
	Type     fleetgate.EventType
	Severity fleetgate.EventSeverity
	// Record (an extension, record=true) has the robot's flight recorder make a recording of
	// its last seconds and of those to come, named after the message and linked to the entry.
	Record bool
}

// PostEvent records a user's event-log message. When it returns nil the entry is on disk.
func (es *EventService) PostEvent(ctx context.Context, c *Caller, in PostEventInput) (fleetgate.Event, error) {
	switch {
	case in.RobotID == "":
		return fleetgate.Event{}, fleetgate.Errorf(fleetgate.EInvalid, "robotId is required")
	case strings.TrimSpace(in.Message) == "":
		return fleetgate.Event{}, fleetgate.Errorf(fleetgate.EInvalid, "message is required")
	case len(in.Message) > MaxEventMessage:
		return fleetgate.Event{}, fleetgate.Errorf(fleetgate.EInvalid, "message is %d bytes; the limit is %d", len(in.Message), MaxEventMessage)
	case !utf8.ValidString(in.Message):
		return fleetgate.Event{}, fleetgate.Errorf(fleetgate.EInvalid, "message is not valid UTF-8")
	}
	r, _, err := es.robots.authorizeRobot(ctx, c, in.RobotID, actPostEvent)
	if err != nil {
		return fleetgate.Event{}, err
	}
	var flight fleet.FlightRecorder
	if in.Record {
		// Checked before the entry is stored: a robot that cannot record gets no entry.
		if flight, err = es.flightRecorder(ctx, c, r); err != nil {
			return fleetgate.Event{}, err
		}
	}
	if in.FleetID != "" {
		if _, err := es.robots.visibleFleet(ctx, c, in.FleetID); err != nil {
			return fleetgate.Event{}, err
		}
	}
	e := fleetgate.Event{
		RobotID:     r.ID,
		FleetID:     in.FleetID,
		UserID:      c.User.ID,
		AuthorEmail: c.User.Email,
		Message:     in.Message,
		CreatedAt:   es.now().UTC(),
		Type:        cmp.Or(in.Type, fleetgate.EventNote),
		Severity:    cmp.Or(in.Severity, fleetgate.SeverityInfo),
	}
	if _, err := fleetgate.ParseEventType(string(e.Type)); err != nil {
		return fleetgate.Event{}, err
	}
	if _, err := fleetgate.ParseEventSeverity(string(e.Severity)); err != nil {
		return fleetgate.Event{}, err
	}
	if err := es.store.CreateEvent(ctx, &e); err != nil {
		return fleetgate.Event{}, err
	}
	var recordErr error
	if flight != nil {
		recordErr = es.recordFor(ctx, r, flight, &e)
	}
	if es.posted != nil {
		es.posted() // a local gateway's link forwards it to the cloud
	}
	return e, recordErr
}

// flightRecorder is robot r's flight recorder, for a post with record=true.
func (es *EventService) flightRecorder(ctx context.Context, c *Caller, r fleetgate.Robot) (fleet.FlightRecorder, error) {
	_, live, err := es.robots.liveRobot(ctx, c, r.ID, actPostEvent)
	if err != nil {
		return nil, err
	}
	fr, ok := fleet.As[fleet.FlightRecorder](live)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "robot %q cannot record: its source has no recorder", r.Name)
	}
	return fr, nil
}

// recordFor has the flight recorder make a recording for entry e, named after its message,
// and links the entry to it. The entry is stored whatever happens: an error says it has no
// recording.
func (es *EventService) recordFor(ctx context.Context, r fleetgate.Robot, flight fleet.FlightRecorder, e *fleetgate.Event) error {
	eventID := strconv.FormatInt(e.ID, 10)
	rec, err := recordingCall(ctx, r, func(ctx context.Context) (fleetgate.Recording, error) {
		return flight.TriggerRecording(ctx, e.Message, eventID)
	})
	if err == nil {
		err = es.store.SetEventRecording(ctx, e.ID, rec.ID)
	}
	if err != nil {
		return &fleetgate.Error{Code: fleetgate.ErrorCode(err), Message: "the entry is posted, but no recording was made: " + fleetgate.ErrorMessage(err), Err: err}
	}
	e.RecordingID = rec.ID
	return nil
}

// RecordEvent stores an entry the gateway itself makes (a control change, a refusal), for
// a robot it hosts; its message is cut to MaxEventMessage. A linked agent forwards it to the
// cloud like a posted one.
func (es *EventService) RecordEvent(ctx context.Context, e fleetgate.Event) error {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = es.now().UTC()
	}
	if len(e.Message) > MaxEventMessage {
		e.Message = strings.ToValidUTF8(e.Message[:MaxEventMessage], "")
	}
	if err := es.store.CreateEvent(ctx, &e); err != nil {
		return err
	}
	if es.posted != nil {
		es.posted()
	}
	return nil
}

// MaxEventAuthor is the longest author an agent's entry keeps, in bytes (an email address
// is at most 254).
const MaxEventAuthor = 254

// SaveAgentEvents stores entries posted on agent agentID's local gateway into this (the
// cloud's) log, under the agent's fleet, and returns those it refused; when it returns a nil
// error the stored ones are on disk. An agent speaks only for its own robots: an entry about
// a robot whose record does not name agentID as its agent (one it never hosted, another
// agent's, an unknown id) is refused, never stored. An entry already stored (sent again after
// a lost confirmation) stays as it was. The agent checked each entry as PostEvent does; what
// breaks those rules anyway is cut to them, not refused, so that one bad entry cannot hold up
// the agent's log forever.
//
// The author is the agent's claim: an account of its local gateway, which the cloud cannot
// check. It is kept as given (cut to MaxEventAuthor, control characters replaced), and shown
// only with the agent it came through (EventAuthor), so that an agent cannot pass an entry
// off as written by one of the cloud's users.
func (es *EventService) SaveAgentEvents(ctx context.Context, agentID string, events []fleetgate.Event) (refused []fleetgate.Event, err error) {
	a, err := es.store.Agent(ctx, agentID)
	if err != nil {
		return nil, err
	}
	hosted := map[string]bool{}
	keep := make([]fleetgate.Event, 0, len(events))
	for _, e := range events {
		own, seen := hosted[e.RobotID]
		if !seen {
			r, err := es.robots.store.Robot(ctx, e.RobotID)
			switch {
			case err == nil:
				own = r.AgentID == a.ID
			case fleetgate.ErrorCode(err) != fleetgate.ENotFound:
				return nil, err
			}
			hosted[e.RobotID] = own
		}
		if !own {
			refused = append(refused, e)
			continue
		}
		e.ID, e.UserID, e.AgentID, e.FleetID = 0, "", a.ID, a.FleetID
		if len(e.Message) > MaxEventMessage {
			e.Message = e.Message[:MaxEventMessage]
		}
		e.Message = strings.ToValidUTF8(e.Message, "\uFFFD")
		e.AuthorEmail = cleanAuthor(e.AuthorEmail)
		// A recording's id is a UUID; anything else an agent sends names nothing here.
		if len(e.RecordingID) > 64 || !utf8.ValidString(e.RecordingID) {
			e.RecordingID = ""
		}
		// An agent newer than this cloud may know types this one does not: they are kept as
		// what this one knows (a note; info), never refused, like the rules above.
		if _, err := fleetgate.ParseEventType(string(e.Type)); err != nil || e.Type == "" {
			e.Type = fleetgate.EventNote
		}
		if _, err := fleetgate.ParseEventSeverity(string(e.Severity)); err != nil || e.Severity == "" {
			e.Severity = fleetgate.SeverityInfo
		}
		if e.CreatedAt.IsZero() {
			e.CreatedAt = es.now().UTC()
		}
		keep = append(keep, e)
	}
	if len(keep) == 0 {
		return refused, nil
	}
	return refused, es.store.CreateAgentEvents(ctx, keep)
}

// cleanAuthor makes an agent's author one line of valid UTF-8 of at most MaxEventAuthor
// bytes: a line break in it could forge a row of a text listing (fleetgate events list).
func cleanAuthor(s string) string {
	s = s[:min(len(s), 4*MaxEventAuthor)] // each byte below becomes at most 3
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= MaxEventAuthor {
		return s
	}
	cut := MaxEventAuthor
	for !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// EventAuthor says who wrote entry e, in words that cannot be mistaken for one of this
// gateway's users: an entry an agent forwarded names an account of the agent's local gateway,
// which only the agent vouches for, so it reads "admin@localhost via agent dock-7" (agentName,
// or the agent's id when the name is not known).
func EventAuthor(e fleetgate.Event, agentName string) string {
	if e.AgentID == "" {
		return e.AuthorEmail
	}
	return cmp.Or(e.AuthorEmail, "someone") + " via agent " + cmp.Or(agentName, e.AgentID)
}

// UnforwardedEvents lists up to limit entries posted here the cloud has not confirmed,
// oldest first (a linked agent's outbox).
func (es *EventService) UnforwardedEvents(ctx context.Context, limit int) ([]fleetgate.Event, error) {
	return es.store.UnforwardedEvents(ctx, limit)
}

// EventsForwarded records that the cloud stored entries ids.
func (es *EventService) EventsForwarded(ctx context.Context, ids []int64) error {
	return es.store.MarkEventsForwarded(ctx, ids, es.now().UTC())
}

// The page sizes of QueryEvents.
const (
	DefaultEventPage = 100
	MaxEventPage     = 1000
)

// QueryEvents is GET /apigateway/v2/events: a page of the entries about the robots the caller
// may see (an Operator sees the robots they may see, as in the panel) matching f, newest first,
// with the names of their robot, fleet and agent, and where the next page starts (nil: this
// was the last). A robot or fleet the caller may not see is not found. f.FleetID keeps the
// entries of the robots in that fleet; f.Limit is the page size (0: DefaultEventPage, at most
// MaxEventPage).
func (es *EventService) QueryEvents(ctx context.Context, c *Caller, f fleetgate.EventFilter) ([]fleetgate.EventRow, *fleetgate.EventCursor, error) {
	switch {
	case f.Limit == 0:
		f.Limit = DefaultEventPage
	case f.Limit < 0 || f.Limit > MaxEventPage:
		return nil, nil, fleetgate.Errorf(fleetgate.EInvalid, "limit is %d; it must be 1 to %d", f.Limit, MaxEventPage)
	}
	robots, err := es.robots.visibleRobots(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if f.FleetID != "" {
		if _, err := es.robots.visibleFleet(ctx, c, f.FleetID); err != nil {
			return nil, nil, err
		}
		robots = slices.DeleteFunc(robots, func(r fleetgate.Robot) bool { return r.FleetID != f.FleetID })
		f.FleetID = ""
	}
	names := make(map[string]string, len(robots))
	f.RobotIDs = make([]string, 0, len(robots))
	for _, r := range robots {
		names[r.ID] = r.Name
		f.RobotIDs = append(f.RobotIDs, r.ID)
	}
	if f.RobotID != "" {
		if _, ok := names[f.RobotID]; !ok {
			return nil, nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", f.RobotID)
		}
		f.RobotIDs = []string{f.RobotID}
	}
	fleetNames, agentNames, err := es.orgNames(ctx, c.User.OrgID)
	if err != nil {
		return nil, nil, err
	}
	want := f.Limit
	f.Limit++ // one more tells whether a next page exists
	events, err := es.store.Events(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	var next *fleetgate.EventCursor
	if len(events) > want {
		events = events[:want]
		last := events[want-1]
		next = &fleetgate.EventCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	out := make([]fleetgate.EventRow, len(events))
	for i, e := range events {
		out[i] = fleetgate.EventRow{Event: e, RobotName: names[e.RobotID], FleetName: fleetNames[e.FleetID], AgentName: agentNames[e.AgentID],
			Author: EventAuthor(e, agentNames[e.AgentID])}
	}
	if err := es.markGoneRecordings(ctx, out); err != nil {
		return nil, nil, err
	}
	return out, next, nil
}

// markGoneRecordings says on each row whose recording retention deleted that it did (the
// recording's id stays on the entry).
func (es *EventService) markGoneRecordings(ctx context.Context, rows []fleetgate.EventRow) error {
	gone := map[string]string{}
	for i, e := range rows {
		if e.RecordingID == "" {
			continue
		}
		why, known := gone[e.RecordingID]
		if !known {
			rec, err := es.store.Resource(ctx, e.RecordingID)
			if err != nil && !fleetgate.Is(err, fleetgate.ENotFound) {
				return err
			}
			if err == nil && rec.Path == DeletedPath && rec.RobotID == e.RobotID {
				why = DeletedPath
			}
			gone[e.RecordingID] = why
		}
		rows[i].RecordingGone = why
	}
	return nil
}

// orgNames maps the ids of an organization's fleets and agents to their names.
func (es *EventService) orgNames(ctx context.Context, orgID string) (fleets, agents map[string]string, err error) {
	fl, err := es.store.Fleets(ctx, orgID)
	if err != nil {
		return nil, nil, err
	}
	fleets = make(map[string]string, len(fl))
	for _, f := range fl {
		fleets[f.ID] = f.Name
	}
	ag, err := es.store.Agents(ctx, orgID)
	if err != nil {
		return nil, nil, err
	}
	agents = make(map[string]string, len(ag))
	for _, a := range ag {
		agents[a.ID] = a.Name
	}
	return fleets, agents, nil
}

// AgentChoices lists the agents of the caller's organization by name, for filters.
func (es *EventService) AgentChoices(ctx context.Context, c *Caller) ([]fleetgate.AgentChoice, error) {
	agents, err := es.store.Agents(ctx, c.User.OrgID)
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.AgentChoice, len(agents))
	for i, a := range agents {
		out[i] = fleetgate.AgentChoice{ID: a.ID, Name: a.Name}
	}
	return out, nil
}

// EventLog returns the newest event-log entries matching f (a limit of 0: 1000).
func (es *EventService) EventLog(ctx context.Context, f fleetgate.EventFilter) ([]fleetgate.Event, error) {
	if f.Limit <= 0 {
		f.Limit = 1000
	}
	return es.store.Events(ctx, f)
}

// RobotEvents is the newest event-log entries of a robot the caller may see.
func (es *EventService) RobotEvents(ctx context.Context, c *Caller, robotID string, limit int) ([]fleetgate.Event, error) {
	r, _, err := es.robots.authorizeRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 200
	}
	return es.store.Events(ctx, fleetgate.EventFilter{RobotID: r.ID, Limit: limit})
}
