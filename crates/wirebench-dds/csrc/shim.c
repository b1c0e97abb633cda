/* See shim.h. Written for wirebench against the public Cyclone DDS 0.10 C API (dds/dds.h). */
#define _GNU_SOURCE
#include <string.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "dds/dds.h"
#include "dds/version.h"
#include "keyedseq.h"
#include "shim.h"

/* Loopback confinement of Cyclone's sockets.
 *
 * Cyclone DDS 0.10 binds its unicast and multicast receive sockets to the wildcard address
 * whatever the interface configuration says (ddsi_udp_create_conn: bind_to_any for
 * DDSI_TRAN_QOS_RECV_UC and _MC); no configuration option changes that. With only `lo`
 * configured, datagrams to any address of the host would still be accepted. And its sockets are
 * created without SOCK_CLOEXEC, so a child process would inherit them.
 *
 * This bind() is part of the executable, so it interposes on libc's for libddsc (the linker
 * exports it because libddsc references bind). While this thread creates a domain or a
 * participant (the only calls in which Cyclone 0.10 opens sockets), a datagram socket bound to
 * the IPv4/IPv6 wildcard address is bound to the loopback address instead, and every socket bound
 * is made close-on-exec. Every other bind() of the process passes through unchanged. */
static __thread int confine_sockets;

static void confine(int fd, const struct sockaddr *addr, socklen_t len, struct sockaddr_storage *copy)
{
  int type = 0;
  socklen_t tl = (socklen_t)sizeof type;
  (void)fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_DGRAM)
    return;
  if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
  {
    struct sockaddr_in *a = (struct sockaddr_in *)copy;
    if (a->sin_addr.s_addr == htonl(INADDR_ANY))
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  else if (addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6))
  {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)copy;
    if (memcmp(&a->sin6_addr, &in6addr_any, sizeof a->sin6_addr) == 0)
      a->sin6_addr = in6addr_loopback;
  }
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
  if (confine_sockets && addr != NULL && len <= (socklen_t)sizeof(struct sockaddr_storage))
  {
    struct sockaddr_storage copy;
    memcpy(&copy, addr, len);
    confine(fd, addr, len, &copy);
    return (int)syscall(SYS_bind, fd, (const struct sockaddr *)&copy, len);
  }
  return (int)syscall(SYS_bind, fd, addr, len);
}

int32_t wbdds_domain(uint32_t domain, const char *config_xml)
{
  confine_sockets = 1;
  int32_t d = dds_create_domain((dds_domainid_t)domain, config_xml);
  confine_sockets = 0;
  return d;
}

int32_t wbdds_participant(uint32_t domain)
{
  confine_sockets = 1;
  int32_t p = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
  confine_sockets = 0;
  return p;
}

int32_t wbdds_topic(int32_t participant, const char *name)
{
  return dds_create_topic(participant, &KeyedSeq_desc, name, NULL, NULL);
}

