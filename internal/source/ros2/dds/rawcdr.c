//go:build ros2

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "dds/dds.h"
#include "dds/ddsrt/atomics.h"
#include "dds/ddsi/ddsi_sertype.h"
#include "dds/ddsi/ddsi_serdata.h"
#include "dds/ddsi/q_radmin.h"
#include "rawcdr.h"

struct raw_sertype {
  struct ddsi_sertype c;
  ddsrt_atomic_uint32_t oversize;
};

struct raw_serdata {
  struct ddsi_serdata c;
  uint32_t size;        // bytes of the sample, header included
  unsigned char *data;  // size rounded up to 4, the padding zeroed
};

// A sample as dds_write would take it; fleetgate writes serdata directly.
struct raw_sample {
  unsigned char *data;
  uint32_t size;
};

static ddsrt_atomic_uint32_t max_sample = DDSRT_ATOMIC_UINT32_INIT (64u << 20);

void rawcdr_set_max_sample (uint32_t max) { ddsrt_atomic_st32 (&max_sample, max); }

static const struct ddsi_serdata_ops raw_serdata_ops;

static struct raw_serdata *raw_new (const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, uint32_t size)
{
  struct raw_serdata *d = calloc (1, sizeof (*d));
  if (d == NULL)
    return NULL;
  uint32_t cap = (size + 3u) & ~3u;
  if (cap < 4)
    cap = 4;
  d->data = calloc (1, cap);
  if (d->data == NULL) {
    free (d);
    return NULL;
  }
  ddsi_serdata_init (&d->c, type, kind);
  d->size = size;
  return d;
}

static bool too_big (const struct ddsi_sertype *type, size_t size)
{
  if (size <= ddsrt_atomic_ld32 (&max_sample) && size < UINT32_MAX - 4)
    return false;
  if (type)
    ddsrt_atomic_inc32 (&((struct raw_sertype *) type)->oversize);
  return true;
}

uint32_t rawcdr_oversize (const struct ddsi_sertype *st)
{
  return ddsrt_atomic_ld32 (&((const struct raw_sertype *) st)->oversize);
}

static bool raw_eqkey (const struct ddsi_serdata *a, const struct ddsi_serdata *b)
{
  (void) a; (void) b;
  return true; // keyless: one instance
}

static uint32_t raw_get_size (const struct ddsi_serdata *d) { return ((const struct raw_serdata *) d)->size; }

static struct ddsi_serdata *raw_from_ser (const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, const struct nn_rdata *fragchain, size_t size)
{
  if (too_big (type, size))
    return NULL;
  struct raw_serdata *d = raw_new (type, kind, (uint32_t) size);
  if (d == NULL)
    return NULL;
  uint32_t off = 0;
  while (fragchain) {
    if (fragchain->maxp1 > off) {
      const unsigned char *payload = NN_RMSG_PAYLOADOFF (fragchain->rmsg, NN_RDATA_PAYLOAD_OFF (fragchain));
      uint32_t end = fragchain->maxp1 > size ? (uint32_t) size : fragchain->maxp1;
      if (end > off)
        memcpy (d->data + off, payload + off - fragchain->min, end - off);
      off = fragchain->maxp1;
    }
    fragchain = fragchain->nextfrag;
  }
  return &d->c;
}

static struct ddsi_serdata *raw_from_ser_iov (const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t *iov, size_t size)
{
  if (too_big (type, size))
    return NULL;
  struct raw_serdata *d = raw_new (type, kind, (uint32_t) size);
  if (d == NULL)
    return NULL;
  size_t off = 0;
  for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; i++) {
    size_t n = iov[i].iov_len;
    if (n > size - off)
      n = size - off;
    memcpy (d->data + off, iov[i].iov_base, n);
    off += n;
  }
  return &d->c;
}

static struct ddsi_serdata *raw_from_keyhash (const struct ddsi_sertype *type, const struct ddsi_keyhash *keyhash)
{
  (void) keyhash;
  struct raw_serdata *d = raw_new (type, SDK_KEY, 4);
  if (d)
    d->data[1] = 1; // CDR_LE, empty
  return d ? &d->c : NULL;
}

static struct ddsi_serdata *raw_from_sample (const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, const void *sample)
{
  const struct raw_sample *s = sample;
  if (kind != SDK_DATA || s->size < 4 || too_big (type, s->size))
    return raw_from_keyhash (type, NULL);
  struct raw_serdata *d = raw_new (type, kind, s->size);
  if (d)
    memcpy (d->data, s->data, s->size);
  return d ? &d->c : NULL;
}

static void raw_to_ser (const struct ddsi_serdata *dcmn, size_t off, size_t sz, void *buf)
{
  const struct raw_serdata *d = (const struct raw_serdata *) dcmn;
  memcpy (buf, d->data + off, sz); // off+sz <= size rounded up to 4: allocated
}

