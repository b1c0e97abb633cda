/* wirebench-dds: a small C layer over libddsc (Cyclone DDS 0.10) for the KeyedSeq topic, so the
 * Rust side needs no Cyclone struct layouts: entities are int32 handles (negative = a
 * DDS_RETCODE), samples come back as wbdds_sample records pointing into loaned memory. */
#ifndef WIREBENCH_DDS_SHIM_H
#define WIREBENCH_DDS_SHIM_H
#include <stdint.h>

typedef struct wbdds_sample {
  uint32_t seq;
  uint32_t keyval;
  const uint8_t *data; /* the baggage, valid until the next wbdds_take on the same loans */
  uint32_t len;
  int32_t valid;       /* 0: an instance-state change without data */
  int64_t source_ts;   /* ns since the epoch, the writer's clock */
} wbdds_sample;

/* The most samples one wbdds_take returns. */
#define WBDDS_MAX_TAKE 256

int32_t wbdds_domain(uint32_t domain, const char *config_xml);
int32_t wbdds_participant(uint32_t domain);
int32_t wbdds_topic(int32_t participant, const char *name);
int32_t wbdds_writer(int32_t participant, int32_t topic, int32_t reliable, int32_t depth);
int32_t wbdds_reader(int32_t participant, int32_t topic, int32_t reliable, int32_t depth);
/* A reader whose data-available listener calls on_data(reader, arg) on Cyclone's receive thread. */
int32_t wbdds_reader_listener(int32_t participant, int32_t topic, int32_t reliable, int32_t depth,
                              void (*on_data)(int32_t reader, void *arg), void *arg);
int32_t wbdds_waitset(int32_t participant, int32_t reader);
int32_t wbdds_wait(int32_t waitset, int64_t timeout_ns);
int32_t wbdds_write(int32_t writer, uint32_t seq, uint32_t keyval, const uint8_t *data, uint32_t len);
int32_t wbdds_flush(int32_t writer);
void wbdds_set_batch(int32_t on);
/* loans: WBDDS_MAX_TAKE slots, all NULL before the first take, then kept as the take left them
 * (the reader's loan, reused by every later take; freed with the reader). */
int32_t wbdds_take(int32_t reader, wbdds_sample *out, void **loans, uint32_t max);
int32_t wbdds_matched(int32_t entity, int32_t is_writer);
int32_t wbdds_delete(int32_t entity);
const char *wbdds_strerror(int32_t rc);
const char *wbdds_version(void);
#endif