/* depth <= 0: KEEP_ALL, else KEEP_LAST(depth). */
static dds_qos_t *qos_for(int32_t reliable, int32_t depth)
{
  dds_qos_t *q = dds_create_qos();
  if (reliable)
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
  else
    dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
  if (depth <= 0)
  {
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
    dds_qset_resource_limits(q, 10000, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  }
  else
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
  return q;
}

int32_t wbdds_writer(int32_t participant, int32_t topic, int32_t reliable, int32_t depth)
{
  dds_qos_t *q = qos_for(reliable, depth);
  dds_entity_t w = dds_create_writer(participant, topic, q, NULL);
  dds_delete_qos(q);
  if (w > 0)
    (void)dds_set_status_mask(w, DDS_PUBLICATION_MATCHED_STATUS);
  return w;
}

int32_t wbdds_reader(int32_t participant, int32_t topic, int32_t reliable, int32_t depth)
{
  dds_qos_t *q = qos_for(reliable, depth);
  dds_entity_t r = dds_create_reader(participant, topic, q, NULL);
  dds_delete_qos(q);
  if (r > 0)
    (void)dds_set_status_mask(r, DDS_DATA_AVAILABLE_STATUS | DDS_SUBSCRIPTION_MATCHED_STATUS);
  return r;
}

int32_t wbdds_reader_listener(int32_t participant, int32_t topic, int32_t reliable, int32_t depth,
                              void (*on_data)(int32_t reader, void *arg), void *arg)
{
  dds_qos_t *q = qos_for(reliable, depth);
  dds_listener_t *l = dds_create_listener(arg);
  dds_lset_data_available(l, (dds_on_data_available_fn)on_data);
  dds_entity_t r = dds_create_reader(participant, topic, q, l);
  dds_delete_listener(l); /* the reader keeps its own copy */
  dds_delete_qos(q);
  return r;
}

int32_t wbdds_waitset(int32_t participant, int32_t reader)
{
  dds_entity_t ws = dds_create_waitset(participant);
  if (ws < 0)
    return ws;
  dds_return_t rc = dds_set_status_mask(reader, DDS_DATA_AVAILABLE_STATUS);
  if (rc == 0)
    rc = dds_waitset_attach(ws, reader, (dds_attach_t)reader);
  if (rc < 0)
  {
    (void)dds_delete(ws);
    return rc;
  }
  return ws;
}

int32_t wbdds_wait(int32_t waitset, int64_t timeout_ns)
{
  return dds_waitset_wait(waitset, NULL, 0, (dds_duration_t)timeout_ns);
}

int32_t wbdds_write(int32_t writer, uint32_t seq, uint32_t keyval, const uint8_t *data, uint32_t len)
{
  KeyedSeq s;
  s.seq = seq;
  s.keyval = keyval;
  s.baggage._maximum = len;
  s.baggage._length = len;
  /* Cyclone only reads the sample during dds_write: no copy on our side. */
  s.baggage._buffer = (uint8_t *)data;
  s.baggage._release = false;
  return dds_write(writer, &s);
}

int32_t wbdds_flush(int32_t writer)
{
  dds_write_flush(writer); /* void in 0.10 */
  return 0;
}

void wbdds_set_batch(int32_t on)
{
  dds_write_set_batch(on != 0);
}

/* ddsperf's way of taking (its process_data): the loan Cyclone hands out on the first take is
 * kept in loans[] and passed back on every later take, so Cyclone deserializes into the same
 * samples again (the baggage buffers are reused, grown only when a longer one arrives) and the
 * loan is never returned: returning it would free every baggage and zero all `max` samples, and
 * the next take would allocate them again. Cyclone frees the loan when the reader is deleted.
 * A take that finds nothing leaves loans[] as it was (or as NULL when it had just allocated). */
int32_t wbdds_take(int32_t reader, wbdds_sample *out, void **loans, uint32_t max)
{
  dds_sample_info_t info[WBDDS_MAX_TAKE];
  if (max > WBDDS_MAX_TAKE)
    max = WBDDS_MAX_TAKE;
  if (max == 0)
    return 0;
  dds_return_t n = dds_take(reader, loans, info, max, max);
  if (n < 0)
    return n;
  for (int32_t i = 0; i < n; i++)
  {
    const KeyedSeq *s = (const KeyedSeq *)loans[i];
    out[i].valid = info[i].valid_data ? 1 : 0;
    out[i].source_ts = info[i].source_timestamp;
    if (info[i].valid_data)
    {
      out[i].seq = s->seq;
      out[i].keyval = s->keyval;
      out[i].data = s->baggage._buffer;
      out[i].len = s->baggage._length;
    }
    else
    {
      out[i].seq = 0;
      out[i].keyval = s->keyval;
      out[i].data = NULL;
      out[i].len = 0;
    }
  }
  return n;
}

int32_t wbdds_matched(int32_t entity, int32_t is_writer)
{
  if (is_writer)
  {
    dds_publication_matched_status_t st;
    dds_return_t rc = dds_get_publication_matched_status(entity, &st);
    return rc < 0 ? rc : (int32_t)st.current_count;
  }
  else
  {
    dds_subscription_matched_status_t st;
    dds_return_t rc = dds_get_subscription_matched_status(entity, &st);
    return rc < 0 ? rc : (int32_t)st.current_count;
  }
}

int32_t wbdds_delete(int32_t entity)
{
  return dds_delete(entity);
}

const char *wbdds_strerror(int32_t rc)
{
  return dds_strretcode(rc);
}

const char *wbdds_version(void)
{
  return DDS_VERSION;
}
