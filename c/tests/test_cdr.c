/*
 * test_cdr.c - tests of the C CDR codec.
 *
 *  1. every entry of vectors/cdr.json whose type the C API covers
 *     (build/cdr_vectors.h, generated from the IDL by gen_cdr_vectors.py):
 *     the generated writer calls give exactly `hex` (the padded C-writer
 *     form when the header's options & 3 say so), also counting only and at
 *     every too-small capacity (buffer_too_small, nothing written past
 *     cap); the generated reader calls decode `hex` back to the same values
 *     and the whole body, and so does the generated type-driven walker; a
 *     trailing byte is trailing_bytes; every prefix and many mutations fail
 *     cleanly (value reader and walker). Entries outside the API are counted
 *     as skipped with the reason.
 *  2. hand-written cases: header errors, alignment in all four encodings,
 *     the spec's wire examples (RTPS ShapeType body, ddsperf KeyedSeq with
 *     and without C-writer padding), strings, bounds, DHEADERs, optionals,
 *     enums with @bit_bound, every decoder error kind with its offset.
 *
 * Exit status 0 iff every check passed.
 */
#include "cdr.h"
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Harness                                                              */
/* ------------------------------------------------------------------ */




static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ------------------------------------------------------------------ */
/* Generated vectors                                                    */
/* ------------------------------------------------------------------ */

typedef struct cv_ctx {
    unsigned mismatches;
    const char *first;
} cv_ctx;

