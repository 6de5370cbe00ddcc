package views

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fleetgate/fleetgate"
)

// StreamGroup is the streams of one component.
type StreamGroup struct {
	Component string
	Streams   []fleetgate.Stream
}

// GroupStreams groups descriptors by component, keeping their order.
func GroupStreams(streams []fleetgate.Stream) []StreamGroup {
	var out []StreamGroup
	index := map[string]int{}
	for _, s := range streams {
		i, ok := index[s.Component]
		if !ok {
			i = len(out)
			index[s.Component] = i
			out = append(out, StreamGroup{Component: s.Component})
		}
		out[i].Streams = append(out[i].Streams, s)
	}
	return out
}

// StreamTitle names a stream as component/name, or by its name alone when it has no
// component (a ROS topic, whose name starts with a slash already).
func StreamTitle(s fleetgate.Stream) string {
	if s.Component == "" {
		return s.Name
	}
	return s.Component + "/" + s.Name
}

// StreamURL is the streams page with one stream selected.
func StreamURL(robotID string, s fleetgate.Stream) string {
	q := url.Values{"component": {s.Component}, "stream": {s.Name}, "source": {fmt.Sprint(int(s.Source))}}
	return "/robots/" + url.PathEscape(robotID) + "/streams?" + q.Encode()
}

// StreamValueURL is the fragment of a stream's current value, refreshed in place.
func StreamValueURL(robotID string, s fleetgate.Stream) string {
	q := url.Values{"component": {s.Component}, "stream": {s.Name}, "source": {fmt.Sprint(int(s.Source))}, "type": {s.Type}}
	return "/robots/" + url.PathEscape(robotID) + "/streams/value?" + q.Encode()
}

// StreamReadURL is the REST read of a stream (endpoint 7 through the panel's mirror).
func StreamReadURL(robotID string, s fleetgate.Stream) string {
	q := url.Values{"componentName": {s.Component}, "streamName": {s.Name}, "source": {fmt.Sprint(int(s.Source))}, "streamType": {s.Type}}
	return "/panel/api/robots/" + url.PathEscape(robotID) + "/stream?" + q.Encode()
}

// WidgetFor names the browser widget that shows or drives a stream live, "" for none.
func WidgetFor(s fleetgate.Stream) string {
	t := s.Type[strings.LastIndex(s.Type, ".")+1:]
	if s.Direction == fleetgate.Input {
		if t == "Twist" || t == "AckermannDriveStamped" {
			return "teleop"
		}
		return ""
	}
	switch t {
	case "CompressedImage", "Image":
		return "camera"
	case "PointCloud2":
		return "pointcloud"
	case "LaserScan":
		return "laserscan"
	case "Pose", "PoseStamped", "Odometry", "OccupancyGrid":
		return "pose-map"
	}
	return ""
}

func sourceText(s fleetgate.SourceType) string { return fmt.Sprint(int(s)) }

// limitText is a speed limit for a data attribute: the teleop widget's sliders stop there.
func limitText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func directionWords(d string) string {
	if d == "" {
		return "–"
	}
	return d
}
