// Shared by the two test peers (Cyclone DDS in C, Fast DDS in C++): options and the content
// of each message, so the Go tests can check every field of what arrives.
#ifndef PEER_COMMON_H
#define PEER_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

struct peer_opts {
  int domain;
  const char *ns;        // topic namespace, "" or "/robot1"
  double scan_hz, odom_hz, image_hz, cloud_hz, battery_hz;
  long image_bytes, cloud_points;
  int image_reliable, cloud_reliable;
  int cmd_transient_local; // subscribe to cmd_vel asking for transient-local durability
  double duration;       // seconds; 0: until SIGTERM
  const char *listen;    // "image" or "cloud": only subscribe to it and print latencies
  const char *jpeg;      // a JPEG file published as the camera image instead of the pattern
  int nav;               // Nav2's end of goals: subscribe to goal_pose and
                         // goal_pose/cancel, printing "goal X Y FRAME" and "cancel SUM SEC NANOSEC"
  const char *video;     // H.264 access units (each a 4-byte big-endian length, then the unit),
                         // published in a loop as foxglove_msgs/CompressedVideo on camera/video
  double video_hz;
};

static inline void peer_usage(const char *prog) {
  fprintf(stderr, "usage: %s [--domain N] [--ns /name] [--scan-hz F] [--odom-hz F] [--image-hz F] [--image-bytes N]\n"
                  "  [--image-reliable] [--cloud-hz F] [--cloud-points N] [--cloud-best-effort] [--battery-hz F]\n"
                  "  [--cmd-transient-local] [--duration S] [--listen image|cloud] [--jpeg FILE]\n"
                  "  [--nav] [--video FILE] [--video-hz F]\n", prog);
  exit(2);
}

static inline void peer_parse(int argc, char **argv, struct peer_opts *o) {
  memset(o, 0, sizeof(*o));
  const char *d = getenv("ROS_DOMAIN_ID");
  o->domain = d ? atoi(d) : 0;
  o->ns = "";
  o->scan_hz = 10; o->odom_hz = 20; o->image_hz = 5; o->cloud_hz = 2; o->battery_hz = 1; o->video_hz = 15;
  o->image_bytes = 1 << 20; o->cloud_points = (4 << 20) / 16;
  o->cloud_reliable = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NUM(flag, dst, conv) if (!strcmp(a, flag)) { if (!v) peer_usage(argv[0]); dst = conv(v); i++; continue; }
    NUM("--domain", o->domain, atoi)
    NUM("--scan-hz", o->scan_hz, atof)
    NUM("--odom-hz", o->odom_hz, atof)
    NUM("--image-hz", o->image_hz, atof)
    NUM("--cloud-hz", o->cloud_hz, atof)
    NUM("--battery-hz", o->battery_hz, atof)
    NUM("--image-bytes", o->image_bytes, atol)
    NUM("--cloud-points", o->cloud_points, atol)
    NUM("--duration", o->duration, atof)
    NUM("--video-hz", o->video_hz, atof)
#undef NUM
    if (!strcmp(a, "--ns") && v) { o->ns = v; i++; continue; }
    if (!strcmp(a, "--listen") && v) { o->listen = v; i++; continue; }
    if (!strcmp(a, "--jpeg") && v) { o->jpeg = v; i++; continue; }
    if (!strcmp(a, "--video") && v) { o->video = v; i++; continue; }
    if (!strcmp(a, "--nav")) { o->nav = 1; continue; }
    if (!strcmp(a, "--image-reliable")) { o->image_reliable = 1; continue; }
    if (!strcmp(a, "--cloud-best-effort")) { o->cloud_reliable = 0; continue; }
    if (!strcmp(a, "--cmd-transient-local")) { o->cmd_transient_local = 1; continue; }
    peer_usage(argv[0]);
  }
}

static inline double peer_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void peer_stamp(int32_t *sec, uint32_t *nanosec) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  *sec = (int32_t) ts.tv_sec;
  *nanosec = (uint32_t) ts.tv_nsec;
}

static inline void peer_topic(char *buf, size_t n, const struct peer_opts *o, const char *name) {
  snprintf(buf, n, "rt%s/%s", o->ns, name);
}

// Content: the first byte of an image or cloud is its sequence number (mod 256); every other
// byte follows from it, so a reader checks a sample whole without knowing the sequence.
static inline uint8_t peer_image_byte(long i, uint8_t seq) { return (uint8_t) (i * 7 + seq); }
static inline uint8_t peer_cloud_byte(long i, uint8_t seq) { return (uint8_t) (i * 13 + seq); }
// peer_load_file reads a whole file into a new buffer, its size in *n.
static inline unsigned char *peer_load_file(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = (unsigned char *) malloc((size_t) *n + 1);
  if (*n <= 0 || fread(b, 1, (size_t) *n, f) != (size_t) *n) { fprintf(stderr, "%s: unreadable\n", path); exit(1); }
  fclose(f);
  return b;
}

// peer_load_jpeg reads opts->jpeg into a new buffer and sets image_bytes to its size; the
// camera then publishes that picture (a panel shows it), not the test pattern.
static inline unsigned char *peer_load_jpeg(struct peer_opts *o) {
  return peer_load_file(o->jpeg, &o->image_bytes);
}

#define PEER_SCAN_N 360
static inline float peer_range(int i) { return 1.0f + (float) i * 0.01f; }

#endif
