package sim

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/hoststat"
)

// designClass is the class DESIGN.md assigns to each metric type a simulated robot reports.
var designClass = map[fleetgate.MetricType]fleetgate.MetricClass{
	fleetgate.MetricCpu:                   fleetgate.ClassDouble,
	fleetgate.MetricGpu:                   fleetgate.ClassDouble,
	fleetgate.MetricRam:                   fleetgate.ClassUsage,
	fleetgate.MetricDisk:                  fleetgate.ClassUsage,
	fleetgate.MetricNetwork:               fleetgate.ClassUsage,
	fleetgate.MetricBattery:               fleetgate.ClassDouble,
	fleetgate.MetricOdometry:              fleetgate.ClassDouble,
	fleetgate.MetricLicenseExpired:        fleetgate.ClassLicenseExpiration,
	fleetgate.MetricAgentSw:               fleetgate.ClassAgentSw,
	fleetgate.MetricRecordings:            fleetgate.ClassAgentRecording,
	fleetgate.MetricComponents:            fleetgate.ClassComponentInfo,
	fleetgate.MetricConfiguration:         fleetgate.ClassConfigInfo,
	fleetgate.MetricPosition:              fleetgate.ClassString,
	fleetgate.MetricAgentOperationalState: fleetgate.ClassAgentOperationalState,
}

func TestEveryListedMetricHasItsClass(t *testing.T) {
	dir := t.TempDir()
	host := hoststat.New(dir)
	time.Sleep(250 * time.Millisecond) // rates need two readings apart
	s := mustNewSim(t, Config{DataDir: dir, Host: host, AgentVersion: "1.4.2"}, nil)
	r := s.robots[0]
	ctx := context.Background()
	types, err := r.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(types) {
		t.Errorf("metric types not sorted: %v", types)
	}
	for _, want := range robotMetrics {
		if !slices.Contains(types, want) {
			t.Errorf("%s (%d) not listed", want.Name(), want)
		}
	}
	for _, typ := range types {
		if typ == fleetgate.MetricCustom {
			continue
		}
		m, err := r.Metric(ctx, typ, "")
		if err != nil {
			t.Errorf("Metric %s: %v", typ.Name(), err)
			continue
		}
		if want, ok := designClass[typ]; !ok || m.Class() != want || m.Type != typ {
			t.Errorf("Metric %s: type %d class %s, want %s", typ.Name(), m.Type, m.Class().Name(), want.Name())
		}
	}
	if !slices.Contains(types, fleetgate.MetricRam) || !slices.Contains(types, fleetgate.MetricDisk) {
		t.Errorf("host memory and disk are readable on Linux but not listed: %v", types)
	}
	if m, err := r.Metric(ctx, fleetgate.MetricRam, ""); err == nil {
		if u := m.Value.(fleetgate.Usage); u.Used <= 0 || u.Limit < u.Used {
			t.Errorf("Ram = %+v", u)
		}
	}
}