static struct ddsi_serdata *raw_to_ser_ref (const struct ddsi_serdata *dcmn, size_t off, size_t sz, ddsrt_iovec_t *ref)
{
  const struct raw_serdata *d = (const struct raw_serdata *) dcmn;
  ref->iov_base = d->data + off;
  ref->iov_len = (ddsrt_iov_len_t) sz;
  return ddsi_serdata_ref (dcmn);
}

static void raw_to_ser_unref (struct ddsi_serdata *d, const ddsrt_iovec_t *ref)
{
  (void) ref;
  ddsi_serdata_unref (d);
}

static bool raw_to_sample (const struct ddsi_serdata *dcmn, void *sample, void **bufptr, void *buflim)
{
  (void) bufptr; (void) buflim;
  const struct raw_serdata *d = (const struct raw_serdata *) dcmn;
  struct raw_sample *s = sample;
  free (s->data);
  s->data = malloc (d->size ? d->size : 1);
  if (s->data == NULL)
    return false;
  memcpy (s->data, d->data, d->size);
  s->size = d->size;
  return true;
}

static struct ddsi_serdata *raw_to_untyped (const struct ddsi_serdata *dcmn)
{
  struct raw_serdata *d = raw_new (dcmn->type, SDK_KEY, 4);
  if (d == NULL)
    return NULL;
  d->data[1] = 1;
  d->c.type = NULL;
  return &d->c;
}

static bool raw_untyped_to_sample (const struct ddsi_sertype *type, const struct ddsi_serdata *d, void *sample, void **bufptr, void *buflim)
{
  (void) type; (void) d; (void) bufptr; (void) buflim;
  if (sample) {
    struct raw_sample *s = sample;
    free (s->data);
    s->data = NULL;
    s->size = 0;
  }
  return true;
}

static void raw_free (struct ddsi_serdata *dcmn)
{
  struct raw_serdata *d = (struct raw_serdata *) dcmn;
  free (d->data);
  free (d);
}

static size_t raw_print (const struct ddsi_sertype *type, const struct ddsi_serdata *dcmn, char *buf, size_t size)
{
  (void) type;
  return (size_t) snprintf (buf, size, "raw CDR, %u bytes", dcmn ? ((const struct raw_serdata *) dcmn)->size : 0);
}

static void raw_get_keyhash (const struct ddsi_serdata *d, struct ddsi_keyhash *buf, bool force_md5)
{
  (void) d; (void) force_md5;
  memset (buf, 0, 16);
}

static const struct ddsi_serdata_ops raw_serdata_ops = {
  .eqkey = raw_eqkey,
  .get_size = raw_get_size,
  .from_ser = raw_from_ser,
  .from_ser_iov = raw_from_ser_iov,
  .from_keyhash = raw_from_keyhash,
  .from_sample = raw_from_sample,
  .to_ser = raw_to_ser,
  .to_ser_ref = raw_to_ser_ref,
  .to_ser_unref = raw_to_ser_unref,
  .to_sample = raw_to_sample,
  .to_untyped = raw_to_untyped,
  .untyped_to_sample = raw_untyped_to_sample,
  .free = raw_free,
  .print = raw_print,
  .get_keyhash = raw_get_keyhash,
};

static void st_free (struct ddsi_sertype *tp)
{
  ddsi_sertype_fini (tp);
  free (tp);
}

static void st_zero_samples (const struct ddsi_sertype *d, void *samples, size_t count)
{
  (void) d;
  memset (samples, 0, count * sizeof (struct raw_sample));
}

static void st_realloc_samples (void **ptrs, const struct ddsi_sertype *d, void *old, size_t oldcount, size_t count)
{
  (void) d;
  struct raw_sample *s = realloc (old, count * sizeof (struct raw_sample));
  if (s && count > oldcount)
    memset (s + oldcount, 0, (count - oldcount) * sizeof (struct raw_sample));
  for (size_t i = 0; i < count; i++)
    ptrs[i] = s ? &s[i] : NULL;
}

static void st_free_samples (const struct ddsi_sertype *d, void **ptrs, size_t count, dds_free_op_t op)
{
  (void) d;
  if (count == 0)
    return;
  if (op & DDS_FREE_CONTENTS_BIT) {
    for (size_t i = 0; i < count; i++) {
      struct raw_sample *s = ptrs[i];
      free (s->data);
      s->data = NULL;
    }
  }
  if (op & DDS_FREE_ALL_BIT)
    free (ptrs[0]);
}

static bool st_equal (const struct ddsi_sertype *a, const struct ddsi_sertype *b)
{
  (void) a; (void) b;
  return true; // the generic part (name, ops) says it all
}

