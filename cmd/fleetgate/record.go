package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/record"
	"github.com/fleetgate/fleetgate/server"
)

// byteSize is a flag of a size in bytes, written 2GiB, 500MB, 64KiB or 1048576.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

var byteUnits = []struct {
	suffix string
	factor float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
}

func parseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	factor := 1.0
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsNaN(v) || v*factor > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size (2GiB, 500MB, 1048576)", s)
	}
	return int64(v * factor), nil
}

// recorderFlags are an agent's flags of its recorder: the quotas and the flight recorder.
type recorderFlags struct {
	quota, robotQuota, flightMax byteSize
	flightBuffer, flightAfter    time.Duration
}

func (r *recorderFlags) register(fs *flag.FlagSet) {
	r.quota, r.flightMax = byteSize(record.DefaultQuota), byteSize(record.DefaultFlightMaxBytes)
	fs.Var(&r.quota, "recordings-quota", "bytes of recordings the agent keeps, e.g. 2GiB; the oldest finished go first (default 2GiB)")
	fs.Var(&r.robotQuota, "recordings-robot-quota", "bytes of one robot's recordings the agent keeps, below --recordings-quota so that one robot cannot take the room of another; its oldest finished go first (default: half of --recordings-quota)")
	fs.DurationVar(&r.flightBuffer, "flight-buffer", record.DefaultFlightBuffer, "the flight recorder: how far back each robot's cameras, pose, odometry, scan and commands are kept in memory, for a trigger (an event posted with record=true, fleetgate record snapshot, a speed refusal, the deadman) to make a recording of; 0: off")
	fs.Var(&r.flightMax, "flight-buffer-max", "bytes of one robot's flight buffer, e.g. 256MiB; past it, camera frames of the oldest part are decimated first (default 256MiB)")
	fs.DurationVar(&r.flightAfter, "flight-after", record.DefaultFlightAfter, "how long a flight recording goes on after its trigger")
}

// Bounds of the flight recorder's flags.
const (
	maxFlightBuffer = time.Hour
	minFlightMax    = 1 << 20
)

func (r *recorderFlags) check() error {
	switch {
	case r.flightBuffer < 0 || r.flightBuffer > maxFlightBuffer:
		return usagef("--flight-buffer must be between 0 (off) and %s", maxFlightBuffer)
	case r.flightAfter <= 0 || r.flightAfter > maxFlightBuffer:
		return usagef("--flight-after must be between 1ms and %s", maxFlightBuffer)
	case r.flightMax < minFlightMax:
		return usagef("--flight-buffer-max must be at least 1MiB")
	}
	return nil
}

func (r *recorderFlags) apply(cfg *server.Config) {
	cfg.RecordingsQuota, cfg.RecordingsRobotQuota = int64(r.quota), int64(r.robotQuota)
	cfg.FlightBuffer, cfg.FlightBufferMax, cfg.FlightAfter = r.flightBuffer, int64(r.flightMax), r.flightAfter
}

// client talks to a running gateway's API as the CLI's user.
type client struct {
	base   string
	bearer string
	http   *http.Client
}

// apiFlags are the flags of the commands that talk to a running gateway.
type apiFlags struct {
	url, token string
}

func (a *apiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.url, "url", "http://localhost:19992", "URL of the running gateway (cloud or agent)")
	fs.StringVar(&a.token, "token", "", "an API token (fgt_...) or a bearer token (prefer FLEETGATE_TOKEN: a flag shows in ps)")
}

// connect logs in with an API token (a bearer token is used as it is).
func (a *apiFlags) connect(ctx context.Context) (*client, error) {
	if a.token == "" {
		return nil, usagef("a token is required: --token or FLEETGATE_TOKEN")
	}
	u, err := url.Parse(a.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("--url must be http(s)://host[:port]")
	}
	c := &client{base: strings.TrimSuffix(a.url, "/") + "/apigateway/v2", http: &http.Client{Timeout: 30 * time.Second}}
	if !gateway.ValidAPITokenFormat(a.token) {
		c.bearer = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(a.token, "bearer "), "Bearer "))
		return c, nil
	}
	var login struct{ Token string }
	if err := c.do(ctx, http.MethodPost, "/auth/login", map[string]string{"userToken": a.token}, &login); err != nil {
		return nil, err
	}
	scheme, bearer, ok := strings.Cut(login.Token, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return nil, fmt.Errorf("the gateway answered the login with %q", login.Token)
	}
	c.bearer = bearer
	return c, nil
}

