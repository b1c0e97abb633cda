/* size-arm firmware. Built four ways:
 *   baseline          : main() fills a buffer and reads it back by hand;
 *   -DUSE_ENC         : + a sensor message encoded with the PSON writer;
 *   -DUSE_DEC         : + validation and a pull-reader walk of a message;
 *   -DUSE_ENC -DUSE_DEC: both.
 * delta = variant - baseline = what the codec costs in flash / RAM. */
#include <stddef.h>
#include <stdint.h>
#if defined(USE_ENC) || defined(USE_DEC)
#include "pson.h"
#endif

static uint8_t msg[128];
volatile uint32_t sink;
volatile double reading = 48.75;
volatile int64_t delta_t = -2;

#ifdef USE_ENC
/* {"sensor":"gps","time":1351824120,"ok":true,"none":null,"raw":b"\x01\x02",
 *  "data":[48.75, 2.3, -2]} */
static size_t encode_msg(void)
{
    static const uint8_t raw[2] = {1, 2};
    pson_writer w;
    pson_writer_init(&w, msg, sizeof msg);
    if (pson_write_map(&w, 6) || pson_write_cstr(&w, "sensor") || pson_write_str(&w, "gps", 3) ||
        pson_write_cstr(&w, "time") || pson_write_u64(&w, 1351824120u) ||
        pson_write_cstr(&w, "ok") || pson_write_bool(&w, 1) ||
        pson_write_cstr(&w, "none") || pson_write_null(&w) ||
        pson_write_cstr(&w, "raw") || pson_write_bytes(&w, raw, sizeof raw) ||
        pson_write_cstr(&w, "data") || pson_write_array(&w, 4) || pson_write_f64(&w, reading) ||
        pson_write_f32(&w, 2.5f) || pson_write_f64(&w, 2.3) || pson_write_i64(&w, delta_t)) {
        return 0;
    }
    return pson_writer_pos(&w);
}
#else
static size_t encode_msg(void)
{
    /* a message written by hand: {"sensor":"gps","t":<delta_t>} */
    static const uint8_t pre[] = {0xc2, 0x86, 's', 'e', 'n', 's', 'o', 'r', 0x83, 'g', 'p', 's', 0x81, 't'};
    size_t i;
    for (i = 0; i < sizeof pre; i++) {
        msg[i] = pre[i];
    }
    msg[i++] = (uint8_t)(0x20u | ((uint8_t)-delta_t & 0x1fu)); /* -2 -> 22 */
    return i;
}
#endif

#ifdef USE_DEC
/* Validate, then walk every item with the pull reader. */
static uint32_t decode_msg(size_t len)
{
    pson_reader r;
    pson_item it;
    pson_view key;
    size_t used, pending = 1;
    uint32_t acc = 0;
    pson_error err;
    if (pson_validate(msg, len, 8, &used, &err) != PSON_OK) {
        return err.kind;
    }
    pson_reader_init(&r, msg, used);
    /* flat walk: map values are preceded by a key */
    while (pending-- > 0) {
        if (pson_next(&r, &it) != PSON_OK) {
            return 1000;
        }
        switch (it.type) {
        case PSON_TYPE_MAP: {
            size_t k;
            for (k = 0; k < it.v.count; k++) {
                if (pson_key(&r, &key) != PSON_OK || pson_skip(&r, 8) != PSON_OK) {
                    return 2000;
                }
                acc += (uint32_t)key.len;
            }
            break;
        }
        case PSON_TYPE_ARRAY: pending += it.v.count; break;
        case PSON_TYPE_UINT: acc += (uint32_t)it.v.u; break;
        case PSON_TYPE_INT: acc += (uint32_t)it.v.i; break;
        case PSON_TYPE_STR: acc += (uint32_t)it.v.str.len; break;
        case PSON_TYPE_BYTES: acc += (uint32_t)it.v.bytes.len; break;
        default: acc++; break;
        }
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
    /* keep `reading` in every variant so the deltas are the codec only */
    sink ^= (uint32_t)(uintptr_t)(const volatile void *)&reading;
    return 0;
}
