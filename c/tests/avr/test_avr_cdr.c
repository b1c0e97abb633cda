/*
 * test_avr_cdr.c - the CDR vectors on AVR (make test-avr), the code made by
 * gen_cdr_vectors.py --avr (double as binary64 bits, vector bytes in flash,
 * copied to RAM before use). Per vector the host test's checks without the
 * random mutations: the writer gives exactly `hex` (also counting only and
 * at every smaller capacity, nothing written past it); `hex` decodes to the
 * value (every member compared, f32 / f64 as bits) and the type walker reads
 * it whole; a trailing byte is trailing_bytes (or, for padded vectors, the
 * unpadded form decodes); every prefix fails cleanly. Vectors outside the C
 * API are skipped as on the host, with the generator's reason.
 */
#include "cdr.h"
#include "avr_check.h"

typedef struct cv_ctx {
    unsigned mismatches;
} cv_ctx;

#define CV_EXPECT(cond, path)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            c->mismatches++;                                                                       \
        }                                                                                          \
    } while (0)

/* float stays a binary32 `float` on AVR: the f32 API is used as on the host. */
static float cv_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t cv_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* A RAM copy of flash bytes (one use per statement). */
static uint8_t cv_ram_buf[256];
static const uint8_t *cv_ram(const uint8_t *p, size_t n)
{
    if (n > sizeof cv_ram_buf) {
        CHECK(0, "blob larger than the RAM buffer");
        n = sizeof cv_ram_buf;
    }
    memcpy_P(cv_ram_buf, p, n);
    return cv_ram_buf;
}
#define CV_FLASH PROGMEM
#define CV_RAM(p, n) cv_ram((p), (n))

typedef struct cdr_vec {
    const char *name;
    const char *encoding;
    const uint8_t *hex; /* flash */
    size_t len;
    unsigned pad;
    void (*enc)(cdr_writer *w);
    void (*dec)(cdr_reader *r, cv_ctx *c);
    void (*walk)(cdr_reader *r);
    const char *skip;
    const char *gen_error;
} cdr_vec;

#include "cdr_vectors.h"

static uint8_t hex[1024], out[1024 + 16];

static unsigned enc_of(const uint8_t *h)
{
    return ((h[1] & 1u) ? 0u : 1u) | ((h[1] & 0xfeu) >= CDR_REP_CDR2 ? 2u : 0u);
}

static cdr_err run_walk(const cdr_vec *v, const uint8_t *p, size_t n, cdr_error *err)
{
    cdr_reader r;
    cdr_reader_init(&r, p, n);
    v->walk(&r);
    cdr_reader_finish(&r, false);
    *err = r.error;
    if (r.pos > n || r.end > n) {
        err->kind = CDR_ERR_INVALID_TYPE;
    }
    return err->kind;
}

static cdr_err run_dec(const cdr_vec *v, const uint8_t *p, size_t n, bool allow_trailing, cv_ctx *c, cdr_error *err)
{
    cdr_reader r;
    c->mismatches = 0;
    cdr_reader_init(&r, p, n);
    v->dec(&r, c);
    cdr_reader_finish(&r, allow_trailing);
    *err = r.error;
    return r.error.kind;
}

int main(void)
{
    size_t i, cut;
    unsigned long n_vec = 0, n_skip = 0;
    check_init();
    for (i = 0; i < CV_COUNT; i++) {
        const cdr_vec *v = &CV[i];
        cdr_writer w;
        cdr_error err;
        cv_ctx c;
        size_t n = 0, cap, k;
        strncpy(context, v->name, sizeof context - 1);
        n_vec++;
        if (v->gen_error != NULL) {
            CHECK(0, "generator could not read the vector");
            continue;
        }
        if (v->skip != NULL) {
            n_skip++;
            printf_P(PSTR("  skipped: %s [%s]: %s\n"), v->name, v->encoding, v->skip);
            continue;
        }
        if (!CHECK(v->len <= sizeof hex, "vector larger than the RAM buffer")) {
            continue;
        }
        memcpy_P(hex, v->hex, v->len);
        cdr_writer_init(&w, out, v->len + 16, enc_of(hex));
        v->enc(&w);
        CHECK(cdr_writer_finish(&w, v->pad != 0, &n) == CDR_OK && n == v->len && memcmp(out, hex, n) == 0,
              "encode: bytes differ");
        cdr_writer_init(&w, NULL, 0, enc_of(hex));
        v->enc(&w);
        CHECK(cdr_writer_finish(&w, v->pad != 0, &n) == CDR_OK && n == v->len, "counting writer");
        for (cap = 0; cap < v->len; cap++) {
            memset(out, 0xa5, v->len + 16);
            cdr_writer_init(&w, out, cap, enc_of(hex));
            v->enc(&w);
            CHECKV(cdr_writer_finish(&w, v->pad != 0, &n) == CDR_ERR_BUFFER_TOO_SMALL && w.error.offset <= cap &&
                       w.pos <= cap, "capacity %lu", cap);
            for (k = cap; k < v->len + 16 && out[k] == 0xa5; k++) {
            }
            CHECKV(k == v->len + 16, "capacity %lu: wrote past it", cap);
        }
        CHECK(run_dec(v, hex, v->len, false, &c, &err) == CDR_OK && c.mismatches == 0, "decode: error or value differs");
        CHECK(run_walk(v, hex, v->len, &err) == CDR_OK, "type walker");
        if (v->pad == 0) {
            memcpy(out, hex, v->len);
            out[v->len] = 0;
            CHECK(run_dec(v, out, v->len + 1, false, &c, &err) == CDR_ERR_TRAILING_BYTES && err.offset == v->len,
                  "trailing byte");
            CHECK(run_dec(v, out, v->len + 1, true, &c, &err) == CDR_OK && c.mismatches == 0, "allow_trailing");
        } else {
            memcpy(out, hex, v->len - v->pad);
            out[3] = (uint8_t)(out[3] & ~3u);
            CHECK(run_dec(v, out, v->len - v->pad, false, &c, &err) == CDR_OK && c.mismatches == 0, "unpadded");
        }
        for (cut = 0; cut < v->len; cut++) {
            cdr_err e = run_dec(v, hex, cut, false, &c, &err);
            CHECKV((e != CDR_OK || c.mismatches != 0) && err.offset <= cut, "prefix %lu", cut);
            e = run_walk(v, hex, cut, &err);
            CHECKV(e != CDR_ERR_INVALID_TYPE && err.offset <= cut, "prefix %lu: walker", cut);
        }
    }
    check_done(PSTR("cdr"), n_vec, n_skip);
    return 0;
}