// do sends a request with a JSON body (when in is not nil) and decodes the JSON answer into
// out (when not nil); a problem document becomes an error saying its detail.
func (c *client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "bearer "+c.bearer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var problem struct{ Title, Detail string }
		if json.Unmarshal(data, &problem) == nil && (problem.Detail != "" || problem.Title != "") {
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(problem.Title+": "+problem.Detail))
		}
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: the answer is not what was expected: %v", method, path, err)
		}
	}
	return nil
}

// robotID finds a robot by name (or id) among those the caller sees.
func (c *client) robotID(ctx context.Context, nameOrID string) (string, error) {
	var list struct {
		RobotDataList []struct {
			BasicData struct{ ID, Name string }
		}
	}
	if err := c.do(ctx, http.MethodGet, "/robots", nil, &list); err != nil {
		return "", err
	}
	var ids []string
	for _, r := range list.RobotDataList {
		if r.BasicData.ID == nameOrID {
			return r.BasicData.ID, nil
		}
		if r.BasicData.Name == nameOrID {
			ids = append(ids, r.BasicData.ID)
		}
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no robot named %q (fleetgate record list needs a robot this token sees)", nameOrID)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%d robots are named %q: give the robot's id", len(ids), nameOrID)
}

// recordingOut is a recording as the API answers it.
type recordingOut struct {
	ID             string
	RecorderState  string
	ErrorType      string
	Reason         string
	StartTime      time.Time
	EndTime        *time.Time
	Duration       string
	Streams        []struct{ Topic string }
	Size           int64
	Messages       int64
	DroppedSamples int64
	Trigger        string
	EventID        string
}

func (r recordingOut) topics() string {
	t := make([]string, len(r.Streams))
	for i, s := range r.Streams {
		t[i] = s.Topic
	}
	return strings.Join(t, ",")
}

