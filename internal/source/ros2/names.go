package ros2

import "strings"

// ROS 2 over DDS names things as rmw does: a topic /a/b is the DDS topic rt/a/b, and a message
// type pkg/msg/Name is the DDS type pkg::msg::dds_::Name_.

// topicOfDDS is the ROS topic of a DDS topic, "" for DDS topics that are not ROS topics
// (services are rq/ and rr/, rmw's own ros_discovery_info has no prefix).
func topicOfDDS(dds string) string {
	rest, ok := strings.CutPrefix(dds, "rt/")
	if !ok || rest == "" {
		return ""
	}
	return "/" + rest
}

// inNS is the full name of topic (relative) in namespace ns.
func inNS(ns, topic string) string {
	if ns == "/" {
		return "/" + topic
	}
	return ns + "/" + topic
}

// ddsTopic is the DDS topic of a ROS topic.
func ddsTopic(topic string) string { return "rt" + topic }

// rosType is the ROS 2 type (pkg/msg/Name) of a DDS type name, "" when it is not one.
func rosType(ddsType string) string {
	parts := strings.Split(ddsType, "::")
	if len(parts) != 4 || parts[1] != "msg" || parts[2] != "dds_" || !strings.HasSuffix(parts[3], "_") || parts[0] == "" || len(parts[3]) < 2 {
		return ""
	}
	return parts[0] + "/msg/" + strings.TrimSuffix(parts[3], "_")
}

// ddsType is the DDS type name of a ROS 2 type (pkg/msg/Name), "" when it is not one.
func ddsType(ros2Type string) string {
	pkg, name, ok := strings.Cut(ros2Type, "/msg/")
	if !ok || pkg == "" || name == "" || strings.Contains(name, "/") {
		return ""
	}
	return pkg + "::msg::dds_::" + name + "_"
}

// codecType is the package/Name form rosmsg knows a ROS 2 type by.
func codecType(ros2Type string) string { return strings.Replace(ros2Type, "/msg/", "/", 1) }

// systemTopics are topics every ROS 2 node has; they say nothing of a robot.
var systemTopics = map[string]bool{"/rosout": true, "/parameter_events": true}

// inNamespace reports whether topic lies in namespace ns ("/" holds every topic).
func inNamespace(topic, ns string) bool {
	return ns == "/" || strings.HasPrefix(topic, ns+"/")
}

// markers are the topics whose presence in a namespace makes it a robot in automatic mode:
// a drive input or an odometry output.
var markers = []string{"cmd_vel", "odom"}
