package msgs

import "strings"

// CatalogName is the catalog's full name of a message type given by any of the names the
// contract allows: the catalog's own ("Platform.Messages.geometry_msgs.Twist"), a ROS 2 name
// ("geometry_msgs/msg/Twist") or a ROS 1 name ("geometry_msgs/Twist"). ok is false when the
// type is not in the catalog.
func CatalogName(name string) (fullName string, ok bool) {
	if Known(name) {
		return name, true
	}
	parts := strings.Split(name, "/")
	switch {
	case len(parts) == 3 && parts[1] == "msg":
		parts = []string{parts[0], parts[2]}
	case len(parts) != 2:
		return "", false
	}
	if parts[0] == "" || parts[1] == "" {
		return "", false
	}
	fullName = catalogPrefix + parts[0] + "." + parts[1]
	return fullName, Known(fullName)
}
