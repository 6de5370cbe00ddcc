package rosmsg

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// definitions are the ROS 1 (Noetic) message definitions of the types the catalog carries and
// of the types they embed, comments left out: comments do not change the md5sum, and the
// connection header's message_definition is for readers, who get the fields. The md5sums are
// checked against what rospy reports in this package's tests.
var definitions = map[string]string{
	"std_msgs/Header": `uint32 seq
time stamp
string frame_id`,
	"std_msgs/String":  "string data",
	"std_msgs/Bool":    "bool data",
	"std_msgs/Int32":   "int32 data",
	"std_msgs/Float64": "float64 data",

	"geometry_msgs/Vector3": `float64 x
float64 y
float64 z`,
	"geometry_msgs/Point": `float64 x
float64 y
float64 z`,
	"geometry_msgs/Quaternion": `float64 x
float64 y
float64 z
float64 w`,
	"geometry_msgs/Pose": `Point position
Quaternion orientation`,
	"geometry_msgs/PoseStamped": `Header header
Pose pose`,
	"geometry_msgs/PoseWithCovariance": `Pose pose
float64[36] covariance`,
	"geometry_msgs/Twist": `Vector3  linear
Vector3  angular`,
	"geometry_msgs/TwistStamped": `Header header
Twist twist`,
	"geometry_msgs/TwistWithCovariance": `Twist twist
float64[36] covariance`,
	"geometry_msgs/Transform": `Vector3 translation
Quaternion rotation`,
	"geometry_msgs/TransformStamped": `Header header
string child_frame_id
Transform transform`,

	"nav_msgs/Odometry": `Header header
string child_frame_id
geometry_msgs/PoseWithCovariance pose
geometry_msgs/TwistWithCovariance twist`,
	"nav_msgs/MapMetaData": `time map_load_time
float32 resolution
uint32 width
uint32 height
geometry_msgs/Pose origin`,
	"nav_msgs/OccupancyGrid": `Header header
MapMetaData info
int8[] data`,

	"sensor_msgs/Image": `Header header
uint32 height
uint32 width
string encoding
uint8 is_bigendian
uint32 step
uint8[] data`,
	"sensor_msgs/CompressedImage": `Header header
string format
uint8[] data`,
	"sensor_msgs/LaserScan": `Header header
float32 angle_min
float32 angle_max
float32 angle_increment
float32 time_increment
float32 scan_time
float32 range_min
float32 range_max
float32[] ranges
float32[] intensities`,
	"sensor_msgs/PointField": `uint8 INT8    = 1
uint8 UINT8   = 2
uint8 INT16   = 3
uint8 UINT16  = 4
uint8 INT32   = 5
uint8 UINT32  = 6
uint8 FLOAT32 = 7
uint8 FLOAT64 = 8
string name
uint32 offset
uint8  datatype
uint32 count`,
	"sensor_msgs/PointCloud2": `Header header
uint32 height
uint32 width
PointField[] fields
bool    is_bigendian
uint32  point_step
uint32  row_step
uint8[] data
bool is_dense`,
	"sensor_msgs/BatteryState": `uint8 POWER_SUPPLY_STATUS_UNKNOWN = 0
uint8 POWER_SUPPLY_STATUS_CHARGING = 1
uint8 POWER_SUPPLY_STATUS_DISCHARGING = 2
uint8 POWER_SUPPLY_STATUS_NOT_CHARGING = 3
uint8 POWER_SUPPLY_STATUS_FULL = 4
uint8 POWER_SUPPLY_HEALTH_UNKNOWN = 0
uint8 POWER_SUPPLY_HEALTH_GOOD = 1
uint8 POWER_SUPPLY_HEALTH_OVERHEAT = 2
uint8 POWER_SUPPLY_HEALTH_DEAD = 3
uint8 POWER_SUPPLY_HEALTH_OVERVOLTAGE = 4
uint8 POWER_SUPPLY_HEALTH_UNSPEC_FAILURE = 5
uint8 POWER_SUPPLY_HEALTH_COLD = 6
uint8 POWER_SUPPLY_HEALTH_WATCHDOG_TIMER_EXPIRE = 7
uint8 POWER_SUPPLY_HEALTH_SAFETY_TIMER_EXPIRE = 8
uint8 POWER_SUPPLY_TECHNOLOGY_UNKNOWN = 0
uint8 POWER_SUPPLY_TECHNOLOGY_NIMH = 1
uint8 POWER_SUPPLY_TECHNOLOGY_LION = 2
uint8 POWER_SUPPLY_TECHNOLOGY_LIPO = 3
uint8 POWER_SUPPLY_TECHNOLOGY_LIFE = 4
uint8 POWER_SUPPLY_TECHNOLOGY_NICD = 5
uint8 POWER_SUPPLY_TECHNOLOGY_LIMN = 6
Header  header
float32 voltage
float32 temperature
float32 current
float32 charge
float32 capacity
float32 design_capacity
float32 percentage
uint8   power_supply_status
uint8   power_supply_health
uint8   power_supply_technology
bool    present
float32[] cell_voltage
float32[] cell_temperature
string location
string serial_number`,
	"sensor_msgs/Joy": `Header header
float32[] axes
int32[] buttons`,
	"sensor_msgs/NavSatStatus": `int8 STATUS_NO_FIX =  -1
int8 STATUS_FIX =      0
int8 STATUS_SBAS_FIX = 1
int8 STATUS_GBAS_FIX = 2
int8 status
uint16 SERVICE_GPS =     1
uint16 SERVICE_GLONASS = 2
uint16 SERVICE_COMPASS = 4
uint16 SERVICE_GALILEO = 8
uint16 service`,
	"sensor_msgs/NavSatFix": `Header header
NavSatStatus status
float64 latitude
float64 longitude
float64 altitude
float64[9] position_covariance
uint8 COVARIANCE_TYPE_UNKNOWN = 0
uint8 COVARIANCE_TYPE_APPROXIMATED = 1
uint8 COVARIANCE_TYPE_DIAGONAL_KNOWN = 2
uint8 COVARIANCE_TYPE_KNOWN = 3
uint8 position_covariance_type`,
	"sensor_msgs/Imu": `Header header
geometry_msgs/Quaternion orientation
float64[9] orientation_covariance
geometry_msgs/Vector3 angular_velocity
float64[9] angular_velocity_covariance
geometry_msgs/Vector3 linear_acceleration
float64[9] linear_acceleration_covariance`,

	"ackermann_msgs/AckermannDrive": `float32 steering_angle
float32 steering_angle_velocity
float32 speed
float32 acceleration
float32 jerk`,
	"ackermann_msgs/AckermannDriveStamped": `Header          header
AckermannDrive  drive`,

	"tf2_msgs/TFMessage": "geometry_msgs/TransformStamped[] transforms",

	// A goal's cancel on move_base's cancel topic: written, never read, so the catalog has
	// no type for it (SpecCodec).
	"actionlib_msgs/GoalID": `time stamp
string id`,
}

