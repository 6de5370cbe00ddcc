//go:build ros2

// A Cyclone DDS serialisation type that carries samples as raw CDR bytes, its 4-byte
// encapsulation header included, the way rmw_cyclonedds hands ROS 2 samples over: the DDS
// library never interprets a message, Go decodes it.
#ifndef FLEETGATE_RAWCDR_H
#define FLEETGATE_RAWCDR_H

#include <stdint.h>
#include <stdbool.h>
#include "dds/dds.h"

// rawcdr_topic creates a topic of the named DDS type over the raw sertype; *st is the sertype
// the topic uses (Cyclone may hand back an equal one it already had).
dds_entity_t rawcdr_topic(dds_entity_t pp, const char *name, const char *type_name, struct ddsi_sertype **st);

// rawcdr_write publishes len bytes (encapsulation header included) on a writer of the raw
// sertype st.
dds_return_t rawcdr_write(dds_entity_t wr, const struct ddsi_sertype *st, const void *data, uint32_t len);

// rawcdr_take takes up to max samples; sizes[i] is each one's size, or 0 for a sample that
// is not data (an instance's disposal), and sds[i] holds its bytes until rawcdr_release.
int32_t rawcdr_take(dds_entity_t rd, struct ddsi_serdata **sds, uint32_t *sizes, uint32_t max);
void rawcdr_copy(const struct ddsi_serdata *sd, void *buf, uint32_t len);
void rawcdr_release(struct ddsi_serdata *sd);

// rawcdr_oversize counts the samples the sertype refused for being over max_sample.
uint32_t rawcdr_oversize(const struct ddsi_sertype *st);
void rawcdr_set_max_sample(uint32_t max);

// Endpoint discovery (the built-in DCPSPublication and DCPSSubscription topics).
typedef struct rawcdr_endpoint {
  uint8_t key[16];
  uint8_t participant[16];
  uint64_t handle;
  char *topic;    // malloc'ed; freed by rawcdr_endpoints_free
  char *type_name;
  int reliable;   // 1, 0, or -1 when the endpoint does not say
  int transient_local;
  int alive;
} rawcdr_endpoint;

int32_t rawcdr_take_endpoints(dds_entity_t rd, rawcdr_endpoint *out, uint32_t max);
void rawcdr_endpoints_free(rawcdr_endpoint *eps, int32_t n);

#endif
