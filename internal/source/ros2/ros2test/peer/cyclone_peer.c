// A ROS 2 robot on Cyclone DDS with idlc-generated types: publishes odometry, a laser scan,
// a camera (CompressedImage), a point cloud and its battery, and obeys geometry_msgs/Twist on
// cmd_vel (prints each command: "cmd_vel lx ly lz ax ay az"). See common.h for the content.
// With --nav it takes goals as Nav2 would and their cancel as a bridge to Nav2's action would;
// with --video it is a camera publishing foxglove_msgs/CompressedVideo (H.264).
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros2msgs.h"
#include "common.h"

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void) s; stop = 1; }

static dds_qos_t *qos(int reliable, int transient_local, int depth) {
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
  dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
  return q;
}

static dds_entity_t writer(dds_entity_t pp, const struct peer_opts *o, const char *name, const dds_topic_descriptor_t *desc, int reliable) {
  char t[256];
  peer_topic(t, sizeof t, o, name);
  dds_entity_t tp = dds_create_topic(pp, desc, t, NULL, NULL);
  if (tp < 0) { fprintf(stderr, "topic %s: %s\n", t, dds_strretcode(tp)); exit(1); }
  dds_qos_t *q = qos(reliable, 0, 1);
  dds_entity_t w = dds_create_writer(pp, tp, q, NULL);
  dds_delete_qos(q);
  if (w < 0) { fprintf(stderr, "writer %s: %s\n", t, dds_strretcode(w)); exit(1); }
  return w;
}

static void header(std_msgs_msg_dds__Header_ *h, char *frame) {
  peer_stamp(&h->stamp.sec, &h->stamp.nanosec);
  h->frame_id = frame;
}