#define CV_EXPECT(cond, path)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            c->mismatches++;                                                                       \
            if (c->first == NULL) {                                                                \
                c->first = (path);                                                                 \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static float cv_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static double cv_f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

static uint32_t cv_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint64_t cv_f64_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

typedef struct cdr_vec {
    const char *name;
    const char *encoding;
    const uint8_t *hex;
    size_t len;
    unsigned pad; /* options & 3 of the vector */
    void (*enc)(cdr_writer *w);
    void (*dec)(cdr_reader *r, cv_ctx *c);
    void (*walk)(cdr_reader *r);
    const char *skip;
    const char *gen_error;
} cdr_vec;

#include "cdr_vectors.h"

static unsigned enc_of(const uint8_t *hex)
{
    return ((hex[1] & 1u) ? 0u : 1u) | ((hex[1] & 0xfeu) >= CDR_REP_CDR2 ? 2u : 0u);
}

/* Read with the generated type-driven walker; returns the error. */
static cdr_err run_walk(const cdr_vec *v, const uint8_t *p, size_t n, cdr_error *err)
{
    cdr_reader r;
    cdr_reader_init(&r, p, n);
    v->walk(&r);
    cdr_reader_finish(&r, false);
    *err = r.error;
    if (r.pos > n || r.end > n) {
        err->kind = CDR_ERR_INVALID_TYPE; /* reported as a failure below */
    }
    return err->kind;
}

/* Decode with the generated reader; returns the error kind (mismatches in *c). */
static cdr_err run_dec(const cdr_vec *v, const uint8_t *p, size_t n, bool allow_trailing, cv_ctx *c, cdr_error *err)
{
    cdr_reader r;
    c->mismatches = 0;
    c->first = NULL;
    cdr_reader_init(&r, p, n);
    v->dec(&r, c);
    cdr_reader_finish(&r, allow_trailing);
    *err = r.error;
    return r.error.kind;
}

static void test_vectors(void)
{
    size_t i, cut;
    unsigned n_ok = 0, n_skip = 0, n_bad = 0, n_prefix = 0, n_mut = 0;
    for (i = 0; i < CV_COUNT; i++) {
        const cdr_vec *v = &CV[i];
        uint8_t *out;
        cdr_writer w;
        cdr_error err;
        cv_ctx c;
        size_t n = 0, cap;
        context = v->name;
        if (v->gen_error != NULL) {
            n_bad++;
            CHECK(0, "[%s] generator: %s", v->encoding, v->gen_error);
            continue;
        }
        if (v->skip != NULL) {
            n_skip++;
            printf("  skipped: %s [%s]: %s\n", v->name, v->encoding, v->skip);
            continue;
        }
        n_ok++;
        out = (uint8_t *)malloc(v->len + 16);
        if (!out) {
            exit(3);
        }
        /* encode */
        cdr_writer_init(&w, out, v->len + 16, enc_of(v->hex));
        v->enc(&w);
        CHECK(cdr_writer_finish(&w, v->pad != 0, &n) == CDR_OK && n == v->len && memcmp(out, v->hex, n) == 0,
              "[%s] encode %s at %zu:\n  ours %s\n  want %s", v->encoding, cdr_err_name(w.error.kind), w.error.offset,
              hexs(out, w.pos), hexs(v->hex, v->len));
        cdr_writer_init(&w, NULL, 0, enc_of(v->hex));
        v->enc(&w);
        CHECK(cdr_writer_finish(&w, v->pad != 0, &n) == CDR_OK && n == v->len, "[%s] counting writer %zu", v->encoding, n);
        for (cap = 0; cap < v->len; cap++) {
            size_t k;
            int canary = 1;
            memset(out, 0xa5, v->len + 16);
            cdr_writer_init(&w, out, cap, enc_of(v->hex));
            v->enc(&w);
            CHECK(cdr_writer_finish(&w, v->pad != 0, &n) == CDR_ERR_BUFFER_TOO_SMALL && w.error.offset <= cap && w.pos <= cap,
                  "[%s] cap %zu: %s at %zu", v->encoding, cap, cdr_err_name(w.error.kind), w.error.offset);
            for (k = cap; k < v->len + 16; k++) {
                canary &= out[k] == 0xa5;
            }
            CHECK(canary, "[%s] cap %zu: wrote past the capacity", v->encoding, cap);
        }
        /* decode */
        CHECK(run_dec(v, v->hex, v->len, false, &c, &err) == CDR_OK && c.mismatches == 0,
              "[%s] decode: %s at %zu, %u mismatches (first %s)", v->encoding, cdr_err_name(err.kind), err.offset,
              c.mismatches, c.first ? c.first : "-");
        CHECK(run_walk(v, v->hex, v->len, &err) == CDR_OK, "[%s] type walker: %s at %zu", v->encoding, cdr_err_name(err.kind),
              err.offset);
        if (v->pad == 0) {
            memcpy(out, v->hex, v->len);
            out[v->len] = 0;
            CHECK(run_dec(v, out, v->len + 1, false, &c, &err) == CDR_ERR_TRAILING_BYTES && err.offset == v->len,
                  "[%s] trailing byte: %s at %zu", v->encoding, cdr_err_name(err.kind), err.offset);
            CHECK(run_dec(v, out, v->len + 1, true, &c, &err) == CDR_OK && c.mismatches == 0, "[%s] allow_trailing", v->encoding);
        } else {
            /* the same value without the C writer's padding (cyclonedds-python form) */
            memcpy(out, v->hex, v->len - v->pad);
            out[3] = (uint8_t)(out[3] & ~3u);
            CHECK(run_dec(v, out, v->len - v->pad, false, &c, &err) == CDR_OK && c.mismatches == 0, "[%s] unpadded", v->encoding);
        }
        /* every prefix: an error (or a mismatch), never a crash; offsets in range */
        for (cut = 0; cut < v->len; cut++) {
            cdr_err e = run_dec(v, v->hex, cut, false, &c, &err);
            CHECK((e != CDR_OK || c.mismatches != 0 || cut == v->len) && err.offset <= cut, "[%s] prefix %zu: %s at %zu",
                  v->encoding, cut, cdr_err_name(e), err.offset);
            e = run_walk(v, v->hex, cut, &err);
            CHECK(e != CDR_ERR_INVALID_TYPE && err.offset <= cut, "[%s] prefix %zu: walker %s at %zu", v->encoding, cut,
                  cdr_err_name(e), err.offset);
            n_prefix++;
        }
        /* mutations */
        for (cut = 0; cut < 300; cut++) {
            size_t at, k, muts = 1 + (size_t)(next_rand() % 3);
            cdr_err e;
            memcpy(out, v->hex, v->len);
            for (k = 0; k < muts; k++) {
                at = (size_t)(next_rand() % v->len);
                out[at] = (uint8_t)(next_rand() % 3 == 0 ? 0xff : next_rand());
            }
            e = run_dec(v, out, v->len, false, &c, &err);
            CHECK(e == CDR_OK || (err.offset <= v->len && err.kind == e), "[%s] mutation: %s at %zu", v->encoding,
                  cdr_err_name(e), err.offset);
            e = run_walk(v, out, v->len, &err);
            CHECK(e != CDR_ERR_INVALID_TYPE && (e == CDR_OK || err.offset <= v->len), "[%s] mutation: walker %s at %zu",
                  v->encoding, cdr_err_name(e), err.offset);
            n_mut++;
        }
        free(out);
    }
    context = "";
    printf("cdr vectors: %u entries: %u encoded and decoded byte-identically, %u skipped (outside the C API), "
           "%u unreadable; %u prefixes, %u mutations\n",
           (unsigned)CV_COUNT, n_ok, n_skip, n_bad, n_prefix, n_mut);
}

/* ------------------------------------------------------------------ */
/* Hand-written cases                                                   */
/* ------------------------------------------------------------------ */

static void expect_bytes(const char *what, cdr_writer *w, bool pad, const char *want_hex)
{
    uint8_t want[512];
    size_t wn = unhex(want_hex, want), n = 0;
    cdr_err e = cdr_writer_finish(w, pad, &n);
    CHECK(e == CDR_OK && n == wn && memcmp(w->buf, want, wn) == 0, "%s: %s\n  ours %s\n  want %s", what, cdr_err_name(e),
          hexs(w->buf, w->pos), hexs(want, wn));
}

/* @final struct Align { octet a; long long b; octet c; double d; unsigned short e; long f; } */
static void write_align(cdr_writer *w)
{
    cdr_write_header(w, CDR_FINAL);
    cdr_write_u8(w, 1);
    cdr_write_i64(w, -2);
    cdr_write_u8(w, 3);
    cdr_write_f64(w, 4.5);
    cdr_write_u16(w, 65535);
    cdr_write_i32(w, INT32_MIN);
}

static void test_layouts(void)
{
    uint8_t buf[512];
    cdr_writer w;
    cdr_reader r;
    cdr_mark m;
    int k;
    /* Align: XCDR1 body 40 bytes (8-byte alignment), XCDR2 32 (4) */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    write_align(&w);
    expect_bytes("Align XCDR1-LE", &w, false,
                 "00010000 01000000000000 00feffffffffffffff 03000000000000 000000000000001240 ffff 0000 00000080");
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR2_BE);
    write_align(&w);
    expect_bytes("Align XCDR2-BE", &w, false, "00060000 01000000 fffffffffffffffe 03000000 4012000000000000 ffff0000 80000000");
    /* RTPS 2.3 10.7 ShapeType body */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_string(&w, "BLUE", 4);
    cdr_write_i32(&w, 34);
    cdr_write_i32(&w, 100);
    cdr_write_i32(&w, 24);
    expect_bytes("ShapeType", &w, false, "00010000 05000000 424c5545 00000000 22000000 64000000 18000000");
    /* ddsperf KeyedSeq on the wire: plain (size 32) and C-writer padded (size 33) */
    for (k = 20; k <= 21; k++) {
        uint8_t bag[21];
        char want[200];
        int j;
        memset(bag, 0xee, sizeof bag);
        cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
        cdr_write_header(&w, CDR_FINAL);
        cdr_write_u32(&w, 1);
        cdr_write_u32(&w, 0);
        cdr_write_octets(&w, bag, (size_t)k);
        strcpy(want, k == 20 ? "00010000 01000000 00000000 14000000" : "00010003 01000000 00000000 15000000");
        for (j = 0; j < k; j++) {
            strcat(want, "ee");
        }
        if (k == 21) {
            strcat(want, "000000");
        }
        expect_bytes("KeyedSeq", &w, true, want);
        CHECK(cdr_reader_init(&r, buf, w.pos) == CDR_OK && r.body_end == w.pos - (k == 21 ? 3u : 0u), "padded body end");
    }
    /* XCDR2 sequence<string> gets a DHEADER; sequence<long> does not */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR2_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_begin_sequence(&w, 2, false, &m);
    cdr_write_string(&w, "a", 1);
    cdr_write_string(&w, "", 0);
    cdr_end_sequence(&w, &m);
    cdr_begin_sequence(&w, 1, true, &m);
    cdr_write_i32(&w, -1);
    cdr_end_sequence(&w, &m);
    expect_bytes("XCDR2 sequences", &w, false, "00070000 11000000 02000000 02000000 6100 0000 01000000 00 000000 01000000 ffffffff");
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_begin_sequence(&w, 2, false, &m);
    cdr_write_string(&w, "a", 1);
    cdr_write_string(&w, "", 0);
    cdr_end_sequence(&w, &m);
    expect_bytes("XCDR1 sequence<string>", &w, false, "00010000 02000000 02000000 6100 0000 01000000 00");
    /* @appendable: XCDR1 as final (id 0x0001), XCDR2 D_CDR2 with a DHEADER */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR2_LE);
    cdr_write_header(&w, CDR_APPENDABLE);
    cdr_begin_appendable(&w, &m);
    cdr_write_i32(&w, 7);
    cdr_write_f64(&w, 0.25);
    cdr_write_string(&w, "app", 3);
    cdr_end_appendable(&w, &m);
    expect_bytes("AppSensor XCDR2", &w, false, "00090000 14000000 07000000 000000000000d03f 04000000 61707000");
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_BE);
    cdr_write_header(&w, CDR_APPENDABLE);
    cdr_begin_appendable(&w, &m);
    cdr_write_i32(&w, 7);
    cdr_end_appendable(&w, &m);
    expect_bytes("appendable XCDR1", &w, false, "00000000 00000007");
    /* @optional: XCDR2 presence byte; XCDR1 extended parameter header */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR2_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_i32(&w, 1);
    cdr_begin_optional(&w, 1, true, &m);
    cdr_write_f32(&w, 2.5f);
    cdr_end_optional(&w, &m);
    cdr_begin_optional(&w, 2, false, &m);
    cdr_end_optional(&w, &m);
    expect_bytes("optional XCDR2", &w, false, "00070000 01000000 01 000000 00002040 00");
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_u8(&w, 1);
    cdr_begin_optional(&w, 1, true, &m);
    cdr_write_f64(&w, 2.5); /* aligned from the member start: no padding */
    cdr_end_optional(&w, &m);
    cdr_begin_optional(&w, 2, false, &m);
    cdr_end_optional(&w, &m);
    cdr_write_u8(&w, 7);
    expect_bytes("optional XCDR1", &w, false,
                 "00010000 01 000000 017f0800 01000000 08000000 0000000000000440 017f0800 02000000 00000000 07");
    /* read it back */
    {
        bool present;
        double d;
        uint8_t u;
        CHECK(cdr_reader_init(&r, buf, w.pos) == CDR_OK, "init");
        cdr_read_u8(&r, &u);
        cdr_begin_read_optional(&r, &present, &m);
        CHECK(present, "present");
        cdr_read_f64(&r, &d);
        cdr_end_read_optional(&r, &m);
        CHECK(d == 2.5, "optional value");
        cdr_begin_read_optional(&r, &present, &m);
        CHECK(!present, "absent");
        cdr_end_read_optional(&r, &m);
        cdr_read_u8(&r, &u);
        CHECK(cdr_reader_finish(&r, false) == CDR_OK && u == 7, "optional XCDR1 read: %s at %zu", cdr_err_name(r.error.kind),
              r.error.offset);
    }
    /* enums: 4 bytes; @bit_bound(8) / (16) shrink them in XCDR2 only */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR2_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_enum(&w, 8, 2);
    cdr_write_enum(&w, 16, 1);
    cdr_write_enum(&w, 0, 2);
    expect_bytes("enums XCDR2", &w, false, "00070000 02 00 0100 02000000");
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_enum(&w, 8, 2);
    cdr_write_enum(&w, 16, 1);
    expect_bytes("enums XCDR1", &w, false, "00010000 02000000 01000000");
    /* headerless: alignment from the first byte */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_u8(&w, 1);
    cdr_write_u64(&w, 2);
    expect_bytes("headerless", &w, true, "01000000 00000000 0200000000000000");
    cdr_reader_init_headerless(&r, buf, w.pos, CDR_XCDR1_LE);
    {
        uint8_t u;
        uint64_t x;
        cdr_read_u8(&r, &u);
        cdr_read_u64(&r, &x);
        CHECK(cdr_reader_finish(&r, false) == CDR_OK && x == 2, "headerless read");
    }
}

