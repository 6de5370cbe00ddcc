package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/views"
)

// header loads what every robot tab shows, and checks the caller may see the robot (404).
func (p *Panel) header(c echo.Context, tab string) (views.RobotHeader, fleetgate.RobotDetails, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	d, err := p.robots.Robot(ctx, caller, c.Param("robotId"))
	if err != nil {
		return views.RobotHeader{}, d, err
	}
	role, err := p.robots.RobotRole(ctx, caller, d.Robot.ID)
	if err != nil {
		return views.RobotHeader{}, d, err
	}
	agent := "hosted by this gateway"
	if d.AgentName != "" {
		agent = "agent " + d.AgentName
	}
	state, err := p.streams.RobotState(ctx, caller, d.Robot.ID)
	if err != nil {
		return views.RobotHeader{}, d, err
	}
	return views.RobotHeader{ID: d.Robot.ID, Name: d.Robot.Name, FleetID: d.Robot.FleetID, State: state, Role: role, Tab: tab,
		FleetName: d.FleetName, Agent: agent}, d, nil
}

// mountRobotPage mounts a robot's first page and the parts of it that refresh in place, each
// behind mw.
func (p *Panel) mountRobotPage(e *echo.Echo, mw ...echo.MiddlewareFunc) {
	e.GET("/robots/:robotId", p.handle(p.robotPage), mw...)
	e.GET("/robots/:robotId/status", p.handle(p.robotStatus), mw...)
	e.GET("/robots/:robotId/state", p.handle(p.robotState), mw...)
}

// robotPage is the operate screen: the robot's live view, map, status and teleop controls.
func (p *Panel) robotPage(c echo.Context) error {
	h, d, err := p.header(c, "overview")
	if err != nil {
		return err
	}
	caller := Caller(c)
	nav := p.nav(c, d.Robot.Name, "robots")
	nav.Quiet = true
	v := views.OperateView{Nav: nav, Header: h, Details: d, LiveHere: p.live, ThroughCloud: p.viaCloud}
	v.Cameras = views.RobotCameras{Header: h, LiveHere: p.live,
		CanOpen: h.Role >= fleetgate.RoleDeveloper && caller.CanAct() && p.streams.OpensCameras()}
	v.Status = p.statusView(c, h.ID)
	if d.Online {
		// An offline robot, or one slow to list its streams, shows no views: the page
		// still renders.
		ctx, cancel := context.WithTimeout(c.Request().Context(), robotReadTimeout)
		defer cancel()
		if streams, err := p.streams.Streams(ctx, caller, h.ID); err == nil {
			v.Views = views.OperableViews(streams)
			v.Pose = views.PoseStream(streams)
			if h.Role >= fleetgate.RoleOperator && caller.CanAct() {
				v.Drive = views.DriveStream(streams)
				v.Supervisor = v.Drive != nil && p.mayOverride(ctx, caller, h.ID)
			}
			v.Cameras.Cameras = views.CameraStreams(streams)
		}
	}
	return p.render(c, http.StatusOK, views.Operate(v))
}

// statusView is a robot's status card: its state, alerts and who drives it.
func (p *Panel) statusView(c echo.Context, robotID string) views.StatusView {
	ctx, cancel := context.WithTimeout(c.Request().Context(), robotReadTimeout)
	defer cancel()
	v := views.StatusView{RobotID: robotID, Now: p.now()}
	v.Status, _ = p.streams.RobotStatus(ctx, Caller(c), robotID) // the header checked the caller may see it
	v.Open = p.openAlerts(c, robotID)
	if v.Status.Online && v.Status.State().Confirmed() {
		v.Drivers, _ = p.streams.Controls(ctx, Caller(c), robotID) // a role that may not ask sees "nobody"
	}
	return v
}

// robotStatus is the status card alone, refreshed in place every second.
func (p *Panel) robotStatus(c echo.Context) error {
	if _, err := p.robots.RobotRole(c.Request().Context(), Caller(c), c.Param("robotId")); err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.OperateStatus(p.statusView(c, c.Param("robotId"))))
}

// robotState is a robot page's header state alone, refreshed in place every second: confirmed
// with the robot's agent, so that no page keeps saying "online" about a robot whose agent
// stopped answering.
func (p *Panel) robotState(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), robotReadTimeout)
	defer cancel()
	st, err := p.streams.RobotState(ctx, Caller(c), c.Param("robotId"))
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.RobotState(st))
}

