#!/usr/bin/python3
"""A small ROS 1 robot for trying fleetgate's ROS 1 source (rospy, Debian's python3-rospy).

It drives a differential-drive robot in a 10 m x 10 m room with a few pillars and publishes:
  /odom                      nav_msgs/Odometry, 20 Hz (the pose fleetgate shows on the map)
  /scan                      sensor_msgs/LaserScan, 10 Hz, 360 beams against the walls and pillars
  /camera/image/compressed   sensor_msgs/CompressedImage, JPEG (--camera-rate, --camera-size)
  /battery                   sensor_msgs/BatteryState, 1 Hz, draining while it drives
  /map                       nav_msgs/OccupancyGrid, latched
and obeys /cmd_vel (geometry_msgs/Twist): a command holds for 0.5 s, then the robot stops;
after 3 s without commands it wanders in a slow circle again (--no-wander keeps it still).

Run it beside a master:  rosmaster --core &  ROS_IP=127.0.0.1 scripts/ros1-demo-robot.py
"""
import argparse
import io
import math
import threading
import time

import rospy
from geometry_msgs.msg import Twist
from nav_msgs.msg import OccupancyGrid, Odometry
from PIL import Image, ImageDraw
from sensor_msgs.msg import BatteryState, CompressedImage, LaserScan

ROOM = 10.0  # metres, walls at 0 and ROOM
PILLARS = [(3.0, 3.0, 0.4), (7.0, 6.5, 0.5), (4.5, 7.5, 0.3)]  # x, y, radius
MAX_SPEED, MAX_TURN = 1.0, 1.5
HOLD, WANDER_AFTER = 0.5, 3.0


class Robot:
    def __init__(self, wander):
        self.x, self.y, self.theta = 5.0, 2.0, math.pi / 2
        self.v = self.w = 0.0
        self.battery = 0.9
        self.wander = wander
        self.last_cmd = -1e9
        self.lock = threading.Lock()

    def command(self, msg):
        with self.lock:
            self.v = max(-MAX_SPEED, min(MAX_SPEED, msg.linear.x))
            self.w = max(-MAX_TURN, min(MAX_TURN, msg.angular.z))
            self.last_cmd = time.monotonic()

    def step(self, dt):
        with self.lock:
            idle = time.monotonic() - self.last_cmd
            if idle > HOLD:
                self.v = self.w = 0.0
                if self.wander and idle > WANDER_AFTER:
                    self.v, self.w = 0.3, 0.25
            nx = self.x + self.v * math.cos(self.theta) * dt
            ny = self.y + self.v * math.sin(self.theta) * dt
            if free(nx, ny, 0.3):
                self.x, self.y = nx, ny
            self.theta = math.atan2(math.sin(self.theta + self.w * dt), math.cos(self.theta + self.w * dt))
            self.battery = max(0.05, self.battery - dt * (0.00002 + 0.0002 * abs(self.v)))
            return self.x, self.y, self.theta, self.v, self.w


def free(x, y, r):
    if x < r or y < r or x > ROOM - r or y > ROOM - r:
        return False
    return all(math.hypot(x - px, y - py) > r + pr for px, py, pr in PILLARS)


def ray(x, y, a, max_range):
    """Distance along angle a to the first wall or pillar."""
    dx, dy = math.cos(a), math.sin(a)
    best = max_range
    for wall, d in ((0.0, dx), (ROOM, dx)):
        if abs(d) > 1e-9:
            t = (wall - x) / d
            if 0 < t < best and 0 <= y + t * dy <= ROOM:
                best = t
    for wall, d in ((0.0, dy), (ROOM, dy)):
        if abs(d) > 1e-9:
            t = (wall - y) / d
            if 0 < t < best and 0 <= x + t * dx <= ROOM:
                best = t
    for px, py, pr in PILLARS:
        fx, fy = x - px, y - py
        b = fx * dx + fy * dy
        c = fx * fx + fy * fy - pr * pr
        disc = b * b - c
        if disc >= 0:
            t = -b - math.sqrt(disc)
            if 0 < t < best:
                best = t
    return best


def quaternion(theta):
    return 0.0, 0.0, math.sin(theta / 2), math.cos(theta / 2)