func runRecord(ctx context.Context, args []string, stdout io.Writer) error {
	verb, rest, err := subcommand("record", args)
	if err != nil {
		return err
	}
	var api apiFlags
	var robot, streams, id string
	var duration time.Duration
	var maxSize byteSize
	var maxRate float64
	var message string
	fs := newFlagSet("record " + verb)
	api.register(fs)
	fs.StringVar(&robot, "robot", "", "the robot's name or id (required)")
	switch verb {
	case "start":
		fs.StringVar(&streams, "streams", "", "output streams to record, comma-separated: component/stream, a ROS topic, or a unique stream name (required)")
		fs.DurationVar(&duration, "duration", 0, "stop after this long (0: when stopped)")
		fs.Var(&maxSize, "max-size", "stop before the file grows past this size, e.g. 500MB (0: the agent's quota only)")
		fs.Float64Var(&maxRate, "max-rate", 0, "at most this many samples per second of each stream (0: all)")
	case "stop":
		fs.StringVar(&id, "id", "", "the recording's id (default: the robot's one running recording)")
	case "snapshot":
		fs.StringVar(&message, "message", "snapshot", "the event-log entry posted, which names the recording")
	}
	if err := parse(fs, rest); err != nil {
		return err
	}
	if robot == "" {
		return usagef("--robot is required")
	}
	if verb == "start" && strings.TrimSpace(streams) == "" {
		return usagef("--streams is required")
	}
	if duration < 0 || maxRate < 0 {
		return usagef("--duration and --max-rate may not be negative")
	}
	c, err := api.connect(ctx)
	if err != nil {
		return err
	}
	robotID, err := c.robotID(ctx, robot)
	if err != nil {
		return err
	}
	base := "/robots/" + url.PathEscape(robotID) + "/recordings"
	switch verb {
	case "start":
		var names []string
		for _, s := range strings.Split(streams, ",") {
			if s = strings.TrimSpace(s); s != "" {
				names = append(names, s)
			}
		}
		var rec recordingOut
		body := map[string]any{"streams": names, "durationSeconds": duration.Seconds(), "maxBytes": int64(maxSize), "maxRate": maxRate}
		if err := c.do(ctx, http.MethodPost, base, body, &rec); err != nil {
			return err
		}
		until := "until stopped"
		if duration > 0 {
			until = "for " + duration.String()
		}
		fmt.Fprintf(stdout, "recording %s started on %s (%s), %s\n", rec.ID, robot, rec.topics(), until)
	case "stop":
		if id == "" {
			if id, err = c.runningRecording(ctx, base); err != nil {
				return err
			}
		}
		var rec recordingOut
		if err := c.do(ctx, http.MethodPost, base+"/"+url.PathEscape(id)+"/stop", nil, &rec); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "recording %s %s after %s: %d messages, %d bytes, %d dropped\n",
			rec.ID, strings.ToLower(rec.RecorderState), rec.Duration, rec.Messages, rec.Size, rec.DroppedSamples)
	case "snapshot":
		return c.snapshot(ctx, stdout, robot, robotID, base, message)
	case "list":
		var list struct{ Recordings []recordingOut }
		if err := c.do(ctx, http.MethodGet, base, nil, &list); err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSTATE\tSTARTED\tDURATION\tSIZE\tMESSAGES\tDROPPED\tSTREAMS\tTRIGGER\tNOTE")
		for _, r := range list.Recordings {
			note := r.Reason
			if r.ErrorType != "" {
				note = r.ErrorType + ": " + r.Reason
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", r.ID, r.RecorderState, r.StartTime.Local().Format(time.DateTime),
				r.Duration, r.Size, r.Messages, r.DroppedSamples, r.topics(), r.Trigger, note)
		}
		return w.Flush()
	}
	return nil
}

// snapshot triggers the robot's flight recorder: an event-log entry posted with record=true
// (endpoint 12), which the recording is named after and linked to.
func (c *client) snapshot(ctx context.Context, stdout io.Writer, robot, robotID, base, message string) error {
	if strings.TrimSpace(message) == "" {
		return usagef("--message may not be empty")
	}
	q := url.Values{"robotId": {robotID}, "message": {message}, "record": {"true"}}
	if err := c.do(ctx, http.MethodPost, "/events/log?"+q.Encode(), nil, nil); err != nil {
		return err
	}
	var list struct{ Recordings []recordingOut }
	if err := c.do(ctx, http.MethodGet, base, nil, &list); err != nil {
		return err
	}
	// The newest recording running: this one, or the one it extended.
	for _, r := range list.Recordings {
		if r.RecorderState == "Recording" && r.Trigger != fleetgate.TriggerManual {
			fmt.Fprintf(stdout, "flight recording %s of %s (%s): its file is complete once the time after the trigger has passed (fleetgate record list)\n", r.ID, robot, r.Trigger)
			return nil
		}
	}
	fmt.Fprintf(stdout, "flight recording of %s made (fleetgate record list)\n", robot)
	return nil
}

// runningRecording is the id of the robot's one running recording.
func (c *client) runningRecording(ctx context.Context, base string) (string, error) {
	var list struct{ Recordings []recordingOut }
	if err := c.do(ctx, http.MethodGet, base, nil, &list); err != nil {
		return "", err
	}
	var running []string
	for _, r := range list.Recordings {
		if r.RecorderState == "Recording" {
			running = append(running, r.ID)
		}
	}
	switch len(running) {
	case 0:
		return "", fmt.Errorf("the robot has no running recording")
	case 1:
		return running[0], nil
	}
	return "", fmt.Errorf("the robot has %d running recordings: give --id (fleetgate record list shows them)", len(running))
}
