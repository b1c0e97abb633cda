/* size-arm firmware for UADP. Built four ways:
 *   baseline           : the seed NetworkMessage (String PublisherId,
 *                        DataSetClassId, PayloadHeader, one key frame with 3
 *                        Variant fields) copied from a byte table, and read
 *                        back by summing its bytes;
 *   -DUSE_ENC          : the same message written with the UADP writer;
 *   -DUSE_DEC          : the message validated and its fields read with the
 *                        pull reader;
 *   -DUSE_ENC -DUSE_DEC: both.
 * delta = variant - baseline = what the codec costs in flash / RAM. */
#include <stddef.h>
#include <stdint.h>
#if defined(USE_ENC) || defined(USE_DEC)
#include "uadp.h"
#endif

static uint8_t msg[96];
volatile uint32_t sink;
volatile float temperature = 25.5f;
volatile int32_t counter = 42;

#ifdef USE_ENC
static size_t encode_msg(void)
{
    static const uint8_t class_id[16] = {0x94, 0x97, 0xe7, 0xea, 0xf7, 0x1a, 0x96, 0x4f,
                                         0x84, 0x01, 0x40, 0x96, 0xcd, 0x1d, 0x89, 0x08};
    static const uint16_t writers[1] = {1000};
    uadp_writer w;
    uadp_network_header h = {0};
    uadp_dsm_header d = {0};
    size_t len = 0;
    h.has = UADP_NM_PUBLISHER_ID | UADP_NM_CLASS_ID | UADP_NM_PAYLOAD_HEADER;
    h.publisher_id_type = UADP_PUBID_STRING;
    h.publisher_id_str.ptr = (const uint8_t *)"ESP32-Bench";
    h.publisher_id_str.len = 11;
    h.class_id = class_id;
    h.count = 1;
    h.writer_ids = writers;
    d.valid = 1;
    uadp_writer_init(&w, msg, sizeof msg);
    uadp_write_network_header(&w, &h);
    uadp_begin_dsm(&w, &d);
    uadp_write_f32(&w, temperature);
    uadp_write_f32(&w, 1013.25f);
    uadp_write_i32(&w, counter);
    return uadp_end_network(&w, &len) == UADP_OK ? len : 0;
}
#else
static size_t encode_msg(void)
{
    static const uint8_t pre[] = {0xd1, 0x0c, 0x0b, 0, 0, 0, 'E', 'S', 'P', '3', '2', '-', 'B', 'e', 'n', 'c', 'h',
                                  0x94, 0x97, 0xe7, 0xea, 0xf7, 0x1a, 0x96, 0x4f, 0x84, 0x01, 0x40, 0x96, 0xcd, 0x1d,
                                  0x89, 0x08, 0x01, 0xe8, 0x03, 0x01, 0x03, 0x00, 0x0a, 0x00, 0x00, 0xcc, 0x41, 0x0a,
                                  0x00, 0x50, 0x7d, 0x44, 0x06};
    size_t i;
    for (i = 0; i < sizeof pre; i++) {
        msg[i] = pre[i];
    }
    msg[i++] = (uint8_t)counter;
    msg[i++] = 0;
    msg[i++] = 0;
    msg[i++] = 0;
    return i;
}
#endif

#ifdef USE_DEC
static uint32_t decode_msg(size_t len)
{
    uadp_reader r;
    uadp_network_header h;
    uadp_dsm_header d;
    uadp_field f;
    uint32_t acc = 0;
    size_t i, k, used;
    uadp_reader_init(&r, msg, len, NULL);
    uadp_read_network_header(&r, &h);
    acc += (uint32_t)h.publisher_id_str.len + uadp_writer_id(&h, 0);
    for (i = 0; i < h.count; i++) {
        uadp_next_dsm(&r, &d);
        for (k = 0; k < d.field_count; k++) {
            uadp_next_field(&r, &f);
            acc += (uint32_t)f.value.scalar.v.u + f.value.type;
        }
    }
    if (uadp_finish(&r, 1, &used) != UADP_OK) {
        return r.error.kind;
    }
    return acc;
}
#else
static uint32_t decode_msg(size_t len)
{
    uint32_t acc = 0;
    size_t i;
    for (i = 0; i < len; i++) {
        acc += msg[i];
    }
    return acc;
}
#endif

int main(void)
{
    size_t len = encode_msg();
    sink = decode_msg(len);
    sink ^= (uint32_t)(uintptr_t)(const volatile void *)&temperature;
    return 0;
}
