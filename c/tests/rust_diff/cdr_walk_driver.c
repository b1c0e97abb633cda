/*
 * C side of `make rust-diff` (CDR): "<vector index> <hex>" lines on stdin ->
 * "ok" / "error <kind> <offset>" / "skip", reading each payload with the
 * generated type-driven walker of that vector's type (cdr_vectors.h,
 * generated from the same vector file) and cdr_reader_finish (strict).
 */
#include "cdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cv_ctx {
    unsigned mismatches;
    const char *first;
} cv_ctx;
#define CV_EXPECT(cond, path)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            c->mismatches++;                                                                       \
            c->first = (path);                                                                     \
        }                                                                                          \
    } while (0)
static float cv_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static double cv_f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint32_t cv_f32_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static uint64_t cv_f64_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
typedef struct cdr_vec {
    const char *name, *encoding;
    const uint8_t *hex;
    size_t len;
    unsigned pad;
    void (*enc)(cdr_writer *w);
    void (*dec)(cdr_reader *r, cv_ctx *c);
    void (*walk)(cdr_reader *r);
    const char *skip, *gen_error;
} cdr_vec;
#include "cdr_vectors.h"

int main(void)
{
    static char line[1 << 17];
    static uint8_t b[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        size_t idx = strtoul(line, NULL, 10), n = 0;
        char *h = strchr(line, ' ');
        cdr_reader r;
        if (h) {
            for (h++; h[0] && h[1] && h[0] != '\n' && n < sizeof b; h += 2) {
                unsigned v;
                sscanf(h, "%2x", &v);
                b[n++] = (uint8_t)v;
            }
        }
        if (idx >= CV_COUNT || CV[idx].walk == NULL) {
            puts("skip");
            continue;
        }
        cdr_reader_init(&r, b, n);
        CV[idx].walk(&r);
        cdr_reader_finish(&r, false);
        if (r.error.kind == CDR_OK) {
            puts("ok");
        } else {
            printf("error %s %lu\n", cdr_err_name(r.error.kind), (unsigned long)r.error.offset);
        }
    }
    (void)cv_f32;
    (void)cv_f64;
    (void)cv_f32_bits;
    (void)cv_f64_bits;
    return 0;
}