// streamsView is the streams tab with the stream named by the query (or form) selected.
func (p *Panel) streamsView(c echo.Context, component, name, source string) (views.StreamsView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	h, d, err := p.header(c, "streams")
	if err != nil {
		return views.StreamsView{}, err
	}
	v := views.StreamsView{Nav: p.nav(c, d.Robot.Name+" · streams", "robots"), Header: h, LiveHere: p.live, ThroughCloud: p.viaCloud}
	streams, err := p.streams.Streams(ctx, caller, h.ID)
	if code := fleetgate.ErrorCode(err); code == fleetgate.EUnavailable {
		return v, nil // offline: the page says it has no streams
	} else if err != nil {
		return v, err
	}
	v.Groups = views.GroupStreams(streams)
	if name == "" {
		return v, nil
	}
	src, _ := strconv.Atoi(source)
	i := slices.IndexFunc(streams, func(s fleetgate.Stream) bool {
		return s.Component == component && s.Name == name && (src == 0 || int(s.Source) == src)
	})
	if i < 0 {
		return v, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no stream %s/%s", h.Name, component, name)
	}
	s := streams[i]
	v.Selected = &s
	if s.Direction != fleetgate.Input {
		sel := gateway.StreamSelector{Component: s.Component, Name: s.Name, Source: s.Source}
		rctx, cancel := context.WithTimeout(ctx, robotReadTimeout)
		defer cancel()
		if b, err := p.streams.ReadStream(rctx, caller, h.ID, sel); err != nil {
			if statusOf(err) == http.StatusInternalServerError {
				return v, err
			}
			v.ValueError = fleetgate.ErrorMessage(err)
		} else {
			v.Value = views.ValueSummary(b)
		}
	}
	v.CanUpload = h.Role >= fleetgate.RoleDeveloper && caller.CanAct()
	if v.CanUpload && s.Direction == fleetgate.Input {
		if b, err := p.streams.Template(ctx, caller, s.Type); err == nil {
			v.Template = views.PrettyJSON(b)
		}
	}
	return v, nil
}

// streamValue is the selected stream's current value alone: the streams tab refreshes it in
// place each second.
func (p *Panel) streamValue(c echo.Context) error {
	src, err := strconv.Atoi(c.QueryParam("source"))
	if err != nil || src <= 0 {
		return fleetgate.Errorf(fleetgate.EInvalid, "source must be a stream source number")
	}
	sel := gateway.StreamSelector{Component: c.QueryParam("component"), Name: c.QueryParam("stream"), Source: fleetgate.SourceType(src), Type: c.QueryParam("type")}
	ctx, cancel := context.WithTimeout(c.Request().Context(), robotReadTimeout)
	defer cancel()
	b, err := p.streams.ReadStream(ctx, Caller(c), c.Param("robotId"), sel)
	if code := fleetgate.ErrorCode(err); code == fleetgate.EUnavailable || code == fleetgate.EInvalid {
		// The robot went offline or the stream has no value now: the page says so in place.
		return p.render(c, http.StatusOK, views.StreamValue("", fleetgate.ErrorMessage(err)))
	} else if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.StreamValue(views.ValueSummary(b), ""))
}

func (p *Panel) streamsPage(c echo.Context) error {
	v, err := p.streamsView(c, c.QueryParam("component"), c.QueryParam("stream"), c.QueryParam("source"))
	if err != nil {
		return err
	}
	fl := p.takeFlash(c)
	v.UploadDone, v.UploadError = fl.Notice != "", fl.Error
	if body := fl.Form.Get("json"); body != "" {
		v.Template = body // what was sent, to edit again
	}
	return p.render(c, http.StatusOK, views.Streams(v))
}

// uploadStream sends the form's JSON to an input stream through endpoint 9's core call,
// which validates it against the type before anything reaches the robot; the streams page
// says how it went (post/redirect/get: a reload sends nothing again).
func (p *Panel) uploadStream(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	component, name, source := c.FormValue("component"), c.FormValue("stream"), c.FormValue("source")
	v, err := p.streamsView(c, component, name, source)
	if err != nil {
		return err
	}
	if v.Selected == nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "choose a stream to send to")
	}
	body := c.FormValue("json")
	err = p.streams.UploadStream(ctx, caller, v.Header.ID, gateway.UploadInput{
		Stream:   gateway.StreamSelector{Component: v.Selected.Component, Name: v.Selected.Name, Source: v.Selected.Source},
		DataType: c.FormValue("type"),
		JSON:     []byte(body),
	})
	back := views.StreamURL(v.Header.ID, *v.Selected) + "#stream"
	switch code := fleetgate.ErrorCode(err); {
	case err == nil:
		return p.redirectFlash(c, back, flash{Notice: "sent", Form: url.Values{"json": {body}}})
	case code == fleetgate.EForbidden || code == fleetgate.ENotFound || statusOf(err) >= 500 && code != fleetgate.EUnavailable:
		return err
	default:
		return p.redirectFlash(c, back, flash{Error: fleetgate.ErrorMessage(err), Form: url.Values{"json": {body}}})
	}
}

