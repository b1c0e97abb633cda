/* size-arm firmware for CDR. Built four ways:
 *   baseline           : a Sensor sample (XCDR2-LE, @final struct Sensor {
 *                        long id; double ts; float values[3]; string name;
 *                        sequence<short> samples; boolean ok; }) copied from
 *                        a byte table, and read back by summing its bytes;
 *   -DUSE_ENC          : the same sample written with the CDR writer;
 *   -DUSE_DEC          : the sample read member by member with the reader;
 *   -DUSE_ENC -DUSE_DEC: both.
 * delta = variant - baseline = what the codec costs in flash / RAM. */
#include <stddef.h>
#include <stdint.h>
#if defined(USE_ENC) || defined(USE_DEC)
#include "cdr.h"
#endif

static uint8_t msg[96];
volatile uint32_t sink;
volatile int32_t sensor_id = 42;
volatile double timestamp = 1.5;

#ifdef USE_ENC
static size_t encode_msg(void)
{
    static const int16_t samples[3] = {-1, 2, 300};
    cdr_writer w;
    cdr_mark m;
    size_t len = 0, i;
    cdr_writer_init(&w, msg, sizeof msg, CDR_XCDR2_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_i32(&w, sensor_id);
    cdr_write_f64(&w, timestamp);
    cdr_write_f32(&w, 1.0f);
    cdr_write_f32(&w, 2.0f);
    cdr_write_f32(&w, 3.0f);
    cdr_write_string(&w, "imu", 3);
    cdr_begin_sequence(&w, 3, 1, &m);
    for (i = 0; i < 3; i++) {
        cdr_write_i16(&w, samples[i]);
    }
    cdr_end_sequence(&w, &m);
    cdr_write_bool(&w, 1);
    return cdr_writer_finish(&w, 0, &len) == CDR_OK ? len : 0;
}
#else
static size_t encode_msg(void)
{
    static const uint8_t pre[] = {0x00, 0x07, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0xf8, 0x3f, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x40,
                                  0x04, 0x00, 0x00, 0x00, 'i', 'm', 'u', 0x00, 0x03, 0x00, 0x00, 0x00, 0xff, 0xff,
                                  0x02, 0x00, 0x2c, 0x01};
    size_t i;
    for (i = 0; i < sizeof pre; i++) {
        msg[i] = pre[i];
    }
    msg[4] = (uint8_t)sensor_id;
    msg[i++] = 1;
    return i;
}
#endif

#ifdef USE_DEC
static uint32_t decode_msg(size_t len)
{
    cdr_reader r;
    cdr_mark m;
    cdr_view name;
    int32_t id;
    double ts;
    float v[3];
    int16_t s;
    uint32_t n, i, acc = 0;
    bool ok;
    cdr_reader_init(&r, msg, len);
    cdr_read_i32(&r, &id);
    cdr_read_f64(&r, &ts);
    for (i = 0; i < 3; i++) {
        cdr_read_f32(&r, &v[i]);
    }
    cdr_read_string(&r, CDR_UNBOUNDED, &name);
    cdr_begin_read_sequence(&r, 1, 2, CDR_UNBOUNDED, &n, &m);
    for (i = 0; i < n; i++) {
        cdr_read_i16(&r, &s);
        acc += (uint32_t)s;
    }
    cdr_end_read_sequence(&r, &m);
    cdr_read_bool(&r, &ok);
    if (cdr_reader_finish(&r, 0) != CDR_OK) {
        return r.error.kind;
    }
    return acc + (uint32_t)id + (uint32_t)name.len + ok;
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
    sink ^= (uint32_t)(uintptr_t)(const volatile void *)&timestamp;
    return 0;
}