static uint32_t st_hash (const struct ddsi_sertype *tp)
{
  (void) tp;
  return 0;
}

static const struct ddsi_sertype_ops raw_sertype_ops = {
  .version = ddsi_sertype_v0,
  .arg = NULL,
  .free = st_free,
  .zero_samples = st_zero_samples,
  .realloc_samples = st_realloc_samples,
  .free_samples = st_free_samples,
  .equal = st_equal,
  .hash = st_hash,
};

dds_entity_t rawcdr_topic (dds_entity_t pp, const char *name, const char *type_name, struct ddsi_sertype **st)
{
  struct raw_sertype *t = calloc (1, sizeof (*t));
  if (t == NULL)
    return DDS_RETCODE_OUT_OF_RESOURCES;
  ddsi_sertype_init (&t->c, type_name, &raw_sertype_ops, &raw_serdata_ops, true);
  // ROS 2 speaks XCDR1 only (Fast DDS 2.x knows nothing else).
  t->c.allowed_data_representation = DDS_DATA_REPRESENTATION_FLAG_XCDR1;
  struct ddsi_sertype *s = &t->c;
  dds_entity_t tp = dds_create_topic_sertype (pp, name, &s, NULL, NULL, NULL);
  if (tp < 0) {
    ddsi_sertype_unref (&t->c);
    return tp;
  }
  *st = s;
  return tp;
}

dds_return_t rawcdr_write (dds_entity_t wr, const struct ddsi_sertype *st, const void *data, uint32_t len)
{
  if (len < 4)
    return DDS_RETCODE_BAD_PARAMETER;
  struct raw_serdata *d = raw_new (st, SDK_DATA, len);
  if (d == NULL)
    return DDS_RETCODE_OUT_OF_RESOURCES;
  memcpy (d->data, data, len);
  // The wire carries the sample padded to a multiple of 4; the low bits of the encapsulation
  // options say how many bytes of it are padding (XTypes 7.6.3.1.2), as rmw writes them.
  d->data[3] = (unsigned char) ((d->data[3] & ~3u) | ((4u - (len & 3u)) & 3u));
  return dds_writecdr (wr, &d->c); // takes our reference
}

int32_t rawcdr_take (dds_entity_t rd, struct ddsi_serdata **sds, uint32_t *sizes, uint32_t max)
{
  dds_sample_info_t si[64];
  if (max > 64)
    max = 64;
  int32_t n = dds_takecdr (rd, sds, max, si, DDS_ANY_STATE);
  for (int32_t i = 0; i < n; i++)
    sizes[i] = si[i].valid_data ? ddsi_serdata_size (sds[i]) : 0;
  return n;
}

void rawcdr_copy (const struct ddsi_serdata *sd, void *buf, uint32_t len)
{
  ddsi_serdata_to_ser (sd, 0, len, buf);
}

void rawcdr_release (struct ddsi_serdata *sd) { ddsi_serdata_unref (sd); }

int32_t rawcdr_take_endpoints (dds_entity_t rd, rawcdr_endpoint *out, uint32_t max)
{
  void *buf[32] = { NULL };
  dds_sample_info_t si[32];
  if (max > 32)
    max = 32;
  int32_t n = dds_take (rd, buf, si, max, max);
  if (n <= 0)
    return n;
  for (int32_t i = 0; i < n; i++) {
    const dds_builtintopic_endpoint_t *e = buf[i];
    rawcdr_endpoint *o = &out[i];
    memset (o, 0, sizeof (*o));
    o->handle = si[i].instance_handle;
    o->alive = si[i].valid_data && si[i].instance_state == DDS_IST_ALIVE;
    if (!si[i].valid_data)
      continue;
    memcpy (o->key, e->key.v, 16);
    memcpy (o->participant, e->participant_key.v, 16);
    o->topic = strdup (e->topic_name ? e->topic_name : "");
    o->type_name = strdup (e->type_name ? e->type_name : "");
    dds_reliability_kind_t rk = DDS_RELIABILITY_BEST_EFFORT;
    dds_duration_t mbt;
    o->reliable = -1; // not said: the kind's default applies
    if (e->qos && dds_qget_reliability (e->qos, &rk, &mbt))
      o->reliable = rk == DDS_RELIABILITY_RELIABLE;
    dds_durability_kind_t dk = DDS_DURABILITY_VOLATILE;
    if (e->qos && dds_qget_durability (e->qos, &dk))
      o->transient_local = dk != DDS_DURABILITY_VOLATILE;
  }
  dds_return_loan (rd, buf, n);
  return n;
}

void rawcdr_endpoints_free (rawcdr_endpoint *eps, int32_t n)
{
  for (int32_t i = 0; i < n; i++) {
    free (eps[i].topic);
    free (eps[i].type_name);
  }
}
