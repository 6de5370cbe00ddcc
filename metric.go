package fleetgate

import (
	"time"
)

// MetricType is the contract's metric type number.
type MetricType int

const (
	MetricCpu                   MetricType = 1
	MetricRam                   MetricType = 2
	MetricDisk                  MetricType = 3
	MetricBattery               MetricType = 4
	MetricOdometry              MetricType = 5
	MetricTraffic               MetricType = 6
	MetricStorage               MetricType = 7
	MetricLicenseExpired        MetricType = 8
	MetricAgentHw               MetricType = 13
	MetricAgentSw               MetricType = 14
	MetricRecordings            MetricType = 15
	MetricComponents            MetricType = 16
	MetricConfiguration         MetricType = 17
	MetricPosition              MetricType = 18
	MetricNetwork               MetricType = 19
	MetricGpu                   MetricType = 21
	MetricWifi                  MetricType = 27
	MetricPing                  MetricType = 28
	MetricAgentOperationalState MetricType = 30
	MetricThermal               MetricType = 32
	MetricResourcesStorage      MetricType = 33
	MetricCustom                MetricType = 100
)

var metricNames = map[MetricType]string{
	1: "Cpu", 2: "Ram", 3: "Disk", 4: "Battery", 5: "Odometry", 6: "Traffic", 7: "Storage",
	8: "LicenseExpired", 13: "AgentHw", 14: "AgentSw", 15: "Recordings", 16: "Components",
	17: "Configuration", 18: "Position", 19: "Network", 20: "License", 21: "Gpu", 22: "Devices",
	23: "Nav2", 24: "RosEntity", 25: "Security", 26: "RosConfig", 27: "Wifi", 28: "Ping",
	29: "RecordingProfileConfig", 30: "AgentOperationalState", 31: "UserKpiSettingsConfig",
	32: "Thermal", 33: "ResourcesStorage", 34: "DockerRegistryConfig",
	35: "NotificationSettingsConfig", 36: "TaskManagerConfig", 37: "TaskRunStatus",
	38: "DebugSettingsConfig", 39: "LocalSessionInfo", 40: "TaskRunStatusList", 100: "Custom",
}

// Name is the contract's metric name of t ("Cpu", "Custom", ...), empty for an unknown type.
func (t MetricType) Name() string { return metricNames[t] }

// Known reports whether t is in the contract's table.
func (t MetricType) Known() bool { _, ok := metricNames[t]; return ok }

// MetricClass is the contract's polymorphic metric class, the "$type" discriminator.
type MetricClass int

const (
	ClassNone                  MetricClass = 0
	ClassInt                   MetricClass = 1
	ClassDouble                MetricClass = 2
	ClassString                MetricClass = 3
	ClassBool                  MetricClass = 4
	ClassUsage                 MetricClass = 5
	ClassLicenseExpiration     MetricClass = 6
	ClassAgentSw               MetricClass = 7
	ClassAgentOperationalState MetricClass = 8
	ClassLong                  MetricClass = 9
	ClassAgentRecording        MetricClass = 10
	ClassComponentInfo         MetricClass = 11
	ClassConfigInfo            MetricClass = 12
)

var classNames = [...]string{
	"NoneMetric", "IntMetric", "DoubleMetric", "StringMetric", "BoolMetric", "UsageMetric",
	"LicenseExpirationMetric", "AgentSwMetric", "AgentOperationalStateMetric", "LongMetric",
	"AgentRecordingMetric", "ComponentInfoMetric", "ConfigInfoMetric",
}

// Name is the class name the contract puts in a metric's "name".
func (c MetricClass) Name() string {
	if c < 0 || int(c) >= len(classNames) {
		return ""
	}
	return classNames[c]
}

// Metric is one metric reading. Value's Go type fixes the class (see Class):
// int → Int, int64 → Long, float64 → Double, string → String, bool → Bool, Usage,
// time.Time → LicenseExpiration, AgentSw, AgentOperationalState, []Recorder,
// []ComponentInfo, ConfigInfo, nil → None.
type Metric struct {
	Type  MetricType
	Name  string // custom KPI name for MetricCustom
	Value any
}

// Usage is a used/limit pair: bytes for memory and storage, bytes/s for network.
type Usage struct {
	Used  float64
	Limit float64
}

type AgentSw struct{ UpdateAvailable bool }

type AgentOperationalState struct {
	AgentStatus int
	Version     string
}

// Recorder is one recorder of the Recordings metric.
type Recorder struct {
	ID        string
	Type      string
	State     string // "Recording", "Stopped", ...
	StartTime time.Time
	EndTime   time.Time
	ErrorType string
	// Dropped counts the samples the recorder let go because the disk was slower than the
	// streams (an extension of the contract's recorder: droppedSamples).
	Dropped int64
}

// ComponentInfo is one software component of the Components metric.
type ComponentInfo struct {
	ID      string
	UUID    string
	Name    string
	Version string
	State   string // "Active", ...
}

// ConfigInfo is the active configuration of the Configuration metric.
type ConfigInfo struct {
	Name    string
	Version string
	State   string // "Ready", ...
}

// Class is the metric class of m, from the Go type of its value.
func (m Metric) Class() MetricClass {
	switch m.Value.(type) {
	case int:
		return ClassInt
	case int64:
		return ClassLong
	case float64:
		return ClassDouble
	case string:
		return ClassString
	case bool:
		return ClassBool
	case Usage:
		return ClassUsage
	case time.Time:
		return ClassLicenseExpiration
	case AgentSw:
		return ClassAgentSw
	case AgentOperationalState:
		return ClassAgentOperationalState
	case []Recorder:
		return ClassAgentRecording
	case []ComponentInfo:
		return ClassComponentInfo
	case ConfigInfo:
		return ClassConfigInfo
	default:
		return ClassNone
	}
}
