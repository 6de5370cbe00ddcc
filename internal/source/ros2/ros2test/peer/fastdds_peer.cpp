// A ROS 2 robot on Fast DDS with fastddsgen-generated types: publishes odometry, a laser
// scan, a camera (CompressedImage), a point cloud and its battery, and obeys
// geometry_msgs/Twist on cmd_vel (prints each command: "cmd_vel lx ly lz ax ay az"). The same
// options and content as cyclone_peer.c (common.h), goals (--nav) and H.264 (--video) too.
#include <cmath>
#include <csignal>
#include <thread>
#include <chrono>
#include <vector>

#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/qos/DataWriterQos.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/qos/DataReaderQos.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>

#include "ros2msgs.h"
#include "ros2msgsPubSubTypes.h"
#include "common.h"

using namespace eprosima::fastdds::dds;
namespace sm = sensor_msgs::msg::dds_;
namespace gm = geometry_msgs::msg::dds_;
namespace nm = nav_msgs::msg::dds_;
namespace am = action_msgs::msg::dds_;
namespace fm = foxglove_msgs::msg::dds_;

static volatile std::sig_atomic_t stop_flag;
static void on_signal(int) { stop_flag = 1; }

struct Peer {
  DomainParticipant *pp;
  Publisher *pub;
  Subscriber *sub;
  const peer_opts &o;

  Topic *topic(const char *name, TypeSupport ts) {
    ts.register_type(pp);
    char t[256];
    peer_topic(t, sizeof t, &o, name);
    Topic *tp = pp->create_topic(t, ts.get_type_name(), TOPIC_QOS_DEFAULT);
    if (!tp) { fprintf(stderr, "topic %s\n", t); exit(1); }
    return tp;
  }

  DataWriter *writer(const char *name, TypeSupport ts, bool reliable) {
    DataWriterQos q = DATAWRITER_QOS_DEFAULT;
    q.reliability().kind = reliable ? RELIABLE_RELIABILITY_QOS : BEST_EFFORT_RELIABILITY_QOS;
    q.durability().kind = VOLATILE_DURABILITY_QOS;
    q.history().kind = KEEP_LAST_HISTORY_QOS;
    q.history().depth = 1;
    q.publish_mode().kind = ASYNCHRONOUS_PUBLISH_MODE; // samples over 64 KiB go out in fragments
    DataWriter *w = pub->create_datawriter(topic(name, ts), q);
    if (!w) { fprintf(stderr, "writer %s\n", name); exit(1); }
    return w;
  }

  DataReader *reader(const char *name, TypeSupport ts, bool reliable, bool transient_local, int depth) {
    DataReaderQos q = DATAREADER_QOS_DEFAULT;
    q.reliability().kind = reliable ? RELIABLE_RELIABILITY_QOS : BEST_EFFORT_RELIABILITY_QOS;
    q.durability().kind = transient_local ? TRANSIENT_LOCAL_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
    q.history().kind = KEEP_LAST_HISTORY_QOS;
    q.history().depth = depth;
    DataReader *r = sub->create_datareader(topic(name, ts), q);
    if (!r) { fprintf(stderr, "reader %s\n", name); exit(1); }
    return r;
  }
};

static void stamp(std_msgs::msg::dds_::Header_ &h, const char *frame) {
  int32_t sec;
  uint32_t nsec;
  peer_stamp(&sec, &nsec);
  h.stamp().sec(sec);
  h.stamp().nanosec(nsec);
  h.frame_id(frame);
}

