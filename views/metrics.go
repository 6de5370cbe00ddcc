package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
)

// MetricView is one metric as a person reads it.
type MetricView struct {
	Title string
	Kind  string // "usage", "battery", "number", "text", "json", "table", "license", "flag"
	Text  string
	// Usage: used of limit (Percent 0..100; Limit 0 when unknown).
	Used, Limit, Percent float64
	UsedText, LimitText  string
	// Table: headers and rows.
	Headers []string
	Rows    [][]string
	Error   string
}

// MetricRead is a metric's reading, or why there is none.
type MetricRead struct {
	Type   fleetgate.MetricType
	Metric fleetgate.Metric
	Err    string
}

// ViewMetric turns a reading into its view.
func ViewMetric(r MetricRead, now time.Time) MetricView {
	v := MetricView{Title: metricTitle(r.Type)}
	if r.Err != "" {
		v.Kind, v.Error = "text", r.Err
		return v
	}
	switch val := r.Metric.Value.(type) {
	case fleetgate.Usage:
		v.Kind, v.Used, v.Limit = "usage", val.Used, val.Limit
		bytesPerSecond := r.Type == fleetgate.MetricType(19)
		v.UsedText, v.LimitText = usageText(val.Used, bytesPerSecond, false), usageText(val.Limit, bytesPerSecond, true)
		if val.Limit > 0 {
			v.Percent = min(100, 100*val.Used/val.Limit)
		}
	case float64:
		if r.Type == fleetgate.MetricType(4) {
			v.Kind, v.Percent, v.Text = "battery", min(100, max(0, val)), fmt.Sprintf("%.0f %%", val)
			break
		}
		v.Kind, v.Text = "number", fmt.Sprintf("%.1f %s", val, metricUnit(r.Type))
	case int:
		v.Kind, v.Text = "number", fmt.Sprintf("%d %s", val, metricUnit(r.Type))
	case int64:
		v.Kind, v.Text = "number", HumanSize(val)
	case bool:
		v.Kind, v.Text = "flag", yesNo(val)
	case string:
		v.Kind, v.Text = "text", val
		if json.Valid([]byte(val)) && len(val) > 0 && (val[0] == '{' || val[0] == '[') {
			v.Kind, v.Text = "json", PrettyJSON([]byte(val))
		}
	case time.Time:
		v.Kind = "license"
		v.Text = "expires " + Day(val)
		if !val.IsZero() && val.Before(now) {
			v.Text = "expired on " + Day(val)
		}
	case fleetgate.AgentSw:
		v.Kind, v.Text = "flag", "up to date"
		if val.UpdateAvailable {
			v.Text = "an update is available"
		}
	case fleetgate.AgentOperationalState:
		v.Kind, v.Text = "text", fmt.Sprintf("%s, version %s", AgentStatusWords(val.AgentStatus), orDash(val.Version))
	case []fleetgate.Recorder:
		v.Kind, v.Headers = "table", []string{"Recorder", "Type", "State", "Started", "Ended", "Error"}
		for _, rec := range val {
			v.Rows = append(v.Rows, []string{rec.ID, rec.Type, rec.State, When(rec.StartTime), When(rec.EndTime), rec.ErrorType})
		}
	case []fleetgate.ComponentInfo:
		v.Kind, v.Headers = "table", []string{"Component", "Version", "State"}
		for _, c := range val {
			v.Rows = append(v.Rows, []string{c.Name, c.Version, c.State})
		}
	case fleetgate.ConfigInfo:
		v.Kind, v.Text = "text", fmt.Sprintf("%s version %s: %s", orDash(val.Name), orDash(val.Version), orDash(val.State))
	case nil:
		v.Kind, v.Text = "text", "no value"
	default:
		v.Kind, v.Text = "text", fmt.Sprint(val)
	}
	return v
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// usageText is an amount used or its limit; a limit of 0 is unknown (a network link whose
// speed the robot cannot read), an amount of 0 is none.
func usageText(n float64, perSecond, limit bool) string {
	if limit && n == 0 {
		return "unknown"
	}
	if perSecond {
		return HumanSize(int64(n)) + "/s"
	}
	return HumanSize(int64(n))
}

// AgentStatusWords is an agent's status code (the AgentOperationalState metric) by name:
// the contract names 10, which fleetgate's own agents report while they run.
func AgentStatusWords(code int) string {
	if code == agentStatusRunning {
		return "running"
	}
	return fmt.Sprintf("status %d (not named by the API)", code)
}

const agentStatusRunning = 10

// metricTitle is a metric type in words.
func metricTitle(t fleetgate.MetricType) string {
	titles := map[int]string{1: "CPU", 2: "Memory", 3: "Disk", 4: "Battery", 5: "Odometry", 6: "Traffic",
		7: "Storage", 8: "Licence", 13: "Agent hardware", 14: "Agent software", 15: "Recordings", 16: "Components",
		17: "Configuration", 18: "Position", 19: "Network", 21: "GPU", 27: "Wi-Fi signal", 28: "Ping",
		30: "Agent state", 32: "Temperature", 33: "Resources storage"}
	if s, ok := titles[int(t)]; ok {
		return s
	}
	if n := t.Name(); n != "" {
		return n
	}
	return fmt.Sprintf("Metric %d", int(t))
}

func metricUnit(t fleetgate.MetricType) string {
	switch int(t) {
	case 1, 21:
		return "% busy"
	case 5:
		return "m"
	case 27:
		return "dBm"
	case 28:
		return "ms"
	case 32:
		return "°C"
	}
	return ""
}

// PrettyJSON indents a JSON document; anything else comes back as it was.
func PrettyJSON(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(b)
	}
	return string(out)
}

func fmtFloat(f float64) string { return fmt.Sprintf("%.0f", f) }

// Limits of a stream value shown in a page: past them a value is summarized, so a point
// cloud's megabytes of base64 never land in the HTML (the full value is a link away).
const (
	valueMaxString = 200 // characters of a string shown
	valueMaxItems  = 32  // elements of an array shown
)

// ValueSummary is a stream's JSON value indented, with long strings (base64 bytes) and long
// arrays cut to their first part and their size in words. Numbers keep their exact text.
func ValueSummary(b []byte) string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return PrettyJSON(b)
	}
	out, err := json.MarshalIndent(summarize(v), "", "  ")
	if err != nil {
		return PrettyJSON(b)
	}
	return string(out)
}

func summarize(v any) any {
	switch t := v.(type) {
	case string:
		if len(t) > valueMaxString {
			return fmt.Sprintf("%s… (%s in all)", strings.ToValidUTF8(t[:valueMaxString/2], ""), HumanSize(int64(len(t))))
		}
		return t
	case []any:
		n := len(t)
		if n > valueMaxItems {
			t = append(t[:valueMaxItems:valueMaxItems], fmt.Sprintf("… %d more elements (%d in all)", n-valueMaxItems, n))
		}
		for i := range min(len(t), valueMaxItems) {
			t[i] = summarize(t[i])
		}
		return t
	case map[string]any:
		for k, e := range t {
			t[k] = summarize(e)
		}
		return t
	}
	return v
}