func (p *Panel) metricsPage(c echo.Context) error {
	h, d, err := p.header(c, "metrics")
	if err != nil {
		return err
	}
	ms, err := p.readMetrics(c, h.ID)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.Metrics(views.MetricsView{Nav: p.nav(c, d.Robot.Name+" · metrics", "robots"), Header: h, Metrics: ms}))
}

func (p *Panel) metricsFragment(c echo.Context) error {
	ms, err := p.readMetrics(c, c.Param("robotId"))
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.MetricList(ms))
}

// readMetrics reads every metric type a robot reports, side by side. Custom KPIs (100) need
// a name each and are the KPI wall's business.
func (p *Panel) readMetrics(c echo.Context, robotID string) ([]views.MetricView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	types, err := p.streams.MetricTypes(ctx, caller, robotID)
	if fleetgate.ErrorCode(err) == fleetgate.EUnavailable {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	types = slices.DeleteFunc(types, func(t fleetgate.MetricType) bool { return t == fleetgate.MetricCustom })
	ctx, cancel := context.WithTimeout(ctx, robotReadTimeout)
	defer cancel()
	reads := make([]views.MetricRead, len(types))
	var wg sync.WaitGroup
	for i, t := range types {
		wg.Go(func() {
			_, m, err := p.streams.Metric(ctx, caller, robotID, t, "")
			reads[i] = views.MetricRead{Type: t, Metric: m}
			if err != nil {
				reads[i].Err = fleetgate.ErrorMessage(err)
			}
		})
	}
	wg.Wait()
	now := p.now()
	out := make([]views.MetricView, len(reads))
	for i, r := range reads {
		out[i] = views.ViewMetric(r, now)
	}
	return out, nil
}

func (p *Panel) resourcesPage(c echo.Context) error {
	h, d, err := p.header(c, "resources")
	if err != nil {
		return err
	}
	v := views.ResourcesView{Nav: p.nav(c, d.Robot.Name+" · resources", "robots"), Header: h}
	v.Resources, err = p.agents.ResourceDetails(c.Request().Context(), Caller(c), h.ID)
	if code := fleetgate.ErrorCode(err); code == fleetgate.EUnavailable {
		v.Error = fleetgate.ErrorMessage(err)
	} else if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.Resources(v))
}

// download follows a fresh pre-signed link: the page never holds one that could go stale.
func (p *Panel) download(c echo.Context) error {
	link, err := p.agents.ResourceLink(c.Request().Context(), Caller(c), c.Param("robotId"), c.Param("resourceId"))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, link)
}

func (p *Panel) eventsView(c echo.Context) (views.EventsView, error) {
	caller := Caller(c)
	h, d, err := p.header(c, "events")
	if err != nil {
		return views.EventsView{}, err
	}
	v := views.EventsView{Nav: p.nav(c, d.Robot.Name+" · events", "robots"), Header: h, CanPost: caller.CanAct()}
	if v.History, err = p.eventHistory(c, h.ID, "/robots/"+h.ID+"/events"); err != nil {
		return v, err
	}
	v.Fleets = v.History.Fleets
	return v, nil
}

