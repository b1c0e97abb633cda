/* Throughput firmware for armsim (not a cycle test): CRC-32 (bitwise) and
 * a varint encoder over a RAM buffer, ROUNDS times, bracketed by MARK 1/2.
 * run_tests.py reports armsim's instructions per second on it. */
#include <stdint.h>

#include "wb_lab.h"

#ifndef ROUNDS
#define ROUNDS 40
#endif

static uint8_t buf[2048];
static uint8_t out[2048 * 5 / 4 + 16];

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

static uint32_t varints(const uint8_t *p, uint32_t n, uint8_t *o)
{
    uint8_t *start = o;
    for (uint32_t i = 0; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                     (uint32_t)p[i + 3] << 24;
        v >>= (p[i] & 31u);
        while (v >= 0x80u) {
            *o++ = (uint8_t)(v | 0x80u);
            v >>= 7;
        }
        *o++ = (uint8_t)v;
    }
    return (uint32_t)(o - start);
}

int main(void)
{
    for (uint32_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(i * 7u + (i >> 3));
    }
    uint32_t acc = 0;
    wb_mark(1);
    for (int r = 0; r < ROUNDS; r++) {
        buf[r] ^= (uint8_t)acc;
        acc += crc32(buf, sizeof buf);
        acc += varints(buf, sizeof buf, out);
    }
    wb_mark(2);
    return acc == 0; /* never 0 in practice; keeps the work alive */
}