int main(int argc, char **argv) {
  struct peer_opts o;
  peer_parse(argc, argv, &o);
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  setvbuf(stdout, NULL, _IOLBF, 0);
  dds_entity_t pp = dds_create_participant((dds_domainid_t) o.domain, NULL, NULL);
  if (pp < 0) { fprintf(stderr, "participant: %s\n", dds_strretcode(pp)); return 1; }

  if (o.listen) { // a plain subscriber: how fast does DDS itself deliver?
    int image = !strcmp(o.listen, "image");
    char t[256];
    peer_topic(t, sizeof t, &o, image ? "camera/image/compressed" : "points");
    dds_entity_t tp = dds_create_topic(pp, image ? &sensor_msgs_msg_dds__CompressedImage__desc : &sensor_msgs_msg_dds__PointCloud2__desc, t, NULL, NULL);
    dds_qos_t *q = qos(image ? o.image_reliable : o.cloud_reliable, 0, 1);
    dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
    dds_delete_qos(q);
    printf("ready\n");
    double t0 = peer_now();
    while (!stop && (o.duration <= 0 || peer_now() - t0 < o.duration)) {
      void *buf[1] = { NULL };
      dds_sample_info_t si;
      int n = dds_take(rd, buf, &si, 1, 1);
      if (n > 0 && si.valid_data) {
        const std_msgs_msg_dds__Header_ *h = buf[0]; // the header comes first in both types
        double sent = h->stamp.sec + h->stamp.nanosec / 1e9;
        printf("latency %.6f\n", peer_now() - sent);
      }
      if (n > 0)
        dds_return_loan(rd, buf, n);
      else
        usleep(200);
    }
    dds_delete(pp);
    return 0;
  }

  dds_entity_t w_scan = writer(pp, &o, "scan", &sensor_msgs_msg_dds__LaserScan__desc, 0);
  dds_entity_t w_odom = writer(pp, &o, "odom", &nav_msgs_msg_dds__Odometry__desc, 1);
  dds_entity_t w_image = writer(pp, &o, "camera/image/compressed", &sensor_msgs_msg_dds__CompressedImage__desc, o.image_reliable);
  dds_entity_t w_cloud = writer(pp, &o, "points", &sensor_msgs_msg_dds__PointCloud2__desc, o.cloud_reliable);
  dds_entity_t w_batt = writer(pp, &o, "battery_state", &sensor_msgs_msg_dds__BatteryState__desc, 1);
  char t[256];
  peer_topic(t, sizeof t, &o, "cmd_vel");
  dds_entity_t tp_cmd = dds_create_topic(pp, &geometry_msgs_msg_dds__Twist__desc, t, NULL, NULL);
  dds_qos_t *q = qos(1, o.cmd_transient_local, 10);
  dds_entity_t r_cmd = dds_create_reader(pp, tp_cmd, q, NULL);
  dds_delete_qos(q);
  if (r_cmd < 0) { fprintf(stderr, "cmd_vel reader: %s\n", dds_strretcode(r_cmd)); return 1; }

  dds_entity_t r_goal = 0, r_cancel = 0, w_video = 0;
  if (o.nav) {
    peer_topic(t, sizeof t, &o, "goal_pose");
    dds_qos_t *gq = qos(1, 0, 10);
    r_goal = dds_create_reader(pp, dds_create_topic(pp, &geometry_msgs_msg_dds__PoseStamped__desc, t, NULL, NULL), gq, NULL);
    peer_topic(t, sizeof t, &o, "goal_pose/cancel");
    r_cancel = dds_create_reader(pp, dds_create_topic(pp, &action_msgs_msg_dds__GoalInfo__desc, t, NULL, NULL), gq, NULL);
    dds_delete_qos(gq);
    if (r_goal < 0 || r_cancel < 0) { fprintf(stderr, "goal readers: %s %s\n", dds_strretcode(r_goal), dds_strretcode(r_cancel)); return 1; }
  }
  long video_bytes = 0, video_at = 0;
  unsigned char *video = NULL;
  if (o.video) {
    video = peer_load_file(o.video, &video_bytes);
    w_video = writer(pp, &o, "camera/video", &foxglove_msgs_msg_dds__CompressedVideo__desc, 1);
  }
  double next_video = peer_now();
  float ranges[PEER_SCAN_N], intens[PEER_SCAN_N];
  for (int i = 0; i < PEER_SCAN_N; i++) ranges[i] = peer_range(i);
  unsigned char *img = o.jpeg ? peer_load_jpeg(&o) : malloc((size_t) o.image_bytes + 1);
  long cloud_bytes = o.cloud_points * 16;
  unsigned char *cloud = malloc((size_t) cloud_bytes + 1);
  sensor_msgs_msg_dds__PointField_ fields[4] = {
    {"x", 0, 7, 1}, {"y", 4, 7, 1}, {"z", 8, 7, 1}, {"intensity", 12, 7, 1}};
  double x = 0, yaw = 0, vx = 0, wz = 0;
  double t0 = peer_now(), last = t0;
  double next_scan = t0, next_odom = t0, next_image = t0, next_cloud = t0, next_batt = t0;
  uint32_t seq = 0;
  printf("ready\n");
  while (!stop && (o.duration <= 0 || peer_now() - t0 < o.duration)) {
    void *buf[1] = { NULL };
    dds_sample_info_t si;
    while (dds_take(r_cmd, buf, &si, 1, 1) > 0) {
      if (si.valid_data) {
        const geometry_msgs_msg_dds__Twist_ *c = buf[0];
        printf("cmd_vel %g %g %g %g %g %g\n", c->linear.x, c->linear.y, c->linear.z, c->angular.x, c->angular.y, c->angular.z);
        vx = c->linear.x;
        wz = c->angular.z;
      }
      dds_return_loan(r_cmd, buf, 1);
      buf[0] = NULL;
    }
    while (o.nav && dds_take(r_goal, buf, &si, 1, 1) > 0) {
      if (si.valid_data) {
        const geometry_msgs_msg_dds__PoseStamped_ *g = buf[0];
        printf("goal %.3f %.3f %s\n", g->pose.position.x, g->pose.position.y, g->header.frame_id);
      }
      dds_return_loan(r_goal, buf, 1);
      buf[0] = NULL;
    }
    while (o.nav && dds_take(r_cancel, buf, &si, 1, 1) > 0) {
      if (si.valid_data) {
        const action_msgs_msg_dds__GoalInfo_ *c = buf[0];
        unsigned sum = 0;
        for (int i = 0; i < 16; i++) sum += c->goal_id.uuid[i];
        printf("cancel %u %d %u\n", sum, c->stamp.sec, c->stamp.nanosec);
      }
      dds_return_loan(r_cancel, buf, 1);
      buf[0] = NULL;
    }
    double now = peer_now();
    if (video && now >= next_video) { // the next access unit, from the top again at the end
      next_video = now + 1 / o.video_hz;
      if (video_at + 4 > video_bytes) video_at = 0;
      uint32_t n = (uint32_t) video[video_at] << 24 | (uint32_t) video[video_at + 1] << 16 | (uint32_t) video[video_at + 2] << 8 | video[video_at + 3];
      foxglove_msgs_msg_dds__CompressedVideo_ m = {0};
      peer_stamp(&m.timestamp.sec, &m.timestamp.nanosec);
      m.frame_id = "camera";
      m.format = "h264";
      m.data._length = m.data._maximum = n; m.data._buffer = video + video_at + 4;
      dds_write(w_video, &m);
      video_at += 4 + n;
    }
    x += vx * cos(yaw) * (now - last);
    yaw += wz * (now - last);
    last = now;
    if (o.scan_hz > 0 && now >= next_scan) {
      next_scan = now + 1 / o.scan_hz;
      intens[0] = (float) seq;
      for (int i = 1; i < PEER_SCAN_N; i++) intens[i] = (float) i;
      sensor_msgs_msg_dds__LaserScan_ m = {0};
      header(&m.header, "laser");
      m.angle_min = -1.5f; m.angle_max = 1.5f; m.angle_increment = 3.0f / (PEER_SCAN_N - 1);
      m.time_increment = 0.0001f; m.scan_time = 0.1f; m.range_min = 0.1f; m.range_max = 30.0f;
      m.ranges._length = m.ranges._maximum = PEER_SCAN_N; m.ranges._buffer = ranges;
      m.intensities._length = m.intensities._maximum = PEER_SCAN_N; m.intensities._buffer = intens;
      dds_write(w_scan, &m);
    }
    if (o.odom_hz > 0 && now >= next_odom) {
      next_odom = now + 1 / o.odom_hz;
      nav_msgs_msg_dds__Odometry_ m = {0};
      header(&m.header, "odom");
      m.child_frame_id = "base_link";
      m.pose.pose.position.x = x;
      m.pose.pose.orientation.z = sin(yaw / 2);
      m.pose.pose.orientation.w = cos(yaw / 2);
      for (int i = 0; i < 36; i++) { m.pose.covariance[i] = i * 0.5; m.twist.covariance[i] = -i; }
      m.twist.twist.linear.x = vx;
      m.twist.twist.angular.z = wz;
      dds_write(w_odom, &m);
    }
    if (o.image_hz > 0 && now >= next_image) {
      next_image = now + 1 / o.image_hz;
      if (!o.jpeg)
        for (long i = 0; i < o.image_bytes; i++) img[i] = peer_image_byte(i, (uint8_t) seq);
      sensor_msgs_msg_dds__CompressedImage_ m = {0};
      header(&m.header, "camera");
      m.format = "jpeg";
      m.data._length = m.data._maximum = (uint32_t) o.image_bytes; m.data._buffer = img;
      dds_write(w_image, &m);
    }
    if (o.cloud_hz > 0 && now >= next_cloud) {
      next_cloud = now + 1 / o.cloud_hz;
      for (long i = 0; i < cloud_bytes; i++) cloud[i] = peer_cloud_byte(i, (uint8_t) seq);
      sensor_msgs_msg_dds__PointCloud2_ m = {0};
      header(&m.header, "lidar");
      m.height = 1; m.width = (uint32_t) o.cloud_points;
      m.fields._length = m.fields._maximum = 4; m.fields._buffer = fields;
      m.point_step = 16; m.row_step = (uint32_t) cloud_bytes;
      m.data._length = m.data._maximum = (uint32_t) cloud_bytes; m.data._buffer = cloud;
      m.is_dense = true;
      dds_write(w_cloud, &m);
    }
    if (o.battery_hz > 0 && now >= next_batt) {
      next_batt = now + 1 / o.battery_hz;
      float cells[3] = {4.1f, 4.1f, 4.2f};
      sensor_msgs_msg_dds__BatteryState_ m = {0};
      header(&m.header, "battery");
      m.voltage = 24.5f; m.percentage = 0.75f; m.present = true;
      m.temperature = NAN; m.current = -1.5f; m.charge = NAN; m.capacity = NAN; m.design_capacity = 20.0f;
      m.power_supply_status = 2;
      m.cell_voltage._length = m.cell_voltage._maximum = 3; m.cell_voltage._buffer = cells;
      m.location = "rear"; m.serial_number = "SN-1";
      dds_write(w_batt, &m);
    }
    seq++;
    usleep(2000);
  }
  dds_delete(pp);
  return 0;
}