// eventHistory is a page of the history of the robot (every robot the caller may see when
// robotID is empty), filtered by the query as GET /apigateway/v2/events is, with links to the
// next page and to the filtered view's export.
func (p *Panel) eventHistory(c echo.Context, robotID, action string) (views.EventHistoryView, error) {
	ctx, caller := c.Request().Context(), Caller(c)
	q := c.QueryParams()
	v := views.EventHistoryView{Action: action, AllRobots: robotID == "", Types: fleetgate.EventTypes, Severities: fleetgate.EventSeverities,
		From: q.Get("from"), To: q.Get("to"),
		Filter: fleetgate.EventFilter{RobotID: robotID, FleetID: q.Get("fleet"), AgentID: q.Get("agent"), Text: q.Get("q"), Limit: 100}}
	var err error
	if q.Get("type") != "" {
		if v.Filter.Type, err = fleetgate.ParseEventType(q.Get("type")); err != nil {
			return v, err
		}
	}
	if q.Get("severity") != "" {
		if v.Filter.Severity, err = fleetgate.ParseEventSeverity(q.Get("severity")); err != nil {
			return v, err
		}
	}
	// The form's dates are whole days of UTC, the time every table of the panel shows.
	if v.Filter.From, err = panelDay(v.From, "from", 0); err != nil {
		return v, err
	}
	if v.Filter.To, err = panelDay(v.To, "to", 1); err != nil {
		return v, err
	}
	if cur := q.Get("cursor"); cur != "" {
		if v.Filter.After, err = fleetgate.ParseEventCursor(cur); err != nil {
			return v, err
		}
	}
	rows, next, err := p.events.QueryEvents(ctx, caller, v.Filter)
	if err != nil {
		return v, err
	}
	v.Rows = rows
	// The same filter, as the API takes it: the next page, and the export.
	api := url.Values{}
	for name, value := range map[string]string{"robotId": robotID, "fleetId": v.Filter.FleetID, "agent": v.Filter.AgentID, "q": v.Filter.Text,
		"type": string(v.Filter.Type), "severity": string(v.Filter.Severity)} {
		if value != "" {
			api.Set(name, value)
		}
	}
	if !v.Filter.From.IsZero() {
		api.Set("from", v.Filter.From.Format(time.RFC3339))
	}
	if !v.Filter.To.IsZero() {
		api.Set("to", v.Filter.To.Format(time.RFC3339))
	}
	api.Set("format", "csv")
	v.ExportCSV = APIPrefix + "/events?" + api.Encode()
	api.Set("format", "jsonl")
	v.ExportJSONL = APIPrefix + "/events?" + api.Encode()
	if next != nil {
		more := url.Values{}
		for name, values := range q {
			if name != "cursor" {
				more[name] = values
			}
		}
		more.Set("cursor", next.String())
		v.Older = action + "?" + more.Encode()
	}
	if v.Fleets, err = p.robots.OrgFleets(ctx, caller); err != nil {
		return v, err
	}
	if !p.local { // a local gateway's entries are all its own
		if v.Agents, err = p.events.AgentChoices(ctx, caller); err != nil {
			return v, err
		}
	}
	return v, nil
}

// panelDay reads a date of the history's form (2026-11-27) as the start of that day in UTC,
// plus days; "" is no bound.
func panelDay(s, name string, days int) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fleetgate.Errorf(fleetgate.EInvalid, "%s %q is not a date (2026-11-27)", name, s)
	}
	return d.AddDate(0, 0, days), nil
}

// allEventsPage is every robot's event history.
func (p *Panel) allEventsPage(c echo.Context) error {
	v, err := p.eventHistory(c, "", "/events")
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.AllEvents(p.nav(c, "Event log", "events"), v))
}

func (p *Panel) eventsPage(c echo.Context) error {
	v, err := p.eventsView(c)
	if err != nil {
		return err
	}
	fl := p.takeFlash(c)
	v.Error, v.Message = fl.Error, fl.Form.Get("message")
	return p.render(c, http.StatusOK, views.Events(v))
}

func (p *Panel) postEvent(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	robotID := c.Param("robotId")
	msg := c.FormValue("message")
	record := c.FormValue("record") == "true"
	e, err := p.events.PostEvent(ctx, caller, gateway.PostEventInput{RobotID: robotID, FleetID: c.FormValue("fleetId"), Message: msg, Record: record})
	if err == nil {
		return c.Redirect(http.StatusSeeOther, "/robots/"+robotID+"/events")
	}
	if e.ID != 0 {
		// Posted, but the flight recorder did not record: said on the page, the message
		// not offered again.
		return p.redirectFlash(c, "/robots/"+robotID+"/events", flash{Error: fleetgate.ErrorMessage(err)})
	}
	if code := fleetgate.ErrorCode(err); code != fleetgate.EInvalid {
		return err
	}
	return p.redirectFlash(c, "/robots/"+robotID+"/events", flash{Error: fleetgate.ErrorMessage(err), Form: url.Values{"message": {msg}}})
}