def camera_frame(x, y, theta, size, stamp):
    """A crude first-person view: one column per few pixels, walls shaded by distance."""
    w, h = size
    img = Image.new("RGB", (w, h), (40, 44, 52))
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, h // 2, w, h], fill=(70, 70, 64))
    fov, cols = math.radians(70), 80
    for i in range(cols):
        a = theta + fov / 2 - fov * (i + 0.5) / cols
        d = ray(x, y, a, 20.0) * math.cos(a - theta)
        wall = min(h, int(h * 0.9 / max(d, 0.1)))
        shade = max(40, min(230, int(255 - d * 22)))
        x0 = i * w // cols
        draw.rectangle([x0, (h - wall) // 2, (i + 1) * w // cols, (h + wall) // 2], fill=(shade, shade // 2 + 40, 90))
    draw.text((8, 8), "fleetgate ROS 1 demo  x=%.2f y=%.2f  %.3f" % (x, y, stamp), fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=80)
    return out.getvalue()


def occupancy_map(resolution=0.1):
    n = int(ROOM / resolution)
    data = []
    for j in range(n):
        for i in range(n):
            cx, cy = (i + 0.5) * resolution, (j + 0.5) * resolution
            data.append(0 if free(cx, cy, resolution) else 100)
    m = OccupancyGrid()
    m.header.frame_id = "odom"
    m.info.resolution = resolution
    m.info.width = m.info.height = n
    m.info.origin.orientation.w = 1.0
    m.data = data
    return m


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--camera-rate", type=float, default=15.0, help="camera frames per second (0: no camera)")
    p.add_argument("--camera-size", default="640x480", help="camera image size, WxH")
    p.add_argument("--no-wander", action="store_true", help="stand still between commands")
    p.add_argument("--name", default="demo_robot", help="ROS node name")
    args = p.parse_args(rospy.myargv()[1:])
    size = tuple(int(v) for v in args.camera_size.split("x"))

    rospy.init_node(args.name)
    robot = Robot(wander=not args.no_wander)
    odom_pub = rospy.Publisher("/odom", Odometry, queue_size=1)
    scan_pub = rospy.Publisher("/scan", LaserScan, queue_size=1)
    cam_pub = rospy.Publisher("/camera/image/compressed", CompressedImage, queue_size=1)
    bat_pub = rospy.Publisher("/battery", BatteryState, queue_size=1)
    map_pub = rospy.Publisher("/map", OccupancyGrid, queue_size=1, latch=True)
    rospy.Subscriber("/cmd_vel", Twist, robot.command, queue_size=1)
    map_pub.publish(occupancy_map())

    def camera_loop():
        if args.camera_rate <= 0:
            return
        r = rospy.Rate(args.camera_rate)
        while not rospy.is_shutdown():
            with robot.lock:
                x, y, theta = robot.x, robot.y, robot.theta
            now = rospy.Time.now()
            msg = CompressedImage()
            msg.header.stamp, msg.header.frame_id = now, "camera"
            msg.format = "jpeg"
            msg.data = camera_frame(x, y, theta, size, now.to_sec())
            cam_pub.publish(msg)
            r.sleep()

    threading.Thread(target=camera_loop, daemon=True).start()
    print("ready", flush=True)

    rate, dt, tick = rospy.Rate(20), 0.05, 0
    while not rospy.is_shutdown():
        x, y, theta, v, w = robot.step(dt)
        now = rospy.Time.now()
        o = Odometry()
        o.header.stamp, o.header.frame_id, o.child_frame_id = now, "odom", "base_link"
        o.pose.pose.position.x, o.pose.pose.position.y = x, y
        q = quaternion(theta)
        o.pose.pose.orientation.x, o.pose.pose.orientation.y, o.pose.pose.orientation.z, o.pose.pose.orientation.w = q
        o.twist.twist.linear.x, o.twist.twist.angular.z = v, w
        odom_pub.publish(o)
        if tick % 2 == 0:
            s = LaserScan()
            s.header.stamp, s.header.frame_id = now, "base_link"
            s.angle_min, s.angle_max = -math.pi, math.pi - 2 * math.pi / 360
            s.angle_increment, s.scan_time = 2 * math.pi / 360, 0.1
            s.range_min, s.range_max = 0.05, 12.0
            s.ranges = [ray(x, y, theta + s.angle_min + k * s.angle_increment, 12.0) for k in range(360)]
            scan_pub.publish(s)
        if tick % 20 == 0:
            b = BatteryState()
            b.header.stamp = now
            b.voltage, b.percentage, b.present = 22.0 + 3.0 * robot.battery, robot.battery, True
            b.power_supply_status = BatteryState.POWER_SUPPLY_STATUS_DISCHARGING
            b.power_supply_technology = BatteryState.POWER_SUPPLY_TECHNOLOGY_LION
            b.temperature = b.current = b.charge = b.capacity = b.design_capacity = float("nan")
            bat_pub.publish(b)
        tick += 1
        rate.sleep()


if __name__ == "__main__":
    main()
