package kpi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/fleetgate/fleetgate/internal/msgs"
)

// A frame is {"updates":[...]}: the robots' encoded updates go between head and tail, so a
// set's frame is assembled from pieces encoded once per robot and tick.
const (
	frameHead = `{"updates":[`
	frameTail = `]}`
)

// update is one element of a FleetCustomKpiEventDto's updates: exactly the contract's
// fields. Nothing else (KPI state records, status, settings, telemetry) ever goes in.
type update struct {
	BasicData  basicData `json:"basicData"`
	UpdateTime time.Time `json:"updateTime"` // UTC; encoding/json writes RFC 3339 (ISO 8601)
	Metric     metric    `json:"metric"`
}

type basicData struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type metric struct {
	Name     string          `json:"name"`
	DataType string          `json:"dataType"`
	Value    json.RawMessage `json:"value"` // the native JSON value: number, bool, string or object
}

// readRobot reads one robot's custom KPIs and encodes them as comma-separated updates; nil
// when the read failed or gave nothing to send. A KPI whose payload does not decode is left
// out, the robot's others still go.
func (h *Hub) readRobot(ctx context.Context, r Robot, at time.Time) []byte {
	kpis, err := r.Live.KPIs(ctx)
	if err != nil {
		h.log.Debug("reading custom KPIs failed", "robot", r.ID, "err", err)
		return nil
	}
	var out []byte
	for _, k := range kpis {
		value, err := msgs.KPIJSON(k.DataType, k.Payload)
		if err != nil {
			h.log.Debug("custom KPI left out", "robot", r.ID, "kpi", k.Name, "err", err)
			continue
		}
		t := k.Time
		if t.IsZero() {
			t = at // a source without its own timestamp: the tick that read it
		}
		b, err := json.Marshal(update{
			BasicData:  basicData{ID: r.ID, Name: r.Name},
			UpdateTime: t.UTC(),
			Metric:     metric{Name: k.Name, DataType: k.DataType, Value: value},
		})
		if err != nil {
			continue // cannot happen: KPIJSON gives valid JSON
		}
		if out != nil {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return out
}