typedef struct dec_case {
    const char *what;
    const char *hex;
    int op; /* what to read */
    cdr_err kind;
    size_t offset;
} dec_case;

enum { OP_U32, OP_BOOL, OP_STRING, OP_BSTRING4, OP_OCTETS, OP_SEQ_LONG, OP_SEQ_STR_V2, OP_ENUM, OP_OPT, OP_U64_FINISH, OP_APP_U64 };

static cdr_err run_case(const dec_case *c, cdr_error *err)
{
    static const int32_t colors[3] = {0, 1, 2};
    uint8_t buf[256];
    size_t n = unhex(c->hex, buf);
    cdr_reader r;
    cdr_mark m;
    cdr_view v;
    uint32_t u, count;
    uint64_t x;
    int32_t e;
    bool b;
    if (cdr_reader_init(&r, buf, n) == CDR_OK) {
        switch (c->op) {
        case OP_U32: cdr_read_u32(&r, &u); break;
        case OP_BOOL: cdr_read_bool(&r, &b); break;
        case OP_STRING: cdr_read_string(&r, CDR_UNBOUNDED, &v); break;
        case OP_BSTRING4: cdr_read_string(&r, 4, &v); break;
        case OP_OCTETS: cdr_read_octets(&r, 4, &v); break;
        case OP_SEQ_LONG:
            cdr_begin_read_sequence(&r, true, 4, 3, &count, &m);
            while (count-- > 0 && r.error.kind == CDR_OK) {
                cdr_read_u32(&r, &u);
            }
            cdr_end_read_sequence(&r, &m);
            break;
        case OP_SEQ_STR_V2:
            cdr_begin_read_sequence(&r, false, 5, CDR_UNBOUNDED, &count, &m);
            while (count-- > 0 && r.error.kind == CDR_OK) {
                cdr_read_string(&r, CDR_UNBOUNDED, &v);
            }
            cdr_end_read_sequence(&r, &m);
            break;
        case OP_ENUM: cdr_read_enum(&r, 0, colors, 3, &e); break;
        case OP_OPT:
            cdr_begin_read_optional(&r, &b, &m);
            if (b) {
                cdr_read_u64(&r, &x);
            }
            cdr_end_read_optional(&r, &m);
            break;
        case OP_U64_FINISH: cdr_read_u64(&r, &x); break;
        case OP_APP_U64:
            cdr_begin_read_appendable(&r, &m);
            cdr_read_u64(&r, &x);
            cdr_end_read_appendable(&r, &m);
            break;
        }
        cdr_reader_finish(&r, false);
    }
    *err = r.error;
    return r.error.kind;
}

