/* The check harness the C codec tests share: counted checks that report the file, line and
 * context of a failure (the first 200 are printed), and hex helpers for messages and vectors.
 * Each test program is one translation unit that includes this once. */
#ifndef WB_TEST_HARNESS_H
#define WB_TEST_HARNESS_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned long n_checks, n_failed;
static const char *context = "";

static inline int check_(int ok, const char *file, int line, const char *fmt, ...)
{
    n_checks++;
    if (!ok) {
        va_list ap;
        n_failed++;
        if (n_failed <= 200) {
            fprintf(stderr, "FAIL %s:%d [%s] ", file, line, context);
            va_start(ap, fmt);
            vfprintf(stderr, fmt, ap);
            va_end(ap);
            fputc('\n', stderr);
        }
    }
    return ok;
}
#define CHECK(cond, ...) check_((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* Hex text of up to ~250 bytes (four rotating buffers, so a message may hold several). */
static inline const char *hexs(const uint8_t *p, size_t n)
{
    static char buf[4][512];
    static int k;
    char *s = buf[k++ & 3];
    size_t i, o = 0;
    for (i = 0; i < n && o + 3 < sizeof buf[0] - 4; i++) {
        o += (size_t)sprintf(s + o, "%02x", p[i]);
    }
    if (i < n) {
        strcpy(s + o, "...");
    } else {
        s[o] = 0;
    }
    return s;
}

/* Bytes of hex text (spaces between bytes are skipped); returns how many. */
static inline size_t unhex(const char *h, uint8_t *out)
{
    size_t n = 0;
    while (h[0] && h[1]) {
        unsigned v;
        if (h[0] == ' ') {
            h++;
            continue;
        }
        sscanf(h, "%2x", &v);
        out[n++] = (uint8_t)v;
        h += 2;
    }
    return n;
}

#endif
