/* The shim's functions when wirebench is built without Cyclone DDS (see build.rs): every call
 * that would create or use an entity returns WBDDS_ABSENT, so the Rust side reports "built
 * without DDS" instead of failing to link. The CLI checks wirebench_dds::available() first, so
 * a user meets that message before any of these runs. */
#include <stddef.h>
#include "shim.h"

/* Cyclone has no return code of this value; wbdds_strerror names it. */
#define WBDDS_ABSENT (-100)

int32_t wbdds_domain(uint32_t domain, const char *config_xml) { (void)domain; (void)config_xml; return WBDDS_ABSENT; }
int32_t wbdds_participant(uint32_t domain) { (void)domain; return WBDDS_ABSENT; }
int32_t wbdds_topic(int32_t participant, const char *name) { (void)participant; (void)name; return WBDDS_ABSENT; }
int32_t wbdds_writer(int32_t participant, int32_t topic, int32_t reliable, int32_t depth)
{ (void)participant; (void)topic; (void)reliable; (void)depth; return WBDDS_ABSENT; }
int32_t wbdds_reader(int32_t participant, int32_t topic, int32_t reliable, int32_t depth)
{ (void)participant; (void)topic; (void)reliable; (void)depth; return WBDDS_ABSENT; }
int32_t wbdds_reader_listener(int32_t participant, int32_t topic, int32_t reliable, int32_t depth,
                              void (*on_data)(int32_t reader, void *arg), void *arg)
{ (void)participant; (void)topic; (void)reliable; (void)depth; (void)on_data; (void)arg; return WBDDS_ABSENT; }
int32_t wbdds_waitset(int32_t participant, int32_t reader) { (void)participant; (void)reader; return WBDDS_ABSENT; }
int32_t wbdds_wait(int32_t waitset, int64_t timeout_ns) { (void)waitset; (void)timeout_ns; return WBDDS_ABSENT; }
int32_t wbdds_write(int32_t writer, uint32_t seq, uint32_t keyval, const uint8_t *data, uint32_t len)
{ (void)writer; (void)seq; (void)keyval; (void)data; (void)len; return WBDDS_ABSENT; }
int32_t wbdds_flush(int32_t writer) { (void)writer; return WBDDS_ABSENT; }
void wbdds_set_batch(int32_t on) { (void)on; }
int32_t wbdds_take(int32_t reader, wbdds_sample *out, void **loans, uint32_t max)
{ (void)reader; (void)out; (void)loans; (void)max; return WBDDS_ABSENT; }
int32_t wbdds_matched(int32_t entity, int32_t is_writer) { (void)entity; (void)is_writer; return WBDDS_ABSENT; }
int32_t wbdds_delete(int32_t entity) { (void)entity; return WBDDS_ABSENT; }
const char *wbdds_strerror(int32_t rc)
{
  return rc == WBDDS_ABSENT ? "wirebench was built without Cyclone DDS" : "unknown return code (built without Cyclone DDS)";
}
const char *wbdds_version(void) { return "none (built without Cyclone DDS)"; }