// catalogOf maps the ROS types that are streams of their own to their catalog types. The
// catalog names follow ROS (Platform.Messages.<package>.<Name>), fields keep their ROS names.
var catalogOf = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{
		"std_msgs/Header", "std_msgs/String", "std_msgs/Bool", "std_msgs/Int32", "std_msgs/Float64",
		"geometry_msgs/Vector3", "geometry_msgs/Point", "geometry_msgs/Quaternion",
		"geometry_msgs/Twist", "geometry_msgs/TwistStamped", "geometry_msgs/TwistWithCovariance",
		"geometry_msgs/Pose", "geometry_msgs/PoseStamped", "geometry_msgs/PoseWithCovariance",
		"geometry_msgs/Transform", "geometry_msgs/TransformStamped",
		"nav_msgs/Odometry", "nav_msgs/MapMetaData", "nav_msgs/OccupancyGrid",
		"sensor_msgs/Image", "sensor_msgs/CompressedImage", "sensor_msgs/LaserScan",
		"sensor_msgs/PointField", "sensor_msgs/PointCloud2", "sensor_msgs/BatteryState",
		"sensor_msgs/Joy", "sensor_msgs/NavSatStatus", "sensor_msgs/NavSatFix", "sensor_msgs/Imu",
		"ackermann_msgs/AckermannDrive", "ackermann_msgs/AckermannDriveStamped",
		"tf2_msgs/TFMessage",
	} {
		m[t] = "Platform.Messages." + strings.Replace(t, "/", ".", 1)
	}
	return m
}()

var specs = sync.OnceValues(func() (map[string]*Spec, error) {
	out := map[string]*Spec{}
	resolve := func(t string) (string, bool) { s, ok := definitions[t]; return s, ok }
	for _, t := range slices.Sorted(mapKeys(definitions)) {
		s, err := Parse(t, definitions[t], resolve)
		if err != nil {
			return nil, err
		}
		out[t] = s
	}
	return out, nil
})

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Lookup returns the spec of a ROS type this package knows.
func Lookup(rosType string) (*Spec, bool) {
	all, err := specs()
	if err != nil {
		panic(fmt.Sprintf("rosmsg: the built-in definitions do not parse: %v", err))
	}
	s, ok := all[rosType]
	return s, ok
}

// CatalogType is the catalog type of a ROS type, "" when the catalog has none.
func CatalogType(rosType string) string { return catalogOf[rosType] }

// ROSType is the ROS type of a catalog type, "" when there is none.
func ROSType(catalogType string) string {
	for r, c := range catalogOf {
		if c == catalogType {
			return r
		}
	}
	return ""
}

// Types lists the ROS types that have a catalog type, sorted.
func Types() []string { return slices.Sorted(mapKeys(catalogOf)) }