int main(int argc, char **argv) {
  peer_opts o;
  peer_parse(argc, argv, &o);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  setvbuf(stdout, NULL, _IOLBF, 0);
  DomainParticipant *pp = DomainParticipantFactory::get_instance()->create_participant(o.domain, PARTICIPANT_QOS_DEFAULT);
  if (!pp) { fprintf(stderr, "participant\n"); return 1; }
  Peer p{pp, pp->create_publisher(PUBLISHER_QOS_DEFAULT), pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT), o};
  double t0 = peer_now();
  auto running = [&] { return !stop_flag && (o.duration <= 0 || peer_now() - t0 < o.duration); };

  if (o.listen) { // a plain subscriber: how fast does DDS itself deliver?
    bool image = !strcmp(o.listen, "image");
    DataReader *r = image ? p.reader("camera/image/compressed", TypeSupport(new sm::CompressedImage_PubSubType()), o.image_reliable, false, 1)
                          : p.reader("points", TypeSupport(new sm::PointCloud2_PubSubType()), o.cloud_reliable, false, 1);
    printf("ready\n");
    sm::CompressedImage_ img;
    sm::PointCloud2_ cloud;
    SampleInfo info;
    while (running()) {
      if (r->wait_for_unread_message(eprosima::fastrtps::Duration_t(0, 100000000))) {
        void *dst = image ? (void *) &img : (void *) &cloud;
        while (r->take_next_sample(dst, &info) == ReturnCode_t::RETCODE_OK) {
          if (!info.valid_data) continue;
          const auto &h = image ? img.header() : cloud.header();
          printf("latency %.6f\n", peer_now() - (h.stamp().sec() + h.stamp().nanosec() / 1e9));
        }
      }
    }
    DomainParticipantFactory::get_instance()->delete_participant(pp); // not empty: leaks at exit, fine
    return 0;
  }

  DataWriter *w_scan = p.writer("scan", TypeSupport(new sm::LaserScan_PubSubType()), false);
  DataWriter *w_odom = p.writer("odom", TypeSupport(new nm::Odometry_PubSubType()), true);
  DataWriter *w_image = p.writer("camera/image/compressed", TypeSupport(new sm::CompressedImage_PubSubType()), o.image_reliable);
  DataWriter *w_cloud = p.writer("points", TypeSupport(new sm::PointCloud2_PubSubType()), o.cloud_reliable);
  DataWriter *w_batt = p.writer("battery_state", TypeSupport(new sm::BatteryState_PubSubType()), true);
  DataReader *r_cmd = p.reader("cmd_vel", TypeSupport(new gm::Twist_PubSubType()), true, o.cmd_transient_local, 10);

  DataReader *r_goal = o.nav ? p.reader("goal_pose", TypeSupport(new gm::PoseStamped_PubSubType()), true, false, 10) : nullptr;
  DataReader *r_cancel = o.nav ? p.reader("goal_pose/cancel", TypeSupport(new am::GoalInfo_PubSubType()), true, false, 10) : nullptr;
  DataWriter *w_video = o.video ? p.writer("camera/video", TypeSupport(new fm::CompressedVideo_PubSubType()), true) : nullptr;
  long video_bytes = 0, video_at = 0;
  unsigned char *video = o.video ? peer_load_file(o.video, &video_bytes) : nullptr;
  double next_video = t0;
  std::vector<float> ranges(PEER_SCAN_N), intens(PEER_SCAN_N);
  for (int i = 0; i < PEER_SCAN_N; i++) { ranges[i] = peer_range(i); intens[i] = (float) i; }
  std::vector<uint8_t> img;
  if (o.jpeg) {
    unsigned char *j = peer_load_jpeg(&o);
    img.assign(j, j + o.image_bytes);
    free(j);
  } else {
    img.resize((size_t) o.image_bytes);
  }
  long cloud_bytes = o.cloud_points * 16;
  std::vector<uint8_t> cloud((size_t) cloud_bytes);
  std::vector<sm::PointField_> fields(4);
  const char *names[4] = {"x", "y", "z", "intensity"};
  for (int i = 0; i < 4; i++) { fields[i].name(names[i]); fields[i].offset(4 * i); fields[i].datatype(7); fields[i].count(1); }
  double x = 0, yaw = 0, vx = 0, wz = 0, last = t0;
  double next_scan = t0, next_odom = t0, next_image = t0, next_cloud = t0, next_batt = t0;
  uint32_t seq = 0;
  printf("ready\n");
  while (running()) {
    gm::Twist_ cmd;
    SampleInfo info;
    while (r_cmd->take_next_sample(&cmd, &info) == ReturnCode_t::RETCODE_OK) {
      if (!info.valid_data) continue;
      printf("cmd_vel %g %g %g %g %g %g\n", cmd.linear().x(), cmd.linear().y(), cmd.linear().z(), cmd.angular().x(), cmd.angular().y(), cmd.angular().z());
      vx = cmd.linear().x();
      wz = cmd.angular().z();
    }
    gm::PoseStamped_ goal;
    while (r_goal && r_goal->take_next_sample(&goal, &info) == ReturnCode_t::RETCODE_OK) {
      if (info.valid_data)
        printf("goal %.3f %.3f %s\n", goal.pose().position().x(), goal.pose().position().y(), goal.header().frame_id().c_str());
    }
    am::GoalInfo_ cancel;
    while (r_cancel && r_cancel->take_next_sample(&cancel, &info) == ReturnCode_t::RETCODE_OK) {
      if (!info.valid_data) continue;
      unsigned sum = 0;
      for (uint8_t b : cancel.goal_id().uuid()) sum += b;
      printf("cancel %u %d %u\n", sum, cancel.stamp().sec(), cancel.stamp().nanosec());
    }
    double now = peer_now();
    if (video && now >= next_video) { // the next access unit, from the top again at the end
      next_video = now + 1 / o.video_hz;
      if (video_at + 4 > video_bytes) video_at = 0;
      uint32_t n = (uint32_t) video[video_at] << 24 | (uint32_t) video[video_at + 1] << 16 | (uint32_t) video[video_at + 2] << 8 | video[video_at + 3];
      fm::CompressedVideo_ m;
      int32_t sec;
      uint32_t nsec;
      peer_stamp(&sec, &nsec);
      m.timestamp().sec(sec);
      m.timestamp().nanosec(nsec);
      m.frame_id("camera");
      m.format("h264");
      m.data(std::vector<uint8_t>(video + video_at + 4, video + video_at + 4 + n));
      w_video->write(&m);
      video_at += 4 + n;
    }
    x += vx * std::cos(yaw) * (now - last);
    yaw += wz * (now - last);
    last = now;
    if (o.scan_hz > 0 && now >= next_scan) {
      next_scan = now + 1 / o.scan_hz;
      intens[0] = (float) seq;
      sm::LaserScan_ m;
      stamp(m.header(), "laser");
      m.angle_min(-1.5f); m.angle_max(1.5f); m.angle_increment(3.0f / (PEER_SCAN_N - 1));
      m.time_increment(0.0001f); m.scan_time(0.1f); m.range_min(0.1f); m.range_max(30.0f);
      m.ranges(ranges);
      m.intensities(intens);
      w_scan->write(&m);
    }
    if (o.odom_hz > 0 && now >= next_odom) {
      next_odom = now + 1 / o.odom_hz;
      nm::Odometry_ m;
      stamp(m.header(), "odom");
      m.child_frame_id("base_link");
      m.pose().pose().position().x(x);
      m.pose().pose().orientation().z(std::sin(yaw / 2));
      m.pose().pose().orientation().w(std::cos(yaw / 2));
      for (int i = 0; i < 36; i++) { m.pose().covariance()[i] = i * 0.5; m.twist().covariance()[i] = -i; }
      m.twist().twist().linear().x(vx);
      m.twist().twist().angular().z(wz);
      w_odom->write(&m);
    }
    if (o.image_hz > 0 && now >= next_image) {
      next_image = now + 1 / o.image_hz;
      if (!o.jpeg)
        for (long i = 0; i < o.image_bytes; i++) img[i] = peer_image_byte(i, (uint8_t) seq);
      sm::CompressedImage_ m;
      stamp(m.header(), "camera");
      m.format("jpeg");
      m.data(img);
      w_image->write(&m);
    }
    if (o.cloud_hz > 0 && now >= next_cloud) {
      next_cloud = now + 1 / o.cloud_hz;
      for (long i = 0; i < cloud_bytes; i++) cloud[i] = peer_cloud_byte(i, (uint8_t) seq);
      sm::PointCloud2_ m;
      stamp(m.header(), "lidar");
      m.height(1); m.width((uint32_t) o.cloud_points);
      m.fields(fields);
      m.is_bigendian(false); m.point_step(16); m.row_step((uint32_t) cloud_bytes);
      m.data(cloud);
      m.is_dense(true);
      w_cloud->write(&m);
    }
    if (o.battery_hz > 0 && now >= next_batt) {
      next_batt = now + 1 / o.battery_hz;
      sm::BatteryState_ m;
      stamp(m.header(), "battery");
      m.voltage(24.5f); m.percentage(0.75f); m.present(true);
      m.temperature(NAN); m.current(-1.5f); m.charge(NAN); m.capacity(NAN); m.design_capacity(20.0f);
      m.power_supply_status(2);
      m.cell_voltage(std::vector<float>{4.1f, 4.1f, 4.2f});
      m.location("rear"); m.serial_number("SN-1");
      w_batt->write(&m);
    }
    seq++;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  pp->delete_contained_entities();
  DomainParticipantFactory::get_instance()->delete_participant(pp);
  return 0;
}
