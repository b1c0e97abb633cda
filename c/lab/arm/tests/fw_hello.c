/* C firmware test of armsim: output through PUTC, markers, malloc (through
 * _sbrk), a division, and an exit code chosen by the runner at build time
 * (-DEXIT_CODE=n). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wb_lab.h"

#ifndef EXIT_CODE
#define EXIT_CODE 0
#endif

extern size_t wb_heap_peak;

static void put_str(const char *s)
{
    while (*s) {
        wb_putc(*s++);
    }
}

static void put_uint(uint32_t v)
{
    char buf[11];
    int i = 10;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    put_str(&buf[i]);
}

volatile uint32_t sink;

int main(void)
{
    wb_mark(WB_MARK_CAL_START);
    wb_mark(WB_MARK_CAL_END);
    put_str("hello from ");
#if defined(__ARM_ARCH_7EM__)
    put_str("cortex-m4");
#else
    put_str("cortex-m0plus");
#endif
    put_str("\n");

    wb_mark(WB_MARK_ENCODE_START);
    uint8_t *p = malloc(100);
    if (!p) {
        put_str("malloc failed\n");
        wb_exit(1);
    }
    memset(p, 0xA5, 100);
    uint32_t sum = 0;
    for (int i = 0; i < 100; i++) {
        sum += p[i];
    }
    free(p);
    wb_mark(WB_MARK_ENCODE_END);
    put_str("sum ");
    put_uint(sum);
    put_str(" heap ");
    put_uint(wb_heap_peak > 0 ? 1u : 0u);
    put_str("\n");
    put_str("no newline at exit");
    wb_exit(EXIT_CODE);
}