func TestMetricValues(t *testing.T) {
	dir := t.TempDir()
	s := mustNewSim(t, Config{DataDir: dir, AgentVersion: "1.4.2"}, newEmptyHall(20, 10))
	r := s.robots[0]
	ctx := context.Background()
	place(s, 0, 5, 5, 0)
	driveFor(t, s, 0, 1, 0, 2*time.Second, nil)
	b := bodyOf(s, 0)
	metric := func(typ fleetgate.MetricType) any {
		t.Helper()
		m, err := r.Metric(ctx, typ, "")
		if err != nil {
			t.Fatalf("Metric %s: %v", typ.Name(), err)
		}
		return m.Value
	}

	if got := metric(fleetgate.MetricOdometry).(float64); !near(got, b.x-5, 1e-9) || got < 1 {
		t.Errorf("Odometry = %v m, want %v", got, b.x-5)
	}
	if got := metric(fleetgate.MetricBattery).(float64); got != b.battery || got <= 0 || got > 100 {
		t.Errorf("Battery = %v, want %v", got, b.battery)
	}
	var pos struct {
		X, Y, Theta float64
		Frame       string
	}
	if err := json.Unmarshal([]byte(metric(fleetgate.MetricPosition).(string)), &pos); err != nil {
		t.Fatalf("Position is not JSON: %v", err)
	}
	if !near(pos.X, b.x, 1e-3) || !near(pos.Y, b.y, 1e-3) || pos.Frame != "map" {
		t.Errorf("Position = %+v, body at (%v, %v)", pos, b.x, b.y)
	}
	ids, err := loadIdentities(s.dir, 1, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := metric(fleetgate.MetricLicenseExpired).(time.Time); !got.Equal(ids[0].Created.AddDate(1, 0, 0)) {
		t.Errorf("LicenseExpired = %v, want a year after %v", got, ids[0].Created)
	}
	if got := metric(fleetgate.MetricAgentOperationalState); got != (fleetgate.AgentOperationalState{AgentStatus: 10, Version: "1.4.2"}) {
		t.Errorf("AgentOperationalState = %+v", got)
	}
	if got := metric(fleetgate.MetricAgentSw); got != (fleetgate.AgentSw{}) {
		t.Errorf("AgentSw = %+v", got)
	}
	if got := metric(fleetgate.MetricConfiguration); got != (fleetgate.ConfigInfo{Name: "warehouse-sim", Version: "1", State: "Ready"}) {
		t.Errorf("Configuration = %+v", got)
	}
	if got := metric(fleetgate.MetricRecordings).([]fleetgate.Recorder); got == nil || len(got) != 0 {
		t.Errorf("Recordings = %#v, want an empty non-nil slice", got)
	}
	comps := metric(fleetgate.MetricComponents).([]fleetgate.ComponentInfo)
	var names []string
	for _, c := range comps {
		names = append(names, c.Name)
		if _, err := uuid.Parse(c.UUID); err != nil || c.State != "Active" || c.Version != "1.4.2" || c.ID != c.Name {
			t.Errorf("component %+v", c)
		}
	}
	if !slices.Equal(names, []string{"base", "lidar", "camera", "depth", "map", "nav"}) {
		t.Errorf("components %v", names)
	}
	if again := metric(fleetgate.MetricComponents).([]fleetgate.ComponentInfo); !slices.Equal(again, comps) {
		t.Errorf("component UUIDs changed between reads")
	}
}

func TestMetricErrors(t *testing.T) {
	s := mustNewSim(t, Config{}, nil) // no host sampler
	r := s.robots[0]
	ctx := context.Background()
	types, err := r.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		typ  fleetgate.MetricType
		kpi  string
	}{
		{"host CPU without a sampler", fleetgate.MetricCpu, ""},
		{"host network without a sampler", fleetgate.MetricNetwork, ""},
		{"wifi", fleetgate.MetricWifi, ""},
		{"traffic", fleetgate.MetricTraffic, ""},
		{"a type outside the table", fleetgate.MetricType(99), ""},
		{"custom without a name", fleetgate.MetricCustom, ""},
		{"custom of an unknown name", fleetgate.MetricCustom, "temperature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := r.Metric(ctx, tt.typ, tt.kpi); !fleetgate.Is(err, fleetgate.ENotFound) {
				t.Errorf("Metric: %v, want ErrNotFound", err)
			}
			if tt.typ != fleetgate.MetricCustom && slices.Contains(types, tt.typ) {
				t.Errorf("type %d is listed", tt.typ)
			}
		})
	}
}

func TestCustomKPIs(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	r := s.robots[0]
	ctx := context.Background()
	place(s, 0, 5, 5, math.Pi/2)
	kpis, err := r.KPIs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pose":     "Platform.Messages.geometry_msgs.Pose",
		"battery":  "Platform.Messages.std_msgs.Float64",
		"activity": "Platform.Messages.std_msgs.String",
	}
	if len(kpis) != len(want) {
		t.Errorf("%d KPIs, want %d", len(kpis), len(want))
	}
	for _, k := range kpis {
		if want[k.Name] != k.DataType || len(k.Payload) == 0 || !k.Time.Equal(testStart) {
			t.Errorf("KPI %s: type %s, %d bytes at %v", k.Name, k.DataType, len(k.Payload), k.Time)
		}
	}

	custom := func(name string) fleetgate.Metric {
		t.Helper()
		m, err := r.Metric(ctx, fleetgate.MetricCustom, name)
		if err != nil {
			t.Fatalf("custom %s: %v", name, err)
		}
		if m.Type != fleetgate.MetricCustom || m.Name != name {
			t.Errorf("custom %s answered as type %d name %q", name, m.Type, m.Name)
		}
		return m
	}
	if m := custom("activity"); m.Class() != fleetgate.ClassString || m.Value != "idle" {
		t.Errorf("activity at rest = %v (%s)", m.Value, m.Class().Name())
	}
	if m := custom("battery"); m.Class() != fleetgate.ClassDouble || m.Value != bodyOf(s, 0).battery {
		t.Errorf("battery = %v (%s)", m.Value, m.Class().Name())
	}
	m := custom("pose")
	var p struct {
		Position    struct{ X, Y float64 }
		Orientation struct{ Z, W float64 }
	}
	if err := json.Unmarshal([]byte(m.Value.(string)), &p); err != nil || m.Class() != fleetgate.ClassString {
		t.Fatalf("pose %v (%s): %v", m.Value, m.Class().Name(), err)
	}
	if p.Position.X != 5 || p.Position.Y != 5 || !near(2*math.Atan2(p.Orientation.Z, p.Orientation.W), math.Pi/2, 1e-9) {
		t.Errorf("pose KPI = %+v", p)
	}

	driveFor(t, s, 0, 0.5, 0, time.Second, nil)
	if m := custom("activity"); m.Value != "moving" {
		t.Errorf("activity while driving = %v", m.Value)
	}
}