static void test_decode_errors(void)
{
    static const dec_case cases[] = {
        {"empty", "", OP_U32, CDR_ERR_UNEXPECTED_END, 0},
        {"3-byte header", "000100", OP_U32, CDR_ERR_UNEXPECTED_END, 3},
        {"header byte 0", "01010000", OP_U32, CDR_ERR_INVALID_HEADER, 0},
        {"unknown representation", "00040000", OP_U32, CDR_ERR_INVALID_HEADER, 1},
        {"padding larger than the body", "00010003 00", OP_U32, CDR_ERR_INVALID_HEADER, 3},
        {"truncated u32", "00010000 0100", OP_U32, CDR_ERR_UNEXPECTED_END, 6},
        {"truncated u32 before padding", "00010002 01000000", OP_U32, CDR_ERR_UNEXPECTED_END, 6},
        {"trailing", "00010000 01000000 00", OP_U32, CDR_ERR_TRAILING_BYTES, 8},
        {"padding accepted", "00010003 01000000 000000", OP_U32, CDR_OK, 0},
        {"bool 2", "00010000 02", OP_BOOL, CDR_ERR_INVALID_BOOL, 4},
        {"string length 0", "00010000 00000000", OP_STRING, CDR_ERR_INVALID_STRING, 4},
        {"string without NUL", "00010000 02000000 6162", OP_STRING, CDR_ERR_INVALID_STRING, 9},
        {"string past the end", "00010000 05000000 6162", OP_STRING, CDR_ERR_UNEXPECTED_END, 10},
        {"string invalid UTF-8", "00010000 04000000 61ff6200", OP_STRING, CDR_ERR_INVALID_UTF8, 9},
        {"string overlong UTF-8", "00010000 03000000 c08000", OP_STRING, CDR_ERR_INVALID_UTF8, 8},
        {"string<4> with 5", "00010000 06000000 6162636465 00", OP_BSTRING4, CDR_ERR_BOUND_EXCEEDED, 4},
        {"string<4> with 4", "00010000 05000000 61626364 00", OP_BSTRING4, CDR_OK, 0},
        {"sequence<octet,4> with 5", "00010000 05000000 0102030405", OP_OCTETS, CDR_ERR_BOUND_EXCEEDED, 4},
        {"octets past the end", "00010000 04000000 010203", OP_OCTETS, CDR_ERR_LENGTH_LIMIT, 4},
        {"sequence<long,3> with 4", "00010000 04000000", OP_SEQ_LONG, CDR_ERR_BOUND_EXCEEDED, 4},
        {"sequence count past the end", "00010000 03000000 01000000 02000000", OP_SEQ_LONG, CDR_ERR_LENGTH_LIMIT, 4},
        {"sequence<long>", "00000000 00000002 00000001 00000002", OP_SEQ_LONG, CDR_OK, 0},
        {"DHEADER past the end", "00070000 20000000 01000000", OP_SEQ_STR_V2, CDR_ERR_UNEXPECTED_END, 12},
        {"string past its DHEADER", "00070000 09000000 01000000 05000000 61626364 00", OP_SEQ_STR_V2, CDR_ERR_LENGTH_MISMATCH,
         16},
        {"DHEADER longer than the elements", "00070000 0a000000 01000000 01000000 00 00", OP_SEQ_STR_V2, CDR_OK, 0},
        {"enum 3 of RED, GREEN, BLUE", "00010000 03000000", OP_ENUM, CDR_ERR_INVALID_ENUM, 4},
        {"XCDR2 optional flag 2", "00070000 02", OP_OPT, CDR_ERR_INVALID_BOOL, 4},
        {"XCDR1 optional: PID_LIST_END", "00010000 023f0000", OP_OPT, CDR_ERR_INVALID_PARAMETER, 4},
        {"XCDR1 optional: extended length 4", "00010000 013f0400 00000000", OP_OPT, CDR_ERR_INVALID_PARAMETER, 4},
        {"XCDR1 optional: member past its length", "00010000 017f0800 00000000 04000000 0000000000000000", OP_OPT,
         CDR_ERR_LENGTH_MISMATCH, 16},
        {"XCDR1 optional: short form", "00010000 01000800 0100000000000000", OP_OPT, CDR_OK, 0},
        {"XCDR1 optional: absent", "00010000 017f0800 00000000 00000000", OP_OPT, CDR_OK, 0},
        {"XCDR1 u64", "00010000 0100000000000000", OP_U64_FINISH, CDR_OK, 0},
        {"XCDR2 u64 aligned to 4", "00070000 0100000000000000", OP_U64_FINISH, CDR_OK, 0},
        {"XCDR2 appendable DHEADER short", "00090000 04000000 01000000 00000000", OP_APP_U64, CDR_ERR_LENGTH_MISMATCH, 8},
        {"XCDR2 appendable", "00090000 08000000 0100000000000000", OP_APP_U64, CDR_OK, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cdr_error err;
        cdr_err e;
        context = cases[i].what;
        e = run_case(&cases[i], &err);
        CHECK(e == cases[i].kind && (e == CDR_OK || err.offset == cases[i].offset), "expected %s at %zu, got %s at %zu",
              cdr_err_name(cases[i].kind), cases[i].offset, cdr_err_name(e), err.offset);
    }
    context = "";
}

static void test_encode_errors(void)
{
    uint8_t buf[64];
    cdr_writer w;
    cdr_mark m;
    size_t n;
    /* bound */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_u8(&w, 1);
    CHECK(cdr_write_string_bounded(&w, "abcde", 5, 4) == CDR_ERR_BOUND_EXCEEDED && w.error.offset == 5, "bound");
    CHECK(cdr_write_u32(&w, 1) == CDR_ERR_BOUND_EXCEEDED && w.pos == 5, "sticky");
    /* header after data */
    cdr_writer_init(&w, buf, sizeof buf, CDR_XCDR1_LE);
    cdr_write_u8(&w, 1);
    CHECK(cdr_write_header(&w, CDR_FINAL) == CDR_ERR_TYPE_MISMATCH, "late header");
    /* too small: all-or-nothing writes, offset = position */
    cdr_writer_init(&w, buf, 12, CDR_XCDR1_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_write_u8(&w, 1);
    CHECK(cdr_write_u32(&w, 5) == CDR_OK && w.pos == 12, "fits");
    CHECK(cdr_write_string(&w, "x", 1) == CDR_ERR_BUFFER_TOO_SMALL && w.error.offset == 12 && w.pos == 12, "too small");
    CHECK(cdr_writer_finish(&w, true, &n) == CDR_ERR_BUFFER_TOO_SMALL && n == 0, "finish keeps the error");
    /* a DHEADER patched only when it fits */
    cdr_writer_init(&w, buf, 10, CDR_XCDR2_LE);
    cdr_write_header(&w, CDR_FINAL);
    cdr_begin_sequence(&w, 1, false, &m);
    cdr_write_string(&w, "abc", 3);
    CHECK(cdr_end_sequence(&w, &m) == CDR_ERR_BUFFER_TOO_SMALL, "dheader");
    /* names */
    CHECK(strcmp(cdr_err_name(CDR_ERR_LENGTH_MISMATCH), "length_mismatch") == 0 &&
              strcmp(cdr_err_name(CDR_ERR_INVALID_TYPE), "invalid_type") == 0 && strcmp(cdr_err_name(CDR_OK), "ok") == 0 &&
              strcmp(cdr_err_name((cdr_err)77), "unknown") == 0,
          "names");
}

int main(void)
{
    test_vectors();
    test_layouts();
    test_decode_errors();
    test_encode_errors();
    printf("%lu checks, %lu failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
